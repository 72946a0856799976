"""Use cases: run a walk, export, publish, the demo. Called by the CLI; never print."""
