"""Statistics over stored values: pure functions, numbers in, typed results out."""
