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
    #: the arguments its parser does not know are handed to it as ``rest`` (a command
    #: that passes another command's options on: ``perfwalk submit run --from …``)
    takes_rest: bool = False


def no_arguments(_parser: argparse.ArgumentParser) -> None:
    """No arguments besides -c/--config."""
