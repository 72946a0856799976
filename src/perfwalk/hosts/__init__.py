"""Hosts: where commands run. One small protocol, several implementations."""

from typing import TYPE_CHECKING

from perfwalk.hosts.base import DEFAULT_OUTPUT_LIMIT, Completed, Host, Reconnecting
from perfwalk.hosts.capture import Capture
from perfwalk.hosts.fake import Call, FakeHost, Rule
from perfwalk.hosts.fingerprint import FINGERPRINT_KEYS, fingerprint, parse_fingerprint
from perfwalk.hosts.local import LocalHost
from perfwalk.hosts.ssh import SshHost, SshTarget

__all__ = [
    "DEFAULT_OUTPUT_LIMIT",
    "FINGERPRINT_KEYS",
    "Call",
    "Capture",
    "Completed",
    "FakeHost",
    "Host",
    "LocalHost",
    "Reconnecting",
    "Rule",
    "SshHost",
    "SshTarget",
    "fingerprint",
    "parse_fingerprint",
]

if TYPE_CHECKING:  # mypy proves that every implementation satisfies the protocol
    _local: Host = LocalHost()
    _fake: Host = FakeHost()
    from pathlib import Path

    _ssh: Reconnecting = SshHost("x", SshTarget("x"), control_dir=Path("/"))
