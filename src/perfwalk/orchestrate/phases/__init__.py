"""One test across its hosts in four phases (startup, run, collect, reset) and what
surrounds them: snapshots, runtime modifiers, what a test leaves running, a Conductor
trial, the regress suite."""
