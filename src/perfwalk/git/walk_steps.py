"""Steps and dates: how a walk moves through a history (pure, no git, no clock).

A step is either a duration — ``N`` followed by a unit, ``30sec``, ``5min``,
``1hour``, ``2days``, ``1week``, ``3month``, ``1year`` — or ``commit`` (every
first-parent commit) or ``commit/N`` (every Nth first-parent commit).

Arithmetic, from a walk's from-date ``F``, the k-th date is ``F + k × step``:

* ``sec``, ``min``, ``hour``, ``day`` and ``week`` are exact durations (a day is
  86 400 s, whatever the daylight-saving rules of ``F``'s time zone);
* ``month`` and ``year`` are calendar steps in ``F``'s time zone: the month
  number moves, the time of day stays, and a day past the end of the target
  month is clamped to its last day (Jan 31 + 1 month → Feb 29 in 2024, Feb 28 in
  2023). Each date is computed from ``F`` itself, never from the previous date,
  so a clamp does not drift: Jan 31 + 2 months is Mar 31.
"""

from __future__ import annotations

import calendar
import enum
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from perfwalk.errors import UsageError


class Unit(enum.Enum):
    """The unit of a step; the value is its canonical spelling."""

    SECOND = "sec"
    MINUTE = "min"
    HOUR = "hour"
    DAY = "day"
    WEEK = "week"
    MONTH = "month"
    YEAR = "year"
    COMMIT = "commit"


_SECONDS: dict[Unit, int] = {
    Unit.SECOND: 1,
    Unit.MINUTE: 60,
    Unit.HOUR: 3600,
    Unit.DAY: 86400,
    Unit.WEEK: 7 * 86400,
}

_ALIASES: dict[str, Unit] = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), Unit.SECOND),
    **dict.fromkeys(("min", "mins", "minute", "minutes"), Unit.MINUTE),
    **dict.fromkeys(("h", "hour", "hours"), Unit.HOUR),
    **dict.fromkeys(("d", "day", "days"), Unit.DAY),
    **dict.fromkeys(("w", "week", "weeks"), Unit.WEEK),
    **dict.fromkeys(("month", "months"), Unit.MONTH),
    **dict.fromkeys(("y", "year", "years"), Unit.YEAR),
}

#: The step of an adaptive walk (``perfwalk run --adaptive``): it chooses its checkouts
#: as it measures, among every commit of its line.
ADAPTIVE = "adaptive"


def planning_step(step: str) -> str:
    """The step that plans a walk's checkouts: an adaptive walk's are every commit."""
    return "commit" if step == ADAPTIVE else step


#: What ``--step`` accepts, for error messages and the CLI help.
STEP_FORMS = (
    "N followed by sec, min, hour, day, week, month or year "
    "(30sec, 5min, 1hour, 2days, 1week, 3month, 1year), "
    "commit (every commit) or commit/N (every Nth commit, N >= 1)"
)

_MAX_YEARS = 10_000
_YEARS_PER: dict[Unit, float] = {unit: secs / (365 * 86400) for unit, secs in _SECONDS.items()}

_DURATION = re.compile(r"(\d*)\s*([a-z]+)")
_COMMIT = re.compile(r"commits?(?:/(\d+))?")


@dataclass(frozen=True)
class Step:
    """A parsed step: ``count`` units, or every ``count``-th commit.

    ``str(step)`` is the canonical spelling (``1hour``, ``3month``, ``commit``,
    ``commit/5``), which :func:`parse_step` reads back to an equal step.
    """

    count: int
    unit: Unit

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ValueError(f"a step count must be 1 or more, not {self.count}")

    def __str__(self) -> str:
        if self.unit is Unit.COMMIT:
            return "commit" if self.count == 1 else f"commit/{self.count}"
        return f"{self.count}{self.unit.value}"

    @property
    def is_commit(self) -> bool:
        """True for ``commit`` and ``commit/N``; dates mean nothing to them."""
        return self.unit is Unit.COMMIT

    @property
    def is_calendar(self) -> bool:
        """True for month and year steps (calendar arithmetic, clamped days)."""
        return self.unit in (Unit.MONTH, Unit.YEAR)

    def _months(self) -> int:
        return self.count * (12 if self.unit is Unit.YEAR else 1)

    def _duration(self) -> timedelta:
        if self.unit not in _SECONDS:
            raise ValueError(f"step {self} is not a fixed duration")
        return timedelta(seconds=_SECONDS[self.unit] * self.count)

    def advance(self, start: datetime, k: int) -> datetime:
        """The k-th date of a walk from ``start``: ``start + k × step`` (k ≥ 0).

        Raises ValueError for commit steps, and OverflowError past year 9999.
        """
        if self.is_commit:
            raise ValueError("a commit step has no dates")
        if k < 0:
            raise ValueError(f"k must be 0 or more, not {k}")
        if self.is_calendar:
            return add_months(start, k * self._months())
        moved = start.astimezone(UTC) + k * self._duration()
        return moved.astimezone(start.tzinfo)

    def first_at_or_after(self, start: datetime, when: datetime) -> int:
        """The smallest k ≥ 0 with ``advance(start, k) >= when``.

        Lets a walk jump over the dates that would land on the same commit
        instead of visiting every second of a long range one by one.
        """
        if when <= start:
            return 0
        if not self.is_calendar:
            delta = when.astimezone(UTC) - start.astimezone(UTC)
            return -(-delta // self._duration())
        local = when.astimezone(start.tzinfo)
        months = (local.year - start.year) * 12 + local.month - start.month
        k = max(0, months // self._months() - 1)
        while self.advance(start, k) < when:
            k += 1
        return k


def add_months(when: datetime, months: int) -> datetime:
    """``when`` moved by ``months`` calendar months, the day clamped to the month's end."""
    index = when.year * 12 + (when.month - 1) + months
    year, month0 = divmod(index, 12)
    if not 1 <= year <= 9999:
        raise OverflowError(f"date out of range: {when.isoformat()} + {months} months")
    day = min(when.day, calendar.monthrange(year, month0 + 1)[1])
    return when.replace(year=year, month=month0 + 1, day=day)


def parse_step(text: str) -> Step:
    """Parse a ``--step`` value; raises UsageError naming ``text`` and the valid forms.

    Accepted (case-insensitive, surrounding blanks ignored): ``N<unit>`` with an
    optional blank between, units ``sec``/``s``/``second(s)``, ``min``/
    ``minute(s)``, ``hour(s)``/``h``, ``day(s)``/``d``, ``week(s)``/``w``,
    ``month(s)``, ``year(s)``/``y`` (a bare unit means 1 of it; ``m`` is refused
    as ambiguous), ``commit`` and ``commit/N``. N must be 1 or more.
    """
    raw = text.strip().lower()
    commit = _COMMIT.fullmatch(raw)
    if commit:
        count = int(commit.group(1)) if commit.group(1) is not None else 1
        if count >= 1:
            return Step(count, Unit.COMMIT)
    else:
        duration = _DURATION.fullmatch(raw)
        if duration and duration.group(2) in _ALIASES:
            count = int(duration.group(1)) if duration.group(1) else 1
            unit = _ALIASES[duration.group(2)]
            years = count / 12 if unit is Unit.MONTH else count * _YEARS_PER.get(unit, 1.0)
            if years > _MAX_YEARS:
                raise UsageError(
                    f"step {text!r} is longer than {_MAX_YEARS} years",
                    hint="use a step shorter than the history, e.g. --step 1year",
                )
            if count >= 1:
                return Step(count, unit)
    raise UsageError(
        f"invalid step {text!r}: expected {STEP_FORMS}",
        hint="pass --step as e.g. --step 1day, --step 1week, --step commit or --step commit/10",
    )


_DATE = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})"
    r"(?:[T ](?P<time>\d{2}:\d{2}(?::\d{2})?)(?P<tz>Z|[+-]\d{2}(?::?\d{2})?)?)?"
)

DATE_FORMS = "YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM] (UTC when no zone is given)"


def looks_like_date(text: str) -> bool:
    """True when ``text`` has the shape of a date that :func:`parse_date` reads."""
    return _DATE.fullmatch(text.strip()) is not None


def parse_date(text: str) -> datetime:
    """Parse a ``--from``/``--to`` date into an aware datetime.

    Forms: ``YYYY-MM-DD`` (midnight), ``YYYY-MM-DDTHH:MM``, ``YYYY-MM-DDTHH:MM:SS``
    (a blank may replace ``T``), optionally followed by ``Z``, ``±HH``, ``±HHMM``
    or ``±HH:MM``. A date without a zone is UTC, so that the same command selects
    the same commits on every machine. Raises UsageError for anything else,
    including impossible dates such as ``2023-02-30``.
    """
    match = _DATE.fullmatch(text.strip())
    if match is None:
        raise UsageError(f"invalid date {text!r}: expected {DATE_FORMS}")
    iso = match.group("date") + "T" + (match.group("time") or "00:00")
    tz = match.group("tz")
    if tz is None or tz == "Z":
        tz = "+00:00"
    elif len(tz) == 3:
        tz += ":00"
    elif ":" not in tz:
        tz = f"{tz[:3]}:{tz[3:]}"
    try:
        parsed = datetime.fromisoformat(iso + tz)
    except ValueError as exc:
        raise UsageError(
            f"invalid date {text!r}: {exc}", hint=f"write dates as {DATE_FORMS}"
        ) from None
    return parsed
