"""When a checkout has repetitions enough: the relative standard error and the stop rule."""

from __future__ import annotations

import math
import random

from perfwalk.analysis.precision import relative_standard_error, wants_more


def test_the_relative_standard_error_is_sd_over_mean_over_root_n() -> None:
    values = [9.0, 10.0, 11.0]  # mean 10, sample sd 1
    assert math.isclose(relative_standard_error(values), 1 / 10 / math.sqrt(3))
    assert relative_standard_error([5.0, 5.0, 5.0]) == 0.0
    assert relative_standard_error([5.0]) == math.inf
    assert relative_standard_error([5.0, math.nan]) == math.inf  # one finite value


def test_a_quiet_checkout_stops_at_the_least_a_noisy_one_at_the_most() -> None:
    rng = random.Random(5)
    quiet: list[float] = []
    noisy: list[float] = []
    while wants_more(len(quiet), {"t.v": quiet}, least=3, most=20, target=0.01):
        quiet.append(100 + rng.gauss(0, 0.1))
    while wants_more(len(noisy), {"t.v": noisy}, least=3, most=20, target=0.01):
        noisy.append(100 + rng.gauss(0, 30))
    assert (len(quiet), len(noisy)) == (3, 20)


def test_every_value_must_be_precise_and_no_value_stops_at_the_least() -> None:
    quiet = [100.0, 100.1, 99.9]
    noisy = [100.0, 150.0, 50.0]
    assert not wants_more(3, {"a": quiet}, least=3, most=9, target=0.01)
    assert wants_more(3, {"a": quiet, "b": noisy}, least=3, most=9, target=0.01)
    assert not wants_more(3, {}, least=3, most=9, target=0.01)  # every repetition failed
    assert wants_more(2, {}, least=3, most=9, target=0.01)
    assert not wants_more(9, {"b": noisy}, least=3, most=9, target=0.01)
