"""Parsers under a time limit: each parse runs in a worker process that is killed when
it takes too long.

A parser is a pure function, and a pure function can still run for ever: a
configured regular expression with nested quantifiers (``(a+)+$``) backtracks for
hours on a long line of ``a``. So a walk does not parse in its own process. It
hands the parser and the text to a :class:`ParseWorker`, a Python process of its
own (started at the first parse, reused, stopped by :meth:`ParseWorker.close`),
and waits at most the test's ``parse_timeout`` for the values. A parse that takes
longer kills the worker and raises :class:`~perfwalk.errors.ParseError` naming the
parser and the limit: the test is FAIL with that message and the walk goes on (the
next parse starts a new worker). A worker whose walk died stops by itself: at the
end of its input, or, in the middle of a parse, by an alarm set a little after the
limit.

Requests and answers are pickled frames (8-byte length, then the pickle) on the
worker's standard input and output; both ends are this module, in processes of
the same user.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from types import TracebackType
from typing import BinaryIO

from perfwalk.errors import HostError, ParseError
from perfwalk.model import Value

Parser = Callable[[str], tuple[Value, ...]]

#: Seconds a new worker may take to start (import the parsers) and say it is ready.
START_TIMEOUT = 60.0
#: Seconds a worker lives past the limit of a parse when nobody stops it.
ALARM_GRACE = 5.0

_HEADER = struct.Struct(">Q")
_READY = b"ready"
_CHILD = (
    "import sys; sys.path[:0] = sys.argv[1:]; "
    "from perfwalk.orchestrate.walk.parsing import serve; serve()"
)


class _Late(Exception):
    """The worker did not answer before the deadline."""


class _Gone(Exception):
    """The worker ended (or its pipes closed) before it answered."""


class ParseWorker:
    """A worker process that parses, and the limit of each parse."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> ParseWorker:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The worker's process id, None when none runs."""
        return None if self._process is None else self._process.pid

    def bounded(
        self, parser: Parser, *, limit: float, label: str, setting: str = "parse_timeout"
    ) -> Parser:
        """``parser`` as a parser that runs in this worker, stopped after ``limit`` s.

        ``label`` names the parser in messages (``parser 'regex' of test x``),
        ``setting`` the key of the limit (``test.x.parse_timeout``)."""
        return lambda text: self.parse(parser, text, limit=limit, label=label, setting=setting)

    def parse(
        self,
        parser: Parser,
        text: str,
        *,
        limit: float,
        label: str,
        setting: str = "parse_timeout",
    ) -> tuple[Value, ...]:
        """``parser(text)`` in the worker: its values, or its ParseError; a ParseError
        naming ``label`` and ``limit`` when it takes longer than ``limit`` seconds."""
        request = pickle.dumps((parser, text, limit), protocol=pickle.HIGHEST_PROTOCOL)
        answer = None
        for attempt in (1, 2):  # a worker found dead before it was asked is replaced once
            process = self._started()
            try:
                _send(process, request)
            except _Gone:
                self.close()
                if attempt == 2:
                    raise ParseError(f"{label}: the parsing process could not be reached") from None
                continue
            late = ParseError(
                f"{label}: no answer after {limit:g} s ({setting}); the parse was stopped"
            )
            try:
                answer = _receive(process, time.monotonic() + limit)
            except _Late:
                self.close()
                raise late from None
            except _Gone:
                code = self.close()
                if code == -signal.SIGALRM:  # its own alarm, a little after the limit
                    raise late from None
                raise ParseError(
                    f"{label}: the parsing process ended ({_ending(code)}) before it answered"
                ) from None
            break
        kind, payload = pickle.loads(answer or b"")
        if kind == "values":
            return tuple(payload)
        if kind == "parse-error":
            raise ParseError(str(payload))
        raise RuntimeError(f"{label} failed in the parsing process: {payload}")

    def close(self) -> int | None:
        """Stop the worker (by its process id) and wait for it; its exit status."""
        process, self._process = self._process, None
        if process is None:
            return None
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        return process.wait()

    def _started(self) -> subprocess.Popen[bytes]:
        if self._process is not None and self._process.poll() is None:
            return self._process
        self.close()
        try:
            process = subprocess.Popen(
                [sys.executable, "-I", "-c", _CHILD, *[p for p in sys.path if p]],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                bufsize=0,
                close_fds=True,
            )
        except OSError as error:
            raise HostError(
                f"cannot start the parsing process ({sys.executable}): {error}",
                hint="perfwalk parses test output in a Python process of its own; check that"
                " its Python interpreter can be run",
            ) from error
        self._process = process
        try:
            ready = _receive(process, time.monotonic() + START_TIMEOUT)
        except (_Late, _Gone):
            code = self.close()
            raise HostError(
                f"the parsing process ({sys.executable}) did not start ({_ending(code)})",
                hint="check that this Python can import perfwalk",
            ) from None
        if ready != _READY:
            self.close()
            raise HostError(f"the parsing process ({sys.executable}) said {ready[:40]!r}")
        return process


def _ending(code: int | None) -> str:
    if code is None:
        return "no exit status"
    return f"killed by signal {-code}" if code < 0 else f"exit {code}"


def _send(process: subprocess.Popen[bytes], data: bytes) -> None:
    assert process.stdin is not None
    try:
        process.stdin.write(_HEADER.pack(len(data)))
        process.stdin.write(data)
    except (BrokenPipeError, ValueError, OSError):
        raise _Gone from None


def _receive(process: subprocess.Popen[bytes], deadline: float) -> bytes:
    """One frame from the worker, waiting until ``deadline`` (time.monotonic) at most."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    header = _read(fd, _HEADER.size, deadline)
    (size,) = _HEADER.unpack(header)
    return _read(fd, size, deadline)


def _read(fd: int, size: int, deadline: float) -> bytes:
    chunks: list[bytes] = []
    missing = size
    while missing:
        left = deadline - time.monotonic()
        if left <= 0:
            raise _Late
        readable, _, _ = select.select([fd], [], [], left)
        if not readable:
            raise _Late
        chunk = os.read(fd, min(missing, 1 << 20))
        if not chunk:
            raise _Gone
        chunks.append(chunk)
        missing -= len(chunk)
    return b"".join(chunks)


# -- the worker's side -------------------------------------------------------------------


def serve(
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
) -> None:
    """The worker: answer parse requests until the end of the input."""
    source = stdin or sys.stdin.buffer
    if stdout is None:  # frames go to the real stdout; a stray print goes to stderr
        sink: BinaryIO = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    else:
        sink = stdout
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the walk stops its worker itself
    _write_frame(sink, _READY)
    while True:
        header = source.read(_HEADER.size)
        if len(header) < _HEADER.size:
            return
        (size,) = _HEADER.unpack(header)
        request = source.read(size)
        if len(request) < size:
            return
        parser, text, limit = pickle.loads(request)
        # the default action of SIGALRM ends the process: a worker whose walk is gone
        # does not backtrack for ever
        signal.setitimer(signal.ITIMER_REAL, limit + ALARM_GRACE)
        try:
            answer: tuple[str, object] = ("values", tuple(parser(text)))
        except ParseError as error:
            answer = ("parse-error", str(error))
        except Exception as error:  # a parser's bug: reported, not fatal to the worker
            answer = ("crash", f"{type(error).__name__}: {error}")
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        _write_frame(sink, pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL))


def _write_frame(sink: BinaryIO, data: bytes) -> None:
    sink.write(_HEADER.pack(len(data)))
    sink.write(data)
    sink.flush()
