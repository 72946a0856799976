"""``python -m perfwalk``: the same program as ``perfwalk`` (signals handled from here on)."""

from perfwalk.cli.entry import entry

entry()
