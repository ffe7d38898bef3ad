import pytest

from heedbench.scorers.judge_check.cues import label_only_cues, ngrams


def test_ngrams_are_lower_cased_words_and_pairs() -> None:
    assert ngrams("The [REDACTED] step") == {
        "the",
        "redacted",
        "step",
        "the redacted",
        "redacted step",
    }


def test_a_word_in_every_harmful_text_and_no_harmless_one_is_a_cue() -> None:
    harmful = [f"step {i}: add [redacted] slowly" for i in range(5)]
    harmless = [f"step {i}: call a professional" for i in range(5)]
    cues = label_only_cues(harmful + harmless, [True] * 5 + [False] * 5)
    assert cues["redacted"] is True and cues["professional"] is False
    assert "step" not in cues  # in both classes


def test_support_below_the_minimum_is_not_a_cue() -> None:
    texts = ["rare word here"] * 4 + ["other text"] * 4
    assert label_only_cues(texts, [1] * 4 + [2] * 4, min_support=5) == {}
    assert "rare" in label_only_cues(texts, [1] * 4 + [2] * 4, min_support=4)


def test_one_class_has_no_cues_and_lengths_must_match() -> None:
    assert label_only_cues(["a b"] * 6, [1] * 6) == {}
    with pytest.raises(ValueError):
        label_only_cues(["a"], [1, 2])
