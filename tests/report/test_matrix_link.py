"""The index links the functional-regression matrix once there are regress runs."""

from __future__ import annotations

from pathlib import Path

from perfwalk.config import load_config
from perfwalk.services.publish import publish_site
from perfwalk.services.regress import ImportOptions, import_results
from tests.fixtures.synthetic_repo import KnownHistory

JUNIT = Path(__file__).resolve().parents[1] / "golden" / "regress" / "junit" / "pytest.xml"


def test_index_links_the_matrix_when_there_are_runs(
    tmp_path: Path, known_values_repo: KnownHistory
) -> None:
    path = tmp_path / "perfwalk.toml"
    path.write_text(
        f'[project]\nrepo = "{known_values_repo.path}"\n'
        '[[test]]\nname = "t"\ncommand = "true"\nparser = "value"\n'
    )
    config = load_config(path)
    site = tmp_path / "site"
    publish_site(config, site)
    assert "regress/index.html" not in (site / "index.html").read_text()
    import_results(config, JUNIT, ImportOptions(host="ot1"))
    publish_site(config, site)
    index = (site / "index.html").read_text()
    assert 'href="regress/index.html"' in index
    assert (site / "regress" / "index.html").exists()
