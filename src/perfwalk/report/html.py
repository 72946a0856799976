"""Building blocks of pages: escaping, the page frame, status cells, legends.

Every text that reaches a page goes through :func:`esc` (commit messages, author
names, test output and log lines are untrusted); control characters other than
tab and newline are shown as visible escapes so ANSI colour codes do nothing.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence

from perfwalk.model import STATUS_MEANING, Status

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")

STYLE = """\
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.8em 0; }
th, td { border: 1px solid #bbb; padding: 0.2em 0.5em; text-align: right; vertical-align: top; }
th { background: #eee; }
td.name, th.name { text-align: left; }
pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto; }
.PASS { background: #9f9; } .XFAIL { background: #cfc; } .SKIP { background: #9cf; }
.XPASS { background: #cf9; } .FAIL { background: #f99; }
.NOEXIT, .NOTERM, .NORUN { background: #ff9; }
.NOLOG, .NOCLEAN, .NOEXIST { background: #fc9; }
.unstable, .outlier { color: #c00; font-weight: bold; }
.quirk { font-weight: bold; color: #60c; }
"""


def esc(text: object) -> str:
    """``text`` safe inside HTML text and attribute values."""
    visible = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(text))
    return html.escape(visible, quote=True)


def page(title: str, body: str, *, css: str = "style.css") -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<title>{esc(title)}</title>\n<link rel="stylesheet" href="{esc(css)}">\n'
        f"</head>\n<body>\n<h1>{esc(title)}</h1>\n{body}\n</body>\n</html>\n"
    )


def link(href: str, text: str, *, title: str | None = None) -> str:
    tip = f' title="{esc(title)}"' if title else ""
    return f'<a href="{esc(href)}"{tip}>{esc(text)}</a>'


def status_cell(status: Status | None, href: str | None = None, title: str = "") -> str:
    if status is None:
        return "<td></td>"
    text = link(href, status.name, title=title) if href else esc(status.name)
    tip = f' title="{esc(title)}"' if title and not href else ""
    return f'<td class="{status.name}"{tip}>{text}</td>'


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A table whose cells are ready HTML (``<td>…</td>`` or ``<th>…</th>``)."""
    head = "<tr>" + "".join(header) + "</tr>"
    body = "\n".join("<tr>" + "".join(row) + "</tr>" for row in rows)
    return f"<table>\n{head}\n{body}\n</table>"


def status_legend() -> str:
    rows = [
        [
            f'<td class="{s.name}">{s.name}</td>',
            f"<td>{s.severity}</td>",
            f'<td class="name">{esc(STATUS_MEANING[s])}</td>',
        ]
        for s in Status
    ]
    return "<h2>Statuses</h2>\n" + table(
        ["<th>status</th>", "<th>severity</th>", '<th class="name">meaning</th>'], rows
    )


def quirk_legend(quirks: Sequence[tuple[str, str, str]]) -> str:
    """(letter, date, comment) rows, or nothing when there are no quirks."""
    if not quirks:
        return ""
    rows = [
        [
            f'<td class="quirk">{esc(letter)}</td>',
            f"<td>{esc(date)}</td>",
            f'<td class="name">{esc(comment)}</td>',
        ]
        for letter, date, comment in quirks
    ]
    return "<h2>Quirks</h2>\n" + table(
        ["<th>quirk</th>", "<th>date</th>", '<th class="name">comment</th>'], rows
    )
