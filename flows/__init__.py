"""Inspect Flow specs for the papers' sweeps and for sharding one run (`flow run flows/<spec>.py`).

Each file's last statement is a function that Flow calls with the `-A key=value` arguments of
`flow run` / `flow config` and that returns the `FlowSpec`. Install with `pip install -e ".[flow]"`.
"""
