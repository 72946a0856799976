"""The sections of a configuration about the hosts themselves: ``[hosts.<name>]``
(where a machine is, its roles, variables, reboot, console and power) and
``[install.<role>]`` (what a checkout installs on a role's host)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from perfwalk.config.settings import default_of


def _empty() -> Mapping[str, str]:
    return MappingProxyType({})


@dataclass(frozen=True)
class HostConfig:
    """``[hosts.<name>]``: a machine, its roles and variables (``name`` is the key)."""

    target: str = default_of("hosts.<name>.target")
    roles: tuple[str, ...] = default_of("hosts.<name>.roles")
    vars: Mapping[str, str] = field(default_factory=_empty)
    ssh_config: Path | None = None
    known_hosts: Path | None = None
    ssh_options: tuple[str, ...] = default_of("hosts.<name>.ssh_options")
    connect_timeout: float = default_of("hosts.<name>.connect_timeout")
    reboot: str = default_of("hosts.<name>.reboot")
    reboot_timeout: float = default_of("hosts.<name>.reboot_timeout")
    console: str = default_of("hosts.<name>.console")
    power_cycle: str = default_of("hosts.<name>.power_cycle")
    power_cycles: int = default_of("hosts.<name>.power_cycles")
    alive_timeout: float = default_of("hosts.<name>.alive_timeout")
    power_on: str = default_of("hosts.<name>.power_on")
    power_off: str = default_of("hosts.<name>.power_off")
    at_end: str = default_of("hosts.<name>.at_end")
    lease: str = default_of("hosts.<name>.lease")
    pool: str = default_of("hosts.<name>.pool")

    @property
    def local(self) -> bool:
        return self.target == "local"


@dataclass(frozen=True)
class InstallConfig:
    """``[install.<role>]``: files and steps that install a checkout on a role's host."""

    files: tuple[str, ...] = default_of("install.<name>.files")
    steps: tuple[str, ...] = default_of("install.<name>.steps")
    timeout: float = default_of("install.<name>.timeout")
    reboot: bool = default_of("install.<name>.reboot")
