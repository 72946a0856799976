"""The instruments of a test (rusage, cachegrind, perf stat) and its profiles:
measurements of its command beside its own values."""
