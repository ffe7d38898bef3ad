"""Model providers shipped with heedbench (reference baselines, not real models)."""
