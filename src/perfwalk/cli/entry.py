"""The ``perfwalk`` program and ``python -m perfwalk``: signals handled from the first
line (stage 1 of :mod:`perfwalk.cli.signals`), then the command line
(:func:`perfwalk.cli.main.main`, stage 2)."""

from __future__ import annotations

import sys

from perfwalk.cli.signals import exit_at_once

TYPE_CHECKING = False  # typing itself is not imported this early (mypy knows the name)
if TYPE_CHECKING:
    from typing import NoReturn


def entry() -> NoReturn:
    """The ``perfwalk`` program: stage 1 first, then the command line."""
    exit_at_once()
    from perfwalk.cli.main import main

    sys.exit(main())
