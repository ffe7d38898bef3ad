"""The profile texts the oracle and the simulated user see, on hand-built personas."""

from heedbench.solvers.prefdisco.profile import NOT_SPECIFIED, paper_profile
from heedbench.solvers.prefdisco.user import Exchange, user_prompt

PERSONA = {
    "name": "Ada Brook",
    "minimal_necessary_description": "A nurse who studies statistics at night",
    "demographics": {"age": 34, "occupation": "Nurse", "hobbies": ["running", "chess"]},
    "domain_expertise": ["triage"],
    "educational_profile": {
        "knowledge_level": "Intermediate",
        "common_errors": "Drops signs",
        "cognitive_features": {"learning_style": "Visual", "problem_solving": "Trial and error"},
        "affective_features": {"anxiety_triggers": "Timed tests", "motivation": "Promotion"},
    },
    "personality_big5": {
        "openness": {"score": 4, "description": "Enjoys new methods"},
        "extraversion": {"score": 2, "description": "Quiet in groups"},
        "neuroticism": {"score": 3, "description": "Worries before exams"},
    },
    "backstory": "Ada retrained after ten years on a ward.",
}
PREFERENCES = {
    "Worked Examples": {
        "name": "Worked Examples",
        "description": "How many fully worked examples the response includes.",
        "value_range": "1-5 (1: none, 5: several)",
        "value": 4,
        "local_importance": 5,
        "justification": "She learns by copying a worked case.",
        "type": "personal",
        "problem_context": "math problem",
    }
}


def test_paper_profile_holds_the_reference_fields_and_nothing_it_leaves_out() -> None:
    text = paper_profile(PERSONA, PREFERENCES)
    for shown in ("- Problem-solving style: Trial and error", "- Anxiety triggers: Timed tests",
                  "- Motivation: Promotion", "- Openness: Enjoys new methods",
                  "- Social style: Quiet in groups", "Backstory: Ada retrained",
                  "- Hobbies: running, chess", "- Areas of expertise: triage"):  # fmt: skip
        assert shown in text
    # fields the reference's profile does not show are left out
    for hidden in ("Drops signs", "Worries before exams"):
        assert hidden not in text
    assert text.index("How they learn") < text.index("Personality") < text.index("Backstory")


def test_a_missing_field_is_shown_as_not_specified_as_the_reference_does() -> None:
    text = paper_profile(PERSONA, PREFERENCES)
    for line in ("- Location", "- Confidence", "- Conscientiousness"):
        assert f"{line}: {NOT_SPECIFIED}" in text
    assert f"Backstory: {NOT_SPECIFIED}" in paper_profile({}, PREFERENCES)


def test_the_preferences_are_printed_as_the_release_stores_them() -> None:
    text = paper_profile(PERSONA, PREFERENCES)
    assert text.endswith(f"Preferences: {PREFERENCES}")
    assert "'justification': 'She learns by copying a worked case.'" in text


def test_the_paper_user_sees_no_task_and_the_budgeted_user_does() -> None:
    def prompt(protocol: str) -> str:
        return user_prompt(
            protocol=protocol,  # type: ignore[arg-type]
            persona=PERSONA,
            preferences=PREFERENCES,
            user_type="passive",
            task="Solve |x - 3| = 5 for x.",
            exchanges=[Exchange("Do you like worked examples?", "Yes.")],
            question="How many?",
        )

    assert "|x - 3| = 5" not in prompt("paper") and "|x - 3| = 5" in prompt("budgeted")
    # the reference's example of a preference stated when asked: a short sentence, not a word
    assert '(for example "I\'d like a simple one.")' in prompt("paper")
    for protocol in ("paper", "budgeted"):
        text = prompt(protocol)
        assert "message 1 — the assistant>>>\nDo you like worked examples?" in text
        assert "message 2 — you>>>\nYes." in text
        assert "message 3 — the assistant>>>\nHow many?" in text
