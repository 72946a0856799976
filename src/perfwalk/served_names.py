"""The names a local HTTP server answers to: what its requests' ``Host`` header may
say. A web page elsewhere can make its own name point at 127.0.0.1 (DNS rebinding):
the browser then sends that name in ``Host``, and the server answers "forbidden"
instead of handing the page what it serves. ``perfwalk serve`` and ``perfwalk api``
both check it."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

#: the names of this machine's loopback interface a browser may use
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
#: the addresses that listen on every interface of the machine
ANY_ADDRESS = frozenset({"0.0.0.0", "::", ""})


def host_name(header: str) -> str:
    """The name of a ``Host`` header, without its port, lower-case, no final dot."""
    text = header.strip().lower()
    if text.startswith("["):  # [::1]:8000
        return text[1:].partition("]")[0]
    name, colon, port = text.rpartition(":")
    if colon and port.isdigit() and ":" not in name:
        text = name
    return text.rstrip(".")


class ServedNames:
    """The loopback names, any ``*.localhost`` name and ``names`` (e.g. the address a
    server listens on, a public name behind a proxy). ``any_address``: the server
    listens on every interface, so any IP address is one of its own (an address in
    ``Host`` is what a browser sends for a URL that names no host: no DNS rebinding)."""

    def __init__(self, names: Iterable[str] = (), *, any_address: bool = False) -> None:
        self.names = frozenset(host_name(name) for name in names) | LOOPBACK_NAMES
        self.any_address = any_address

    def allows(self, header: str) -> bool:
        """Whether the ``Host`` header ``header`` names this server."""
        name = host_name(header)
        if name in self.names or name.endswith(".localhost"):
            return True
        return self.any_address and _is_address(name)


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True
