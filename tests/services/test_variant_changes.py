"""The changes of a walk's variants (series of kind ``variant``, measured beside the
walk at the same commits): each is analysed like a walk and names its variant; a
drill of one is refused (a drill measures the plain checkout), and no drill of the
walk answers it; the watch tells them; ``compare :N`` takes the walk's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.composites.watch import seen_now
from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.errors import UsageError
from perfwalk.orchestrate.findings.changes import find_all, find_changes
from perfwalk.orchestrate.findings.listed_changes import listed_findings
from perfwalk.services.compare import store_sample
from perfwalk.services.drill import change_targets
from perfwalk.store import Store
from tests.services.test_analyse import CONFIG, TIME, add_series, commit, step
from tests.store.factories import new_series

WALKED = CONFIG + '\n[[walk]]\nname = "nightly"\nfrom = "2024-01-01"\nstep = "1day"\n'


@dataclass(frozen=True)
class Walked:
    path: Path
    config: Config
    walk: int  # 10 → 13 ms at checkout 8
    fast: int  # its variant: 8 → 10.4 ms at checkout 8, and 8 → 6 at checkout 16


@pytest.fixture
def walked(tmp_path: Path) -> Walked:
    path = tmp_path / "perfwalk.toml"
    path.write_text(WALKED, encoding="utf-8")
    config = load_config(path)
    named = {"project": config.project.name, "walk": "nightly"}
    with Store.open(config.store.url) as store:
        walk = add_series(store, {TIME: step(10, 13, 8, count=24)}, **named)
        levels: list[float | None] = [8.0] * 8 + [10.4] * 8 + [6.0] * 8
        fast = add_series(store, {TIME: levels}, seed="fast", variant_of=walk, **named)
    return Walked(path, config, walk, fast)


@pytest.fixture
def store(walked: Walked) -> Iterator[Store]:
    with Store.open(walked.config.store.url) as opened:
        yield opened


def test_each_variant_is_analysed_as_a_walk_and_names_its_variant(
    walked: Walked, store: Store
) -> None:
    events = find_changes(store, walked.config)
    walk = [e for e in events if e.series_id == walked.walk]
    fast = [e for e in events if e.series_id == walked.fast]
    assert [(e.after_idx, e.kind, e.variant, e.variant_of) for e in walk] == [
        (8, "regression", None, None)
    ]
    assert [(e.after_idx, e.kind, e.variant, e.variant_of) for e in fast] == [
        (8, "regression", "fast", walked.walk),
        (16, "improvement", "fast", walked.walk),
    ]
    listed, _episodes = listed_findings(store, find_all(store, walked.config))
    labels = {(c.series_id, c.after_idx): c.series_label for c in listed}
    assert labels[(walked.walk, 8)] == "netstack weekly"
    assert labels[(walked.fast, 8)] == "netstack weekly · variant fast"


def test_changes_names_the_variant_in_text_and_json(
    walked: Walked, capsys: pytest.CaptureFixture[str]
) -> None:
    series = ["--series", str(walked.fast)]
    code = main(["changes", "-c", str(walked.path), *series])
    out = capsys.readouterr().out
    assert code == 1  # the variant's regression fails a check as the walk's would
    assert out.startswith(
        f"REGRESSION {walked.fast}:8 (confirmed) in series {walked.fast} 'netstack weekly' "
        f"(variant fast of series {walked.walk}): between checkout 7"
    )
    assert main(["changes", "-c", str(walked.path), "--format", "json"]) == 1
    changes = json.loads(capsys.readouterr().out)["changes"]
    told = {(c["series"], c["after"]["idx"]): (c["variant"], c["variant_of"]) for c in changes}
    assert told == {
        (walked.walk, 8): ("base", None),
        (walked.fast, 8): ("fast", walked.walk),
        (walked.fast, 16): ("fast", walked.walk),
    }
    assert main(["changes", "-c", str(walked.path), "--format", "markdown"]) == 1
    markdown = capsys.readouterr().out
    assert f"| {walked.fast}: netstack weekly · variant fast |" in markdown


def test_a_drill_of_the_walk_does_not_answer_its_variants_change(
    walked: Walked, store: Store
) -> None:
    """The drill measured the plain checkout across the same commits: its culprit is
    the walk's, not the variant's."""
    drill = store.create_series(new_series(kind="drill", parent_id=walked.walk, step="drill"))
    ends = {"before_sha": commit(7, 1).id, "after_sha": commit(8, 1).id}
    store.drills.start(drill, "bench", "time", {"id": f"{walked.walk}:8", **ends})
    culprit = commit(8, 0).id
    answer = {"verdict": "culprit", "reason": "a step", "culprit": culprit}
    store.drills.finish(drill, "culprit", {**answer, "lo": ends["before_sha"], "hi": culprit})
    listed, _episodes = listed_findings(store, find_all(store, walked.config))
    at = {(c.series_id, c.after_idx): c for c in listed}
    walk, fast = at[(walked.walk, 8)], at[(walked.fast, 8)]
    assert walk.culprit is not None
    assert walk.culprit.sha == culprit
    assert (fast.culprit, fast.drill) == (None, None)


def test_a_drill_of_a_variants_change_is_refused_saying_what_to_do(
    walked: Walked, store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    chosen = f"{walked.fast}:8"
    with pytest.raises(UsageError) as refused:
        change_targets(store, walked.config, chosen=chosen)
    error = refused.value
    assert f"change {chosen} is a change of the variant 'fast' (series {walked.fast}" in str(error)
    assert "a drill builds and measures the plain checkout" in str(error)
    assert error.hint is not None
    assert f"`perfwalk drill {walked.walk}:8`" in error.hint
    assert f"`perfwalk compare {walked.fast}:7 {chosen}`" in error.hint
    targets = change_targets(store, walked.config)  # every change: the walk's only
    assert [t.parent for t in targets] == [walked.walk]
    assert main(["drill", "-c", str(walked.path), chosen]) == 2
    err = capsys.readouterr().err
    assert "variant 'fast'" in err
    assert "Traceback" not in err


def test_the_watch_tells_a_variants_new_changes_as_its_walks(walked: Walked) -> None:
    assert seen_now(walked.config) == 3  # the walk's change and the variant's two
    assert seen_now(walked.config) == 0


def test_compare_takes_the_newest_walk_not_its_variant(walked: Walked, store: Store) -> None:
    newest = store_sample(store, ":3", "bench.time")  # the variant is the newer series
    walk = store_sample(store, f"{walked.walk}:3", "bench.time")
    assert newest.values == walk.values
    fast = store_sample(store, f"{walked.fast}:3", "bench.time")  # by its id
    assert max(fast.values) < min(walk.values)


def test_a_variants_change_is_triaged_under_its_own_series(
    walked: Walked, capsys: pytest.CaptureFixture[str]
) -> None:
    chosen = f"{walked.fast}:8"
    argv = ["triage", chosen, "-c", str(walked.path), "--state", "expected", "--reason", "r"]
    assert main(argv) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(
        f"change {chosen} (regression in series {walked.fast} 'netstack weekly' "
        f"(variant fast of series {walked.walk}), after "
    )
    assert main(["changes", "-c", str(walked.path), "--format", "json"]) == 1  # the walk's
    changes = json.loads(capsys.readouterr().out)["changes"]
    states = {c["id"]: (c["triage"] or {}).get("state") for c in changes}
    assert states == {f"{walked.walk}:8": None, chosen: "expected", f"{walked.fast}:16": None}
