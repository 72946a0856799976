"""Reading the matrix's log packs as log.js does (logs/index.js, then the pack that
holds a log), so that tests can check every log of a site against the store."""

from __future__ import annotations

import base64
import json
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfwalk.report import matrix_logs
from perfwalk.store import Store

_CALL = re.compile(r"perfwalkLogs\.(\w+)\((.*)\);\n", re.S)


@dataclass(frozen=True)
class Shown:
    """What the log page shows: the pack it read, the text, the status letter and
    message, and the bytes produced when the log was cut."""

    pack: str
    data: bytes
    letter: str
    message: str
    total: int | None


def call_arguments(path: Path, function: str) -> list[Any]:
    found = _CALL.fullmatch(path.read_text(encoding="utf-8"))
    assert found is not None, path
    assert found.group(1) == function, path
    arguments: list[Any] = json.loads(f"[{found.group(2)}]")
    return arguments


def index_of(site: Path) -> dict[str, list[list[Any]]]:
    index: dict[str, list[list[Any]]] = call_arguments(site / matrix_logs.INDEX, "index")[0]
    return index


def read_log(site: Path, run: int, test: int | str) -> Shown:
    """The log of ``test`` (a test id, or "run") of run ``run``, found as log.js finds it."""
    parts = index_of(site)[str(run)]
    chosen = parts[0]
    if test != "run":
        chosen = [p for p in parts if p[1] <= int(test)][-1]
    name, runs, data = call_arguments(site / matrix_logs.pack_path(chosen[0]), "pack")
    assert name == chosen[0]
    entry = runs[str(run)]
    raw = base64.b64decode(data)
    if test == "run":
        at, size, total, truncated = entry["runner"]
        return Shown(
            name, zlib.decompress(raw[at : at + size]), "", "", total if truncated else None
        )
    letters = entry["statuses"]
    position = sum(1 for letter in letters[: int(test)] if letter != ".") - entry["row"]
    assert letters[int(test)] != ".", (run, test)
    assert 0 <= position < len(entry["sizes"]), (run, test)
    at = entry["at"] + sum(entry["sizes"][:position])
    stream = raw[at : at + entry["sizes"][position]]
    return Shown(
        name,
        zlib.decompress(stream),
        letters[int(test)],
        entry["messages"].get(str(test), ""),
        entry["cut"].get(str(test)),
    )


def check_every_log(site: Path, store: Store) -> int:
    """Assert that every log of every run of ``store`` reads back from ``site``; the
    number of logs read."""
    read = 0
    for run in store.regress.runs():
        results = {r.test_id: r for r in store.regress.results(run.id)}
        for test_id, log in store.regress.result_logs(run.id):
            shown = read_log(site, run.id, test_id)
            assert shown.data == log.data, (run.id, test_id)
            assert shown.total == (log.total if log.truncated else None)
            assert shown.letter == ".abcdefghijk"[results[test_id].status]
            assert shown.message == results[test_id].message
            read += 1
        if run.log_id is not None:
            assert read_log(site, run.id, "run").data == store.log(run.log_id).data
            read += 1
    return read
