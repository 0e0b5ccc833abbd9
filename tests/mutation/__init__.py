"""Mutation testing (issue 26): tests/mutation/run.py and the equivalent mutants."""
