"""Sub-commands of the report area (filled in by its issue)."""

from __future__ import annotations

from perfwalk.cli.spec import Command

COMMANDS: dict[str, Command] = {}
