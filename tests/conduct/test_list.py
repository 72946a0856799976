"""``perfwalk conduct --list``: the conductor runs of a store, newest first, as a table
or as JSON; an empty store says so, a store that cannot be opened is a user error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfwalk.cli.main import main

from .runs import HOSTILE_NAME, play_local


def test_list_shows_the_runs_played_newest_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = play_local(tmp_path, trials=2, parser="value")
    second = play_local(tmp_path, trials=1)
    master = str(tmp_path / "master.cfg")
    assert main(["conduct", "--list", master]) == 0
    header, newer, older = capsys.readouterr().out.splitlines()
    assert header.split() == [
        "id",
        "name",
        "master",
        "started",
        "finished",
        "state",
        "trials",
        "players",
        "worst",
        "values",
    ]
    assert newer.split()[:2] == [str(second.conduct_id), "master.cfg"]
    assert older.split()[:2] == [str(first.conduct_id), "master.cfg"]
    # started and finished: a date and a time each; the worst status: step2 exits 3
    assert newer.split()[7:] == ["finished", "1/1", "source=local", "NOEXIT", "no"]
    assert older.split()[7:11] == ["finished", "2/2", "source=local", "NOEXIT"]
    assert older.endswith("  4 by value")  # two values in each of two trials


def test_list_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    played = play_local(tmp_path, trials=2, parser="value")
    url = played.store
    assert main(["conduct", "--list", "--format", "json", "--store", url]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["store"] == url
    (run,) = document["runs"]
    assert run["id"] == played.conduct_id
    assert run["master"] == str((tmp_path / "master.cfg").resolve())
    assert (run["state"], run["trials"], run["trials_done"]) == ("finished", 2, 2)
    assert run["players"] == {
        "source": {
            "address": "127.0.0.1",
            "target": "local",
            "file": str((tmp_path / "source.cfg").resolve()),
        }
    }
    assert (run["worst"], run["values"], run["parser"]) == ("NOEXIT", 4, "value")
    assert run["steps"] == 2 * 5  # startup, two run steps, collect, reset
    assert run["started_at"] <= run["finished_at"]


def test_a_hostile_master_name_stays_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The names a run stores are shown with their control characters escaped (the
    table's cell cut in its middle, the JSON whole)."""
    played = play_local(tmp_path / f"a\x1b[31m{HOSTILE_NAME}", trials=1)
    assert main(["conduct", "--list", "--store", played.store]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "/master.cfg  " in out
    assert main(["conduct", "--list", "--store", played.store, "--format", "json"]) == 0
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    assert run["master"].endswith(f"a\x1b[31m{HOSTILE_NAME}/master.cfg")


def test_list_of_an_empty_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'perfwalk.db'}"
    assert main(["conduct", "--list", "--store", url]) == 0
    assert capsys.readouterr().out == (
        f"no conductor runs in {url} yet; play one with `perfwalk conduct MASTER.cfg`\n"
    )
    assert main(["conduct", "--list", "--store", url, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"store": url, "runs": []}


@pytest.mark.parametrize(
    ("store", "told"),
    [
        ("nosuch://host/db", "unsupported database 'nosuch' in nosuch://host/db"),
        ("sqlite:///{tmp}/missing/perfwalk.db", "no store at {tmp}/missing/perfwalk.db"),
        ("results.db", "not a store URL: 'results.db'"),
    ],
)
def test_list_of_a_store_that_cannot_be_opened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], store: str, told: str
) -> None:
    assert main(["conduct", "--list", "--store", store.format(tmp=tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("perfwalk: error: ")
    assert told.format(tmp=tmp_path) in err.splitlines()[0]
    assert "\nhint: " in err
    assert "Traceback" not in err
    assert not (tmp_path / "missing").exists()  # nothing made


@pytest.mark.parametrize(
    ("argv", "told"),
    [
        (["--list"], "--list: which store?"),
        (["--format", "json", "--store", "sqlite:///x.db"], "--format is for --list"),
        (["--list", "--parse", "1", "--store", "sqlite:///x.db"], "--list and --parse"),
        (["--list", "--check", "m.cfg"], "--list and --check"),
    ],
)
def test_list_mistakes(argv: list[str], told: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conduct", *argv]) == 2
    assert told in capsys.readouterr().err
