"""Ctrl-C, SIGTERM and SIGHUP at any moment of any command: one line, 128 + signal,
never a traceback; the hint to resume only where there is something to resume.
Real perfwalk processes, real signals."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from perfwalk.cli.signals import Raising
from perfwalk.errors import Interrupted
from perfwalk.interrupts import shielded
from tests.services.walks import wait_for

#: The perfwalk program installed beside this Python, and ``python -m perfwalk``.
PROGRAM = Path(sys.executable).with_name("perfwalk")
ENTRIES = {"program": [str(PROGRAM)], "module": [sys.executable, "-m", "perfwalk"]}


def _catches(pid: int, sig: signal.Signals) -> bool:
    """True once process ``pid`` has a handler for ``sig`` (/proc/PID/status SigCgt)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) >> (sig - 1) & 1)


def _blocked_on_the_fifo(pid: int) -> bool:
    try:
        wchan = Path(f"/proc/{pid}/wchan").read_text()
    except OSError:
        return False
    return "wait_for_partner" in wchan or "pipe_read" in wchan


def _stop(proc: subprocess.Popen[bytes], sig: signal.Signals) -> tuple[bytes, bytes]:
    """Send ``sig`` and wait for the end: stdout, stderr.

    A signal that lands just before Python enters a blocking read is only acted on
    when the read returns (CPython checks for signals before, not during, its
    system calls): a process still waiting on the FIFO half a second after the
    signal never ran its handler, and gets the signal again.
    """
    proc.send_signal(sig)
    deadline = time.monotonic() + 60
    while True:
        try:
            return proc.communicate(timeout=0.5)
        except subprocess.TimeoutExpired:
            assert time.monotonic() < deadline, "the command did not stop"
            if _blocked_on_the_fifo(proc.pid):
                proc.send_signal(sig)


def _wait_blocked(proc: subprocess.Popen[bytes]) -> None:
    """Wait until ``proc`` reads its configuration (the FIFO, which has a writer)."""
    wait_for(lambda: _blocked_on_the_fifo(proc.pid), "perfwalk to read the FIFO", timeout=60)


@pytest.fixture
def blocking_config(tmp_path: Path) -> Path:
    """A configuration file that is a FIFO nobody writes: a command that reads it waits
    there until it is stopped, however fast or slow this machine is."""
    fifo = tmp_path / "perfwalk.toml"
    os.mkfifo(fifo)
    return fifo


def _stopped(argv: list[str], sig: signal.Signals, delay: float) -> tuple[int, str]:
    """Start ``argv``; once perfwalk's own code runs (it catches SIGTERM: Python alone
    does not), wait ``delay`` s and send ``sig``; the exit status and stderr."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: _catches(proc.pid, signal.SIGTERM), "perfwalk to start", timeout=60)
        time.sleep(delay)
        _out, err = _stop(proc, sig)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, err.decode()


@pytest.mark.slow
@pytest.mark.parametrize("entry", ["program", "module"])
@pytest.mark.parametrize("delay", [0, 0.05, 0.1, 0.2, 0.4])
def test_ctrl_c_at_any_early_moment_exits_130_with_one_line(
    blocking_config: Path, entry: str, delay: float
) -> None:
    # a delay lands in the imports, in argument parsing or in the command itself
    command = "list" if entry == "program" else "status"
    code, err = _stopped(
        [*ENTRIES[entry], command, "-c", str(blocking_config)], signal.SIGINT, delay
    )
    assert code == 130, err
    assert "Traceback" not in err
    assert err.strip() == "perfwalk: interrupted", err  # no resume hint: not a walk


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sig", "words"), [(signal.SIGTERM, "stopped by SIGTERM"), (signal.SIGHUP, "stopped by SIGHUP")]
)
def test_sigterm_and_sighup_exit_128_plus_the_signal(
    blocking_config: Path, sig: signal.Signals, words: str
) -> None:
    code, err = _stopped([*ENTRIES["module"], "show", "-c", str(blocking_config)], sig, 0.2)
    assert (code, err.strip()) == (128 + sig, f"perfwalk: {words}")


def _interrupted_while_running(command: str, fifo: Path) -> tuple[int, str]:
    """``perfwalk COMMAND -c FIFO`` interrupted once the command itself runs (it opened
    its configuration: the FIFO has a reader)."""
    proc = subprocess.Popen(
        [*ENTRIES["module"], command, "-c", str(fifo)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    writer: list[int] = []

    def reading() -> bool:
        try:
            writer.append(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:  # ENXIO: no reader yet
            return False
        return True

    try:
        wait_for(reading, f"perfwalk {command} to read its configuration", timeout=60)
        _wait_blocked(proc)
        _out, err = _stop(proc, signal.SIGINT)
    finally:
        for fd in writer:
            os.close(fd)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, err.decode()


@pytest.mark.slow
def test_only_a_walk_says_how_to_resume_it(blocking_config: Path) -> None:
    code, err = _interrupted_while_running("run", blocking_config)
    assert (code, err.strip()) == (
        130,
        "perfwalk: interrupted; `perfwalk run --resume` continues the walk",
    )
    code, err = _interrupted_while_running("drill", blocking_config)
    assert (code, err.strip()) == (
        130,
        "perfwalk: interrupted; `perfwalk drill` again continues: it reuses every value "
        "stored so far",
    )
    for command in ("export", "status", "changes"):
        code, err = _interrupted_while_running(command, blocking_config)
        assert (code, err.strip()) == (130, "perfwalk: interrupted"), command


def test_a_signal_ignored_from_the_start_stays_ignored(blocking_config: Path) -> None:
    """``nohup perfwalk run`` must survive the terminal's SIGHUP."""
    nohup = ["sh", "-c", 'trap "" HUP; exec "$@"', "nohup"]  # SIGHUP ignored, as nohup does
    proc = subprocess.Popen(
        [*nohup, *ENTRIES["module"], "list", "-c", str(blocking_config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for(lambda: _catches(proc.pid, signal.SIGTERM), "perfwalk to start", timeout=60)
        proc.send_signal(signal.SIGHUP)
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=0.5)
        _out, err = _stop(proc, signal.SIGTERM)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert (proc.returncode, err.decode().strip()) == (143, "perfwalk: stopped by SIGTERM")


def _kill_what_the_test_left(done: list[str], sig: signal.Signals, error: str = "") -> None:
    with shielded():
        os.kill(os.getpid(), sig)
        time.sleep(0.05)  # the handler has run by now: it waits for the block's end
        if error:
            raise ValueError(error)
        done.append("killed what the test left")
    done.append("never reached")


def test_a_signal_inside_a_shielded_block_is_raised_once_the_block_is_done() -> None:
    """Code that kills a test's processes runs to its end, whatever signal lands in it."""
    done: list[str] = []
    with Raising(), pytest.raises(Interrupted) as info:
        _kill_what_the_test_left(done, signal.SIGTERM)
    assert info.value.signum == signal.SIGTERM
    assert done == ["killed what the test left"]


def test_an_error_inside_a_shielded_block_goes_on_instead_of_the_signal() -> None:
    done: list[str] = []
    with Raising(), pytest.raises(ValueError, match="the store is gone"):
        _kill_what_the_test_left(done, signal.SIGHUP, "the store is gone")
    assert done == []
    with Raising(), shielded():  # nothing is left pending from that signal
        done.append("a later block")
    assert done == ["a later block"]


class _SignalledWhileNamed:
    """A class attribute whose ``__set_name__`` is where the signal lands: Python
    wraps what it raises there in a RuntimeError (as for a dataclass field)."""

    def __set_name__(self, owner: type, name: str) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1)  # the handler runs before this ends


def test_a_signal_python_wraps_in_another_error_still_exits_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seen in CI: Ctrl-C during the imports landed in a dataclass being created,
    and perfwalk printed a traceback and 'internal error' (exit 3)."""
    from perfwalk.cli import main as cli_main

    def build_parser() -> None:
        type("Model", (), {"field": _SignalledWhileNamed()})  # RuntimeError from Interrupted

    monkeypatch.setattr(cli_main, "build_parser", build_parser)
    assert cli_main.main(["list"]) == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.strip() == "perfwalk: interrupted"


def test_the_running_stage_handler_has_what_it_imports_already() -> None:
    """Commands import what they need when they run, under :class:`Raising`: a signal
    landing in such an import ran a handler that imported perfwalk.interrupts, which
    met ``dataclasses`` half imported (ImportError, exit 3 instead of 143)."""
    script = (
        "import sys\n"
        "from perfwalk.cli.signals import Raising\n"
        "before = 'perfwalk.interrupts' in sys.modules\n"
        "with Raising():\n"
        "    print(before, 'perfwalk.interrupts' in sys.modules)\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert found.stdout.split() == ["False", "True"]


def test_an_interrupt_landing_in_a_finaliser_is_raised_after_it_never_printed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A signal whose handler runs inside a finaliser or a weak reference's callback
    (an import's module lock has one), where Python cannot raise: without care the
    Interrupted is printed with a traceback ("Exception ignored in …") and lost. It
    is raised once the finaliser returns, and nothing is printed."""

    class Dying:
        def __del__(self) -> None:
            signal.raise_signal(signal.SIGINT)
            sum(range(1000))  # the handler runs here, inside the finaliser

    def drop_one() -> None:
        Dying()  # dropped at once: its finaliser runs
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # the signal sent again lands here
            time.sleep(0.01)

    before = sys.unraisablehook
    with Raising(), pytest.raises(Interrupted) as info:
        drop_one()
    assert info.value.signum == signal.SIGINT
    assert sys.unraisablehook is before  # put back when the block ends
    assert "Exception ignored" not in capsys.readouterr().err
