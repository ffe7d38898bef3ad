"""Shared test configuration. Scripted models live in `heedbench.testing`."""
