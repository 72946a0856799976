"""``perf script`` text → folded stacks (as Brendan Gregg's ``stackcollapse-perf.pl``).

``perf record -g … && perf script`` prints one block per sample: a header line
(``<comm> <pid>[/<tid>] [<cpu>] <time>: [<period>] <event>:``, the command name may
hold spaces and is padded on the left) then, indented by a tab, one frame per line,
the innermost first (``<address> <symbol>+0x<offset> (<dso>)``), and a blank line.
Without ``-g`` the one frame is at the end of the header line.

Each sample counts 1 in the stack ``<comm>;<outermost>;…;<innermost>`` (root first,
the process name as the root frame). Symbols lose their ``+0x…`` offset; a ``;`` in
a name becomes ``:`` and control characters are dropped (see
:func:`perfwalk.folded.clean_frame`); spaces, ``<>`` and templates are kept as they
are (pages escape them). A frame whose symbol is ``[unknown]`` is kept, named after
its DSO's file name in brackets (``[libc.so.6]``), or ``[unknown]`` when the DSO is
unknown too: always kept, never dropped, so that the samples of a stripped library
still weigh where they fall. When the text holds several events, only the first
event's samples count (as stackcollapse-perf). A truncated text gives the samples
it holds (a frame line cut before its ``(dso)`` is skipped). Pure; never raises.
"""

from __future__ import annotations

import re

from perfwalk.folded import FoldedStacks, clean_frame

# comm (may hold spaces), pid[/tid], optional [cpu], time "sec.usec:", the rest
_HEADER = re.compile(
    r"^(?P<comm>\S.*?)\s+(?P<pid>-?\d+)(?:/(?P<tid>-?\d+))?\s+(?:\[\d+\]\s+)?"
    r"\d+\.\d+:\s*(?P<rest>.*)$"
)
# "<period> <event>: <ip> <sym> (<dso>)" or "<event>: …"; the event ends at ": "
_EVENT = re.compile(r"^(?:\d+\s+)?(?P<event>[^\s:][^\s]*?):(?:\s+(?P<frame>.*))?$")
# "<address> <symbol...> (<dso>)"; the symbol may be empty, hold spaces or parentheses
_FRAME = re.compile(r"^\s*(?P<address>[0-9a-fA-F]+)\s+(?P<symbol>.*?)\s*\((?P<dso>[^()]*)\)$")
_OFFSET = re.compile(r"\+0x[0-9a-fA-F]+$")


def _frame_name(symbol: str, dso: str) -> str:
    symbol = _OFFSET.sub("", symbol.strip())
    if not symbol or symbol == "[unknown]":
        base = dso.strip().rsplit("/", 1)[-1]
        return f"[{base}]" if base and base != "[unknown]" else "[unknown]"
    return clean_frame(symbol) or "[unknown]"


def parse(text: str) -> FoldedStacks:
    """The folded stacks of ``perf script`` output ``text`` (see the module)."""
    stacks: FoldedStacks = {}
    first_event: str | None = None
    comm: str | None = None  # the sample in progress, or None (skipped / none)
    frames: list[str] = []

    def finish() -> None:
        if comm is not None:
            stack = ";".join([comm, *reversed(frames)])
            stacks[stack] = stacks.get(stack, 0) + 1

    for line in text.splitlines():
        if not line.strip():
            continue
        if not line.startswith("\t"):
            finish()
            comm, frames = None, []
            header = _HEADER.match(line.strip())
            if header is None:
                continue  # perf's own messages, a cut header
            event = _EVENT.match(header["rest"].strip())
            name = event["event"] if event else ""
            if first_event is None:
                first_event = name
            if name != first_event:
                continue
            comm = clean_frame(header["comm"]) or "[unknown]"
            inline = event["frame"] if event else None
            if inline:
                frame = _FRAME.match(inline)
                if frame:
                    frames.append(_frame_name(frame["symbol"], frame["dso"]))
            continue
        if comm is None:
            continue
        frame = _FRAME.match(line.rstrip())
        if frame:
            frames.append(_frame_name(frame["symbol"], frame["dso"]))
    finish()
    return stacks
