"""The receivers of ``[notify] urls``: Apprise URLs (``mailto://``, ``slack://``,
``matrix://``, ``json://``…), which may hold a password or a token.

A receiver is never stored or shown as written: the store keeps :func:`receiver_id`
(a hash of the URL) and :func:`redacted` (the URL as Apprise shows it with privacy
on: passwords and tokens as ``****``, and the path of a generic webhook, where its
token often is, as ``***``); errors name a receiver by its index and scheme, and
every text Apprise gives back about a receiver is masked with
:func:`receiver_secrets` before it is kept or printed.

A receiver's redirects are never followed (:func:`new_plugin`): a ``307`` would post
the message again to wherever it points, a ``302`` to another site.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import re
import warnings
from collections.abc import Iterator
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, cast
from urllib.parse import unquote

from perfwalk.secret_text import FREE_TEXT_MIN, MASK, hide_password, mask_text, url_secrets

if TYPE_CHECKING:
    from apprise import NotifyBase

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")
_PIECES = re.compile(r"[/?&=@:#,]+")

#: Apprise's services whose chat renders Markdown, links and mentions even in what
#: Apprise sends them as plain text (its default for them): Mattermost, Discord and
#: the chats that take Discord's webhooks (Guilded, Fluxer), Revolt, Zulip, Ryver and
#: Nextcloud Talk. They get the Markdown message, escaped (:func:`takes_markdown`).
RENDERS_MARKDOWN = frozenset(
    {"mmost", "mmosts", "discord", "guilded", "fluxer", "fluxers"}
    | {"revolt", "zulip", "ryver", "nctalk", "nctalks"}
)
#: Apprise's generic webhooks: the path of their URL is the receiver's own, and often
#: holds its token (``jsons://hooks.example.org/T0123/8f3e…``)
_WEBHOOKS = frozenset({"json", "jsons", "xml", "xmls", "form", "forms"})


def scheme(url: str) -> str:
    """``mailto``, ``json``…; "" when ``url`` has none."""
    found = _SCHEME.match(url)
    return found.group(1).lower() if found else ""


def receiver_id(url: str) -> str:
    """A stable name of the receiver ``url`` that does not show it: the first 16 hex
    digits of its sha256."""
    return hashlib.sha256(url.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@cache
def load_apprise() -> ModuleType:
    """The ``apprise`` module with its services loaded, once: one of them imports
    ``imghdr``, whose deprecation warning is Apprise's to fix, not ours to show."""
    import apprise
    from apprise.plugins import N_MGR

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "'imghdr' is deprecated", DeprecationWarning)
        N_MGR.load_modules()  # type: ignore[no-untyped-call]
    return apprise


def new_plugin(url: str) -> NotifyBase | None:
    """A new Apprise notification service for ``url`` that follows no redirect (not even
    with ``redirect=yes`` in the URL); None when Apprise cannot use it (it says why in
    its log, with the URL: not shown)."""
    apprise = load_apprise()
    asset = apprise.AppriseAsset(async_mode=False, http_redirects=False)
    with quiet_apprise():
        found = apprise.Apprise.instantiate(url, asset=asset)
    if not isinstance(found, apprise.NotifyBase):
        return None
    found.redirects = False  # each service passes it to requests as allow_redirects
    return cast("NotifyBase", found)


def takes_markdown(url: str, service: NotifyBase) -> bool:
    """Whether the receiver ``url`` (its Apprise ``service``) renders Markdown: one of
    :data:`RENDERS_MARKDOWN`, a service whose default format is Markdown (Slack,
    Rocket.Chat, Google Chat…), or one given ``?format=markdown``."""
    markdown = load_apprise().NotifyFormat.MARKDOWN
    return scheme(url) in RENDERS_MARKDOWN or service.resolve_format(None) == markdown


@cache
def plugin(url: str) -> NotifyBase | None:
    """:func:`new_plugin`, once per URL (to check and show it, not to send)."""
    return new_plugin(url)


@contextlib.contextmanager
def quiet_apprise() -> Iterator[None]:
    """Apprise's log kept from the program's handlers: it may name a URL it refuses."""
    logger = logging.getLogger("apprise")
    before = logger.propagate
    silent = logging.NullHandler()  # else Python's last resort prints the warnings
    logger.addHandler(silent)
    logger.propagate = False
    try:
        yield
    finally:
        logger.propagate = before
        logger.removeHandler(silent)


def private_url(service: NotifyBase) -> str:
    """The URL of ``service`` as Apprise shows it with privacy on."""
    return str(service.url(privacy=True))  # type: ignore[no-untyped-call]


def receiver_problem(url: str) -> str | None:
    """What is wrong with ``url`` as a receiver (the URL itself not repeated: it may
    hold a token), or None."""
    if not _SCHEME.match(url):
        return "expected an Apprise URL (scheme://…), got text without a scheme"
    if plugin(url) is None:
        return (
            f"Apprise cannot use this {scheme(url)}:// URL (an unknown scheme, or a token, "
            "address or option it refuses)"
        )
    return None


def redacted(url: str) -> str:
    """``url`` with its passwords and tokens masked, as Apprise shows it with privacy
    on, without its options (``json://user:***@host/path``); ``scheme://***`` when
    Apprise cannot read it."""
    found = plugin(url)
    if found is None:
        return f"{scheme(url) or '?'}://***"
    shown = private_url(found)
    shown = mask_text(hide_password(shown), receiver_secrets(url, shown)).partition("?")[0]
    if scheme(url) not in _WEBHOOKS:
        return shown
    where, _slash, path = shown.partition("://")[2].partition("/")
    return f"{scheme(shown)}://{where}/{MASK}" if path.strip("/") else shown


def receiver_secrets(url: str, shown: str | None = None) -> list[str]:
    """What of ``url`` must not be shown: its password, secret query values, and every
    piece of it that Apprise hides with privacy on (a Slack or Matrix token), but the
    names of its options (``redirect`` of ``?redirect=yes``: Apprise leaves out an
    option at its default)."""
    found = url_secrets(url)
    if shown is None:
        service = plugin(url)
        shown = "" if service is None else private_url(service)
    if shown:
        visible = set(_PIECES.split(unquote(shown)))
        base, _mark, query = url.partition("://")[2].partition("?")
        values = [item.partition("=")[2] for item in query.split("&")]
        pieces = _PIECES.split(unquote(base)) + [
            p for v in values for p in _PIECES.split(unquote(v))
        ]
        found += [p for p in pieces if len(p) >= FREE_TEXT_MIN and p not in visible]
    elif url:
        found.append(url.partition("://")[2])  # unreadable: all of it
    return sorted(set(found) - {""}, key=len, reverse=True)


def masked(text: str, url: str) -> str:
    """``text`` (something Apprise said about ``url``) without the secrets of ``url``,
    nor the path of a generic webhook (a request's error names it)."""
    return mask_text(hide_password(text), [*receiver_secrets(url), *_webhook_path(url), url])


def _webhook_path(url: str) -> list[str]:
    """The path of a generic webhook's ``url`` (as written and decoded); [] for others."""
    if scheme(url) not in _WEBHOOKS:
        return []
    path = "/" + url.partition("://")[2].partition("/")[2].partition("?")[0]
    return [path, unquote(path)] if path.strip("/") else []
