"""`heedbench report`: compare models across heedbench eval logs."""
