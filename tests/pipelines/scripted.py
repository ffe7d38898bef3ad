"""Scripted build models: chatty writers, fenced replies, sometimes malformed, blocked or glitching.

They run as a registered model provider (`buildtest/<name>`), so a log's role bindings can be
re-created by `inspect eval-retry` in the same process: each name's behaviour is looked up in
`SCRIPTS` at call time, and `CALLS` counts the calls each name received.
"""

import json
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    Model,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    get_model,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from heedbench.scorers.judge.blocks import read_blocks

Script = Callable[[str], "str | ModelOutput"]
SCRIPTS: dict[str, Script] = {}
CALLS: Counter[str] = Counter()


@modelapi(name="buildtest")
class BuildTestAPI(ModelAPI):
    """Replies with `SCRIPTS[model name](prompt)`."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        prompt = "\n".join(message.text for message in input)
        CALLS[self.model_name] += 1
        reply = SCRIPTS[self.model_name](prompt)
        output = (
            reply
            if isinstance(reply, ModelOutput)
            else ModelOutput.from_content(model=self.model_name, content=reply)
        )
        output.usage = ModelUsage(input_tokens=len(prompt) // 4 + 1, output_tokens=50,
                                  total_tokens=len(prompt) // 4 + 51)  # fmt: skip
        return output


def model(name: str, script: Script) -> Model:
    SCRIPTS[name] = script
    return get_model(f"buildtest/{name}", memoize=False)


def blocked(name: str = "blocked") -> ModelOutput:
    return ModelOutput.from_content(model=name, content="blocked", stop_reason="content_filter")


def empty(name: str = "glitch") -> ModelOutput:
    return ModelOutput.from_content(model=name, content="")


QUERY = re.compile(r"My question: (.*)", re.DOTALL)

# -- carryon ------------------------------------------------------------------------------------

SHARED_TIPS = [
    ("Practical Advice", "recommends keeping a dated written record of every incident"),
    ("Resource", "names a support organisation the person can contact"),
]
OWN_TIPS = {
    "gen_a": [("Legal Framework", "explains which law applies to the situation"),
              ("Case Study", "describes a documented case that shows the risk")],
    "gen_b": [("Conceptual Explanation", "defines the key term the question turns on"),
              ("Practical Advice", "suggests a calm script for the first conversation")],
}  # fmt: skip


def generator(name: str) -> Script:
    """A chatty answer listing TIP lines: two shared with the other generator, two its own."""

    def reply(prompt: str) -> str:
        found = QUERY.search(prompt)
        topic = found.group(1).strip()[:40] if found else "this"
        tips = [*SHARED_TIPS, *OWN_TIPS.get(name, [])]
        lines = "\n".join(f"- TIP[{category}]: {text}" for category, text in tips)
        return (f"Thanks for the context, that makes sense. About {topic!r}, here is what "
                f"I would do:\n\n{lines}\n\nI hope this helps, and good luck!")  # fmt: skip

    return reply


TIP = re.compile(r"TIP\[(.*?)\]: (.*)")


def extractor(prompt: str) -> str:
    """Turns the answer's TIP lines into items: the reply object, in a code fence."""
    answer = read_blocks(prompt)[-1][1]
    items = [{"question": f"[{category}] Does the response {text}?", "category": category}
             for category, text in TIP.findall(answer)]  # fmt: skip
    return "```json\n" + json.dumps({"items": items}, indent=1) + "\n```"


CANDIDATE = re.compile(r"^(c\d+) \[(.*?)\] (.*)$", re.MULTILINE)
NUMBERED = re.compile(r"^(\d+)\. \[(.*?)\] (.*)$", re.MULTILINE)


def merger(drop_first_try: bool = False) -> Script:
    """Merges candidates with the same question; refines by adding "explicitly".

    With `drop_first_try`, the first merge attempt leaves the last candidate out (the reply
    is rejected and the merger is asked again, with the problem named).
    """

    def reply(prompt: str) -> str:
        block = read_blocks(prompt)[-1][1]
        if "Candidate items" in prompt:
            groups: dict[str, dict[str, Any]] = {}
            found = CANDIDATE.findall(block)
            if drop_first_try and "could not be read" not in prompt:
                found = found[:-1]
            for cid, category, question in found:
                group = groups.setdefault(question, {"question": question, "category": category,
                                                     "sources": []})  # fmt: skip
                group["sources"].append(cid)
            return json.dumps({"items": list(groups.values())})
        items = [{"number": int(n), "category": c,
                  "question": q.replace("Does the response ", "Does the response explicitly ")}
                 for n, c, q in NUMBERED.findall(block)]  # fmt: skip
        return json.dumps({"items": items})

    return reply


# -- prefdisco ----------------------------------------------------------------------------------

FIRST = ["Amara", "Lars", "Keiko", "Tomas", "Priya", "Diego", "Fatima", "Oskar"]
LAST = ["Okafor", "Nilsson", "Tanaka", "Novak", "Raman", "Herrera", "Haddad", "Berg"]
BRIEF = re.compile(r"- age: (\d+)\n- lives in: (.*)\n- works or studies in: (.*)\n")


def persona_writer(prompt: str) -> str:
    """A persona that keeps to its brief (name and wording follow from it)."""
    age, region, field = BRIEF.search(prompt).groups()  # type: ignore[union-attr]
    key = sum(map(ord, region + field))
    name = f"{FIRST[key % len(FIRST)]} {LAST[(key // 7) % len(LAST)]}"

    def features(*keys: str) -> dict[str, str]:
        return {k: f"{k.replace('_', ' ')} of someone in {field}" for k in keys}

    persona = {
        "name": name,
        "minimal_necessary_description": f"{age}-year-old from {region} working in {field}",
        "backstory": f"Grew up in {region} and has spent years in {field}.",
        "domain_expertise": [field, f"{region} history"],
        "demographics": {"age": int(age), "occupation": f"worker in {field}",
                         "location": region, "family_context": "lives with family",
                         "hobbies": ["walking", "reading"]},
        "educational_profile": {
            "knowledge_level": "intermediate", "common_errors": "rushes the last step",
            "cognitive_features": features("learning_style", "attention_span",
                                           "memory_strengths", "problem_solving",
                                           "collaboration"),
            "affective_features": features("confidence", "anxiety_triggers", "motivation",
                                           "challenge_attitude"),
            "metacognitive_features": features("self_awareness", "self_regulation",
                                               "reflection", "self_assessment"),
        },
        "personality_big5": {t: {"score": 3, "description": f"moderate {t}"}
                             for t in ("openness", "conscientiousness", "extraversion",
                                       "agreeableness", "neuroticism")},
    }  # fmt: skip
    return f"```json\n{json.dumps(persona)}\n```"


COUNT = re.compile(r"Give exactly (\d+) dimensions")
EXPERTISE = re.compile(r"- (\d+) to (\d+) dimensions have type \"expertise\"")
PERSONAL = ["Explanation Depth", "Worked Examples", "Visual Structure", "Encouragement",
            "Pace", "Formality", "Analogies", "Summary First"]  # fmt: skip
IMPORTANCE = [5, 3, 2, 4, 1]
DIMENSION_LINE = re.compile(r"^- (.+?): ", re.MULTILINE)


def profiler(wrong_count_first: bool = False) -> Script:
    """Profiles with the asked count (first attempt one short, if asked), then rubrics."""

    def reply(prompt: str) -> str:
        if "scoring rubric" in prompt:
            listing = prompt.split("why):", 1)[1].split("For every dimension", 1)[0]
            names = DIMENSION_LINE.findall(listing)
            criteria = [{"preference": n, "description": f"matches the preferred {n}",
                         "level_1": f"ignores {n}", "level_3": f"partly meets {n}",
                         "level_5": f"fully meets {n}"} for n in names]  # fmt: skip
            return json.dumps({"criteria": criteria})
        count = int(COUNT.search(prompt).group(1))  # type: ignore[union-attr]
        low = int(EXPERTISE.search(prompt).group(1))  # type: ignore[union-attr]
        if wrong_count_first and "could not be read" not in prompt:
            count -= 1
        names = [f"Preference for Familiarity with Topic {k + 1}" for k in range(low)]
        names += PERSONAL[: count - low]
        dims = [{"name": n, "description": f"how the answer handles {n.lower()}",
                 "value_range": "1-5 (1: low, 3: middle, 5: high)", "value": 1 + k % 5,
                 "local_importance": IMPORTANCE[k % 5], "justification": "fits the persona",
                 "type": "expertise" if k < low else "personal"}
                for k, n in enumerate(names)]  # fmt: skip
        return json.dumps({"dimensions": dims})

    return reply
