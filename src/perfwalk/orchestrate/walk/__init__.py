"""A walk: its plan, then each checkout prepared and built, its repetitions run in their
order and stored as they end; measuring checkouts again in turns."""
