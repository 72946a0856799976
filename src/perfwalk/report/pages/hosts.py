"""The host-use page (``hosts.html``): per host, how busy it was each day of the last
weeks (:mod:`perfwalk.report.host_use`), the hours busy and idle, the walks it ran
(links to their series, with the queue's jobs that walked them), and the hosts
leased now."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from perfwalk.report import layout
from perfwalk.report.host_use import DAYS, HostDays, window
from perfwalk.report.html import esc, link, page, percent, table
from perfwalk.report.times import SiteTimes
from perfwalk.store.leases import LeaseRow

#: the shades of a day's cell (``busy-0`` … ``busy-5`` in style.css)
SHADES = 5


def hosts_page(
    hosts: Sequence[HostDays], leases: Sequence[LeaseRow], now: datetime, times: SiteTimes
) -> str:
    """The page as of ``now``."""
    at = layout.HOSTS
    cells = window(now, times, DAYS)
    body = (
        f'<p class="as-of">The last {DAYS} days up to {esc(times.minute(now))}: a day\'s '
        "cell is darker the more of it the host spent in repetitions (of any walk).</p>\n"
    )
    if not hosts:
        body += f"<p>No host ran a repetition in the last {DAYS} days.</p>\n"
    else:
        days = (times.local(s).strftime("%d") for s, _ in cells)
        head = _head("host", *days, "busy", "idle")
        whole = (cells[-1][1] - cells[0][0]).total_seconds()
        rows = [
            [
                f"<td>{esc(h.host)}</td>",
                *(_day(share, times.day(s)) for share, (s, _) in zip(h.shares, cells, strict=True)),
                f"<td>{_hours(h.busy)}</td>",
                f"<td>{_hours(max(0.0, whole - h.busy))}</td>",
            ]
            for h in hosts
        ]
        body += table(head, rows, css="host-use") + "\n"
        for h in hosts:
            body += (
                f"<h2>host {esc(h.host)}</h2>\n"
                + table(
                    _head("walk", "repetitions", "first", "last", "jobs"),
                    [
                        [
                            "<td>"
                            + link(
                                layout.href(at, layout.series_page(w.series_id)),
                                f"{w.series_id}: {w.name}",
                            )
                            + "</td>",
                            f"<td>{w.repetitions}</td>",
                            f"<td>{esc(times.minute(w.first))}</td>",
                            f"<td>{esc(times.minute(w.last))}</td>",
                            f"<td>{esc(', '.join(str(j) for j in w.jobs) or '-')}</td>",
                        ]
                        for w in h.walks
                    ],
                )
                + "\n"
            )
    body += "<h2>leased now</h2>\n"
    if leases:
        body += (
            table(
                _head("host", "holder", "for", "since", "state"),
                [
                    [
                        f"<td>{esc(lease.host)}</td>",
                        f"<td>{esc(lease.owner)}</td>",
                        f"<td>{esc(lease.purpose)}</td>",
                        f"<td>{esc(times.minute(lease.started_at))}</td>",
                        f"<td>{esc('stale' if lease.stale(now) else 'held')}</td>",
                    ]
                    for lease in leases
                ],
            )
            + "\n"
        )
    else:
        body += "<p>No host is leased.</p>\n"
    return page(
        at,
        "perfwalk: host use",
        body,
        crumbs=((layout.INDEX, "all series"),),
        times=times,
    )


def _head(*words: str) -> list[str]:
    return [f"<th>{esc(word)}</th>" for word in words]


def _day(share: float, day: str) -> str:
    shade = 0 if share <= 0 else max(1, round(share * SHADES))
    return f'<td class="day busy-{shade}" title="{esc(day)}: busy {esc(percent(share))}"></td>'


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h"
