"""Secrets masked as ``***`` wherever perfwalk writes text: passwords in URLs, and the
values of environment variables that are secret (by their name or by the
configuration's word, see :mod:`perfwalk.config.env`).

A name looks secret when, ignoring case, it contains PASSWORD, PASSWD, PASSPHRASE,
SECRET, TOKEN, CREDENTIAL, PRIVATE or COOKIE, or one of its ``_``-separated words
is PASS, PWD or AUTH or ends with KEY (``API_KEY``, ``SSHKEY``, ``PGPASSWORD``,
``GITHUB_TOKEN``, ``BASIC_AUTH``). Masking too much costs a ``***`` on a page;
masking too little publishes a password.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote

#: What a secret becomes.
MASK = "***"

#: A secret shorter than this is masked where it is known to be (its own setting),
#: not searched for in free text, where it would mask every ``ab`` of the page.
FREE_TEXT_MIN = 4

_SECRET_PARTS = (
    *("PASSWORD", "PASSWD", "PASSPHRASE", "SECRET"),
    *("TOKEN", "CREDENTIAL", "PRIVATE", "COOKIE"),
)
_SECRET_WORDS = ("PASS", "PWD", "AUTH")

# scheme://user:password@…, as SQLAlchemy reads it: the user has no ':' or '/', the
# password runs to the first '@'
_USERINFO = re.compile(r"(?P<head>[\w+.-]+://[^:/@]*:)(?P<password>[^@]*)(?=@)")
_QUERY_ITEM = re.compile(r"(?P<head>[?&](?P<key>[^=&#]*)=)(?P<value>[^&#]*)")


def looks_secret(name: str) -> bool:
    """Whether an environment variable (or URL parameter) called ``name`` holds a secret."""
    upper = name.upper()
    if any(part in upper for part in _SECRET_PARTS):
        return True
    words = [word for word in re.split(r"[^A-Z0-9]+", upper) if word]
    return any(word in _SECRET_WORDS or word.endswith("KEY") for word in words)


def url_secrets(url: str) -> list[str]:
    """The secrets of ``url``: its password and the values of query parameters whose
    names look secret (``?password=…``), each as written and percent-decoded."""
    found: list[str] = []
    userinfo = _USERINFO.match(url)
    if userinfo and userinfo.group("password"):
        found.append(userinfo.group("password"))
    _base, mark, query = url.partition("?")
    found += [
        item.group("value")
        for item in _QUERY_ITEM.finditer(mark + query)
        if item.group("value") and looks_secret(unquote(item.group("key")))
    ]
    return sorted({*found, *(unquote(secret) for secret in found)} - {""})


def hide_password(url: str) -> str:
    """``url`` with its password (``scheme://user:password@host``) and the values of
    query parameters whose names look secret replaced by ``***``."""
    shown = _USERINFO.sub(
        lambda m: m.group("head") + (MASK if m.group("password") else ""), url, count=1
    )
    base, mark, query = shown.partition("?")
    if not mark:
        return shown

    def item(m: re.Match[str]) -> str:
        secret = m.group("value") and looks_secret(unquote(m.group("key")))
        return m.group("head") + (MASK if secret else m.group("value"))

    return base + _QUERY_ITEM.sub(item, mark + query)


def mask_text(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each secret of at least :data:`FREE_TEXT_MIN` characters replaced
    by ``***`` (the longest first, so that one inside another goes too)."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if len(secret) >= FREE_TEXT_MIN:
            text = text.replace(secret, MASK)
    return text
