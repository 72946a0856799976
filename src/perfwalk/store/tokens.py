"""The tokens of the HTTP API, kept as their sha256 only.

A token is 32 random bytes (made by :func:`new_token`, shown once, never stored): the
store keeps its name, the sha256 of the token, the scopes it grants (``push``,
``triage``, ``submit``: :data:`SCOPES`), when and by whom it was made. A request's
token is found by its digest (a unique column), then the digests are compared in
constant time. Revoking a token deletes its row: its name may be given again.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, select

from perfwalk.errors import StoreError
from perfwalk.store import schema
from perfwalk.store.connect import StorePart

_t = schema.api_token

#: What a token may be allowed to do; reading needs no token.
SCOPES: tuple[str, ...] = ("push", "triage", "submit")
#: The prefix of every token: it tells a perfwalk token in a secret scanner's finds.
TOKEN_PREFIX = "pwk_"


@dataclass(frozen=True, kw_only=True)
class TokenRow:
    """A stored token: its name and scopes, never the token itself."""

    id: int
    name: str
    scopes: tuple[str, ...]
    created_at: datetime
    who: str


def new_token() -> str:
    """A new token: the prefix and 32 random bytes, URL-safe base64 (43 characters)."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def digest_of(token: str) -> str:
    """The sha256 of ``token`` (hex): what the store keeps."""
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


class TokenRecords(StorePart):
    """The API's tokens; get it from :attr:`perfwalk.store.Store.tokens`."""

    def add(
        self, name: str, scopes: Sequence[str], token: str, *, who: str, at: datetime
    ) -> TokenRow:
        """Keep the digest of ``token`` under ``name`` with ``scopes``; a name already
        taken is a StoreError that says to revoke it first."""
        unknown = [scope for scope in scopes if scope not in SCOPES]
        if unknown or not scopes:
            raise ValueError(f"token scopes must be some of {SCOPES}, not {list(scopes)}")
        ordered = [scope for scope in SCOPES if scope in scopes]
        with self._write(f"store the API token {name!r}") as conn:
            taken = conn.scalar(select(_t.c.id).where(_t.c.name == name))
            if taken is not None:
                raise StoreError(
                    f"result store {self._db.shown}: an API token is already called {name!r}",
                    hint=f"give another name, or `perfwalk tokens revoke {name}` first",
                )
            values = {
                "name": name,
                "digest": digest_of(token),
                "scopes": ordered,
                "created_at": at,
                "who": who,
            }
            new_id = int(conn.execute(_t.insert().values(values).returning(_t.c.id)).scalar_one())
            row = conn.execute(select(_t).where(_t.c.id == new_id)).one()
        return _row(row)

    def list(self) -> list[TokenRow]:
        """Every token, by name."""
        with self._read("list the API tokens") as conn:
            return [_row(row) for row in conn.execute(select(_t).order_by(_t.c.name))]

    def revoke(self, name: str) -> bool:
        """Forget the token ``name``; False when there is none of that name."""
        with self._write(f"revoke the API token {name!r}") as conn:
            return bool(conn.execute(_t.delete().where(_t.c.name == name)).rowcount)

    def find(self, token: str) -> TokenRow | None:
        """The token whose digest is ``token``'s, or None."""
        digest = digest_of(token)
        with self._read("check an API token") as conn:
            row = conn.execute(select(_t).where(_t.c.digest == digest)).first()
        if row is None or not hmac.compare_digest(str(row.digest), digest):
            return None
        return _row(row)


def _row(row: Row[Any]) -> TokenRow:
    return TokenRow(
        id=int(row.id),
        name=row.name,
        scopes=tuple(str(scope) for scope in row.scopes),
        created_at=row.created_at,
        who=row.who,
    )
