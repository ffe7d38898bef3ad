"""The `choice` scorer: SPO, K(p) and diagnostics per context, as in the paper's tables."""

import math
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from heedbench.preference import WeakOrder
from heedbench.scorers.choice.metrics import (
    discordance_counts,
    kendall_penalty,
    spo,
    spo_of_relation,
    unordered_pairs,
)
from heedbench.scorers.metrics import total
from heedbench.solvers.choice.solver import ChoiceRun

NAN = math.nan


@scorer(
    name="choice_alignment",
    metrics={
        "spo": [mean(), stderr()],
        "kendall": [mean(), stderr()],
        "kendall_norm": [mean(), stderr()],
        "valid": [mean(), total()],
        "indifference_sets": [mean()],
        "invalid_rate": [mean()],
        "order_consistency": [mean()],
        "queries": [mean()],
    },
)
def choice_alignment(p: float = 0.5) -> Scorer:
    """Alignment of the choice function with the user's weak order.

    Alignment keys (spo, kendall, kendall_norm, indifference_sets) are NaN for an invalid
    context, so their means run over valid contexts only; `valid` counts them. Pairwise-Test
    has no weak order and reports SPO only.

    Args:
        p: penalty for a weakly discordant pair in K(p).
    """

    async def score(state: TaskState, target: Target) -> Score:
        run = state.store_as(ChoiceRun)
        if not run.completed:
            return Score.unscored(reason="the choice solver did not finish this sample")
        if run.failed_call_count:
            reason = (
                f"{run.failed_call_count} of {run.queries} calls gave no answer "
                f"(first: {run.failed_calls[0]})"
            )
            return Score.unscored(reason=reason, explanation=reason, metadata=_metadata(run))
        user: WeakOrder = state.metadata["user_order"]
        n = sum(len(level) for level in user)
        value: dict[str, float] = {
            "spo": NAN,
            "kendall": NAN,
            "kendall_norm": NAN,
            "valid": float(run.valid),
            "indifference_sets": NAN,
            "invalid_rate": run.invalid_answers / run.queries if run.queries else NAN,
            "order_consistency": NAN if run.order_consistency is None else run.order_consistency,
            "queries": float(run.queries),
        }
        detail: dict[str, Any] = {}
        if run.strict is not None:
            detail["spo_including_invalid"] = spo_of_relation(user, run.strict)
            if run.valid:
                value["spo"] = detail["spo_including_invalid"]
        elif run.chosen is not None:
            discordant, weak = discordance_counts(user, run.chosen)
            detail.update(
                spo=spo(user, run.chosen),
                kendall=kendall_penalty(user, run.chosen, p),
                discordant_pairs=discordant,
                weakly_discordant_pairs=weak,
                chosen_indifference_sets=len(run.chosen),
            )
            if run.valid:
                value.update(
                    spo=detail["spo"],
                    kendall=detail["kendall"],
                    kendall_norm=detail["kendall"] / unordered_pairs(n) if n > 1 else NAN,
                    indifference_sets=float(len(run.chosen)),
                )
        return Score(
            value=value,
            answer=_describe(run.chosen) if run.chosen is not None else None,
            explanation=_explain(run, value),
            metadata={
                **_metadata(run),
                "p": p,
                "user_order": user,
                "user_indifference_sets": len(user),
                "raw_alignment": detail,
            },
        )

    return score


def _metadata(run: ChoiceRun) -> dict[str, Any]:
    return {
        "method": run.method,
        "template": run.template,
        "chosen_order": run.chosen,
        "presented_order": run.presented,
        "undecided_pairs": run.undecided_pairs,
        "invalid_answers": run.invalid_answers,
        "invalid_examples": run.invalid_examples,
        "failed_calls": run.failed_call_count,
        "failed_call_reasons": run.failed_calls,
        "stop_reasons": run.stop_reasons,
    }


def _describe(order: WeakOrder) -> str:
    return " ≻ ".join("{" + ", ".join(level) + "}" for level in order)


def _explain(run: ChoiceRun, value: dict[str, float]) -> str:
    if not run.valid:
        return (
            f"invalid: {run.invalid_answers} of {run.queries} answers were ⊥ "
            f"({run.undecided_pairs} pairs undecided)"
        )
    parts = [f"SPO {value['spo']:.3f}"]
    if not math.isnan(value["kendall"]):
        parts.append(f"K(p) {value['kendall']:.1f}")
        parts.append(f"{int(value['indifference_sets'])} indifference sets")
    parts.append(f"{run.queries} queries")
    return ", ".join(parts)
