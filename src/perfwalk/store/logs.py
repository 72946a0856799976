"""Captured output in the ``log`` table: zlib-compressed, with its size and truncation."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

from perfwalk.errors import StoreError
from perfwalk.model import Log
from perfwalk.secret_text import FREE_TEXT_MIN, MASK

COMPRESSION = "zlib"
_LEVEL = 6


def pack(log: Log, secrets: Sequence[bytes] = ()) -> dict[str, Any]:
    """The ``log`` row for ``log``, each of ``secrets`` in it replaced by ``***`` (a test
    or a build step that prints a secret of the configuration does not store it)."""
    data = mask_bytes(log.data, secrets)
    return {
        "compression": COMPRESSION,
        "data": zlib.compress(data, _LEVEL),
        "size": len(data),
        "total": log.total,
        "truncated": log.truncated,
    }


def mask_bytes(data: bytes, secrets: Sequence[bytes]) -> bytes:
    """``data`` with each secret long enough to search for masked, the longest first."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if len(secret) >= FREE_TEXT_MIN:
            data = data.replace(secret, MASK.encode())
    return data


def unpack(
    log_id: int, *, compression: str, data: bytes, size: int, total: int, truncated: bool
) -> Log:
    """The :class:`Log` of a ``log`` row; a damaged or unknown encoding is a StoreError."""
    if compression != COMPRESSION:
        raise StoreError(
            f"log {log_id} is stored with compression {compression!r}, unknown to this perfwalk",
            hint="upgrade perfwalk to read it",
        )
    try:
        raw = zlib.decompress(bytes(data))
    except zlib.error as err:
        raise StoreError(
            f"log {log_id} is damaged: {err}", hint="the store file may be corrupt"
        ) from err
    if len(raw) != size:
        raise StoreError(
            f"log {log_id} is damaged: {len(raw)} bytes instead of {size}",
            hint="the store file may be corrupt",
        )
    return Log(data=raw, total=int(total), truncated=bool(truncated))


def unpack_row(row: Any) -> Log:
    """The :class:`Log` of a ``log`` row (:func:`unpack`)."""
    return unpack(
        row.id,
        compression=row.compression,
        data=row.data,
        size=row.size,
        total=row.total,
        truncated=row.truncated,
    )
