"""Parsing in a worker process under a time limit: values as in-process, a stopped
parse names its parser and limit, a dead worker is replaced, an orphan ends itself."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import time

import pytest

from perfwalk.errors import ParseError
from perfwalk.model import Value
from perfwalk.orchestrate.walk import parsing
from perfwalk.orchestrate.walk.parsing import ParseWorker
from perfwalk.parsers import get_parser

#: Nested quantifiers: 2**40 ways to fail on the "!" at the end of the line.
CATASTROPHIC = get_parser("regex", {"pattern": "(?P<value>(a+)+)$", "unit": "ms"})
HANGS_ON = "a" * 40 + "!\n"


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_values_and_parse_errors_come_back_as_in_process() -> None:
    parser = get_parser("value")
    text = "VALUE 12.5 ms latency\nVALUE 3 MB/s rate\n"
    with ParseWorker() as worker:
        assert worker.parse(parser, text, limit=30, label="p") == parser(text)
        assert worker.parse(parser, text, limit=30, label="p") == (
            Value("latency", 12.5, "ms"),
            Value("rate", 3.0, "MB/s"),
        )
        with pytest.raises(ParseError) as raised:
            worker.parse(parser, "nothing here", limit=30, label="p")
        with pytest.raises(ParseError) as direct:
            parser("nothing here")
        assert str(raised.value) == str(direct.value)


def test_a_parse_past_its_limit_is_stopped_and_the_next_gets_a_new_worker() -> None:
    with ParseWorker() as worker:
        bounded = worker.bounded(CATASTROPHIC, limit=0.5, label="parser 'regex' of test spin")
        started = time.monotonic()
        with pytest.raises(
            ParseError, match=r"parser 'regex' of test spin: no answer after 0\.5 s"
        ):
            bounded(HANGS_ON)
        assert time.monotonic() - started < 60  # not the hours the backtracking takes
        assert worker.pid is None
        with pytest.raises(ParseError, match="no value found"):
            bounded("no a here\n")
        first = worker.pid
        assert first is not None
        assert worker.parse(get_parser("value"), "VALUE 1 s t\n", limit=5, label="p") == (
            Value("t", 1.0, "s"),
        )
        assert worker.pid == first  # reused
    assert _gone(first)


def test_a_worker_killed_between_parses_is_replaced() -> None:
    parser = get_parser("value")
    with ParseWorker() as worker:
        worker.parse(parser, "VALUE 1 s t\n", limit=5, label="p")
        pid = worker.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)
        assert worker.parse(parser, "VALUE 2 s t\n", limit=5, label="p") == (Value("t", 2.0, "s"),)
        assert worker.pid != pid


def test_an_orphaned_worker_ends_itself_after_the_limit_and_its_grace() -> None:
    child = subprocess.Popen(
        [sys.executable, "-I", "-c", parsing._CHILD, *[p for p in sys.path if p]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert child.stdin is not None
    assert child.stdout is not None
    ready = parsing._receive(child, time.monotonic() + 60)
    assert ready == b"ready"
    request = pickle.dumps((CATASTROPHIC, HANGS_ON, 0.2))
    child.stdin.write(parsing._HEADER.pack(len(request)) + request)
    child.stdin.flush()
    # nobody reads the answer nor stops the worker: its alarm does
    assert child.wait(timeout=60) == -signal.SIGALRM
    child.stdin.close()
    child.stdout.close()
