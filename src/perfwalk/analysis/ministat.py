"""Two samples compared the way ``ministat`` compares them, to the same digits.

A port of the statistics and the text of ``ministat`` (Poul-Henning Kamp's tool,
as Debian packages it, version 20150715): the same sums in the same order, the
same Student's t table, the same median (the upper one for an even count), the
same ``%g`` formatting, the same ASCII plot with its quirks (the plot is as tall as
the last sample needs). Where ``ministat`` takes the square root of a variance that
rounding made negative, the result is printed as ``-nan``, as there.

Pure: text or numbers in, text out. Reading files is the caller's business.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from perfwalk.analysis.scaled import exponent, scale, scaled
from perfwalk.errors import UsageError

#: The confidence levels of ministat's Student's t table (``-c``).
CONFIDENCE_LEVELS = (80.0, 90.0, 95.0, 98.0, 99.0, 99.5)
DEFAULT_CONFIDENCE = 95.0
DEFAULT_WIDTH = 74
MAX_SAMPLES = 7
SYMBOLS = " x+*%#@O"

_HEADER = "    N           Min           Max        Median           Avg        Stddev"

# Student's t, two-sided, for 1..100 degrees of freedom; row 0 is infinity.
_STUDENT: tuple[tuple[float, ...], ...] = (
    (1.282, 1.645, 1.960, 2.326, 2.576, 3.090),
    (3.078, 6.314, 12.706, 31.821, 63.657, 318.313),
    (1.886, 2.920, 4.303, 6.965, 9.925, 22.327),
    (1.638, 2.353, 3.182, 4.541, 5.841, 10.215),
    (1.533, 2.132, 2.776, 3.747, 4.604, 7.173),
    (1.476, 2.015, 2.571, 3.365, 4.032, 5.893),
    (1.440, 1.943, 2.447, 3.143, 3.707, 5.208),
    (1.415, 1.895, 2.365, 2.998, 3.499, 4.782),
    (1.397, 1.860, 2.306, 2.896, 3.355, 4.499),
    (1.383, 1.833, 2.262, 2.821, 3.250, 4.296),
    (1.372, 1.812, 2.228, 2.764, 3.169, 4.143),
    (1.363, 1.796, 2.201, 2.718, 3.106, 4.024),
    (1.356, 1.782, 2.179, 2.681, 3.055, 3.929),
    (1.350, 1.771, 2.160, 2.650, 3.012, 3.852),
    (1.345, 1.761, 2.145, 2.624, 2.977, 3.787),
    (1.341, 1.753, 2.131, 2.602, 2.947, 3.733),
    (1.337, 1.746, 2.120, 2.583, 2.921, 3.686),
    (1.333, 1.740, 2.110, 2.567, 2.898, 3.646),
    (1.330, 1.734, 2.101, 2.552, 2.878, 3.610),
    (1.328, 1.729, 2.093, 2.539, 2.861, 3.579),
    (1.325, 1.725, 2.086, 2.528, 2.845, 3.552),
    (1.323, 1.721, 2.080, 2.518, 2.831, 3.527),
    (1.321, 1.717, 2.074, 2.508, 2.819, 3.505),
    (1.319, 1.714, 2.069, 2.500, 2.807, 3.485),
    (1.318, 1.711, 2.064, 2.492, 2.797, 3.467),
    (1.316, 1.708, 2.060, 2.485, 2.787, 3.450),
    (1.315, 1.706, 2.056, 2.479, 2.779, 3.435),
    (1.314, 1.703, 2.052, 2.473, 2.771, 3.421),
    (1.313, 1.701, 2.048, 2.467, 2.763, 3.408),
    (1.311, 1.699, 2.045, 2.462, 2.756, 3.396),
    (1.310, 1.697, 2.042, 2.457, 2.750, 3.385),
    (1.309, 1.696, 2.040, 2.453, 2.744, 3.375),
    (1.309, 1.694, 2.037, 2.449, 2.738, 3.365),
    (1.308, 1.692, 2.035, 2.445, 2.733, 3.356),
    (1.307, 1.691, 2.032, 2.441, 2.728, 3.348),
    (1.306, 1.690, 2.030, 2.438, 2.724, 3.340),
    (1.306, 1.688, 2.028, 2.434, 2.719, 3.333),
    (1.305, 1.687, 2.026, 2.431, 2.715, 3.326),
    (1.304, 1.686, 2.024, 2.429, 2.712, 3.319),
    (1.304, 1.685, 2.023, 2.426, 2.708, 3.313),
    (1.303, 1.684, 2.021, 2.423, 2.704, 3.307),
    (1.303, 1.683, 2.020, 2.421, 2.701, 3.301),
    (1.302, 1.682, 2.018, 2.418, 2.698, 3.296),
    (1.302, 1.681, 2.017, 2.416, 2.695, 3.291),
    (1.301, 1.680, 2.015, 2.414, 2.692, 3.286),
    (1.301, 1.679, 2.014, 2.412, 2.690, 3.281),
    (1.300, 1.679, 2.013, 2.410, 2.687, 3.277),
    (1.300, 1.678, 2.012, 2.408, 2.685, 3.273),
    (1.299, 1.677, 2.011, 2.407, 2.682, 3.269),
    (1.299, 1.677, 2.010, 2.405, 2.680, 3.265),
    (1.299, 1.676, 2.009, 2.403, 2.678, 3.261),
    (1.298, 1.675, 2.008, 2.402, 2.676, 3.258),
    (1.298, 1.675, 2.007, 2.400, 2.674, 3.255),
    (1.298, 1.674, 2.006, 2.399, 2.672, 3.251),
    (1.297, 1.674, 2.005, 2.397, 2.670, 3.248),
    (1.297, 1.673, 2.004, 2.396, 2.668, 3.245),
    (1.297, 1.673, 2.003, 2.395, 2.667, 3.242),
    (1.297, 1.672, 2.002, 2.394, 2.665, 3.239),
    (1.296, 1.672, 2.002, 2.392, 2.663, 3.237),
    (1.296, 1.671, 2.001, 2.391, 2.662, 3.234),
    (1.296, 1.671, 2.000, 2.390, 2.660, 3.232),
    (1.296, 1.670, 2.000, 2.389, 2.659, 3.229),
    (1.295, 1.670, 1.999, 2.388, 2.657, 3.227),
    (1.295, 1.669, 1.998, 2.387, 2.656, 3.225),
    (1.295, 1.669, 1.998, 2.386, 2.655, 3.223),
    (1.295, 1.669, 1.997, 2.385, 2.654, 3.220),
    (1.295, 1.668, 1.997, 2.384, 2.652, 3.218),
    (1.294, 1.668, 1.996, 2.383, 2.651, 3.216),
    (1.294, 1.668, 1.995, 2.382, 2.650, 3.214),
    (1.294, 1.667, 1.995, 2.382, 2.649, 3.213),
    (1.294, 1.667, 1.994, 2.381, 2.648, 3.211),
    (1.294, 1.667, 1.994, 2.380, 2.647, 3.209),
    (1.293, 1.666, 1.993, 2.379, 2.646, 3.207),
    (1.293, 1.666, 1.993, 2.379, 2.645, 3.206),
    (1.293, 1.666, 1.993, 2.378, 2.644, 3.204),
    (1.293, 1.665, 1.992, 2.377, 2.643, 3.202),
    (1.293, 1.665, 1.992, 2.376, 2.642, 3.201),
    (1.293, 1.665, 1.991, 2.376, 2.641, 3.199),
    (1.292, 1.665, 1.991, 2.375, 2.640, 3.198),
    (1.292, 1.664, 1.990, 2.374, 2.640, 3.197),
    (1.292, 1.664, 1.990, 2.374, 2.639, 3.195),
    (1.292, 1.664, 1.990, 2.373, 2.638, 3.194),
    (1.292, 1.664, 1.989, 2.373, 2.637, 3.193),
    (1.292, 1.663, 1.989, 2.372, 2.636, 3.191),
    (1.292, 1.663, 1.989, 2.372, 2.636, 3.190),
    (1.292, 1.663, 1.988, 2.371, 2.635, 3.189),
    (1.291, 1.663, 1.988, 2.370, 2.634, 3.188),
    (1.291, 1.663, 1.988, 2.370, 2.634, 3.187),
    (1.291, 1.662, 1.987, 2.369, 2.633, 3.185),
    (1.291, 1.662, 1.987, 2.369, 2.632, 3.184),
    (1.291, 1.662, 1.987, 2.368, 2.632, 3.183),
    (1.291, 1.662, 1.986, 2.368, 2.631, 3.182),
    (1.291, 1.662, 1.986, 2.368, 2.630, 3.181),
    (1.291, 1.661, 1.986, 2.367, 2.630, 3.180),
    (1.291, 1.661, 1.986, 2.367, 2.629, 3.179),
    (1.291, 1.661, 1.985, 2.366, 2.629, 3.178),
    (1.290, 1.661, 1.985, 2.366, 2.628, 3.177),
    (1.290, 1.661, 1.985, 2.365, 2.627, 3.176),
    (1.290, 1.661, 1.984, 2.365, 2.627, 3.175),
    (1.290, 1.660, 1.984, 2.365, 2.626, 3.175),
    (1.290, 1.660, 1.984, 2.364, 2.626, 3.174),
)

# What C's strtod accepts as a whole token (decimal, hexadecimal, inf, nan).
_NUMBER = re.compile(
    r"[+-]?(?:"
    r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
    r"|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?"
    r"|(?i:inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?)"
    r")"
)


def student_t(degrees: int, confidence: float) -> float:
    """ministat's two-sided Student's t (its table; infinity beyond 100)."""
    column = confidence_index(confidence)
    return _STUDENT[degrees if 0 < degrees <= 100 else 0][column]


def confidence_index(confidence: float) -> int:
    if confidence not in CONFIDENCE_LEVELS:
        levels = ", ".join(f"{c:g}" for c in CONFIDENCE_LEVELS)
        raise UsageError(
            f"confidence level {confidence:g} % is not in ministat's table",
            hint=f"use one of {levels}",
        )
    return CONFIDENCE_LEVELS.index(confidence)


def c_number(token: str) -> float | None:
    """The value of ``token`` if C's strtod reads all of it, else None."""
    token = token.lstrip(" \t\n\v\f\r")  # strtod skips leading white space
    if not _NUMBER.fullmatch(token):
        return None
    if token.lstrip("+-")[:2] in ("0x", "0X"):
        return float.fromhex(token)
    if "(" in token:  # nan(chars)
        token = token[: token.index("(")]
    return float(token)


def parse_column(text: str, name: str, *, column: int = 1, delimiters: str = " \t") -> list[float]:
    """The numbers of ``column`` (1-based) in ``text``, read as ministat reads a file.

    Lines are split at any of ``delimiters``; a field starting with ``#`` ends the
    line; a line without that column is skipped; anything else in the column that
    is not a whole number is an error naming ``name`` and the line.
    """
    if column < 1:
        raise UsageError(f"column {column}: columns count from 1", hint="give -C 1 or more")
    if not delimiters:
        raise UsageError("the delimiter string is empty", hint="give -d with some characters")
    split = re.compile("[" + re.escape(delimiters) + "]+")
    values: list[float] = []
    widest = 0  # fields of the widest line, comments left out
    for number, line in enumerate(text.split("\n"), start=1):
        fields = [f for f in split.split(line.rstrip()) if f]
        widest = max(
            widest, next((i for i, f in enumerate(fields) if f.startswith("#")), len(fields))
        )
        field = None
        for position, candidate in enumerate(fields, start=1):
            if candidate.startswith("#"):
                break
            if position == column:
                field = candidate
                break
        if field is None:
            continue
        value = c_number(field)
        if value is None:
            raise UsageError(
                f"{name} line {number}: {field!r} is not a number",
                hint="give one number per line (or pick a column with -C); # starts a comment",
            )
        if not math.isfinite(value):
            raise UsageError(
                f"{name} line {number}: {field!r} is not a finite number",
                hint="remove it, or mark the line as a comment with #",
            )
        values.append(value)
    if not values and 0 < widest < column:
        raise UsageError(
            f"{name}: no column {column}: its lines have at most {widest} "
            f"column{'' if widest == 1 else 's'}",
            hint=f"give -C 1 to {widest}, or other delimiters with -d",
        )
    return values


def _c_sqrt(value: float) -> float:
    """sqrt as C computes it on x86-64: NaN (with the sign bit) for a negative input."""
    return math.sqrt(value) if value >= 0 else -math.nan


def _c_div(a: float, b: float) -> float:
    """a / b as IEEE 754 computes it: ±inf or NaN instead of an exception."""
    if b != 0:
        return a / b
    if a == 0 or math.isnan(a):
        return -math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def c_format(value: float, spec: str) -> str:
    """``spec % value`` as C's printf writes it (``-nan`` for a NaN with its sign bit)."""
    if math.isnan(value):
        text = "-nan" if math.copysign(1.0, value) < 0 else "nan"
        width = re.match(r"%(\d*)", spec)
        pad = int(width.group(1)) if width and width.group(1) else 0
        return text.rjust(pad)
    return spec % value


@dataclass(frozen=True)
class Sample:
    """One data set as ministat sees it: values in the order read, and its vitals."""

    name: str
    values: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.values) < 3:
            raise UsageError(
                f"{self.name}: {len(self.values)} values; ministat needs at least 3",
                hint="measure more repetitions, or give a file with three numbers or more",
            )

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def ordered(self) -> tuple[float, ...]:
        return tuple(sorted(self.values))

    @property
    def sums(self) -> tuple[float, float]:
        sy = syy = 0.0
        for a in self.values:  # in the order read, as ministat adds them
            sy += a
            syy += a * a
        return sy, syy

    @property
    def min(self) -> float:
        return min(self.values)

    @property
    def max(self) -> float:
        return max(self.values)

    @property
    def median(self) -> float:
        """The value at n // 2 of the ordered values (the upper median for an even n)."""
        return self.ordered[self.n // 2]

    @property
    def exponent(self) -> int:
        """``k``: the values divided by ``2**k`` sum and square without overflow (0 for
        everyday numbers, whose sums are ministat's to the last bit)."""
        return exponent(self.values)

    def scaled(self, k: int) -> Sample:
        """This sample divided by ``2**k`` (exact)."""
        return self if k == 0 else Sample(self.name, tuple(scaled(self.values, k)))

    @property
    def avg(self) -> float:
        k = self.exponent
        return scale(self.scaled(k).sums[0] / self.n, k)

    @property
    def var(self) -> float:
        """The sample variance; inf when it is beyond the float range."""
        k = self.exponent
        return scale(self.scaled(k).small_var, 2 * k)

    @property
    def small_var(self) -> float:
        """The variance as ministat computes it, from these values' sums."""
        sy, syy = self.sums
        return (syy - sy * sy / self.n) / (self.n - 1.0)

    @property
    def stddev(self) -> float:
        k = self.exponent
        return scale(_c_sqrt(self.scaled(k).small_var), k)


@dataclass(frozen=True)
class Difference:
    """ministat's comparison of ``sample`` with the first sample ``base``."""

    confidence: float
    proven: bool
    difference: float  # avg(sample) - avg(base)
    half_width: float  # t × pooled s × √(1/n1 + 1/n2)
    percent: float  # difference in % of avg(base)
    percent_half_width: float
    pooled_s: float
    t: float  # Student's t for the confidence level (ministat's table's)


def difference(sample: Sample, base: Sample, confidence: float = DEFAULT_CONFIDENCE) -> Difference:
    """Student's t with pooled standard deviation, exactly as ministat's ``Relative``.

    Computed on both samples divided by a common power of two when their values are
    far from 1 (exact): the sums never overflow, the decision and the percentages are
    right, and only a difference beyond the float range is ``±inf``.
    """
    return pooled_difference(sample, base, confidence, student_t(sample.n + base.n - 2, confidence))


def pooled_difference(sample: Sample, base: Sample, confidence: float, t: float) -> Difference:
    """:func:`difference` with Student's ``t`` given, for a ``confidence`` beyond
    ministat's table (each of several comparisons made at once)."""
    k = exponent((*sample.values, *base.values))
    sample, base = sample.scaled(k), base.scaled(k)
    spool = (sample.n - 1) * sample.small_var + (base.n - 1) * base.small_var
    spool /= sample.n + base.n - 2
    spool = _c_sqrt(spool)
    s = spool * math.sqrt(1.0 / sample.n + 1.0 / base.n)
    d = sample.avg - base.avg
    e = t * s
    return Difference(
        confidence=confidence,
        proven=abs(d) > e,
        difference=scale(d, k),
        half_width=scale(e, k),
        percent=_c_div(d * 100, base.avg),
        percent_half_width=_c_div(e * 100, base.avg),
        pooled_s=scale(spool, k),
        t=t,
    )


def difference_text(diff: Difference) -> str:
    if not diff.proven:
        return f"No difference proven at {diff.confidence:.1f}% confidence\n"
    return (
        f"Difference at {diff.confidence:.1f}% confidence\n"
        f"\t{c_format(diff.difference, '%g')} +/- {c_format(diff.half_width, '%g')}\n"
        f"\t{c_format(diff.percent, '%g')}% +/- {c_format(diff.percent_half_width, '%g')}%\n"
        f"\t(Student's t, pooled s = {c_format(diff.pooled_s, '%g')})\n"
    )


def vitals_text(sample: Sample, symbol: str) -> str:
    numbers = (sample.min, sample.max, sample.median, sample.avg, sample.stddev)
    return f"{symbol} {sample.n:3d} " + " ".join(c_format(v, "%13.8g") for v in numbers) + "\n"


def report(
    samples: Sequence[Sample],
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    plot: bool = True,
    compare: bool = True,
    width: int = DEFAULT_WIDTH,
    separate_bars: bool = False,
) -> str:
    """What ``ministat`` prints for these samples: the legend, the plot (unless
    ``plot`` is false: ``-A``/``-n``), the table and, unless ``compare`` is false
    (``-n``), each sample against the first."""
    if not 1 <= len(samples) <= MAX_SAMPLES:
        raise UsageError(f"{len(samples)} samples; ministat compares 1 to {MAX_SAMPLES}")
    confidence_index(confidence)
    out = [f"{SYMBOLS[i + 1]} {s.name}\n" for i, s in enumerate(samples)]
    if plot and compare:
        out.append(plot_text(samples, width=width, separate_bars=separate_bars))
    out.append(_HEADER + "\n")
    out.append(vitals_text(samples[0], SYMBOLS[1]))
    for i, sample in enumerate(samples[1:], start=2):
        out.append(vitals_text(sample, SYMBOLS[i]))
        if compare:
            out.append(difference_text(difference(sample, samples[0], confidence)))
    return "".join(out)


def plot_text(
    samples: Sequence[Sample], *, width: int = DEFAULT_WIDTH, separate_bars: bool = False
) -> str:
    """ministat's ASCII-art plot: every value a symbol, ``|__A__|`` the mean ± one
    standard deviation, ``M`` the median (``*`` where samples share a column)."""
    if width < 2:
        raise UsageError(f"plot width {width}: too narrow", hint="give -w 2 or more")
    # the columns do not depend on the scale: far from 1, plot the values / 2**k
    k = exponent(v for s in samples for v in s.values)
    samples = [s.scaled(k) for s in samples]
    low, high = math.inf, -math.inf
    for s in samples:
        for a in (s.min, s.max, s.avg - s.stddev, s.avg + s.stddev):
            low = a if a < low else low
            high = a if a > high else high
    span = high - low
    if span == 0:
        return "[no plot, span is zero width]\n"
    dx = span / (width - 1.0)
    x0 = low - 0.5 * dx

    def column(value: float) -> int:
        return int((value - x0) / dx)  # C's conversion truncates toward zero

    data: list[list[int]] = []
    height = 0
    bars: dict[int, list[str]] = {}
    for number, s in enumerate(samples, start=1):
        bar = bars.setdefault(number - 1 if separate_bars else 0, [""] * width)
        columns = [column(v) for v in s.ordered]
        tallest = run = 1
        for previous, current in pairwise(columns):
            run = run + 1 if current == previous else 1
            tallest = max(tallest, run)
        tallest += 1
        if tallest > height:  # ministat's realloc: keeps the first rows, clears the new ones
            data = data[:height] + [[0] * width for _ in range(tallest - height)]
        height = tallest  # as in ministat: the last sample sets the height
        run, last = 0, -1
        for x in columns:
            run = run + 1 if x == last else 1
            last = x
            data[run][x] |= number
        if not math.isnan(s.stddev):
            left, right = column(s.avg - s.stddev), column(s.avg + s.stddev)
            bar[right] = "|"
            bar[left] = "|"
            for i in range(left + 1, right):
                if not bar[i]:
                    bar[i] = "_"
        bar[column(s.median)] = "M"
        bar[column(s.avg)] = "A"
    rule = "+" + "-" * width + "+\n"
    lines = [rule]
    for row in range(height - 1, 0, -1):
        cells = "".join(SYMBOLS[k] if k < len(SYMBOLS) else f"[{k:02x}]" for k in data[row])
        lines.append(f"|{cells}|\n")
    for key in sorted(bars):
        lines.append("|" + "".join(c or " " for c in bars[key]) + "|\n")
    lines.append(rule)
    return "".join(lines)
