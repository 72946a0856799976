"""Confirm a walk's changes before telling: which to measure again, waiting for a quiet
machine, both checkouts measured in turns."""
