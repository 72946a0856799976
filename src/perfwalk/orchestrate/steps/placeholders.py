"""Placeholders in configured commands: ``{commit}``, ``{worktree}``, ``{repetition}``,
``{hostdir}``, ``{host.<role>.<variable>}`` …

Each placeholder becomes ONE shell-quoted word, so nothing in a value (a branch
name, a path with spaces, a commit message) can change the command's meaning.
``${name}`` (shell parameter expansion) is left alone, and so are braces that do
not hold a plain lower-case dotted name (``awk '{print $1}'``).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping

from perfwalk.errors import ConfigError

_PLACEHOLDER = re.compile(r"(?<![$\\{])\{([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*)\}(?!\})")


def substitute(command: str, values: Mapping[str, str], *, key: str, quote: bool = True) -> str:
    """``command`` with every ``{name}`` replaced by the quoted value of ``name``.

    ``quote=False`` is for text that never reaches a shell (a path given as one
    argument): the values go in as they are. An unknown name raises
    :class:`ConfigError` naming ``key`` and the known names.
    """

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            known = ", ".join("{" + k + "}" for k in sorted(values))
            raise ConfigError(
                f"unknown placeholder {{{name}}} in {command!r}",
                key=key,
                hint=f"known placeholders: {known}; write $ before braces meant for the shell",
            )
        return shlex.quote(values[name]) if quote else values[name]

    return _PLACEHOLDER.sub(replace, command)


def names(command: str) -> list[str]:
    """The placeholder names used in ``command``, in order."""
    return _PLACEHOLDER.findall(command)
