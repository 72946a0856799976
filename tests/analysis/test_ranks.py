"""Mann–Whitney U and Cliff's delta against brute force and known values."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from perfwalk.analysis.ranks import mann_whitney, u_distribution


@pytest.mark.parametrize(("m", "n"), [(1, 1), (2, 3), (3, 3), (4, 5), (5, 2), (6, 6)])
def test_the_distribution_of_u_is_the_count_of_orderings(m: int, n: int) -> None:
    counts = [0] * (m * n + 1)
    for chosen in itertools.combinations(range(m + n), m):  # positions of the a values
        u = sum(n - sum(1 for p in range(m + n) if p > pos and p not in chosen) for pos in chosen)
        counts[m * n - u] += 1
    assert u_distribution(m, n) == counts
    assert sum(counts) == math.comb(m + n, m)


def test_complete_separation_has_the_smallest_exact_p() -> None:
    test = mann_whitney([1, 2, 3, 4], [5, 6, 7, 8])
    assert test.u == 16
    assert test.exact
    assert test.p == pytest.approx(2 / 70)
    assert test.delta == 1.0
    assert test.magnitude == "large"
    assert mann_whitney([5, 6, 7, 8], [1, 2, 3, 4]).delta == -1.0


def test_identical_samples_do_not_differ() -> None:
    test = mann_whitney([1, 2, 3], [1, 2, 3])
    assert test.u == 4.5
    assert test.delta == 0.0
    assert test.p == 1.0
    assert test.magnitude == "negligible"
    flat = mann_whitney([5, 5, 5], [5, 5])
    assert flat.z == 0.0
    assert flat.p == 1.0
    assert not flat.exact


def test_ties_use_the_corrected_normal_approximation() -> None:
    test = mann_whitney([1, 2, 2, 3, 3, 3], [3, 4, 4, 5])
    assert not test.exact
    assert test.u == 22.5  # pairs with b > a, the 3s tied with the 3 count half
    assert 0 < test.p < 0.05


def test_large_samples_agree_with_the_normal_approximation() -> None:
    rng = random.Random("ranks:large")
    a = [rng.gauss(0, 1) for _ in range(300)]
    b = [rng.gauss(0.3, 1) for _ in range(300)]
    test = mann_whitney(a, b)
    assert not test.exact
    assert test.p < 1e-3
    assert test.z > 3
    assert 0.1 < test.delta < 0.3


def test_empty_samples_are_refused() -> None:
    with pytest.raises(ValueError, match="both samples"):
        mann_whitney([], [1.0])
