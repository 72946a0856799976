"""The fixed store and its published site, shared by the report tests."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from perfwalk.config.model import Config
from perfwalk.orchestrate.findings.changes import find_all
from perfwalk.report.site import PublishOptions, PublishReport, publish
from perfwalk.store import Store
from tests.report.history import PUBLISHED_AT, FixedStore, config_for, make_fixed_store


@dataclass(frozen=True)
class Published:
    fixed: FixedStore
    config: Config
    site: Path
    report: PublishReport


def publish_fixed(folder: Path, *, file_url: str = "", **options: object) -> Published:
    """The fixed store published into ``folder``/site (``file_url``: ``[project]
    file_url``), with ``options`` for :class:`PublishOptions`."""
    fixed = make_fixed_store(folder / "store.db")
    config = config_for(fixed.url, folder)
    if file_url:
        config = replace(config, project=replace(config.project, file_url=file_url))
    site = folder / "site"
    options.setdefault("now", PUBLISHED_AT)
    with Store.open(fixed.url) as store:
        points = find_all(store, config).points  # the summaries, as a publish reads them
        report = publish(
            store,
            config,
            site,
            PublishOptions(
                changes=fixed.changes,
                episodes=fixed.episodes,
                points=points,
                **options,  # type: ignore[arg-type]
            ),
        )
    return Published(fixed, config, site, report)


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Published:
    """The fixed store published once for a module (read-only)."""
    return publish_fixed(tmp_path_factory.mktemp("published"))
