"""The logs behind the regress matrix's cells, packed for ``log.js``.

A pack ``regress/logs/<run>-<test>.js`` (named after its first log) holds the logs
of consecutive results, of one run or of several, up to :data:`PACK_BYTES` of
compressed data (a larger single log has a pack of its own)::

    perfwalkLogs.pack("<name>", {"<run id>": {
        "statuses": a letter per test id (".": not run, "a" PASS … "k" NOEXIST),
        "row": the number of the run's first result in this pack (0: its first),
        "sizes": [bytes of each result's log, in test id order, from "row" on],
        "at": where the first of them starts in the data,
        "messages": {"<test id>": message}, "cut": {"<test id>": bytes produced},
        "runner": [offset, bytes, bytes produced, truncated]  (the run's own output)
    }, …}, "<base64 of the data>");

The data are the zlib streams exactly as the store keeps them, one after the
other: a publish never decompresses a log (nor reads a test id per log: a run's
results are the tests its statuses mark, in id order), and the page inflates the
one it shows with the browser's ``DecompressionStream("deflate")``. A log whose
test id is in ``cut`` was truncated to its head and tail. ``regress/logs/index.js``
says which packs hold each run's logs, and from which test id on::

    perfwalkLogs.index({"<run id>": [["<pack>", first test id], …], …});

A year of 500 tests on eight hosts (1.46 million logs) is some 150 packs of
700 KB; a night's run adds a pack of its own.
"""

from __future__ import annotations

import base64
import json
import re
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate

from perfwalk.errors import StoreError
from perfwalk.store.regress import StoredLogs

DIR = "regress/logs"
INDEX = f"{DIR}/index.js"
#: compressed bytes per pack (its file is a third larger: base64)
PACK_BYTES = 512 * 1024
#: a status severity (0: not run, 1 PASS … 11 NOEXIST) as a letter of the data files
STATUS_LETTERS = bytes.maketrans(bytes(range(12)), b".abcdefghijk")
PACK_NAME = re.compile(r"(\d+)-(\d+)\.js")

#: where each run's logs are: [[pack name, first test id], …] in test id order
Parts = dict[int, list[tuple[str, int]]]
#: writes a file of the site: (site path, text)
Write = Callable[[str, str], None]


def pack_path(name: str) -> str:
    return f"{DIR}/{name}.js"


def script_call(function: str, *arguments: object) -> str:
    """A script line calling ``function`` with JSON arguments, safe to load anywhere."""
    text = ",".join(
        json.dumps(a, ensure_ascii=False, separators=(",", ":"), allow_nan=False) for a in arguments
    )
    text = text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"{function}({text});\n"


def index_script(parts: Mapping[int, Sequence[tuple[str, int]]]) -> str:
    return script_call(
        "perfwalkLogs.index", {str(run): [list(p) for p in found] for run, found in parts.items()}
    )


@dataclass(frozen=True)
class RunFacts:
    """What a pack says of a run besides its logs: its column of statuses (a byte per
    test id) and the messages of its results."""

    statuses: bytes
    messages: Mapping[int, str]


class Packer:
    """Packs the logs of runs, given in run id order, and writes each pack when full."""

    def __init__(self, write: Write, limit: int | None = None) -> None:
        self.write = write
        self.limit = PACK_BYTES if limit is None else limit
        self.parts: Parts = {}
        self._name = ""
        self._runs: dict[str, dict[str, object]] = {}
        self._data: list[bytes] = []
        self._used = 0

    def add(self, stored: StoredLogs, runs: Sequence[tuple[int, RunFacts]]) -> None:
        """Pack the logs of ``runs`` (ascending ids) read in ``stored``."""
        sizes = list(map(len, stored.data))
        ends = list(accumulate(sizes))
        stop = 0
        for run_id, facts in runs:
            first_row = start = stop
            stop = start + _results(run_id, facts, stored.counts.get(run_id, 0))
            first = True
            while first or start < stop:
                base = ends[start - 1] if start else 0
                cut = bisect_right(ends, base + self.limit - self._used, start, stop)
                if cut == start < stop:  # not even one more log fits
                    if self._used:
                        self.flush()
                        continue
                    cut = start + 1  # a log larger than a pack: a pack of its own
                part = _Part(run_id, facts, start - first_row, first=first)
                self._add_part(stored, part, sizes[start:cut])
                self._data.extend(stored.data[start:cut])
                self._used += (ends[cut - 1] - base) if cut > start else 0
                first = False
                start = cut
                if self._used >= self.limit:
                    self.flush()

    def _add_part(self, stored: StoredLogs, part: _Part, sizes: Sequence[int]) -> None:
        run_id = part.run_id
        first_test = _nth_result(part.facts.statuses, part.row) if part.row else 0
        if not self._name:
            self._name = f"{run_id}-{first_test}"
        entry: dict[str, object] = {}
        runner = stored.runner.get(run_id) if part.first else None
        if runner is not None:
            entry["runner"] = [self._used, len(runner.data), runner.total, runner.truncated]
            self._data.append(runner.data)
            self._used += len(runner.data)
        entry["at"] = self._used
        entry["row"] = part.row
        entry["sizes"] = sizes
        entry["statuses"] = part.facts.statuses.translate(STATUS_LETTERS).decode("ascii")
        entry["messages"] = {str(test): text for test, text in part.facts.messages.items()}
        entry["cut"] = {str(test): total for test, total in stored.cut.get(run_id, {}).items()}
        self._runs[str(run_id)] = entry
        self.parts.setdefault(run_id, []).append((self._name, first_test))

    def flush(self) -> None:
        """Write the pack being filled, if any."""
        if not self._name:
            return
        data = base64.b64encode(b"".join(self._data)).decode("ascii")
        call = script_call("perfwalkLogs.pack", self._name, self._runs, data)
        self.write(pack_path(self._name), call)
        self._name, self._runs, self._data, self._used = "", {}, [], 0


@dataclass(frozen=True)
class _Part:
    """The logs of a run in one pack: from its result number ``row`` on (the results
    in test id order); the run's own output goes with its ``first`` part."""

    run_id: int
    facts: RunFacts
    row: int
    first: bool


def _results(run_id: int, facts: RunFacts, stored: int) -> int:
    """How many results the run has; its column of statuses must agree with the store."""
    summed = len(facts.statuses) - facts.statuses.count(0)
    if summed != stored:
        raise StoreError(
            f"regress run {run_id} is damaged: its summary counts {summed} results, "
            f"the store holds {stored} logs",
            hint="the store file may be corrupt",
        )
    return stored


def _nth_result(statuses: bytes, row: int) -> int:
    """The test id of result number ``row`` (0: the first) in a column of statuses."""
    seen = -1
    for test_id, severity in enumerate(statuses):
        seen += severity != 0
        if seen == row:
            return test_id
    raise ValueError(f"no result number {row} in a column of {len(statuses)} statuses")
