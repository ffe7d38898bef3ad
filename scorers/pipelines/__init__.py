"""Scorers of the build tasks: each sample's product checked and recorded in the log."""
