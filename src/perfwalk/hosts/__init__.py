"""Hosts: where commands run. One small protocol, several implementations."""

from perfwalk.hosts.base import DEFAULT_OUTPUT_LIMIT, Completed, Host

__all__ = ["DEFAULT_OUTPUT_LIMIT", "Completed", "Host"]
