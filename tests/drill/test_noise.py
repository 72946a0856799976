"""The noise model learned from the repetitions at the two ends."""

from __future__ import annotations

import math
import random

import pytest

from perfwalk.drill.noise import NoiseModel, without_spikes


def integral(model: NoiseModel, lo: float, hi: float, steps: int = 4000) -> float:
    width = (hi - lo) / steps
    return sum(math.exp(model.log_density(lo + (i + 0.5) * width)) for i in range(steps)) * width


def test_a_lone_spike_is_left_out_and_a_mode_kept() -> None:
    rng = random.Random("test-drill-noise-spike")
    base = sorted(rng.gauss(100, 1) for _ in range(19))
    assert without_spikes(sorted([*base, 130.0])) == base
    mode = sorted([*base, *(rng.gauss(108, 0.5) for _ in range(7))])  # 27 % of the runs
    assert without_spikes(mode) == mode


def test_few_or_equal_values_are_kept() -> None:
    assert without_spikes([1.0, 2.0, 50.0]) == [1.0, 2.0, 50.0]
    assert without_spikes([5.0] * 8) == [5.0] * 8


def test_density_is_a_density_centred_on_the_before_level() -> None:
    rng = random.Random("test-drill-noise-density")
    before = [rng.gauss(1000, 15) for _ in range(10)]
    after = [rng.gauss(960, 15) for _ in range(10)]
    model = NoiseModel.from_ends(before, after, -40.0, shift_error=5.0, spike_fraction=0.03)
    # the wide Cauchy share reaches far: most of the mass is near, all of it in the end
    assert integral(model, 800, 1200) == pytest.approx(0.98, abs=0.02)
    assert model.log_density(1000) > model.log_density(960) > model.log_density(900)
    assert model.centre == pytest.approx(1000, abs=20)
    assert model.spread == pytest.approx(15, abs=6)


def test_evidence_of_one_value_is_clipped() -> None:
    model = NoiseModel.from_ends(
        [100.0, 101, 99, 100.5, 99.5],
        [90.0, 91, 89, 90.5, 89.5],
        -10.0,
        shift_error=0.5,
        spike_fraction=0.03,
    )
    assert model.evidence(90.0, -10.0, 0.0, limit=3.0) == 3.0  # at the after level
    assert model.evidence(100.0, -10.0, 0.0, limit=3.0) == -3.0
    assert abs(model.evidence(95.0, -10.0, 0.0, limit=3.0)) < 0.5  # midway says little
    assert abs(model.evidence(500.0, -10.0, 0.0, limit=3.0)) < 0.5  # so does a wild value


def test_a_deterministic_metric_still_has_a_usable_density() -> None:
    model = NoiseModel.from_ends([7.0] * 5, [5.0] * 5, -2.0, shift_error=0.0, spike_fraction=0.03)
    assert model.bandwidth > 0
    assert model.evidence(5.0, -2.0, 0.0, limit=3.0) == 3.0
    assert model.evidence(7.0, -2.0, 0.0, limit=3.0) == -3.0


def test_a_model_needs_values_at_both_ends() -> None:
    with pytest.raises(ValueError, match="both ends"):
        NoiseModel.from_ends([], [1.0], 0.0, shift_error=0.0, spike_fraction=0.03)
