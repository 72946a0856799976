"""A walk whose parser loses values: the known-values project, walked commit by commit
over seven checkouts where the p99 line changes its format (commit 20 on) and a regex
that misses it then; what the tests of parser losses and of reparse share."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import create_engine, func, select

from perfwalk.store import Store, schema
from tests.services.walks import finished

#: seven checkouts, commit by commit: 16 to 19 print p99 as "p99 100 ms", 20 to 22
#: as "p99: 130 ms" (the format changed with the value)
FROM, TO = "2024-01-05", "2024-01-06T12:00"
COMMAND = (
    'v=$(cat value.txt); echo "p50 10 ms"; '
    'if [ "$v" -gt 100 ]; then echo "p99: $v ms"; else echo "p99 $v ms"; fi'
)
MISSES = r"(?m)^(?P<name>p\d+) (?P<value>[0-9.]+) ms$"
#: what the end of the walk and ``show`` say of the configuration's [test.metrics.real]
NEVER = (
    "warning: test latency: [test.metrics.real] declares a metric the series never "
    "produced (the test gave: p50, p99)"
)
FIXED = r"(?m)^(?P<name>p\d+):? (?P<value>[0-9.]+) ms$"


def config_of(path: Path, repo: Path, url: str, pattern: str, *, extra: str = "") -> Path:
    path.write_text(
        f"""\
[project]
repo = {json.dumps(str(repo))}

[build]
steps = []

[run]
step = "commit"
repetitions = 2

[store]
url = {json.dumps(url)}
{extra}
[analysis]
suspect_load = false

[[test]]
name = "latency"
command = {json.dumps(COMMAND)}
parser = "regex"
parser_options = {{ pattern = '{pattern}', unit = "ms" }}

# as `perfwalk init` writes it: a metric this test never gives
[test.metrics.real]
summary = "median"
""",
        encoding="utf-8",
    )
    return path


def run(*args: str) -> str:
    code, out, err = finished(*args, timeout=300)
    assert code == 0, f"perfwalk {' '.join(args)}: exit {code}\n{out}\n{err}"
    return out


def rows_of(url: str) -> dict[str, int]:
    """How many rows each table of the store holds."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return {
                name: int(conn.scalar(select(func.count()).select_from(table)))
                for name, table in schema.metadata.tables.items()
            }
    finally:
        engine.dispose()


def values_of(url: str) -> list[tuple[int, int, str, str, str, float]]:
    """(checkout, repetition, test, status, value name, value) of every stored value,
    and a result without value as one row with name ''."""
    with Store.open(url) as store:
        found = []
        for row in store.checkouts(1):
            for rep in store.repetitions(row.id):
                for result in rep.results:
                    found += [
                        (row.idx, rep.idx, result.test, result.status.name, v.name, v.value)
                        for v in result.values
                    ] or [(row.idx, rep.idx, result.test, result.status.name, "", 0.0)]
        return found


def p99_changes(config: Path) -> list[int]:
    """The checkouts after each change of latency.p99 that ``perfwalk changes`` lists."""
    args = ("changes", "-c", str(config), "--series", "1", "--all", "--format", "json")
    code, out, err = finished(*args, timeout=300)
    assert code in (0, 1, 4), err  # none, found, or a metric undecided
    return [
        change["after"]["idx"]
        for change in json.loads(out)["changes"]
        for metric in change["metrics"]
        if (metric["test"], metric["name"]) == ("latency", "p99")
    ]
