"""Every kind of mistake in perfwalk.toml is a ConfigError naming the file and the key."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from perfwalk.config import load_config
from perfwalk.errors import ConfigError
from perfwalk.limits import MAX_USER_FILE_BYTES
from tests.config.conftest import MINIMAL, WriteConfig
from tests.fixtures.bad_paths import no_regular_files
from tests.fixtures.commands import perfwalk


def _load_error(path: Path) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    error = caught.value
    assert error.path == str(path)
    assert str(error).startswith(f"{path}: ")
    assert error.hint
    return error


def _test(extra: str = "", **keys: str) -> str:
    """A [[test]] table: the minimal one with ``keys`` replaced, then ``extra`` lines."""
    fields = {"name": '"latency"', "command": '"./bench"', "parser": '"value"', **keys}
    lines = [f"{key} = {value}" for key, value in fields.items() if value]
    return "[[test]]\n" + "\n".join(lines) + "\n" + extra


# (file text, the key the error names, words of its message, words of its hint)
CASES = {
    "unknown section": (
        "[projet]\nname = 'x'\n" + MINIMAL,
        "projet",
        "unknown section",
        "'project'",
    ),
    "unknown top-level key": ('name = "x"\n' + MINIMAL, "name", "unknown key", "project"),
    "unknown key in a table": (MINIMAL + "[build]\nstep = []\n", "build.step", "'step'", "'steps'"),
    "unknown key in a test": (
        _test("tiemout = 5\n"),
        "test[0].tiemout",
        "unknown key",
        "'timeout'",
    ),
    "unknown key in a metric": (
        _test("[test.metrics.sender]\ndirecton = 'higher'\n"),
        "test[0].metrics.sender.directon",
        "unknown key",
        "'direction'",
    ),
    "unknown key in a quirk": (
        MINIMAL + "[[quirk]]\nat = 'v1'\ncomment = 'c'\ncomand = []\n",
        "quirk[0].comand",
        "unknown key",
        "'commands'",
    ),
    "wrong type": (
        _test(timeout='"600"'),
        "test[0].timeout",
        "expected a number, got a string",
        "600",
    ),
    "boolean for an integer": (
        MINIMAL + "[run]\nwarmup = true\n",
        "run.warmup",
        "expected an integer, got a boolean",
        "hyperfine",
    ),
    "wrong type in a list": (
        MINIMAL + '[build]\nsteps = ["make", 3]\n',
        "build.steps[1]",
        "got an integer (3)",
        "steps",
    ),
    "steps as one string": (
        MINIMAL + '[build]\nsteps = "make"\n',
        "build.steps",
        "expected an array of strings",
        "steps",
    ),
    "wrong type in env": (
        MINIMAL + "[build]\nenv = { JOBS = 4 }\n",
        "build.env.JOBS",
        "table of strings",
        "env",
    ),
    "bad environment name": (
        _test('env = { "A-B" = "1" }\n'),
        "test[0].env",
        "names of letters",
        "env",
    ),
    "a build host that would not be read": (
        MINIMAL + '[build]\nhost = "builder.example.org"\n',
        "build.host",
        "expected one of local, got 'builder.example.org'",
        "build",
    ),
    "an environment's host that is an ssh option": (
        MINIMAL + '[[environment]]\nname = "a"\nhost = "-oProxyCommand=touch x"\n',
        "environment[0].host",
        "no blanks, not starting with -",
        "host",
    ),
    "an environment's image that is an engine option": (
        MINIMAL + '[[environment]]\nname = "a"\nimage = "--privileged"\n',
        "environment[0].image",
        "a container image reference",
        "image",
    ),
    "an environment's engine that is empty": (
        MINIMAL + '[[environment]]\nname = "a"\nimage = "x"\nengine = []\n',
        "environment[0].engine",
        "non-empty",
        "engine",
    ),
    "section of the wrong type": (
        'build = "make"\n' + MINIMAL,
        "build",
        "expected a table",
        "[build]",
    ),
    "bad enum": (
        _test("[test.metrics.sender]\ndirection = 'up'\n"),
        "test[0].metrics.sender.direction",
        "expected one of higher, lower, got 'up'",
        "higher or lower",
    ),
    "bad enum, close": (
        _test("[test.metrics.sender]\nsummary = 'meen'\n"),
        "test[0].metrics.sender.summary",
        "expected one of mean, median, best",
        "did you mean 'mean'",
    ),
    "metric not a table": (
        _test("metrics = { sender = 'higher' }\n"),
        "test[0].metrics.sender",
        "expected a table",
        "[test.metrics.sender]",
    ),
    "unknown parser": (_test(parser='"iperf"'), "test[0].parser", "expected one of", "'iperf3'"),
    "options for a parser that takes none": (
        _test("parser_options = { x = 1 }\n"),
        "test[0].parser_options",
        "takes no options",
        "remove",
    ),
    "bad parser option": (
        _test(parser='"regex"', extra="parser_options = { unit = 's' }\n"),
        "test[0].parser_options.pattern",
        "pattern",
        "pattern",
    ),
    "missing required key": (
        _test(command=""),
        "test[0].command",
        "missing required key",
        "./bench",
    ),
    "empty required string": (
        _test(command='""'),
        "test[0].command",
        "expected a non-empty value",
        "command",
    ),
    "no test": ("[run]\nstep = '1week'\n", "test", "at least 1 [[test]]", "[[test]]"),
    "single brackets": (
        MINIMAL.replace("[[test]]", "[test]"),
        "test",
        "array of tables",
        "[[test]]",
    ),
    "test not a table": ("test = [1]\n", "test[0]", "expected a table", "[test]"),
    "bad test name": (_test(name='"my test"'), "test[0].name", "letters, digits", "stable id"),
    "duplicate test names": (
        MINIMAL + MINIMAL.replace("./bench", "./other"),
        "test[1].name",
        "duplicate test name 'latency' (test[0]",
        "its own",
    ),
    "zero timeout": (_test(timeout="0"), "test[0].timeout", "expected > 0", "timeout"),
    "infinite timeout": (_test(timeout="inf"), "test[0].timeout", "expected > 0", "timeout"),
    "no repetitions": (
        MINIMAL + "[run]\nrepetitions = 0\n",
        "run.repetitions",
        "expected 1 to 10000",
        "times",
    ),
    "repetitions beyond memory": (
        MINIMAL + "[run]\nrepetitions = 9223372036854775807\n",
        "run.repetitions",
        'expected 1 to 10000, or "auto", got 9223372036854775807',
        "times",
    ),
    "a 20-digit count": (
        MINIMAL + "[store]\nartifact_limit = 99999999999999999999\n",
        "store.artifact_limit",
        "expected 1 to 1073741824 (1 GiB), got 99999999999999999999",
        "bytes",
    ),
    "a timeout no clock can wait": (
        _test(timeout="1e12"),
        "test[0].timeout",
        "at most 2592000 (30 days), got 1000000000000.0",
        "timeout",
    ),
    "a NaN timeout": (_test(timeout="nan"), "test[0].timeout", "got nan", "timeout"),
    "an integer beyond the float range": (
        MINIMAL + "[build]\ntimeout = 1" + "0" * 400 + "\n",
        "build.timeout",
        "expected a number, got an integer beyond the float range (1000000000",
        "timeout",
    ),
    "a NaN share": (
        MINIMAL + "[analysis]\nunstable_rsd = nan\n",
        "analysis.unstable_rsd",
        "nan",
        "rsd",
    ),
    "a parser scale beyond the float range": (
        _test(
            parser='"regex"',
            parser_options="{ pattern = 'v (?P<value>.+)', unit = 's', scale = 1"
            + "0" * 400
            + " }",
        ),
        "test[0].parser_options.scale",
        "expected a finite number, got 1000000",
        "multiplies every value",
    ),
    "a unit for a group the pattern does not have": (
        _test(
            parser='"regex"',
            parser_options="{ pattern = '(?P<compress>[0-9.]+) MB/s, (?P<decompress>[0-9.]+)', "
            "units = { compres = 'MB/s', decompress = 'MB/s' } }",
        ),
        "test[0].parser_options.units.compres",
        "no group 'compres' in the pattern; its groups: compress, decompress",
        "did you mean compress?",
    ),
    "a role parser's bad option names the role's key": (
        "[hosts.local]\nroles = ['dut']\n"
        + _test(
            extra="[test.roles.dut]\nparser = 'regex'\n"
            "parser_options = { pattern = '(?P<rx>\\d+)', unit = 'pps', scale = { tx = 2 } }\n"
        ),
        "test[0].roles.dut.parser_options.scale.tx",
        "no group 'tx' in the pattern; its groups: rx",
        "(?P<tx>",
    ),
    "an env value with a NUL byte": (
        _test(env='{ LC_ALL = "C", TOKEN = "a\\u0000b" }'),
        "test[0].env",
        "the value of TOKEN holds a NUL byte",
        "environment",
    ),
    "a command with a NUL byte": (
        _test(command='"./bench\\u0000 --fast"'),
        "test[0].command",
        "the string holds a NUL byte (\\u0000) at character 7",
        "command",
    ),
    "a build step with a NUL byte": (
        MINIMAL + '[build]\nsteps = ["make", "make\\u0000install"]\n',
        "build.steps",
        "item 1 holds a NUL byte",
        "steps",
    ),
    "bad step": (MINIMAL + "[run]\nstep = '1fortnight'\n", "run.step", "invalid step", "step"),
    "bad step count": (MINIMAL + "[run]\nstep = 'commit/0'\n", "run.step", "invalid step", "step"),
    "bad date": (MINIMAL + "[run]\nfrom = '2024-13-01'\n", "run.from", "invalid date", "from"),
    "bad date shape": (MINIMAL + "[run]\nfrom = '2024-3-1'\n", "run.from", "invalid date", "from"),
    "option-like commit-ish": (
        MINIMAL + "[run]\nto = '--all'\n",
        "run.to",
        "expected a commit-ish",
        "to",
    ),
    "time of day only": (MINIMAL + "[run]\nfrom = 12:00:00\n", "run.from", "got a time", "from"),
    "option-like branch": (
        MINIMAL + "[project]\nbranch = '-x'\n",
        "project.branch",
        "expected a commit-ish",
        "branch",
    ),
    "option-like host": (MINIMAL + "[run]\nhost = '-oProxyCommand=x'\n", "run.host", "ssh", "host"),
    "commit url without placeholder": (
        MINIMAL + "[project]\ncommit_url = 'https://x.org/c/'\n",
        "project.commit_url",
        "containing {commit}",
        "{commit}",
    ),
    "commit url with another placeholder": (
        MINIMAL + "[project]\ncommit_url = 'https://x.org/{repo}/{commit}'\n",
        "project.commit_url",
        "only the placeholder {commit}",
        "{commit}",
    ),
    "file url without its path": (
        MINIMAL + "[project]\nfile_url = 'https://x.org/blob/{commit}'\n",
        "project.file_url",
        "containing {commit} and {path}",
        "{path}",
    ),
    "file url with another placeholder": (
        MINIMAL + "[project]\nfile_url = 'https://x.org/{repo}/{commit}/{path}'\n",
        "project.file_url",
        "only the placeholders {commit} and {path}",
        "{path}",
    ),
    "store url": (
        MINIMAL + "[store]\nurl = 'mysql://db/perf'\n",
        "store.url",
        "sqlite",
        "postgresql",
    ),
    "negative log limit": (
        MINIMAL + "[store]\nlog_limit = -1\n",
        "store.log_limit",
        "expected 1 to 1073741824 (1 GiB), got -1",
        "bytes",
    ),
    "threshold": (MINIMAL + "[analysis]\noutlier = 0\n", "analysis.outlier", "> 0", "outlier"),
    "empty build step": (
        MINIMAL + "[build]\nsteps = ['make', ' ']\n",
        "build.steps",
        "non-blank commands",
        "steps",
    ),
    "quirk without at": (
        MINIMAL + "[[quirk]]\ncomment = 'c'\n",
        "quirk[0].at",
        "missing required key 'at'",
        "2024-03-01",
    ),
    "quirk with a bad date": (
        MINIMAL + "[[quirk]]\nat = '2024-02-30'\ncomment = 'c'\n",
        "quirk[0].at",
        "invalid date",
        "at",
    ),
    "until without a range": (
        MINIMAL + "[[quirk]]\nat = 'v1'\nuntil = 'v2'\ncomment = 'c'\ncommands = ['x']\n",
        "quirk[0].until",
        "nothing of this quirk holds over a range",
        "build_steps",
    ),
    "quirk replacing an unknown test": (
        MINIMAL + "[[quirk]]\nat = 'v1'\ncomment = 'c'\n[quirk.test.latncy]\ncommand = 'x'\n",
        "quirk[0].test.latncy",
        "no [[test]] is named 'latncy'",
        "latency",
    ),
    "snapshot per an unknown test": (
        MINIMAL + "[[snapshot]]\nname = 's'\ncommand = 'x'\nper = ['latncy.ops']\n",
        "snapshot[0].per[0]",
        "no [[test]] is named 'latncy'",
        "TEST.METRIC with one of the tests: latency",
    ),
    "snapshot per not TEST.METRIC": (
        MINIMAL + "[[snapshot]]\nname = 's'\ncommand = 'x'\nper = ['ops']\n",
        "snapshot[0].per",
        "TEST.METRIC",
        "",
    ),
    "quirk test replacing nothing": (
        MINIMAL + "[[quirk]]\nat = 'v1'\ncomment = 'c'\n[quirk.test.latency]\n",
        "quirk[0].test.latency",
        "replaces nothing",
        "command",
    ),
    "quirk test with a bad parser": (
        MINIMAL + "[[quirk]]\nat = 'v1'\ncomment = 'c'\n[quirk.test.latency]\nparser = 'valu'\n",
        "quirk[0].test.latency.parser",
        "expected one of",
        "did you mean 'value'?",
    ),
    "quirk test with options its parser refuses": (
        MINIMAL
        + "[[quirk]]\nat = 'v1'\ncomment = 'c'\n[quirk.test.latency]\nparser_options = {x = 1}\n",
        "quirk[0].test.latency.parser_options",
        "takes no options",
        "regex",
    ),
    "quirks since a bad date": (
        MINIMAL + "[run]\nquirks_since = '2024-02-30'\n",
        "run.quirks_since",
        "invalid date",
        "quirks_since",
    ),
    "duplicate walk names": (
        MINIMAL + "[[walk]]\nname = 'nightly'\n[[walk]]\nname = 'weekly'\n"
        "[[walk]]\nname = 'nightly'\nstep = '1week'\n",
        "walk[2].name",
        "duplicate walk name 'nightly' (walk[0]",
        "its own",
    ),
    "duplicate release names": (
        MINIMAL + "[[release]]\nname = '7.4'\nat = '2024-01-01'\n"
        "[[release]]\nname = '7.4'\nat = 'v7.5'\n",
        "release[1].name",
        "duplicate release name '7.4' (release[0]",
        "its own",
    ),
    "bad date of a release": (
        MINIMAL + "[[release]]\nname = '7.4'\nat = '2024-02-30'\n",
        "release[0].at",
        "invalid date",
        "at",
    ),
    "release without at": (
        MINIMAL + "[[release]]\nname = '7.4'\n",
        "release[0].at",
        "missing required key 'at'",
        "v7.4",
    ),
    "unknown key in a release": (
        MINIMAL + "[[release]]\nname = '7.4'\nat = 'v7.4'\ndate = '2024-01-01'\n",
        "release[0].date",
        "unknown key",
        "'at'",
    ),
    "release at an option": (
        MINIMAL + "[[release]]\nname = '7.4'\nat = '--all'\n",
        "release[0].at",
        "commit-ish",
        "at",
    ),
    "walk without a name": (
        MINIMAL + "[[walk]]\nstep = '1day'\n",
        "walk[0].name",
        "missing required key 'name'",
        "nightly",
    ),
    "walk name not an identifier": (
        MINIMAL + "[[walk]]\nname = 'every night'\n",
        "walk[0].name",
        "a letter, then letters, digits",
        "name = ",
    ),
    "unknown key in a walk": (
        MINIMAL + "[[walk]]\nname = 'nightly'\nstpe = '1day'\n",
        "walk[0].stpe",
        "unknown key",
        "'step'",
    ),
    "bad step of a walk": (
        MINIMAL + "[[walk]]\nname = 'nightly'\nstep = '1fortnight'\n",
        "walk[0].step",
        "1fortnight",
        "step",
    ),
    "zero repetitions of a walk": (
        MINIMAL + "[[walk]]\nname = 'nightly'\nrepetitions = 0\n",
        "walk[0].repetitions",
        "expected 1 to",
        "repetitions",
    ),
    # a time zone the database lacks, one in the wrong case, a path out of it, none
    **{
        f"time zone {zone!r}": (
            MINIMAL + f"[report]\ntime_zone = {zone!r}\n",
            "report.time_zone",
            f"expected an IANA time zone name such as Europe/Berlin, got {zone!r}",
            'time_zone = "Europe/Berlin"',
        )
        for zone in ("Mars/Olympus", "asia/kolkata", "../../etc/passwd", "")
    },
}


@pytest.mark.parametrize(("text", "key", "message", "hint"), CASES.values(), ids=CASES.keys())
def test_mistakes_name_the_file_and_the_key(
    write_config: WriteConfig, text: str, key: str, message: str, hint: str
) -> None:
    path = write_config(text)
    error = _load_error(path)
    assert error.key == key
    assert str(error).startswith(f"{path}: {key}: ")
    assert message in error.message
    assert error.hint is not None
    assert hint in error.hint


@pytest.mark.parametrize("depth", [40, 1000, 100_000])
def test_deeply_nested_values_are_a_config_error(write_config: WriteConfig, depth: int) -> None:
    """tomllib recurses (RecursionError near 500), so do copies of parser options: a
    limit that no real file comes near is checked before anything recurses."""
    path = write_config(_test(parser_options="{ x = " + "[" * depth + "]" * depth + " }"))
    error = _load_error(path)
    assert error.key is None
    assert "nested more than 32 deep" in error.message


def test_a_missing_repository_names_the_key_and_the_resolved_path(
    write_config: WriteConfig,
) -> None:
    path = write_config(MINIMAL + '[project]\nrepo = "../nowhere"\n')
    error = _load_error(path)
    assert error.key == "project.repo"
    assert str(path.parent.parent / "nowhere") in error.message
    assert str(path.parent) in (error.hint or "")


def test_a_missing_patch_names_the_key_and_the_resolved_path(write_config: WriteConfig) -> None:
    path = write_config(MINIMAL + "[[quirk]]\nat = 'v1'\ncomment = 'c'\npatch = 'p/fix.diff'\n")
    error = _load_error(path)
    assert error.key == "quirk[0].patch"
    assert f"{path.parent / 'p' / 'fix.diff'}: no such file" in error.message


#: each key that names a file perfwalk or ssh reads, and the table it is written in
FILE_KEYS = {
    "quirk[0].patch": "[[quirk]]\nat = 'v1'\ncomment = 'c'\npatch = '{path}'\n",
    "variant[0].patches": "[[variant]]\nname = 'fast'\npatches = ['fix.diff', '{path}']\n",
    "hosts.dut.ssh_config": "[hosts.dut]\ntarget = 'dut'\nssh_config = '{path}'\n",
    "hosts.dut.known_hosts": "[hosts.dut]\ntarget = 'dut'\nknown_hosts = '{path}'\n",
}


@pytest.mark.parametrize("key", FILE_KEYS)
def test_a_named_file_that_is_no_regular_file_is_named_for_what_it_is(
    write_config: WriteConfig, key: str
) -> None:
    """A patch, an ssh_config or a known_hosts file that is a device, a FIFO no one
    writes, a directory, a file that cannot be read or one too large: each a ConfigError
    naming the file, the key and what is wrong with the path (it said 'no such file' of
    each but the last two), at once (the FIFO is not waited on)."""
    folder = write_config(MINIMAL).parent
    (folder / "fix.diff").write_text("--- a/x\n+++ b/x\n", encoding="utf-8")
    cases = no_regular_files(folder)
    for named, said in cases.items():
        path = write_config(MINIMAL + FILE_KEYS[key].format(path=named))
        error = _load_error(path)
        assert error.key == key, error
        assert error.message == f"{path}: {key}: {named}{said}"
        assert f"path, relative to {folder}" in (error.hint or "")


def test_the_second_quirk_is_counted_from_zero(write_config: WriteConfig) -> None:
    quirk = "[[quirk]]\nat = 'v1'\ncomment = 'c'\n"
    path = write_config(MINIMAL + quirk + quirk + "[[quirk]]\nat = 'v2'\n")
    assert _load_error(path).key == "quirk[2].comment"


def test_a_toml_syntax_error_gives_line_and_column(write_config: WriteConfig) -> None:
    path = write_config(MINIMAL + "[run]\nstep = 1day\n")
    error = _load_error(path)
    assert error.key is None
    assert error.message.startswith(f"{path}: invalid TOML at line 6, column 9: ")
    assert "step = 1day" in (error.hint or "")


def test_a_toml_error_at_the_end_of_the_file(write_config: WriteConfig) -> None:
    error = _load_error(write_config(MINIMAL + "[run]\nstep ="))
    assert "invalid TOML" in error.message


def test_a_missing_file(tmp_path: Path) -> None:
    error = _load_error(tmp_path / "perfwalk.toml")
    assert "no such file" in error.message
    assert "perfwalk init" in (error.hint or "")


def test_a_directory(tmp_path: Path) -> None:
    error = _load_error(tmp_path)
    assert "is a directory" in error.message
    assert str(tmp_path / "perfwalk.toml") in (error.hint or "")


def test_a_file_that_is_not_utf8(write_config: WriteConfig) -> None:
    path = write_config(MINIMAL)
    path.write_bytes(b'[project]\nname = "\xff"\n')
    assert "not UTF-8" in _load_error(path).message


def test_a_byte_order_mark_is_tolerated(write_config: WriteConfig) -> None:
    path = write_config(MINIMAL)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert load_config(path).tests[0].name == "latency"


def test_a_configuration_file_that_is_no_regular_file_is_named_for_what_it_is(
    tmp_path: Path,
) -> None:
    """`perfwalk -c` and `perfwalk conduct --check` of a device, a directory or a file
    too large, and a Conductor player file that is a FIFO no one writes: each exit 2 at
    once, naming the file and what it is, without a traceback (-c /dev/zero was read
    until the memory ran out). A configuration in a pipe is read."""
    huge = tmp_path / "huge.toml"
    with huge.open("wb") as sparse:
        sparse.truncate(MAX_USER_FILE_BYTES + 1)
    cases = {
        Path("/dev/zero"): "is a character device, not a regular file",
        tmp_path: "is a directory, not a regular file",
        huge: f"holds {MAX_USER_FILE_BYTES + 1} bytes, more than {MAX_USER_FILE_BYTES}",
    }
    for named, said in cases.items():
        for argv in (["-c", str(named), "list"], ["conduct", "--check", str(named)]):
            done = perfwalk(*argv, cwd=tmp_path, timeout=60, bounded=True)
            assert done.returncode == 2, (argv, done.stdout, done.stderr)
            assert done.stderr.startswith(f"perfwalk: error: {named}: {said}\nhint: "), argv
            assert "Traceback" not in done.stderr

    fifo = tmp_path / "player.cfg"
    os.mkfifo(fifo)
    master = tmp_path / "m.cfg"
    master.write_text(f"[Test]\ntrials: 1\n[Clients]\na: {fifo.name}\n", encoding="utf-8")
    done = perfwalk("conduct", "--check", str(master), cwd=tmp_path, timeout=60)
    assert done.returncode == 2, (done.stdout, done.stderr)
    said = f"perfwalk: error: {fifo}: is a FIFO (a named pipe), not a regular file\nhint: "
    assert done.stderr.startswith(said)

    store = f'[store]\nurl = "sqlite:///{tmp_path / "perfwalk.db"}"\n'
    (tmp_path / "perfwalk.toml").write_text(MINIMAL + store, encoding="utf-8")
    piped = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m perfwalk -c <(cat perfwalk.toml) list'],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        cwd=tmp_path,
    )
    assert (piped.returncode, piped.stderr) == (0, ""), piped.stderr
    assert piped.stdout.startswith("no series yet")
