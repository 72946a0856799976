"""Use cases made of use cases: the daily cycle (watch), team mode's job dispatcher
(jobs) and the demo. Called by the CLI and the API; never print."""
