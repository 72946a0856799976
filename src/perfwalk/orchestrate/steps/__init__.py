"""Commands run on a run's hosts and recorded: placeholders filled in, each step run and
stored, shell steps as one log, background services."""
