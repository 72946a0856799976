"""No configured secret reaches the published site, an export or a message.

A real walk on both back-ends (the PostgreSQL one through a URL with a password)
with secret ``env`` values (by name and by ``secret = true``) that its commands
check they received and print into their logs; then every file of the published
site, every export and everything the commands printed is scanned for each secret,
as written and as the site encodes text (base64 of zlib streams for logs).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import zlib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.report import layout
from perfwalk.report.site import publish
from perfwalk.store import NewSeries, Store
from tests.fixtures.synthetic_repo import KnownHistory
from tests.store.conftest import pg_admin, store_url

__all__ = ["pg_admin", "store_url"]  # fixtures: store_url runs each test on both back-ends

STORE_PASSWORD = "Pg-St0re-Passw0rd"
BUILD_SECRET = "build-s3cret-value"  # by its name: PGPASSWORD
TEST_SECRET = "upload-t0ken-value"  # by secret = true, under a harmless name
REGRESS_SECRET = "regress-api-key-1"  # by its name: API_KEY

CONFIG = """\
# the store's password is {store_password}; the upload one {test_secret}
[project]
repo = "{repo}"
[store]
url = "{url}"
[build]
steps = ["{build_check} && echo \\"pg: $PGPASSWORD\\" && sh build.sh"]
env = {{ PGPASSWORD = "{build_secret}", CFLAGS = "-O2" }}
[run]
step = "commit/10"
repetitions = 2
[[test]]
name = "latency"
command = "{test_check} && echo \\"upload: $UPLOAD\\" >&2 && sh bench.sh"
parser = "value"
[test.env]
UPLOAD = {{ value = "{test_secret}", secret = true }}
KEYMAP = {{ value = "us", secret = false }}
[regress]
env = {{ API_KEY = '{regress_secret}' }}
"""


def _check(variable: str, secret: str) -> str:
    """A shell test that ``$variable`` holds ``secret``, without writing the secret."""
    digest = hashlib.sha256(secret.encode()).hexdigest()
    return f'[ $(printf %s \\"${variable}\\" | sha256sum | cut -c1-64) = {digest} ]'


def _url_with_password(url: str) -> str:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return url
    return parsed.set(password=STORE_PASSWORD).render_as_string(hide_password=False)


def _secrets(url: str) -> list[str]:
    found = [BUILD_SECRET, TEST_SECRET, REGRESS_SECRET]
    return found + ([STORE_PASSWORD] if STORE_PASSWORD in url else [])


_BASE64 = re.compile(rb"[A-Za-z0-9+/]{16,}={0,2}")


def _readings(data: bytes) -> Iterator[bytes]:
    """``data``, and every base64 run in it decoded, and every zlib stream in those."""
    yield data
    for run in _BASE64.findall(data):
        try:
            decoded = base64.b64decode(run + b"=" * (-len(run) % 4))
        except (binascii.Error, ValueError):
            continue
        yield decoded
        rest = decoded
        while rest:
            inflate = zlib.decompressobj()
            try:
                yield inflate.decompress(rest)
            except zlib.error:
                break
            rest = inflate.unused_data


def _leaks(texts: dict[str, bytes], secrets: list[str]) -> list[tuple[str, str]]:
    return [
        (where, secret)
        for where, data in texts.items()
        for reading in _readings(data)
        for secret in secrets
        if secret.encode() in reading
    ]


def test_no_configured_secret_reaches_the_site_an_export_or_a_message(
    tmp_path: Path,
    known_values_repo_copy: KnownHistory,
    store_url: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = _url_with_password(store_url)
    path = tmp_path / "perfwalk.toml"
    path.write_text(
        CONFIG.format(
            repo=known_values_repo_copy.path,
            url=url,
            store_password=STORE_PASSWORD,
            build_secret=BUILD_SECRET,
            test_secret=TEST_SECRET,
            regress_secret=REGRESS_SECRET,
            build_check=_check("PGPASSWORD", BUILD_SECRET),
            test_check=_check("UPLOAD", TEST_SECRET),
        ),
        encoding="utf-8",
    )
    secrets = _secrets(url)
    assert main(["run", "-c", str(path)]) == 0  # every build and test PASS: their checks held
    site = tmp_path / "site"
    assert main(["report", "-c", str(path), "--out", str(site)]) == 0
    texts: dict[str, bytes] = {}
    for fmt in ("json", "csv", "gnuplot"):
        out = tmp_path / f"export.{fmt}"
        assert main(["export", "-c", str(path), "--format", fmt, "-o", str(out)]) == 0
        texts[out.name] = out.read_bytes()
    for command in (["status"], ["list"], ["show"], ["changes"]):
        main([*command, "-c", str(path)])
    printed = capsys.readouterr()
    texts["stdout"], texts["stderr"] = printed.out.encode(), printed.err.encode()
    files = [p for p in site.rglob("*") if p.is_file()]
    texts.update({str(p.relative_to(site)): p.read_bytes() for p in files})

    # the commands got the secrets (their checks passed), and the site shows the walk
    with Store.open(url) as store:
        (series,) = store.list_series()
        passed = [r for r in store.results(series.id) if r.status.name == "PASS"]
        stored = series.config_text
    assert len(passed) >= 6
    setup = (site / layout.setup_page(series.id)).read_text(encoding="utf-8")
    assert "UPLOAD = { value = &quot;***&quot;, secret = true }" in setup
    assert "KEYMAP = { value = &quot;us&quot;" in setup
    if STORE_PASSWORD in url:
        assert ":***@" in setup
    assert len(files) > 15
    assert _leaks({"stored configuration": stored.encode()}, secrets) == []
    assert _leaks(texts, secrets) == []


def test_the_setup_page_masks_a_configuration_stored_unmasked(tmp_path: Path) -> None:
    """A series stored before its configuration text was kept masked."""
    path = tmp_path / "perfwalk.toml"
    raw = (
        f'[project]\nrepo = "{tmp_path}"\n[store]\n'
        f'url = "postgresql+psycopg://walker:{STORE_PASSWORD}@db.example.org/perf"\n'
        f'[[test]]\nname = "t"\ncommand = "true"\nparser = "value"\n'
        f'env.DEPLOY_TOKEN = """{TEST_SECRET}"""\n'
    )
    path.write_text(raw, encoding="utf-8")
    config = load_config(path)
    site = tmp_path / "site"
    with Store.open(f"sqlite:///{tmp_path}/store.db") as store:
        series_id = store.create_series(
            NewSeries(
                name="old",
                project="demo",
                repo=str(tmp_path),
                from_spec="",
                to_spec="HEAD",
                step="1day",
                repetitions=1,
                between="keep",
                host="local",
                config_hash=config.hash,
                config_text=raw,
                commands={},
                fingerprint={},
                started_at=datetime(2024, 1, 1, tzinfo=UTC),
            )
        )
        publish(store, config, site)
    page = (site / layout.setup_page(series_id)).read_bytes()
    assert _leaks({"setup": page}, [STORE_PASSWORD, TEST_SECRET]) == []
    assert b"walker:***@db.example.org" in page
    assert b"DEPLOY_TOKEN = &quot;***&quot;" in page
