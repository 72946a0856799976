"""The hosts of a run: the roles they play (topology), jobs run on them at once, their
reboots and their state around each repetition."""
