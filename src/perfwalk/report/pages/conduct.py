"""Conductor runs on the site: the index's "Conductor runs" (newest first) and a page
per run: what it played (master file, players, trials, state), the values its parser
found (a summary per metric, as ministat gives it: n, min, max, median, mean, sd;
then trial by trial) and every step of every trial, phase by phase and player by
player, with its status, exit code, duration and outputs (folded; a long one cut,
with a link to the whole of it as stored).

Outputs, names, commands and the configuration's text are untrusted: every one goes
through :func:`perfwalk.report.html.esc`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from perfwalk.analysis.summary import summarize
from perfwalk.model import Log, Status
from perfwalk.report import layout
from perfwalk.report.html import esc, link, number, page, percent, status_cell, status_legend
from perfwalk.report.times import UTC_TIMES, SiteTimes
from perfwalk.store.conduct import ConductSummary, ConductValue
from perfwalk.store.records import StepRow

#: the bytes of an output shown on the page; a longer one is cut there, with a link to
#: the whole of it (as stored: head and tail of a very long one)
INLINE_LIMIT = 16 * 1024
#: the order phases are shown in (a phase this perfwalk does not know comes last)
PHASES = ("startup", "run", "collect", "reset")


@dataclass(frozen=True)
class ConductData:
    """What the page of one conductor run shows."""

    summary: ConductSummary
    steps: Sequence[StepRow]
    outputs: Mapping[int, Log]  # log id -> output
    values: Sequence[ConductValue]
    times: SiteTimes = UTC_TIMES  # the site's time zone


def values_text(summary: ConductSummary) -> str:
    """``12 by value``; ``no`` when the run was never parsed."""
    parser = summary.run.parser
    if not summary.values:
        return f"none by {parser}" if parser else "no"
    return f"{summary.values} by {parser or 'a parser not recorded'}"


def conduct_section(at: str, runs: Sequence[ConductSummary], times: SiteTimes) -> str:
    """The index's table of conductor runs, newest first ("" when there are none)."""
    if not runs:
        return ""
    rows = []
    for summary in runs:
        run = summary.run
        target = layout.href(at, layout.conduct_page(run.id))
        rows.append(
            f'<tr data-conduct="{run.id}">'
            f'<td class="name">{link(target, f"{run.id}: {run.name}", title=run.master)}</td>'
            f"<td>{esc(times.minute(run.started_at))}</td>"
            f"<td>{_duration(summary)}</td>"
            f"<td>{esc(run.state)}</td>"
            f"<td>{summary.trials_done}/{run.trials}</td>"
            f'<td class="name">{esc(", ".join(run.players))}</td>'
            + status_cell(summary.worst, target + "#trials")
            + f'<td class="name">{esc(values_text(summary))}</td></tr>'
        )
    head = (
        '<th class="name">run</th><th>started</th><th>took</th><th>state</th><th>trials</th>'
        '<th class="name">players</th><th>worst</th><th class="name">values</th>'
    )
    return (
        '<h2 id="conduct">Conductor runs</h2>\n<table class="conduct">\n'
        f"<thead><tr>{head}</tr></thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody>\n</table>\n"
    )


def conduct_page(data: ConductData) -> tuple[str, dict[str, bytes]]:
    """The page of one conductor run, and the files of its outputs too long to show
    whole (site path -> bytes)."""
    run = data.summary.run
    at = layout.conduct_page(run.id)
    files: dict[str, bytes] = {}
    body = (
        _facts(data.summary, data.times)
        + _players(data.summary)
        + _values(run.id, data.values)
        + _trials(data, files)
        + "<h2>Configuration</h2>\n<details><summary>the master and player files, as read"
        f"</summary><pre>{esc(run.config_text)}</pre></details>\n" + status_legend()
    )
    crumbs = [(layout.INDEX + "#conduct", "all series and runs")]
    title = f"conductor run {run.id}: {run.name}"
    return page(at, title, body, crumbs=crumbs, times=data.times), files


def _duration(summary: ConductSummary) -> str:
    run = summary.run
    if run.finished_at is None:
        return "-"
    return _seconds((run.finished_at - run.started_at).total_seconds())


def _seconds(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.2f} s"
    minutes, rest = divmod(round(seconds), 60)
    return (
        f"{minutes // 60}:{minutes % 60:02d}:{rest:02d}"
        if minutes >= 60
        else f"{minutes}:{rest:02d} min"
    )


def _facts(summary: ConductSummary, times: SiteTimes) -> str:
    run = summary.run
    facts = [
        ("master file", esc(run.master)),
        ("state", esc(run.state)),
        ("started", esc(times.second(run.started_at))),
        (
            "finished",
            esc(times.second(run.finished_at)) if run.finished_at else "-",
        ),
        ("took", _duration(summary)),
        ("trials", f"{summary.trials_done} stored of {run.trials}"),
        ("steps", str(summary.steps)),
        ("values", esc(values_text(summary))),
    ]
    rows = "\n".join(
        f'<tr><th class="name">{k}</th><td class="name">{v}</td></tr>' for k, v in facts
    )
    worst = status_cell(summary.worst, "#trials") if summary.worst is not None else "<td>-</td>"
    compare = (
        f"<p>Compare its values with another run's: <code>perfwalk compare conduct:{run.id}"
        " conduct:OTHER</code>.</p>\n"
        if summary.values
        else ""
    )
    return (
        '<table class="facts">\n'
        + rows
        + f'\n<tr><th class="name">worst status</th>{worst}</tr>\n</table>\n'
        + compare
    )


def _players(summary: ConductSummary) -> str:
    rows = []
    for name, player in summary.run.players.items():
        facts = player if isinstance(player, dict) else {}
        rows.append(
            f'<tr><td class="name">{esc(name)}</td>'
            + "".join(
                f'<td class="name">{esc(facts.get(key, "?"))}</td>'
                for key in ("address", "target", "file")
            )
            + "</tr>"
        )
    return (
        "<h2>Players</h2>\n<table>\n<thead><tr>"
        '<th class="name">player</th><th class="name">address</th>'
        '<th class="name">reached as</th><th class="name">file</th></tr></thead>\n'
        "<tbody>\n" + "\n".join(rows) + "\n</tbody>\n</table>\n"
    )


def _values(conduct_id: int, values: Sequence[ConductValue]) -> str:
    """The summary per metric, then the values trial by trial."""
    if not values:
        return (
            '<h2 id="values">Values</h2>\n<p>No values: parse the outputs of its trials with'
            f" <code>perfwalk conduct --parse {conduct_id} --parser NAME</code>.</p>\n"
        )
    metrics: dict[tuple[str, str], dict[int, float]] = {}
    for v in values:
        metrics.setdefault((v.name, v.unit), {})[v.trial] = v.value
    trials = sorted({v.trial for v in values})
    rows = []
    for (name, unit), per_trial in metrics.items():
        found = summarize(list(per_trial.values()))
        if found is None:  # only NaN
            cells = '<td colspan="7">no finite value</td>'
            css = ""
        else:
            cells = "".join(
                f"<td>{esc(number(x, unit))}</td>"
                for x in (found.min, found.max, found.median, found.mean, found.sd)
            )
            rsd = percent(found.rsd) if found.n > 1 else "-"
            cells = f"<td>{found.n}</td>{cells}<td>{rsd}</td>"
            css = ' class="unstable"' if found.unstable else ""
        rows.append(
            f'<tr{css}><td class="name">{esc(name)}</td><td class="name">{esc(unit)}</td>'
            f"{cells}</tr>"
        )
    summary = (
        '<table class="conduct-summary">\n<thead><tr><th class="name">value</th>'
        '<th class="name">unit</th><th>n</th><th>min</th><th>max</th><th>median</th>'
        "<th>mean</th><th>sd</th><th>rsd</th></tr></thead>\n<tbody>\n"
        + "\n".join(rows)
        + "\n</tbody>\n</table>\n"
    )
    head = "".join(
        f'<th title="{esc(unit)}">{esc(name)}<br>{esc(unit)}</th>' for name, unit in metrics
    )
    lines = []
    for trial in trials:
        cells = "".join(
            f"<td>{esc(number(per_trial[trial], unit))}</td>" if trial in per_trial else "<td></td>"
            for (_name, unit), per_trial in metrics.items()
        )
        lines.append(f'<tr><td><a href="#trial-{trial}">{trial}</a></td>{cells}</tr>')
    by_trial = (
        '<table class="conduct-values">\n<thead><tr><th>trial</th>'
        + head
        + "</tr></thead>\n<tbody>\n"
        + "\n".join(lines)
        + "\n</tbody>\n</table>\n"
    )
    return (
        '<h2 id="values">Values</h2>\n<p>Per value over the trials (sd: sample standard'
        " deviation; rsd: sd / mean, unstable from 2.5 %).</p>\n"
        + summary
        + "<h3>Trial by trial</h3>\n"
        + by_trial
    )


def _phase_order(phase: str) -> int:
    return PHASES.index(phase) if phase in PHASES else len(PHASES)


def _trials(data: ConductData, files: dict[str, bytes]) -> str:
    """The trials' overview (worst status per phase), then each trial's steps."""
    run = data.summary.run
    players = list(run.players)
    by_trial: dict[int, list[StepRow]] = {}
    for step in data.steps:
        by_trial.setdefault(step.trial or 0, []).append(step)
    if not by_trial:
        return '<h2 id="trials">Trials</h2>\n<p>No trial stored.</p>\n'
    phases = sorted({s.phase for s in data.steps}, key=lambda p: (_phase_order(p), p))
    overview = []
    sections = []
    for trial, steps in sorted(by_trial.items()):
        cells = []
        for phase in phases:
            statuses = [s.status for s in steps if s.phase == phase]
            worst = Status.worst(statuses) if statuses else None
            cells.append(status_cell(worst, f"#trial-{trial}-{phase}"))
        took = sum((s.finished_at - s.started_at).total_seconds() for s in steps)
        overview.append(
            f'<tr><td><a href="#trial-{trial}">{trial}</a></td>{"".join(cells)}'
            f"<td>{len(steps)}</td><td>{_seconds(took)}</td></tr>"
        )
        ordered = sorted(
            steps,
            key=lambda s: (
                _phase_order(s.phase),
                s.phase,
                players.index(s.role) if s.role in players else len(players),
                s.role,
                s.id,
            ),
        )
        sections.append(_trial_section(data, trial, ordered, files))
    head = "".join(f"<th>{esc(phase)}</th>" for phase in phases)
    return (
        '<h2 id="trials">Trials</h2>\n<p>The worst status of each phase (seconds: the sum'
        " of its steps' durations).</p>\n"
        f'<table class="conduct-trials">\n<thead><tr><th>trial</th>{head}<th>steps</th>'
        "<th>seconds</th></tr></thead>\n<tbody>\n"
        + "\n".join(overview)
        + "\n</tbody>\n</table>\n"
        + "".join(sections)
    )


def _trial_section(
    data: ConductData, trial: int, steps: Sequence[StepRow], files: dict[str, bytes]
) -> str:
    rows = []
    seen_phases: set[str] = set()
    for step in steps:
        anchor = f' id="trial-{trial}-{esc(step.phase)}"' if step.phase not in seen_phases else ""
        seen_phases.add(step.phase)
        code = "-" if step.exit_code is None else str(step.exit_code)
        took = (step.finished_at - step.started_at).total_seconds()
        message = f'<br><span class="note">{esc(step.message)}</span>' if step.message else ""
        shown = [
            _output(data, which, log_id, files)
            for which, log_id in (("stdout", step.stdout_log_id), ("stderr", step.stderr_log_id))
        ]
        rows.append(
            f'<tr id="step-{step.id}"><td{anchor}>{esc(step.phase)}</td>'
            f'<td class="name">{esc(step.role)}</td>'
            f'<td class="name">{esc(step.name)}</td>'
            f"<td>{esc(step.kind)}</td>"
            f'<td class="name"><code>{esc(step.command)}</code>{message}</td>'
            + status_cell(step.status, title=step.message)
            + f"<td>{code}</td><td>{took:.2f}</td>"
            f'<td class="output">{"".join(shown) or "-"}</td></tr>'
        )
    return (
        f'<section id="trial-{trial}">\n<h3>Trial {trial}</h3>\n'
        '<table class="conduct-steps">\n<thead><tr><th>phase</th><th class="name">player</th>'
        '<th class="name">step</th><th>kind</th><th class="name">command</th><th>status</th>'
        '<th>exit</th><th>seconds</th><th class="name">output</th></tr></thead>\n<tbody>\n'
        + "\n".join(rows)
        + "\n</tbody>\n</table>\n</section>\n"
    )


def _output(data: ConductData, which: str, log_id: int, files: dict[str, bytes]) -> str:
    """One output of a step (``which``: stdout or stderr), folded: its lines, cut at
    :data:`INLINE_LIMIT` with a link to the whole of it ("" when it is empty)."""
    log = data.outputs.get(log_id)
    if log is None or not log.data:
        return ""
    conduct_id = data.summary.run.id
    shown = log.data
    lines = shown.count(b"\n") + (not shown.endswith(b"\n"))
    told = f"{which}: {lines} line{'' if lines == 1 else 's'}"
    if log.truncated:
        told += f" (of {log.total} bytes written, head and tail kept)"
    whole = ""
    if len(shown) > INLINE_LIMIT:
        cut = shown.rfind(b"\n", 0, INLINE_LIMIT) + 1 or INLINE_LIMIT
        shown = shown[:cut]
        path = layout.conduct_output(conduct_id, log_id)
        files[path] = log.data
        whole_text = f"the whole {which} ({len(log.data) // 1024} KiB)"
        whole = (
            f"<p>{link(layout.href(layout.conduct_page(conduct_id), path), whole_text)};"
            f" above, its first {cut // 1024} KiB</p>"
        )
    text = shown.decode("utf-8", errors="replace")
    return f"<details><summary>{esc(told)}</summary><pre>{esc(text)}</pre>{whole}</details>"
