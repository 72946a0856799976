"""What a sub-command is: its help, its arguments, its handler."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import NamedTuple


class Command(NamedTuple):
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    handler: Callable[[argparse.Namespace], int]
    needs_config: bool = True  # takes -c/--config FILE
    #: what to do after Ctrl-C, for the commands that can be continued (walks)
    when_interrupted: str | None = None


def no_arguments(_parser: argparse.ArgumentParser) -> None:
    """No arguments besides -c/--config."""
