"""Compose the parts: plan a walk, prepare and build checkouts, run repetitions."""
