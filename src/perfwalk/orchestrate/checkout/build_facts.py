"""Record what a checkout really ran, once it is built, installed and its hosts
rebooted: on every host of the run (the build host, the [run] host, is one) the
running kernel's version string and the compiler's version, in one short command
each; and, with ``[build] symbols``, the symbol list of that binary (``nm -n -S`` in the
worktree, on the build host) with its difference from the previous checkout's.

Nothing here changes a checkout's build status: a list that cannot be read (no
such file, no ``nm``, a list over the size limit) is stored with the reason, which
the series page shows in its place.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from perfwalk.analysis.symbols import diff_symbols, format_symbols, parse_nm
from perfwalk.config.model import Config
from perfwalk.errors import HostError, StoreError
from perfwalk.hosts.base import Host
from perfwalk.hosts.build_facts import read_facts
from perfwalk.hosts.capture import Capture
from perfwalk.model import Log
from perfwalk.orchestrate.hosts.topology import Topology
from perfwalk.store import Store
from perfwalk.store.build_facts import NewSymbols

#: Seconds allowed for ``nm``.
NM_TIMEOUT = 300.0


def compiler_of(config: Config) -> str:
    """The compiler whose version is recorded: ``CC`` of ``[build] env`` when it is one
    word (``clang``, ``/usr/local/bin/gcc13``), else ``cc``."""
    words = shlex.split(config.build.env.get("CC", "")) if "CC" in config.build.env else []
    return words[0] if len(words) == 1 else "cc"


def record_hosts(store: Store, topology: Topology, checkout_id: int, compiler: str) -> None:
    """The kernel and compiler of every host of ``topology`` at a checkout."""
    found = {}
    for member in topology:
        facts = read_facts(member.host, compiler)
        found[member.name] = (facts.kernel, facts.compiler)
    store.build_facts.set_hosts(checkout_id, found)


def record_symbols(
    store: Store,
    host: Host,
    checkout_id: int,
    worktree: Path,
    binary: str,
    *,
    list_limit: int,
    diff_limit: int,
) -> NewSymbols:
    """The symbol list of ``binary`` in ``worktree`` and its difference from the
    previous checkout's, stored (and returned)."""
    new = _listing(host, worktree, binary, list_limit)
    if new.listing is not None:
        new = _compared(store, checkout_id, new, diff_limit)
    store.build_facts.set_symbols(checkout_id, new)
    return new


def _listing(host: Host, worktree: Path, binary: str, limit: int) -> NewSymbols:
    """The symbol list of ``binary`` with the sizes of its symbols (``nm -n -S``), or
    without them where this ``nm`` knows no ``-S``."""
    try:
        done = host.run(
            ["nm", "-n", "-S", "--", binary],
            timeout=NM_TIMEOUT,
            cwd=str(worktree),
            output_limit=limit,
        )
        if done.error is None and not done.timed_out and done.returncode != 0:
            done = host.run(
                ["nm", "-n", "--", binary],
                timeout=NM_TIMEOUT,
                cwd=str(worktree),
                output_limit=limit,
            )
    except HostError as error:
        return NewSymbols(binary, None, None, message=f"nm could not run: {error}")
    if done.error is not None:
        return NewSymbols(binary, None, None, message=f"nm could not run: {done.error}")
    if done.timed_out:
        return NewSymbols(binary, None, None, message=f"nm timed out after {NM_TIMEOUT:g} s")
    if done.returncode != 0:
        said = next((ln.strip() for ln in done.stderr.text().splitlines() if ln.strip()), "")
        return NewSymbols(
            binary, None, None, message=f"nm failed (exit {done.returncode}): {said}".rstrip(": ")
        )
    if done.stdout.truncated:
        return NewSymbols(
            binary,
            None,
            None,
            message=f"the symbol list ({done.stdout.total} bytes) is over twice "
            "[store] artifact_limit: not kept",
        )
    symbols = parse_nm(done.stdout.text())
    text = format_symbols(symbols)
    return NewSymbols(binary, Log.of(text.encode()), len(symbols))


def _compared(store: Store, checkout_id: int, new: NewSymbols, limit: int) -> NewSymbols:
    """``new`` with its difference from the nearest earlier checkout's list."""
    assert new.listing is not None
    previous = store.build_facts.previous_listing(checkout_id)
    if previous is None:
        return new
    idx, log_id = previous
    try:
        before = parse_nm(store.log(log_id).text())
    except StoreError as error:
        return NewSymbols(
            new.binary, new.listing, new.count, message=f"previous list unreadable: {error}"
        )
    diff = diff_symbols(before, parse_nm(new.listing.text()))
    capture = Capture(limit)
    capture.feed(diff.text().encode())
    return NewSymbols(
        new.binary,
        new.listing,
        new.count,
        against_idx=idx,
        added=len(diff.added),
        removed=len(diff.removed),
        moved=len(diff.moved),
        diff=capture.to_log(),
    )
