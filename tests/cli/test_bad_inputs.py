"""Hostile and careless inputs, one table: each is a usage error (exit 2) whose message
names the option, the key or the file, never a traceback, and the store keeps every row.

The inputs are those of a session that tried to break perfwalk: counts that exhaust
the memory or overflow a database integer, NaN and infinite thresholds that hide a
regression, a port or an interval that crashes or busy-loops ``serve``, a column the
file does not have, a NUL byte in an environment value, a configuration nested past
the parser's recursion limit, junk imported as test results.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.config.load import load_config
from perfwalk.services.export import export
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import make_known_values_repo

CONFIG = """\
[project]
repo = "{repo}"
[store]
url = "sqlite:///{store}"
[build]
steps = ["sh build.sh"]
[run]
repetitions = 2
step = "commit/10"
[[test]]
name = "latency"
command = "sh bench.sh"
parser = "value"
{extra}"""

HUGE = "99999999999999999999"  # 20 digits: beyond every 64-bit integer


@dataclass(frozen=True)
class Place:
    """A project walked once, its store, and files of numbers beside it."""

    root: Path
    repo: Path
    store: Path

    def config(self, extra: str = "") -> Path:
        """A configuration of the same project and store, with ``extra`` TOML appended."""
        path = self.root / f"perfwalk-{abs(hash(extra)) % 10**12}.toml"
        path.write_text(
            CONFIG.format(repo=self.repo, store=self.store, extra=extra), encoding="utf-8"
        )
        return path

    def rows(self) -> str:
        """Everything stored, as text: the walks (export), drills and regress runs."""
        with Store.open(f"sqlite:///{self.store}") as store:
            walks = export(store, None, "json")
            drills = [(d.series_id, d.verdict) for d in store.drills.all()]
        with Store.open(f"sqlite:///{self.store}") as store:
            runs = [run.id for run in store.regress.runs()]
        return json.dumps([json.loads(walks), drills, runs])


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Place:
    root = tmp_path_factory.mktemp("bad-inputs")
    known = make_known_values_repo(root / "project")
    spot = Place(root, known.path, root / "store.db")
    assert main(["run", "-c", str(spot.config())]) == 0
    (root / "two.csv").write_text("a,b\n1,2\n3,4\n5,6\n")
    (root / "a.txt").write_text("1\n2\n3\n4\n")
    (root / "b.txt").write_text("2\n3\n4\n5\n")
    (root / "segv.log").write_text("Segmentation fault\n")
    shutil.copy(shutil.which("true") or "/bin/true", root / "program")
    (root / "master.ini").write_text("[Test]\ntrials: 1\n[Clients]\nme: player.ini\n")
    return spot


def _deep(depth: int) -> str:
    return "[[test]]\nname = 'deep'\ncommand = 'true'\nparser = 'value'\n" + (
        "parser_options = { x = " + "[" * depth + "]" * depth + " }\n"
    )


@dataclass(frozen=True)
class Case:
    """A bad input: the command line, a change of the configuration file (``old``
    replaced by ``new``, or ``append`` added), and words the error must hold."""

    argv: list[str]
    words: list[str]
    old: str = ""
    new: str = ""
    append: str = ""

    @property
    def in_file(self) -> bool:
        return bool(self.old or self.append)


CASES: dict[str, Case] = {
    # 3. counts without an upper bound
    "repetitions beyond memory": Case(
        ["run", "-n", "9223372036854775807"],
        ["-n/--repetitions", "expected 1 to 10000, got 9223372036854775807"],
    ),
    "repetitions beyond memory in the file": Case(
        ["run"],
        ["run.repetitions", 'expected 1 to 10000, or "auto", got 9223372036854775807'],
        old="repetitions = 2",
        new="repetitions = 9223372036854775807",
    ),
    "drill builds beyond any budget": Case(
        ["drill", "--max-builds", HUGE], ["--max-builds", "expected 1 to 10000"]
    ),
    "drill repetitions beyond any budget": Case(
        ["drill", "--max-repetitions", HUGE], ["--max-repetitions", "expected 2 to 1000000"]
    ),
    "conductor trials beyond any count": Case(
        ["conduct", "{root}/master.ini", "--trials", HUGE], ["--trials", "expected 1 to 10000"]
    ),
    "a log limit beyond memory": Case(
        ["list"],
        ["store.log_limit", "expected 1 to 1073741824 (1 GiB)"],
        old='url = "sqlite',
        new=f'log_limit = {HUGE}\nurl = "sqlite',
    ),
    # 12. tracebacks where a usage error is due
    "serve on a negative port": Case(["serve", "--port", "-1"], ["--port", "got -1"]),
    "serve on a port beyond 65535": Case(["serve", "--port", "70000"], ["--port", "got 70000"]),
    "serve every infinite seconds": Case(["serve", "--interval", "inf"], ["--interval", "inf"]),
    "a TOML file nested past the recursion limit": Case(
        ["list"], ["nested more than 32 deep"], append=_deep(100_000)
    ),
    "a 20-digit series to show": Case(["show", HUGE], ["argument series", HUGE]),
    "a 20-digit series to export": Case(["export", "--series", HUGE], ["--series", HUGE]),
    "a 20-digit series to compare": Case(
        ["compare", f"{HUGE}:1", "1:1", "--config", "{config}"], [f"no series with id {HUGE}"]
    ),
    "a 20-digit repetition count": Case(["run", "-n", HUGE], ["-n/--repetitions", HUGE]),
    "a 20-digit count in the file": Case(
        ["list"],
        ["store.artifact_limit", HUGE],
        old='url = "sqlite',
        new=f'artifact_limit = {HUGE}\nurl = "sqlite',
    ),
    # 13. degenerate options
    "a NaN threshold hides every change": Case(
        ["changes", "--threshold", "nan"], ["--threshold", "got nan"]
    ),
    "an infinite threshold": Case(["changes", "--threshold", "inf"], ["--threshold", "inf"]),
    "a negative threshold": Case(
        ["detect", "{root}/a.txt", "--threshold", "-3"], ["--threshold", "got -3"]
    ),
    "a drill threshold of NaN": Case(["drill", "--threshold", "nan"], ["--threshold", "nan"]),
    "a column the file does not have": Case(
        ["detect", "{root}/two.csv", "--column", "99"],
        ["two.csv", "no column 99", "at most 2 columns"],
    ),
    "a ministat column the file does not have": Case(
        ["compare", "-C", "99", "{root}/a.txt", "{root}/b.txt"],
        ["a.txt", "no column 99", "at most 1 column"],
    ),
    "a plot wider than memory": Case(
        ["compare", "-w", HUGE, "{root}/a.txt", "{root}/b.txt"], ["-w", "expected 2 to 1000"]
    ),
    "serve busy-looping": Case(["serve", "--interval", "0"], ["--interval", "got 0"]),
    "a NUL byte in an environment value": Case(
        ["run"],
        ["build.env", "the value of TOKEN holds a NUL byte"],
        old="[build]\n",
        new='[build]\nenv = { TOKEN = "a\\u0000b" }\n',
    ),
    "a NaN reboot delay": Case(["lab", "up", "--reboot-delay", "nan"], ["--reboot-delay", "nan"]),
    "a negative wait for players": Case(
        ["conduct", "{root}/master.ini", "--wait", "-1"], ["--wait", "got -1"]
    ),
    # an unknown test or metric is named, with the known ones
    "a test the series never ran": Case(
        ["show", "1", "--test", "nosuch"],
        ["--test nosuch: series 1 ran no such test", "its tests: latency"],
    ),
    "a metric the checkout never measured": Case(
        ["compare", "1:0", "1:1", "--metric", "latency.nosuch", "--config", "{config}"],
        ["metric 'latency.nosuch' is not measured here", "metrics: latency.latency"],
    ),
    "a log of a test the checkout never ran": Case(
        ["log", "1:0", "--test", "nosuch"],
        ["--test nosuch: checkout 1:0 ran no such test", "its tests: latency"],
    ),
    "a log of a repetition the checkout does not have": Case(
        ["log", "1:0", "--repetition", "99"],
        ["--repetition 99: checkout 1:0 has no such repetition", "its repetitions: 0 to"],
    ),
    "a log of no checkout": Case(["log", "1"], ["'1' is not SERIES:CHECKOUT"]),
    "a log of a negative repetition": Case(
        ["log", "1:0", "--repetition", "-1"], ["--repetition", "an index, 0 to"]
    ),
    # 7. junk imported as results
    "a program imported as results": Case(
        ["regress", "import", "{root}/program", "--host", "h"],
        ["program", "binary data", "not JUnit XML", "not TAP", "not a marker log"],
    ),
    "a crash message imported as a marker log": Case(
        ["regress", "import", "{root}/segv.log", "--host", "h", "--format", "markers"],
        ["segv.log", "no marker log found"],
    ),
}

#: commands without -c/--config
_NO_CONFIG = ("compare", "detect")


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_a_bad_input_is_a_usage_error_that_names_it_and_loses_nothing(
    place: Place, capsys: pytest.CaptureFixture[str], case: Case
) -> None:
    config = place.config(case.append)
    if case.old:
        text = config.read_text()
        assert case.old in text
        config.write_text(text.replace(case.old, case.new, 1))
    before = place.rows()
    args = [a.format(root=place.root, config=config) for a in case.argv]
    if args[0] not in _NO_CONFIG:
        args += ["-c", str(config)]
    try:
        code = main(args)
    except SystemExit as done:  # argparse: the option's type refused the word
        code = int(done.code or 0)
    _out, err = capsys.readouterr()
    assert code == 2, err
    assert "Traceback" not in err
    assert "internal error" not in err
    for word in case.words:
        assert word in err
    if case.in_file:
        assert str(config) in err  # a configuration error names the file
    assert place.rows() == before  # nothing stored was lost, nothing added


@pytest.mark.parametrize(
    ("argv", "code", "shown"),
    [
        (["compare", "{root}/plus.txt", "{root}/minus.txt"], 1, "-200%"),  # -2e308: -inf
        (["compare", "{root}/pm.txt", "{root}/pm.txt", "--format", "json"], 0, '"avg"'),
        (["detect", "{root}/flip.txt"], 1, "-200 %"),  # +1e308 then -1e308
        (["detect", "{root}/flip.txt", "--format", "json"], 1, '"relative": -2.0'),
    ],
)
def test_numbers_at_the_ends_of_the_float_range_are_compared_and_detected(
    place: Place, capsys: pytest.CaptureFixture[str], argv: list[str], code: int, shown: str
) -> None:
    """Once a traceback (exit 3): the sums overflowed."""
    (place.root / "plus.txt").write_text("1e308\n1.1e308\n0.9e308\n1.05e308\n")
    (place.root / "minus.txt").write_text("-1e308\n-1.1e308\n-0.9e308\n-1.05e308\n")
    (place.root / "pm.txt").write_text("1e308\n-1e308\n1e308\n-1.7e308\n")
    (place.root / "flip.txt").write_text("1e308\n" * 12 + "-1e308\n" * 12)
    assert main([a.format(root=place.root) for a in argv]) == code
    out, err = capsys.readouterr()
    assert err == ""
    assert shown in out
    if "json" in argv:
        json.loads(out, parse_constant=_no_constant)  # JSON: no Infinity, no NaN


def _no_constant(name: str) -> None:
    raise AssertionError(f"{name} in JSON output")


def test_the_base_config_of_the_table_is_valid(place: Place) -> None:
    """The table's errors come from its inputs, not from a broken base file."""
    load_config(place.config())
