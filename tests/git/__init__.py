"""Tests of the git layer: steps, selection, repository, worktrees, checkouts."""
