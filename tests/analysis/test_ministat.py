"""The ministat port against the real ministat: the same text, digit for digit.

Inputs are generated (small and large samples, ties, equal means, huge and tiny
values, integers, constant samples) and written as files; both programs read the
same files with the same options.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from perfwalk.analysis import ministat
from perfwalk.analysis.ministat import Sample, c_number, parse_column, report
from perfwalk.errors import UsageError

MINISTAT = shutil.which("ministat")
needs_ministat = pytest.mark.skipif(
    MINISTAT is None, reason="the Debian package ministat is not installed"
)

KINDS = ("small", "large", "ties", "equal-means", "huge", "tiny", "integers", "constant", "mixed")


def _generate(rng: random.Random, kind: str) -> tuple[list[float], list[float]]:
    n1, n2 = rng.randint(3, 12), rng.randint(3, 12)
    if kind == "large":
        n1, n2 = rng.randint(60, 400), rng.randint(60, 400)
    base = {"huge": 1e15 * rng.uniform(1, 9), "tiny": 1e-12 * rng.uniform(1, 9)}.get(
        kind, rng.choice((1.0, 47.5, 1e6))
    )

    def sample(n: int, shift: float) -> list[float]:
        if kind == "ties":
            return [base * rng.choice((1, 2, 3)) for _ in range(n)]
        if kind == "integers":
            return [float(rng.randint(-20, 20)) for _ in range(n)]
        if kind == "constant":
            return [base] * n
        if kind == "equal-means":
            half = [base + rng.uniform(0, 5) for _ in range(n // 2)]
            return half + [2 * base - v for v in half] + ([base] if n % 2 else [])
        return [base * (1 + shift + rng.gauss(0, 0.05)) for _ in range(n)]

    shift = rng.choice((0.0, 0.01, 0.1, 0.5))
    return sample(n1, 0.0), sample(n2, shift)


def _text(rng: random.Random, values: list[float]) -> str:
    style = rng.choice(("%r", "%.6g", "%.3f", "%g", "%.17g"))
    return "".join(style % v + "\n" for v in values)


def _run_ministat(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    assert MINISTAT is not None
    return subprocess.run(
        [MINISTAT, *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=30
    )


@needs_ministat
@pytest.mark.parametrize("seed", range(40))
def test_the_same_output_as_ministat_on_generated_samples(seed: int, tmp_path: Path) -> None:
    rng = random.Random(f"ministat-test:{seed}")
    for case in range(8):
        kind = KINDS[(seed * 8 + case) % len(KINDS)]
        a, b = _generate(rng, kind)
        texts = {"a.txt": _text(rng, a), "b.txt": _text(rng, b)}
        for name, text in texts.items():
            (tmp_path / name).write_text(text)
        confidence = rng.choice(ministat.CONFIDENCE_LEVELS)
        width = rng.choice((74, 74, 40, 100, 12))
        flags = rng.choice(([], ["-A"], ["-n"], ["-s"]))
        if kind == "constant" and "-A" not in flags and "-n" not in flags:
            flags = ["-A"]  # ministat's plot of a -nan deviation is undefined behaviour in C
        args = ["-c", f"{confidence:g}", "-w", str(width), *flags, "a.txt", "b.txt"]
        want = _run_ministat(args, tmp_path)
        samples = [Sample(n, tuple(parse_column(t, n))) for n, t in texts.items()]
        got = report(
            samples,
            confidence=confidence,
            plot="-A" not in flags and "-n" not in flags,
            compare="-n" not in flags,
            width=width,
            separate_bars="-s" in flags,
        )
        assert got == want.stdout, f"{kind} {args}\n{texts}"


@needs_ministat
def test_a_variance_rounded_below_zero_prints_minus_nan_as_ministat(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("0.1\n0.1\n0.1\n")
    (tmp_path / "b").write_text("0.3\n0.3\n0.3\n0.3\n0.3\n0.3\n0.3\n")
    want = _run_ministat(["-A", "a", "b"], tmp_path).stdout
    samples = [Sample(n, tuple(parse_column((tmp_path / n).read_text(), n))) for n in "ab"]
    assert report(samples, plot=False) == want
    assert "-nan" in want


@needs_ministat
@pytest.mark.parametrize(
    ("text", "args", "column", "delimiters"),
    [
        ("1 a\n2 b # c\n#x\n\n   3\n4\t\n", [], 1, " \t"),
        ("x 1 # note\ny 2\nz\nw 3\nv 4 5\n", ["-C", "2"], 2, " \t"),
        ("1,5\n2,6\n3,7\n# 9,9\n4,8\n", ["-C", "2", "-d", ","], 2, ","),
        ("1;;5\n2;6\n3;7\n", ["-C", "2", "-d", ";"], 2, ";"),
        ("1e3\n-.5\n+2.\n0x1p3\n1E-2\r\n", [], 1, " \t"),
    ],
)
def test_files_are_read_as_ministat_reads_them(
    text: str, args: list[str], column: int, delimiters: str, tmp_path: Path
) -> None:
    other_text = "".join(f"{v}{delimiters[0]}{v + 0.5}\n" for v in (1, 2, 3))
    (tmp_path / "f").write_text(text)
    (tmp_path / "g").write_text(other_text)
    want = _run_ministat([*args, "-n", "f", "g"], tmp_path).stdout
    assert want, "ministat read nothing"
    values = parse_column(text, "f", column=column, delimiters=delimiters)
    other = parse_column(other_text, "g", column=column, delimiters=delimiters)
    got = report([Sample("f", tuple(values)), Sample("g", tuple(other))], compare=False)
    assert got == want


@needs_ministat
@pytest.mark.parametrize("bad", ["3#4", "1,5", "abc", "1e", "."])
def test_what_ministat_refuses_is_refused_with_the_file_and_line(bad: str, tmp_path: Path) -> None:
    (tmp_path / "f").write_text(f"1\n2\n{bad}\n3\n")
    assert _run_ministat(["-n", "f"], tmp_path).returncode == 2
    with pytest.raises(UsageError, match=r"f line 3: .* is not a number"):
        parse_column(f"1\n2\n{bad}\n3\n", "f")


def test_too_few_values_and_unknown_confidence_levels_are_user_errors() -> None:
    with pytest.raises(UsageError, match="at least 3"):
        Sample("two", (1.0, 2.0))
    samples = [Sample("a", (1.0, 2.0, 3.0)), Sample("b", (2.0, 3.0, 4.0))]
    with pytest.raises(UsageError, match=r"97\.5") as refused:
        report(samples, confidence=97.5)
    assert refused.value.hint == "use one of 80, 90, 95, 98, 99, 99.5"
    with pytest.raises(UsageError, match="too narrow"):
        report(samples, width=1)


def test_student_t_rows_and_infinity() -> None:
    assert ministat.student_t(1, 95) == 12.706
    assert ministat.student_t(100, 99.5) == 3.174
    assert ministat.student_t(101, 95) == 1.960  # beyond the table: infinity


def test_c_number_reads_what_strtod_reads() -> None:
    assert c_number("0x1.8p1") == 3.0
    assert c_number("  7") == 7.0
    assert c_number("1_000") is None  # Python's float() would take it; strtod does not
    assert c_number("infinity") == float("inf")
