"""Every kind of job `perfwalk submit` takes reads the options of its direct command."""

from __future__ import annotations

import pytest

from perfwalk.cli.team_commands import _OPTIONS, job_options

#: what a command needs at least
NEEDS = {"try": ["HEAD~1", "HEAD"]}


@pytest.mark.parametrize("kind", sorted(_OPTIONS))
def test_each_kind_parses_the_options_of_its_command(kind: str) -> None:
    """(`submit watch` ended in an internal error once the parser of `watch` was
    looked for among the walk's, drill's and try's commands alone.)"""
    assert isinstance(job_options(kind, NEEDS.get(kind, [])), dict)
