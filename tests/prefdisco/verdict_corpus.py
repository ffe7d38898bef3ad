r"""Hand-labelled final responses, for the answer reader that goes by form.

Each case is (response, gold, kind, option set, label, what it shows). The label is what a
careful human reader decides: True (right), False (wrong) or None (no unambiguous
commitment). `CASES` are chatty, hedged and self-correcting answers: the reader, which reads
only answers unambiguous by their form, must never contradict a label (it may leave any case
to the grader). `FORM_CASES` are unambiguous by form, and the reader must decide each as
labelled. `SELF_CORRECTIONS` are the "I'll pick X. Reconsidering ..., though, Y fits" family:
never read as the first answer.
"""

from typing import Literal, NamedTuple

MEDICAL = {"A": "Pneumonia", "B": "Asthma", "C": "Heart failure", "D": "Anaemia"}
NUMBERS = {"A": "3", "B": "4", "C": "5", "D": "6"}
FEELINGS = {"A": "angry", "B": "grateful", "C": "bored"}
OPTION_SETS: dict[str, dict[str, str] | None] = {
    "medical": MEDICAL,
    "numbers": NUMBERS,
    "feelings": FEELINGS,
    "none": None,
}


class Case(NamedTuple):
    response: str
    gold: str
    kind: Literal["math", "multiple_choice"]
    options: str
    expected: bool | None
    shows: str


def math(response: str, gold: str, expected: bool | None, shows: str) -> Case:
    return Case(response, gold, "math", "none", expected, shows)


def choice(
    response: str, gold: str, expected: bool | None, shows: str, options: str = "medical"
) -> Case:
    return Case(response, gold, "multiple_choice", options, expected, shows)


CASES: list[Case] = [
    # -- math: chatty answers ---------------------------------------------------------------
    math("The answer is 13, just like the 13 pills on your tray.", "13", True,
         "prose after a comma does not swallow the number"),
    math("Great question! Adding it all up, the answer is 13. Shout if you want another "
         "example.", "13", True, "chatty wrapper around a plain statement"),
    math("The answer is that we first find the roots 2 and 3, so 4 + 9 = 13", "13", None,
         "prose where the answer should be goes to the grader, not to False"),
    math("The answer is 13 because 4 + 9 = 13.", "13", True, "a reason after the answer"),
    math("The answer is 13 pills.", "13", True, "a plain noun after the number"),
    math("I'd go with 13.", "13", True, "first-person commitment"),
    math("Let's think it through: 4 + 9 gives 13 pills in all.", "13", None,
         "a number in passing is not a commitment"),
    # -- math: words for numbers ------------------------------------------------------------
    math("the answer is thirteen", "13", True, "a number in words"),
    math("So the final answer is thirteen pills.", "13", True, "words and a noun"),
    math("Counting them up, the answer is twenty-one.", "21", True, "hyphenated number words"),
    math("The answer is negative five.", "-5", True, "a negative number in words"),
    math("The answer is one hundred and five.", "105", True, "hundreds with 'and'"),
    math("The answer is twelve.", "13", False, "a wrong number in words is still wrong"),
    math("The answer is one half.", "\\frac{1}{2}", None, "fractions in words go to the grader"),
    # -- math: hedged ---------------------------------------------------------------------
    math("The answer is probably 13, but double-check my arithmetic.", "13", None,
         "a hedge"),
    math("I think the answer might be 13.", "13", None, "'might be' is no commitment"),
    math("The answer is about 0.56.", "\\frac{5}{9}", None, "an approximation"),
    math("The answer is either 12 or 13.", "13", None, "two candidates"),
    math("Is the answer 13? Let me know what you think.", "13", None, "a question"),
    # -- math: LaTeX ----------------------------------------------------------------------
    math("Putting it together, $\\boxed{\\dfrac{5}{9}}$.", "\\frac{5}{9}", True, "boxed dfrac"),
    math("The final answer is $\\frac{5}{9}$, a bit more than a half.", "\\frac{5}{9}", True,
         "dollar-delimited answer with prose after it"),
    math("**Final answer:** $0.5$", "\\frac{1}{2}", True, "decimal against a fraction"),
    math("The final answer is \\(2\\sqrt{3}\\).", "\\sqrt{12}", True, "inline-math delimiters"),
    math("The answer is $(2, 3)$.", "(2,3)", True, "an ordered pair"),
    math("## Final Answer\n\nThe total is $\\boxed{13}$.", "13", True, "heading, then a box"),
    math("**Final answer:**\n\n13", "13", True, "the answer on the line after the label"),
    math("The answer is −5.", "-5", True, "Unicode minus sign"),
    math("The final answer is 12 cm.", "12", True, "a unit"),
    math("The answer is 45°.", "45", True, "a degree sign"),
    math("**Final answer:** 1,024 ways", "1024", True, "thousands separator and unit"),
    math("The answer is 072.", "72", True, "AIME-style leading zero"),
    math("\\boxed{13 \\text{ pills}}", "13", True, "text inside the box"),
    math("The answer is $x^2+1$.", "x^2+1", True, "a symbolic answer written like the gold"),
    math("The answer is $1 + x^2$.", "x^2+1", True,
         "an equal expression in another order (math-verify proves it)"),
    math("The answer is 4 + 9 = 13.", "13", True, "a worked equation ending in the answer"),
    math("The answer is 2x = 6.", "3", None, "an equation that is not the answer itself"),
    math("13", "13", True, "a bare number"),
    math("$\\frac{5}{9}$", "\\frac{5}{9}", True, "a bare LaTeX expression"),
    # -- math: markdown --------------------------------------------------------------------
    math("The answer is **13**.", "13", True, "bold answer"),
    math("**The answer is 13.**", "13", True, "bold sentence"),
    math("Answer: **14**", "13", False, "bold wrong answer"),
    # -- math: multiple mentions, restated and conflicting answers -----------------------------
    math("We get 12 in the first step and 13 in the second. The answer is 13.", "13", True,
         "intermediate numbers are not commitments"),
    math("The answer is 13. To recap for you: the answer is 13.", "13", True,
         "the same answer restated"),
    math("The answer is $\\frac{1}{2}$. As a decimal, the answer is 0.5.", "\\frac{1}{2}", True,
         "the same value restated in another form"),
    math("First I got \\boxed{3}, but after fixing the sign I get \\boxed{\\frac{5}{9}}.",
         "\\frac{5}{9}", None, "two different boxed answers"),
    math("The answer is 12. Actually, wait, the answer is 13.", "13", True,
         "a self-correction: the answer after the correction counts"),
    math("Earlier I said the answer is 12, but my final answer is 13.", "13", True,
         "an explicit final answer beats an earlier mention"),
    math("The answer is 13 at first glance, but final answer: 14.", "13", False,
         "the explicit final answer decides, even when wrong"),
    math("The answer is hidden in the next step. ... Final answer: 13", "13", True,
         "an unclear earlier mention does not spoil the final answer"),
    math("Final answer: it depends on whether you count the lid.", "13", None,
         "prose after 'final answer'"),
    # -- math: wrong answers stated confidently, and near misses -------------------------------
    math("I'm certain: the answer is 14.", "13", False, "confidently wrong"),
    math("\\boxed{14}", "13", False, "a wrong boxed answer"),
    math("The answer is 0.56.", "\\frac{5}{9}", None, "a rounded decimal: the grader decides"),
    math("The answer is 3.14.", "\\pi", None, "pi rounded"),
    math("The answer is 25%.", "0.25", True, "a percentage against the same fraction"),
    math("The answer is 25%.", "25", True, "a percentage against the same number"),
    math("The answer is 2 and 3.", "2, 3", None, "two numbers joined by 'and'"),
    math("The answer is 1 in 6.", "\\frac{1}{6}", None, "odds in words"),
    math("The answer is 10 squared.", "100", None, "a number changed by the next word"),
    math("The answer is 3 out of 4.", "\\frac{3}{4}", None, "a ratio in words"),
    math("The answer is 13-14.", "13", None, "a range is not one answer"),
    math("Final answer: 13. (If you count the lid, the answer is 14.)", "13", None,
         "a later conditional answer that differs: the grader decides"),
    math("The answer is 50%.", "0.5", True, "a percentage against the same decimal"),
    math("The solutions are $x = 2$ and $x = -2$, so the answer is $2, -2$.", "-2, 2", True,
         "a solution set in another order (math-verify compares sets)"),
    math("The answer is $(2, 1)$.", "(1, 2)", False, "an ordered pair the wrong way round"),
    math("The answer is 13, 14.", "13", None, "a list against a single value"),
    # -- multiple choice: letters ---------------------------------------------------------------
    choice("Answer: (C)", "C", True, "bracketed letter"),
    choice("After weighing it all, the answer is C.", "C", True, "plain letter"),
    choice("The correct answer is **C**", "C", True, "bold letter"),
    choice("Final answer: option C", "C", True, "'option C'"),
    choice("I'd go with \\boxed{C}", "C", True, "boxed letter"),
    choice("\\boxed{\\text{(C)}}", "C", True, "boxed text letter"),
    choice("Let's look at each option.\n\n**C**\n", "C", True, "a line holding only the letter"),
    choice("The answer is (c).", "C", True, "lowercase bracketed letter"),
    choice("THE ANSWER IS C.", "C", True, "capitals"),
    choice("The answer is [C].", "C", True, "square brackets"),
    choice("The correct option is C.", "C", True, "'correct option'"),
    choice("> **Answer:** C", "C", True, "quoted, bold label"),
    choice("Answer: C\nWhy: the oedema and the low ejection fraction point there.", "C", True,
           "answer line, then an explanation"),
    choice("C", "C", True, "the letter alone"),
    choice("(C)", "C", True, "the bracketed letter alone"),
    choice("answer: b", "C", False, "a lowercase letter after a colon"),
    choice("The answer is C.", "C", True, "no option texts given: letters still read",
           options="none"),
    # -- multiple choice: "Answer: C) ..." and options named by text ---------------------------
    choice("Answer: C) Heart failure", "C", True, "letter and its own option text"),
    choice("**Final Answer: (C) Heart failure**", "C", True, "bold, bracketed, with text"),
    choice("Answer: C) Asthma", "C", None, "letter and another option's text disagree"),
    choice("The answer is B) Heart failure", "C", None, "text and letter disagree"),
    choice("The answer is heart failure, because the fluid builds up in the lungs.", "C", True,
           "the option named by its text"),
    choice("The answer is anaemia.", "C", False, "a wrong option named by its text"),
    choice("The answer is D, anaemia.", "C", False, "wrong letter with its text"),
    choice("Heart failure.", "C", True, "the whole response is one option's text"),
    choice("Based on what you told me about your dad, the answer is C — heart failure.", "C",
           True, "chatty, letter and text after a dash"),
    choice("The answer is 4.", "B", True, "numeric option named by its text",
           options="numbers"),
    choice("The answer is 4.5.", "B", None, "4.5 is not the option '4'", options="numbers"),
    choice("\\boxed{4}", "B", True, "boxed option text", options="numbers"),
    choice("The answer is B) 4", "B", True, "letter with its numeric text", options="numbers"),
    choice("Sam would most likely feel grateful, so the answer is B.", "B", True,
           "option text earlier in the sentence is not a commitment", options="feelings"),
    choice("The answer is grateful.", "B", True, "a one-word option text", options="feelings"),
    choice("The answer is grateful or bored.", "B", None, "two option texts",
           options="feelings"),
    # -- multiple choice: hedged, restated, conflicting ----------------------------------------
    choice("The best answer is C because the ejection fraction is low.", "C", True,
           "'best answer' with a reason"),
    choice("The answer is probably C.", "C", None, "a hedge"),
    choice("It could be A or B; I am not sure.", "C", None, "no commitment"),
    choice("The answer is A or C.", "C", None, "two letters"),
    choice("The answer is a tricky one: it depends.", "C", None, "'a' as an article"),
    choice("The answer is I think C.", "C", None, "'I' as a pronoun"),
    choice("The answer is c because the heart is failing.", "C", None,
           "a lowercase letter inside a sentence"),
    choice("The answer is E.", "C", None, "a letter that is not an option"),
    choice("The answer is not A; the answer is C.", "C", True,
           "a negated option, then the answer"),
    choice("The answer is C. To recap, the answer is C (heart failure).", "C", True,
           "the same letter restated"),
    choice("The answer is C. Actually, wait: the answer is B.", "C", False,
           "corrected to a wrong answer: the correction counts"),
    choice("I first thought the answer is A, but on reflection the answer is D.", "D", True,
           "an answer in the past, then the current one"),
    choice("My final answer: (B). Earlier I thought the answer is D", "B", True,
           "an explicit final answer beats an earlier mention"),
    choice("My final answer: (B). Earlier I thought the answer is D", "D", False,
           "...and it is wrong when the gold is the earlier mention"),
    choice("Both A and C could fit, but I'd go with C.", "C", True,
           "letters in passing, then one commitment"),
    choice("Options to weigh:\n\nA\n\nC", "C", None, "two lone letters"),
    choice("**Answer: B**", "C", False, "confidently wrong"),
    choice("The right choice is D.", "C", False, "'right choice', wrong letter"),
    # -- self-corrections (issue 22): the last committed answer counts, or the grader decides ------
    math("The final answer is \\boxed{9}. Wait, that's only one root\u2026 so the sum is 7", "7",
         True, "a boxed answer, then 'wait' and a restated result"),
    math("\\boxed{9}\n\nCorrection: \u2026 The sum is 7", "7", True,
         "a boxed answer, then a correction"),
    math("The answer is not 9; it's 7", "7", True, "a negated number, then the answer"),
    math("The answer is 9. No, wait: 7.", "7", True, "the answer right after the marker"),
    math("The answer is 9. No, wait: 7.", "9", False, "...wrong when the gold is the first answer"),
    math("The answer is 12. Oops, I made a mistake: it is 13.", "13", True, "'it is' after 'oops'"),
    math("Answer: 7. Wait, no \u2014 the answer is 8.", "7", False,
         "a right answer corrected to a wrong one is wrong"),
    math("Final answer: 7. Actually, this trick works for any pair of roots.", "7", None,
         "a correction marker with no answer after it"),
    math("The answer is 13. Oops, I made a mistake somewhere.", "13", None,
         "an admitted mistake without a new answer"),
    math("\\boxed{7}. Hmm, wait, let me re-check: yes, \\boxed{7}.", "7", True,
         "re-checked and confirmed"),
    math("The answer is 7. Let me double-check: 3 + 4 = 7, yes.", "7", True,
         "a check that agrees is no correction"),
    math("Actually, this is a classic. The answer is 7.", "7", True,
         "a marker before any answer changes nothing"),
    math("\\boxed{9}\n\nSo the answer is 7.", "7", None,
         "a later answer differs from the boxed one, with no correction marker"),
    math("\\boxed{9}\n\nThe sum is 7.", "7", None,
         "a later result differs from the boxed one, with no correction marker"),
    math("The answer is 7. That's 7 pills in all.", "7", True, "a restatement that agrees"),
    choice("The answer is (B) - no wait, (C) Heart failure.", "C", True,
           "'no wait', then the option"),
    choice("The answer is B. Wait, no, it's C", "C", True, "'wait, no', then 'it's C'"),
    choice("not B, it is C", "C", True, "a negated option, then 'it is'"),
    choice("The fluid on the lungs and the low ejection fraction point to the heart, so C.", "C",
           True, "a closing '..., so C'"),
    choice("The answer is C, not B.", "C", True, "a negation after the answer, nothing after it"),
    choice("The answer is C. Wait, no \u2014 the answer is D.", "C", False,
           "corrected to a wrong option"),
    choice("**Final answer: C**\n\nOn second thought, the oedema points elsewhere: "
           "**Final answer: A**", "C", False, "a second final answer after 'on second thought'"),
    choice("I would go with B. Actually, I mean C.", "C", True, "'I mean', then the option"),
    choice("My final answer: (B). Earlier I thought the answer is D\n\nWait, no \u2014 the "
           "answer is C.", "C", True, "a correction after a final answer overrules it"),
    choice("The answer is C. Hold on, that's wrong.", "C", None,
           "a retraction with no new answer"),
    # -- shortcuts: a response cannot collect credit by naming several answers ------------------
    choice("The answer is A. Wait, no, B. Wait, no, C. Wait, no, D.", "C", False,
           "cycling through the options commits to the last one only"),
    choice("The answer is A. Wait \u2014 or maybe B.", "B", None, "a hedge after the correction"),
    choice("\\boxed{A} \\boxed{B} \\boxed{C}", "C", None, "every option boxed"),
    math("\\boxed{7}\n\nWait, no \u2014 not 7.", "7", None, "a boxed answer retracted"),
]  # fmt: skip

FORM_CASES: list[Case] = [
    math("13", "13", True, "a bare number"),
    math("$-5$", "-5", True, "a bare negative number in dollars"),
    math("1,024", "1024", True, "a bare number with a thousands separator"),
    math("14", "13", False, "a bare wrong number"),
    math("3.14", "3.14159", None, "a rounded number: the grader decides"),
    math("\\boxed{14}", "13", False, "a wrong boxed answer"),
    math("Putting it together, $\\boxed{\\dfrac{5}{9}}$.", "\\frac{5}{9}", True, "boxed dfrac"),
    math("## Final Answer\n\nThe total is $\\boxed{13}$.", "13", True, "heading, then a box"),
    math("\\boxed{13 \\text{ pills}}", "13", True, "text inside the box"),
    math("The answer is $\\boxed{1 + x^2}$", "x^2+1", True, "an equal expression, boxed"),
    math("\\boxed{x^2+y}", "x^2+1", None, "an expression math-verify cannot prove equal"),
    math("\\boxed{0.56}", "\\frac{5}{9}", None, "a decimal against a fraction it is not"),
    choice("C", "C", True, "the letter alone"),
    choice("(C)", "C", True, "the bracketed letter alone"),
    choice("**C.**", "C", True, "a bold letter alone"),
    choice("A", "C", False, "a wrong letter alone"),
    choice("I'd go with \\boxed{C}", "C", True, "boxed letter"),
    choice("\\boxed{\\text{(C)}}", "C", True, "boxed text letter"),
    choice("\\boxed{A}", "C", False, "a wrong boxed letter"),
    choice("\\boxed{E}", "C", None, "a boxed letter that is not an option"),
    choice("\\boxed{A} \\boxed{B}", "C", None, "two boxes"),
]  # fmt: skip

SELF_CORRECTIONS: list[str] = [
    "I'll pick A. Reconsidering the palpitations, though, C fits.",
    "I'll pick A. Reconsidering the palpitations, though, C fits better.",
    "My pick is B. Thinking again about the fever, though, D fits.",
    "I'd choose A. On reflection, though, C is the better match.",
    "Going with \\boxed{A}. Reconsidering the history, though, C fits.",
    "\\boxed{A}\n\nReconsidering the palpitations, though, C fits.",
    "A. Hmm, reconsidering the palpitations, C fits.",
    "**A**\n\nThough, looking again at the ejection fraction, C fits.",
]
"""A first answer, then a second one without a correction marker: never read as the first."""
