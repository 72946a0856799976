"""Logs: escaped and line-anchored. The logs of one checkout share a page; a log too
large to show there gets a page of its own (head and tail) and the whole log as a
plain text file to download."""

from __future__ import annotations

from dataclasses import dataclass

from perfwalk.model import Log
from perfwalk.report import layout
from perfwalk.report.collect import CheckoutData
from perfwalk.report.context import SeriesContext
from perfwalk.report.html import esc, link, page
from perfwalk.report.pages.checkout import result_anchor

#: a log longer than this (lines or bytes) is cut on the checkout's log page
INLINE_LINES = 400
INLINE_BYTES = 64 * 1024
#: lines shown at each end of a log on its own page
PAGE_HEAD = PAGE_TAIL = 5000


@dataclass(frozen=True)
class LargeLog:
    """A log that needs a page and a download of its own."""

    log_id: int
    title: str
    log: Log


def numbered(log_id: int, text: str, first: int = 1) -> str:
    """The lines of ``text``, escaped, each with an anchor ``log-<id>-L<n>`` that links
    to itself. The text is escaped whole (one pass, not one per line)."""
    lines = esc(text).split("\n")
    if lines and not lines[-1]:
        lines.pop()
    prefix = f"log-{log_id}-L"
    return (
        '<pre class="log">'
        + "\n".join(
            f'<a id="{prefix}{n}" href="#{prefix}{n}">{n}</a>{line}'
            for n, line in enumerate(lines, first)
        )
        + "</pre>"
    )


def _is_large(log: Log) -> bool:
    return len(log.data) > INLINE_BYTES or log.data.count(b"\n") > INLINE_LINES


def logs_page(
    ctx: SeriesContext, data: CheckoutData, logs: dict[int, Log]
) -> tuple[str, list[LargeLog]]:
    """The page of every log of one checkout, and the logs that need their own page."""
    sid, row = ctx.id, data.row
    at = layout.logs_page(sid, row.idx)
    large: list[LargeLog] = []
    sections: list[str] = []

    def section(log_id: int | None, title: str) -> str:
        if log_id is None:
            return ""
        anchor = layout.log_anchor(log_id)
        log = logs.get(log_id)
        if log is None:
            return f'<section id="{anchor}"><h3>{esc(title)}</h3><p>(no output)</p></section>'
        note = (
            f"<p>{log.total} bytes produced; the store kept the head and the tail.</p>"
            if log.truncated
            else ""
        )
        if _is_large(log):
            large.append(LargeLog(log_id, title, log))
            lines = log.text().split("\n")
            shown = numbered(log_id, "\n".join(lines[:50]))
            more = (
                f"<p>{len(lines)} lines: "
                + link(layout.href(at, layout.log_page(sid, log_id)), "the whole log, paged")
                + " · "
                + link(layout.href(at, layout.log_text(sid, log_id)), "download")
                + "</p>"
            )
            return f'<section id="{anchor}"><h3>{esc(title)}</h3>{note}{shown}{more}</section>'
        shown = numbered(log_id, log.text())
        return f'<section id="{anchor}"><h3>{esc(title)}</h3>{note}{shown}</section>'

    sections.append(section(row.build_log_id, "build"))
    for run in row.quirk_runs:
        sections.append(section(run.log_id, f"quirk {run.letter} ({run.status.name})"))
    for rep in data.repetitions:
        if rep.between_log_id is not None:
            sections.append(
                section(rep.between_log_id, f"between repetitions, before {rep.idx:03d}")
            )
    for result in data.results:
        outputs = [
            section(log_id, title)
            for log_id, title in (
                (result.stdout_log_id, "standard output"),
                (result.stderr_log_id, "standard error"),
            )
            if log_id in logs
        ]
        head = (
            f"repetition {result.repetition_idx:03d} · {result.test} · {result.status.name}"
            + (f" · {result.message}" if result.message else "")
            + (f" · exit {result.exit_code}" if result.exit_code is not None else "")
        )
        sections.append(
            f'<section id="{result_anchor(result.id)}" class="result"><h2>{esc(head)}</h2>'
            + ("".join(outputs) or "<p>(no output)</p>")
            + "</section>"
        )
    body = (
        f"<p>{link(layout.href(at, layout.checkout_page(sid, row.idx)), f'checkout {row.idx}')}"
        f" · commit <code>{esc(row.sha[:12])}</code></p>\n" + "\n".join(s for s in sections if s)
    )
    crumbs = [(layout.INDEX, "all series"), (layout.series_page(sid), f"series {sid}")]
    crumbs.append((layout.checkout_page(sid, row.idx), f"checkout {row.idx}"))
    return page(at, f"logs of checkout {row.idx} of series {sid}", body, crumbs=crumbs), large


def log_page(ctx: SeriesContext, checkout_idx: int, large: LargeLog) -> str:
    """A large log on a page of its own: head and tail, and the download of the whole."""
    sid = ctx.id
    at = layout.log_page(sid, large.log_id)
    lines = large.log.text().split("\n")
    if len(lines) > PAGE_HEAD + PAGE_TAIL:
        skipped = len(lines) - PAGE_HEAD - PAGE_TAIL
        shown = (
            numbered(large.log_id, "\n".join(lines[:PAGE_HEAD]))
            + f"<p>… {skipped} lines not shown here: download the whole log …</p>"
            + numbered(large.log_id, "\n".join(lines[-PAGE_TAIL:]), len(lines) - PAGE_TAIL + 1)
        )
    else:
        shown = numbered(large.log_id, large.log.text())
    body = (
        f"<p>{esc(large.title)} · {len(lines)} lines, {len(large.log.data)} bytes · "
        + link(layout.href(at, layout.log_text(sid, large.log_id)), "download the whole log")
        + "</p>\n"
        + shown
    )
    crumbs = [
        (layout.INDEX, "all series"),
        (layout.series_page(sid), f"series {sid}"),
        (layout.checkout_page(sid, checkout_idx), f"checkout {checkout_idx}"),
        (layout.logs_page(sid, checkout_idx), "logs"),
    ]
    return page(at, f"log {large.log_id}", body, crumbs=crumbs)
