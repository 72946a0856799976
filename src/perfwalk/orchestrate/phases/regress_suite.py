"""Run the configured regress suite on a host: each test (a test directory's command,
or a command) in its own process group with its timeout, judged by its exit status
and the markers in its output; or the suite's runner, whose results file is read.
What a run made is returned as the run to store (:class:`NewRegressRun`), its logs
bounded; storing it is the regress use case's (:mod:`perfwalk.services.regress`).

A drill of a test's break runs that one test in a checkout of each commit it tries
(:func:`run_in_checkout`): in the checkout's copy of regress.dir, which must lie in
the project's repository.
"""

from __future__ import annotations

import posixpath
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from perfwalk.config.host_model import HostConfig
from perfwalk.config.model import Config
from perfwalk.errors import ConfigError, GitError, HostError, ParseError, UsageError
from perfwalk.git.repo import Repo
from perfwalk.hosts.base import Completed, Host
from perfwalk.hosts.capture import Capture
from perfwalk.hosts.fingerprint import fingerprint
from perfwalk.model import Log, Status
from perfwalk.regress.formats import reader
from perfwalk.regress.markers import Verdict, judge_command
from perfwalk.regress.outcome import SUITE_TEST, TestOutcome, numbered
from perfwalk.store.regress import Build, NewRegressResult, NewRegressRun

#: Seconds allowed for the small commands around the tests (directory checks, git).
_QUICK = 30.0
_COMMIT = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")
#: Runs ``$1`` with the shell, its stderr into its stdout in the order written.
_MERGED = ["sh", "-c", 'exec 2>&1; eval "$1"', "perfwalk-regress"]


@dataclass(frozen=True)
class PlannedTest:
    """A test of the configured suite, ready to run (``dir`` relative to regress.dir)."""

    name: str
    dir: str | None
    command: str
    timeout: float
    source: str | None


Progress = Callable[[int, int, TestOutcome], None]


def plan_suite(config: Config) -> list[PlannedTest]:
    """The tests of ``[regress]``; ConfigError naming the key for a suite that cannot run."""
    regress, shown = config.regress, str(config.path)
    if regress.runner and regress.tests:
        raise ConfigError(
            "both a runner and [[regress.test]] entries are given",
            path=shown,
            key="regress.runner",
            hint="a suite is either a runner whose results are read or a list of tests",
        )
    if not regress.runner and not regress.tests:
        raise ConfigError(
            "no regress suite: neither [[regress.test]] entries nor a runner",
            path=shown,
            key="regress",
            hint='add [[regress.test]] with dir = "..." (or command = "..."), '
            'or runner = "pytest --junitxml=results.xml"',
        )
    planned: list[PlannedTest] = []
    seen: dict[str, int] = {}
    for index, test in enumerate(regress.tests):
        key = f"regress.test[{index}]"
        name = test.name or test.dir
        if not name:
            raise ConfigError(
                "a test needs a dir or a name",
                path=shown,
                key=key,
                hint='give dir = "path/of/the/test" or name = "..." with command = "..."',
            )
        if not test.dir and not test.command:
            raise ConfigError(
                f"test {name!r} has neither dir nor command",
                path=shown,
                key=key,
                hint="give its directory (dir) or the shell command that runs it (command)",
            )
        if name in seen:
            raise ConfigError(
                f"duplicate test name {name!r} (regress.test[{seen[name]}] has it too)",
                path=shown,
                key=f"{key}.name",
                hint="a test's name is its row in the matrix; give each test its own",
            )
        seen[name] = index
        planned.append(
            PlannedTest(
                name=name,
                dir=test.dir or None,
                command=test.command or regress.command,
                timeout=test.timeout if test.timeout is not None else regress.timeout,
                source=test.source or test.dir or None,
            )
        )
    return planned


def run_on_host(
    config: Config,
    host: Host,
    planned: Sequence[PlannedTest],
    commit: str | None,
    progress: Progress,
    *,
    clock: Callable[[], datetime],
) -> NewRegressRun:
    """Run the suite on an open host; the run to store (not stored yet)."""
    started = clock()
    base = _base_dir(config, host)
    system = fingerprint(host)
    found_commit = commit_option(config, commit) or _host_commit(host, base)
    suite = _Suite(config, host, base)
    if config.regress.runner:
        outcomes, run_log = suite.run_runner()
        label = config.regress.runner
    else:
        outcomes, run_log = [], None
        for number, test in enumerate(planned, 1):
            outcome = suite.run_test(test)
            outcomes.append(outcome)
            progress(number, len(planned), outcome)
        label = f"{len(planned)} tests in {config.regress.dir}"
    kernel = system.get("kernel", "")
    limit = config.store.log_limit
    return NewRegressRun(
        host=host.name,
        started_at=started,
        finished_at=clock(),
        results=tuple(stored_result(outcome, limit) for outcome in numbered(outcomes)),
        arch=architecture(kernel),
        os=system.get("os", ""),
        kernel=kernel,
        build=build_kind(kernel, config.regress.stock_kernel),
        commit=found_commit,
        origin="run",
        label=label,
        fingerprint=system,
        log=run_log,
    )


def run_in_checkout(config: Config, host: Host, worktree: Path, name: str) -> TestOutcome:
    """The suite's test ``name`` run once in ``worktree``, a checkout of the project, in
    its copy of regress.dir: as the suite runs it (its clean command, its timeout, its
    status rules), or the runner run there and its result for ``name`` (the suite's
    own row when it has none). A UsageError when regress.dir is not in the project's
    repository, or the suite has no test ``name``."""
    base = posixpath.join(worktree.as_posix(), checkout_dir(config))
    suite = _Suite(config, host, base)
    if config.regress.runner:
        outcomes = {outcome.name: outcome for outcome in numbered(suite.run_runner()[0])}
        found = outcomes.get(name) or outcomes.get(SUITE_TEST)
        if found is None:
            why = f"the runner gave no result for {name} in {base}"
            return TestOutcome(name, Status.NOEXIST, why)
        return found
    planned = {test.name: test for test in plan_suite(config)}
    if name not in planned:
        raise UsageError(
            f"the regress suite of {config.path} has no test {name!r}",
            hint=f"its tests: {', '.join(planned) or 'none'}",
        )
    return suite.run_test(planned[name])


def checkout_dir(config: Config) -> str:
    """regress.dir as a path in the project's repository ("." for its top); a
    UsageError when it lies outside."""
    base = (config.path.parent / config.regress.dir).resolve()
    repo = Path(config.project.repo).resolve()
    try:
        return base.relative_to(repo).as_posix()
    except ValueError:
        raise UsageError(
            f"regress.dir {base} is not in the project's repository {repo}: a drill of a "
            "regress test runs it in a checkout of each commit it tries",
            hint="drill the tests of a suite that lies in the repository (regress.dir "
            "inside [project] repo); the matrix shows the others' first failing run",
        ) from None


def _base_dir(config: Config, host: Host) -> str:
    """regress.dir on the host (resolved against the config's directory when local)."""
    base = config.regress.dir
    settings = config.hosts.get(host.name) or HostConfig(target=host.name)
    if settings.local:
        base = str((config.path.parent / base).resolve())
    done = host.run(["test", "-d", base], timeout=_QUICK)
    if done.error is not None or done.returncode is None:
        raise HostError(
            f"host {host.name}: cannot check regress.dir {base}: {done.error or 'no answer'}",
            hint="check that the host is reachable",
        )
    if done.returncode != 0:
        raise ConfigError(
            f"no such directory on host {host.name}: {base}",
            path=str(config.path),
            key="regress.dir",
            hint="give the directory the tests run in (relative to this file on the local host)",
        )
    return base


def _host_commit(host: Host, base: str) -> str | None:
    """The commit checked out in regress.dir, when it is in a git work tree."""
    done = host.run(["git", "-C", base, "rev-parse", "--verify", "HEAD"], timeout=_QUICK)
    text = done.stdout.text().strip()
    return text if done.returncode == 0 and _COMMIT.fullmatch(text) else None


class _Suite:
    """The configured suite on one host, in its directory ``base``."""

    def __init__(self, config: Config, host: Host, base: str) -> None:
        self.regress = config.regress
        self.host = host
        self.base = base
        self.env = dict(config.regress.env)
        self.limit = config.store.log_limit

    def run_test(self, test: PlannedTest) -> TestOutcome:
        """One test, judged by the status rules (see :mod:`perfwalk.regress.markers`)."""
        host, where = self.host, self.base
        if test.dir is not None:
            where = posixpath.join(self.base, test.dir)
            check = host.run(["test", "-d", where], timeout=_QUICK)
            if check.returncode != 0:
                message = f"no such directory: {where}"
                return TestOutcome(test.name, Status.NOEXIST, message, source=test.source)
            if self.regress.clean:
                clean = self.shell(self.regress.clean, where, test.timeout)
                if clean.error is not None or clean.timed_out or clean.returncode != 0:
                    return TestOutcome(
                        test.name,
                        Status.NOCLEAN,
                        f"clean command failed: {_how(clean)}",
                        _output(clean),
                        clean.duration,
                        test.source,
                    )
        done = self.shell(test.command, where, test.timeout)
        output = _output(done)
        verdict = judge_command(
            output.decode("utf-8", errors="replace"),
            returncode=done.returncode,
            timed_out=done.timed_out,
            error=done.error,
            timeout=test.timeout,
            host_lost=done.host_lost,
        )
        return TestOutcome(
            test.name, verdict.status, verdict.message, output, done.duration, test.source
        )

    def shell(self, command: str, where: str, timeout: float) -> Completed:
        """``command`` run by sh in ``where``, its stderr merged into its stdout."""
        return self.host.run(
            [*_MERGED, command], timeout=timeout, env=self.env, cwd=where, output_limit=self.limit
        )

    def run_runner(self) -> tuple[list[TestOutcome], Log]:
        """Run the runner, read its results; a runner that fails makes a SUITE_TEST row."""
        regress, host = self.regress, self.host
        results_file = posixpath.join(self.base, regress.output) if regress.output else None
        if results_file is not None:  # never read the results of an earlier run
            host.run(["rm", "-f", results_file], timeout=_QUICK)
            done = self.shell(regress.runner, self.base, regress.timeout)
        else:  # the results are its standard output: keep stderr apart
            done = host.run(
                ["sh", "-c", regress.runner],
                timeout=regress.timeout,
                env=self.env,
                cwd=self.base,
                output_limit=self.limit,
            )
        log = bounded_log(_output(done), self.limit)
        problem: Verdict | None = None
        if done.error is not None:
            problem = Verdict(Status.NORUN, done.error)
        elif done.host_lost:
            problem = Verdict(Status.NORUN, "the host was lost while the runner ran")
        elif done.timed_out:
            problem = Verdict(Status.NOTERM, f"the runner timed out after {regress.timeout:g} s")
        if problem is not None:
            return [TestOutcome(SUITE_TEST, problem.status, problem.message, log.data)], log
        shown = results_file or "the runner's output"
        try:
            data = _results_data(host, done, results_file)
            parsed = reader(regress.format)(data, shown, SUITE_TEST)
        except (HostError, ParseError) as error:
            message = f"{_how(done)}; no results: {error.message}"
            return [TestOutcome(SUITE_TEST, Status.NOEXIT, message, log.data)], log
        return list(parsed.outcomes), log


def _results_data(host: Host, done: Completed, results_file: str | None) -> bytes:
    if results_file is None:
        if done.stdout.truncated:
            raise ParseError("the runner's output was cut at store.log_limit")
        return done.stdout.data
    with tempfile.TemporaryDirectory(prefix="perfwalk-regress-") as tmp:
        local = Path(tmp) / "results"
        host.get(results_file, local)
        return local.read_bytes()


def _output(done: Completed) -> bytes:
    if not done.stderr.data:
        return done.stdout.data
    return done.stdout.data + b"\n--- stderr ---\n" + done.stderr.data


def _how(done: Completed) -> str:
    if done.error is not None:
        return done.error
    if done.timed_out:
        return "timed out"
    if done.returncode is not None and done.returncode < 0:
        return f"killed by signal {-done.returncode}"
    return f"exit status {done.returncode}"


def architecture(kernel: str) -> str:
    """The machine of a fingerprint's kernel line (``uname -srvm``: its last word)."""
    words = kernel.split()
    return words[-1] if len(words) >= 2 else ""


def build_kind(kernel: str, stock_pattern: str) -> Build:
    """stock when the kernel line matches regress.stock_kernel, custom when it does not,
    unknown without a pattern."""
    if not stock_pattern:
        return "unknown"
    return "stock" if re.search(stock_pattern, kernel) else "custom"


def bounded_log(data: bytes, limit: int) -> Log:
    capture = Capture(limit)
    capture.feed(data)
    return capture.to_log()


def stored_result(outcome: TestOutcome, limit: int) -> NewRegressResult:
    return NewRegressResult(
        test=outcome.name,
        status=outcome.status,
        log=bounded_log(outcome.log, limit),
        message=outcome.message,
        duration=outcome.duration,
        source=outcome.source,
    )


def commit_option(config: Config, commit: str | None) -> str | None:
    """``--commit`` as a full id: resolved in the project's repository when it can be."""
    if commit is None:
        return None
    if _COMMIT.fullmatch(commit):
        return commit
    try:
        return Repo(config.project.repo).resolve(commit)
    except GitError as error:
        raise UsageError(
            f"--commit {commit!r}: {error.message}",
            hint="give the full commit id, or a commit-ish of the project's repository",
        ) from None
