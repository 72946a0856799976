"""Use cases: run a walk, drill, try, publish, export, notify … one each, none calling
another. Called by the CLI, the API and the composites; never print."""
