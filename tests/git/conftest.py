"""Fixtures of the git-layer tests."""

from __future__ import annotations

from tests.fixtures.synthetic_repo import known_values_repo, known_values_repo_copy

__all__ = ["known_values_repo", "known_values_repo_copy"]
