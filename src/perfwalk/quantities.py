"""How a number is written for a person: one way on the command line, in tables,
tooltips, plot axes and every page (docs/report.md, "Numbers").

* A value with a unit it knows (times, bytes, bits, operations, their rates, %) is
  written with the unit's symbol and an SI prefix chosen from the value:
  ``867.7 MB/s``, ``75.5 µs``, ``1.40 Gbit/s``, ``120.6 MiB``.
* A unit it does not know keeps its spelling; a large value gets the prefix as a word
  of its own before it (``16.6 G cycles``), a small one is written plainly
  (``0.850 IPC``).
* The digits: two decimals below 10, one from 10 to 999 (``1.40``, ``75.5``,
  ``867.7``: three or four significant digits), none from 1000 (only beyond the
  largest prefix); below 1 (beyond the smallest prefix) three significant digits;
  far beyond (10¹⁵ times the largest prefix, 10⁻⁶ times the smallest) the value in
  its unit with an exponent (``1.00e+296``).
  A tie rounds away from zero.
* A change and every other percentage of a fraction: one decimal below 100 %, none
  from 100 % (``-38.0 %``, ``+150 %``); a change carries its sign, but a change that
  rounds to nothing is ``0.0 %``, never ``-0.0 %``.
* A change's confidence: two decimals, never rounded up to 100 % (``99.95 %``,
  ``> 99.99 %`` beyond 0.9999).
* The minus sign is ASCII ``-`` (it greps); negative zero is written as zero.
* None, NaN and infinity are ``n/a``.
* An amount of stored bytes (:func:`format_bytes`) is written with a binary prefix
  (``2.00 GiB``), as ``du -h`` does; :func:`read_bytes` reads the sizes a person
  gives (``500M``, ``2GiB``, ``1.5 GB``, ``4096``).

Machine-readable outputs (JSON, CSV, exports, ministat's table) keep every digit and
never come here. ``src/perfwalk/report/static/format.js`` writes the same text in the
browser; tests/number_format_cases.json holds the cases both must write alike, so the
arithmetic below uses only operations that give the same double in JavaScript (one
multiplication or division by an exact power, comparisons).
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal

#: written for None, NaN and ±infinity
MISSING = "n/a"

#: SI prefixes by power of ten (a power of 1024 for the binary ones: Ki, Mi, …)
_PREFIXES = {-9: "n", -6: "µ", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T"}
_BINARY = {0: "", 1: "Ki", 2: "Mi", 3: "Gi", 4: "Ti"}

#: a unit's numerator as spelled → (its symbol, the power it carries, the smallest and
#: largest power a prefix may show); binary units count powers of 1024
_TIME = ("s", -9, 0)
_BYTES = ("B", 0, 12)
_BITS = ("bit", 0, 12)
_OPS = ("ops", 0, 12)
_KNOWN: dict[str, tuple[tuple[str, int, int], int]] = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), (_TIME, 0)),
    **dict.fromkeys(("ms", "msec", "msecs"), (_TIME, -3)),
    **dict.fromkeys(("us", "usec", "usecs", "µs", "μs"), (_TIME, -6)),
    **dict.fromkeys(("ns", "nsec", "nsecs"), (_TIME, -9)),
    **dict.fromkeys(("B", "byte", "bytes"), (_BYTES, 0)),
    "kB": (_BYTES, 3),
    "MB": (_BYTES, 6),
    "GB": (_BYTES, 9),
    "TB": (_BYTES, 12),
    **dict.fromkeys(("bit", "bits"), (_BITS, 0)),
    "kbit": (_BITS, 3),
    "Mbit": (_BITS, 6),
    "Gbit": (_BITS, 9),
    **dict.fromkeys(("op", "ops"), (_OPS, 0)),
}
_BINARY_BYTES: dict[str, int] = {"KiB": 1, "kbytes": 1, "MiB": 2, "GiB": 3, "TiB": 4}
#: whole spellings that mean a known numerator over seconds
_RATES = {"bps": "bits/s", "kbps": "kbit/s", "Kbps": "kbit/s", "Mbps": "Mbit/s", "Gbps": "Gbit/s"}
_PER_SECOND = ("s", "sec", "second")
_PERCENT = ("%", "percent")


def format_value(value: float | None, unit: str = "") -> str:
    """``value`` in ``unit`` as a person reads it: ``867.7 MB/s``, ``75.5 µs``,
    ``16.6 G cycles``, ``12.3 %``, ``n/a``."""
    if value is None or not math.isfinite(value):
        return MISSING
    unit = unit.strip()
    if unit in _PERCENT:
        return _joined(_plain(value), "%")
    spelled = _RATES.get(unit, unit)
    numerator, slash, denominator = spelled.partition("/")
    suffix = ""
    if slash:
        suffix = "/s" if denominator in _PER_SECOND else f"/{denominator}"
    if numerator in _BINARY_BYTES and denominator.count("/") == 0:
        number, power = _scaled(value, _BINARY_BYTES[numerator], 0, 4, 1024)
        return _joined(number, f"{_BINARY[power]}B{suffix}")
    known = _KNOWN.get(numerator)
    if known is None or "/" in denominator:  # its spelling, the prefix a word apart
        number, power = _scaled(value, 0, 0, 12, 10)
        return " ".join(word for word in (number, _PREFIXES[power], unit) if word)
    (symbol, lowest, highest), carried = known
    number, power = _scaled(value, carried, lowest, highest, 10)
    return _joined(number, f"{_PREFIXES[power]}{symbol}{suffix}")


def format_unit(unit: str) -> str:
    """``unit`` spelled as :func:`format_value` writes it (``us`` is ``µs``,
    ``bytes/sec`` is ``B/s``; a unit it does not know keeps its spelling), for a title
    or an axis beside values written by it."""
    return format_value(1.0, unit).partition(" ")[2]


def format_levels(before: float | None, after: float | None, unit: str, arrow: str = "→") -> str:
    """A move from one level to another, each with its unit and prefix:
    ``940.0 Mbit/s → 752.0 Mbit/s``."""
    return f"{format_value(before, unit)} {arrow} {format_value(after, unit)}"


def format_difference(value: float | None, unit: str = "") -> str:
    """A difference of two values with its sign: ``+1.50 ms``, ``-867.7 MB/s``, ``0 s``."""
    text = format_value(value, unit)
    if text == MISSING or text.startswith(("-", "0 ")) or text == "0":
        return text
    return f"+{text}"


def format_change(fraction: float | None) -> str:
    """A relative change (0.123 is 12.3 %) with its sign: ``+12.3 %``, ``-38.0 %``,
    ``+150 %``, ``0.0 %``; ``n/a`` for None, NaN and infinity."""
    text = format_share(fraction)
    if text == MISSING or text.startswith("-") or text == "0.0 %":
        return text
    return f"+{text}"


def format_size(fraction: float | None) -> str:
    """A change's relative size: :func:`format_change`, and a move from a level of 0
    (±infinity) as ``from 0 up`` or ``from 0 down``."""
    if fraction is not None and math.isinf(fraction):
        return "from 0 " + ("up" if fraction > 0 else "down")
    return format_change(fraction)


def format_confidence(value: float | None) -> str:
    """A confidence (1 - p) as a percentage with two decimals, never rounded up to
    100 %: ``> 99.99 %`` beyond 0.9999, else ``99.98 %``, ``95.00 %``; ``n/a`` for
    None and NaN. Every change's confidence is written so, wherever it is shown."""
    if value is None or math.isnan(value):
        return MISSING
    if value > 0.9999:
        return "> 99.99 %"
    return f"{_fixed(min(value, 0.9999) * 100, 2)} %"


def format_share(fraction: float | None) -> str:
    """A fraction as a percentage (0.025 is ``2.5 %``): one decimal below 100 %, none
    from 100 %, no sign but ``-``; ``n/a`` for None, NaN and infinity."""
    if fraction is None or not math.isfinite(fraction):
        return MISSING
    shown = fraction * 100
    size = abs(shown)
    digits = _fixed(size, 1)
    if float(digits) >= 100:
        digits = _fixed(size, 0)
    negative = shown < 0 and digits.strip("0.") != ""
    return f"{'-' if negative else ''}{digits} %"


def _joined(number: str, unit: str) -> str:
    return f"{number} {unit}" if unit else number


def _plain(value: float) -> str:
    """``value`` without a prefix."""
    return _scaled(value, 0, 0, 0, 10)[0]


def _scaled(value: float, carried: int, lowest: int, highest: int, base: int) -> tuple[str, int]:
    """The digits of ``value`` (given in a unit that carries ``base`` ** ``carried``)
    and the power of the prefix they are written with: the largest power between
    ``lowest`` and ``highest`` (steps of 3 for base 10, of 1 for 1024) that leaves at
    least 1 before the point."""
    size = abs(value)
    if size == 0:
        return "0", 0
    step = 3 if base == 10 else 1
    power = highest
    while True:
        mantissa = _shifted(size, base, carried - power)
        if mantissa >= 1 or power - step < lowest:
            break
        power -= step
    digits = _digits(mantissa)
    if float(digits) >= (1000 if base == 10 else 1024) and power + step <= highest:
        power += step  # 999.96 k is 1.00 M
        digits = _digits(_shifted(size, base, carried - power))
    if "e" in digits:  # beyond every prefix: the value in its own unit, with an exponent
        digits, power = _digits(_shifted(size, base, carried)), 0
    return ("-" if value < 0 else "") + digits, power


def _shifted(size: float, base: int, power: int) -> float:
    """``size`` × ``base`` ** ``power`` by one operation with an exact power."""
    factor = int(base ** abs(power))  # exact as a double up to 10 ** 22
    return size * factor if power >= 0 else size / factor


def _digits(mantissa: float) -> str:
    """Two decimals below 10, one below 1000, none above; three significant digits
    below 1; beyond (below 1e-6, from 1e15) with an exponent."""
    if mantissa >= 1e15:
        return f"{mantissa:.2e}"
    if mantissa >= 1:
        for decimals, limit in ((2, 10), (1, 1000)):
            if mantissa < limit:
                digits = _fixed(mantissa, decimals)
                if float(digits) < limit:
                    return digits
        return _fixed(mantissa, 0)
    shift = 0
    while mantissa * 10**shift < 1:
        shift += 1
        if shift > 6:
            return f"{mantissa:.2e}"
    digits = _fixed(mantissa, 2 + shift)
    if float(digits) * 10 ** (shift - 1) >= 1:  # 0.09996 is 0.100
        digits = _fixed(mantissa, 1 + shift)
    return digits


def _fixed(number: float, decimals: int) -> str:
    """``number`` (≥ 0) with ``decimals`` decimals, an exact tie rounded up (as
    JavaScript's ``toFixed`` does; Python's format rounds it to even)."""
    scaled = number * 10**decimals
    if scaled % 1 == 0.5:  # perhaps a tie: decide on the exact value
        exact = Decimal(number).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
        return f"{exact:f}"
    return f"{number:.{decimals}f}"


def many(count: int | str, noun: str) -> str:
    """``1 build``, ``2 builds``, ``0 builds``, ``2 to 8 repetitions``: a count (or a
    range written out) with its noun (singular given; ``series`` stays as it is)."""
    one = str(count) == "1" or noun.endswith("s")
    return f"{count} {noun if one else noun + 's'}"


def format_bytes(count: float) -> str:
    """An amount of bytes with a binary prefix: ``512.0 B``, ``1.50 KiB``, ``2.00 GiB``."""
    return format_value(count / 1024, "KiB")


#: the powers a size's suffix carries: SI (kB, MB… powers of 1000), binary (KiB,
#: MiB…) and the single letters of du, sort -h and systemd (K, M, G, T: binary)
_SIZE_SUFFIXES = {
    "": 1,
    "b": 1,
    **{f"{p}b": 1000 ** (n + 1) for n, p in enumerate("kmgt")},
    **{f"{p}ib": 1024 ** (n + 1) for n, p in enumerate("kmgt")},
    **{p: 1024 ** (n + 1) for n, p in enumerate("kmgt")},
}
_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([A-Za-z]*)\s*")


def read_bytes(word: str) -> int:
    """The bytes a size names: ``4096``, ``500M`` or ``500MiB`` (binary: K, M, G, T
    alone or with ``iB``), ``1.5GB`` (SI: kB, MB, GB, TB), case ignored; a ValueError
    saying what is expected for anything else."""
    found = _SIZE.fullmatch(word)
    power = _SIZE_SUFFIXES.get(found.group(2).lower()) if found else None
    if found is None or power is None:
        raise ValueError(
            f"expected a size such as 500M, 2GiB, 1.5GB or 4096 (bytes), got {word[:40]!r}"
        )
    return int(Decimal(found.group(1)) * power)
