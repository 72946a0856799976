"""The client side of ``POST /api/v1/push`` (``perfwalk push``): httpx, the token in
the ``Authorization`` header, every failure a :class:`UsageError` that says what the
server answered (never the token, nor the password of the API's address: a CI log
keeps what is said)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from perfwalk.errors import UsageError
from perfwalk.secret_text import hide_password, mask_text, url_secrets

#: The environment variable ``perfwalk push`` reads its token from.
TOKEN_ENV = "PERFWALK_TOKEN"


def push_body(
    *,
    format: str,
    text: str,
    commit: str,
    branch: str,
    host: str,
    date: datetime | None = None,
    project: str | None = None,
    test: str | None = None,
    subject: str | None = None,
    author: str | None = None,
) -> dict[str, Any]:
    """The JSON body of a push."""
    body: dict[str, Any] = {
        "format": format,
        "text": text,
        "commit": commit,
        "branch": branch,
        "host": host,
    }
    optional = {
        "date": None if date is None else date.isoformat(),
        "project": project,
        "test": test,
        "subject": subject,
        "author": author,
    }
    body.update({key: value for key, value in optional.items() if value is not None})
    return body


def post_push(api: str, token: str, body: dict[str, Any], *, timeout: float = 60) -> dict[str, Any]:
    """POST ``body`` to ``api``'s push endpoint; the stored place, or a UsageError."""
    import httpx

    url = api.rstrip("/") + "/api/v1/push"
    shown = hide_password(url)
    try:
        answer = httpx.post(
            url, json=body, headers={"Authorization": f"Bearer {token}"}, timeout=timeout
        )
    except httpx.HTTPError as err:
        raise UsageError(
            mask_text(
                f"cannot reach the perfwalk API at {shown}: {type(err).__name__}: {err}",
                url_secrets(url),
            ),
            hint="check --api (the address `perfwalk api` listens on) and that it runs",
        ) from None
    try:
        found = answer.json()
    except ValueError:
        found = None
    if answer.status_code != 201 or not isinstance(found, dict):
        error = found.get("error") if isinstance(found, dict) else None
        if isinstance(error, dict):
            field = f" (field {error.get('field')})" if error.get("field") else ""
            said = f"{error.get('message', '')}{field}"
        else:
            said = answer.text[:300]
        hints = {
            401: f"set {TOKEN_ENV} to a token of scope push (`perfwalk tokens add`)",
            403: f"{TOKEN_ENV} holds a token without scope push",
            413: "the file is over the API's [api] max_body",
        }
        raise UsageError(
            mask_text(
                f"the perfwalk API at {shown} refused the push: {answer.status_code}: {said}",
                url_secrets(url),
            ),
            hint=hints.get(answer.status_code, "fix what the answer names and push again"),
        )
    return found


def guess_format(text: str, where: str) -> str:
    """The push format of a JSON file, told by its keys: ``results`` (hyperfine),
    ``benchmarks`` with ``machine_info`` (pytest-benchmark) or ``context``
    (Google Benchmark)."""
    import json

    try:
        doc = json.loads(text)
    except ValueError as err:
        raise UsageError(
            f"{where}: not JSON ({err})", hint="push the JSON file the tool exported"
        ) from None
    if isinstance(doc, dict):
        if "results" in doc:
            return "hyperfine"
        if "benchmarks" in doc and "machine_info" in doc:
            return "pytest-benchmark"
        if "benchmarks" in doc and "context" in doc:
            return "gbench"
    raise UsageError(
        f"{where}: not a hyperfine, pytest-benchmark or Google Benchmark JSON file",
        hint="give --format hyperfine, pytest-benchmark or gbench",
    )
