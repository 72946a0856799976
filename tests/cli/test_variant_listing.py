"""``perfwalk list`` and ``status`` mark a walk's variants: kind ``variant NAME``, its
walk as parent, listed right after it; a name with control characters stays text."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.store import Store
from tests.services.test_analyse import CONFIG, TIME, add_series, step
from tests.store.factories import new_series


def _listed(capsys: pytest.CaptureFixture[str], path: Path) -> list[list[str]]:
    assert main(["list", "-c", str(path)]) == 0
    return [line.split() for line in capsys.readouterr().out.splitlines()]


def test_list_and_status_mark_a_walks_variants(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "perfwalk.toml"
    path.write_text(CONFIG, encoding="utf-8")
    with Store.open(load_config(path).store.url) as store:
        walk = add_series(store, {TIME: step(10, 10, 4, count=4)})
        fast = add_series(store, {TIME: step(9, 9, 4, count=4)}, seed="f", variant_of=walk)
        drill = store.create_series(new_series(kind="drill", parent_id=walk, step="drill"))
        other = add_series(store, {TIME: step(10, 10, 4, count=4)}, seed="other")
        odd = store.create_series(
            new_series(kind="variant", parent_id=other, variant="x\x1b[31mred")
        )
    head, *rows = _listed(capsys, path)
    assert head[:3] == ["id", "kind", "name"]
    ids = [int(row[0]) for row in rows]
    # newest first, each walk's variants right after it (the drill is newer than both)
    assert ids == [other, odd, drill, walk, fast]
    by_id = {int(row[0]): row for row in rows}
    assert by_id[fast][1:3] == ["variant", "fast"]
    assert by_id[walk][1] == "walk"
    assert by_id[drill][1] == "drill"
    assert by_id[odd][1:3] == ["variant", "x\\x1b[31mred"]  # shown, never sent
    assert head[-2:] == ["parent", "started"]
    assert by_id[fast][-3] == str(walk)  # then the start: a date and a time
    assert by_id[walk][-3] == "-"
    assert main(["status", "-c", str(path), str(fast)]) == 0
    out = capsys.readouterr().out
    assert f"  variant fast of walk series {walk}, measured beside it" in out
    assert main(["status", "-c", str(path), str(odd)]) == 0
    assert "variant x\\x1b[31mred of walk series" in capsys.readouterr().out
    assert main(["status", "-c", str(path)]) == 0  # the newest walk, not a variant
    assert capsys.readouterr().out.startswith(f"series {other} ")
