"""The secrets of a configuration file, and its text with them masked.

The secrets are the password (and secret query parameters) of ``[store] url``, the
secret values of the environment tables (:mod:`perfwalk.config.env`) and each URL of
``[notify] urls``, whole (an Apprise URL may hold a token anywhere in it). The text
of the file is kept with each series and shown on its setup page, so it is kept
masked: every string of the file that is a secret becomes ``"***"``, whatever
quotes or escapes it was written with; a secret of at least
:data:`~perfwalk.secret_text.FREE_TEXT_MIN` characters is masked anywhere else too
(a comment, a command); so is the password of any ``scheme://user:password@`` URL.
The masked text is read back to check that no secret is left; should one be left
(a file written in a way the masking does not know), the text is replaced by the
file's settings written out again, masked.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from perfwalk.config.env import entry as env_entry
from perfwalk.config.model import Config
from perfwalk.config.receivers import receiver_secrets
from perfwalk.config.settings import (
    ENV,
    RECEIVERS,
    SECTIONS,
    STORE_URL,
    Form,
    Section,
    Setting,
    toml_value,
)
from perfwalk.secret_text import FREE_TEXT_MIN, MASK, hide_password, mask_text, url_secrets

_URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][\w+.-]*://[^\s:/@'\"]*:)(?P<password>[^\s@'\"]+)@")

_UNREADABLE = "# the configuration text is not shown: it could not be read to mask its secrets\n"
_REWRITTEN = (
    "# the configuration's settings, with its secrets masked (the text as written could\n"
    "# not be masked in place)\n"
)


def config_secrets(config: Config) -> list[str]:
    """Every secret of a loaded configuration."""
    found = url_secrets(config.store.url)
    for url in config.notify.urls:
        found += [url, *receiver_secrets(url)]
    for env in (config.build.env, config.regress.env, *(t.env for t in config.tests)):
        found += env.secrets()
    return sorted(set(found))


def hide_url_passwords(text: str) -> str:
    """``text`` with the password of every ``scheme://user:password@`` in it masked."""
    return _URL_PASSWORD.sub(lambda m: f"{m.group('head')}{MASK}@", text)


def mask_config_text(text: str) -> str:
    """The text of a configuration file with its secrets masked (see the module)."""
    try:
        data = tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError:
        return _UNREADABLE
    secrets = _secrets(data)
    masked = _masked_text(text, secrets)
    if _clean(masked, secrets):
        return masked
    rewritten = _REWRITTEN + _dump(_masked_data(data, secrets))
    return rewritten if _clean(rewritten, secrets) else _UNREADABLE


# -- finding the secrets ----------------------------------------------------------------


def _tables(section: Section, raw: object) -> list[dict[str, Any]]:
    if section.form is Form.TABLE:
        found = [raw]
    elif section.form is Form.ARRAY:
        found = raw if isinstance(raw, list) else []
    else:
        found = list(raw.values()) if isinstance(raw, dict) else []
    return [table for table in found if isinstance(table, dict)]


def _holders(
    data: Mapping[str, Any], sections: tuple[Section, ...] = SECTIONS
) -> Iterator[tuple[Setting, dict[str, Any]]]:
    """Each setting that can hold a secret, with the table that holds it."""
    for section in sections:
        for table in _tables(section, data.get(section.key)):
            for setting in section.settings:
                if setting.key in table and _may_hold_secrets(setting):
                    yield setting, table
            yield from _holders(table, section.sections)


def _may_hold_secrets(setting: Setting) -> bool:
    return setting.kind is ENV or STORE_URL in setting.rules or RECEIVERS in setting.rules


def _env_secret(name: str, item: object) -> str | None:
    """The secret value of one environment entry, None when it is not secret; an entry
    the loader would refuse counts as secret when it has a string value."""
    found = env_entry(name, item)
    if found is not None:
        return found[0] if found[1] else None
    if isinstance(item, dict) and isinstance(item.get("value"), str):
        return str(item["value"])
    return None


def _secrets(data: Mapping[str, Any]) -> list[str]:
    found: list[str] = []
    for setting, table in _holders(data):
        value = table[setting.key]
        if setting.kind is ENV and isinstance(value, dict):
            found += [s for n, item in value.items() if (s := _env_secret(n, item)) is not None]
        elif RECEIVERS in setting.rules and isinstance(value, list):
            for url in (item for item in value if isinstance(item, str)):
                found += [url, *receiver_secrets(url)]
        elif isinstance(value, str):
            found += url_secrets(value)
    return sorted(set(found) - {MASK})


def _clean(text: str, secrets: list[str]) -> bool:
    """Whether ``text`` is readable and shows none of ``secrets``."""
    try:
        data = tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError:
        return False
    if _secrets(data):
        return False
    if any(len(secret) >= FREE_TEXT_MIN and secret in text for secret in secrets):
        return False
    return all(found.group("password") == MASK for found in _URL_PASSWORD.finditer(text))


# -- masking the text as written --------------------------------------------------------


def _masked_text(text: str, secrets: list[str]) -> str:
    exact = set(secrets)
    parts: list[str] = []
    done = 0
    for start, end in _string_tokens(text):
        token = text[start:end]
        try:
            value = tomllib.loads(f"v = {token}")["v"]
        except tomllib.TOMLDecodeError:
            continue
        shown = _masked_string(value, exact)
        if shown != value:
            parts += [text[done:start], toml_value(shown)]
            done = end
    parts.append(text[done:])
    return hide_url_passwords(mask_text("".join(parts), secrets))


def _masked_string(value: str, secrets: set[str]) -> str:
    if value in secrets:
        return MASK
    return hide_url_passwords(mask_text(hide_password(value), secrets))


def _string_tokens(text: str) -> Iterator[tuple[int, int]]:
    """Where the strings of a TOML text are (comments skipped)."""
    at, size = 0, len(text)
    while at < size:
        char = text[at]
        if char == "#":
            newline = text.find("\n", at)
            at = size if newline < 0 else newline
        elif char in "\"'":
            end = _string_end(text, at)
            if end is None:
                return
            yield at, end
            at = end
        else:
            at += 1


def _string_end(text: str, start: int) -> int | None:
    quote = text[start]
    delimiter = quote * 3 if text.startswith(quote * 3, start) else quote
    at = start + len(delimiter)
    while at < len(text):
        if quote == '"' and text[at] == "\\":
            at += 2
            continue
        if text.startswith(delimiter, at):
            end = at + len(delimiter)
            while len(delimiter) == 3 and end < len(text) and text[end] == quote and end - at < 5:
                end += 1  # a multi-line string may end with one or two quotes of its own
            return end
        if len(delimiter) == 1 and text[at] == "\n":
            return None
        at += 1
    return None


# -- the settings written out again -----------------------------------------------------


def _masked_data(data: dict[str, Any], secrets: list[str]) -> dict[str, Any]:
    """A copy of ``data`` with every secret masked."""
    exact = set(secrets)
    copy: dict[str, Any] = _each_string(data, lambda text: _masked_string(text, exact))
    for setting, table in _holders(copy):
        value = table[setting.key]
        if setting.kind is ENV and isinstance(value, dict):
            for name, item in value.items():
                if _env_secret(name, item) is not None:
                    value[name] = {**item, "value": MASK} if isinstance(item, dict) else MASK
    return copy


def _each_string(value: Any, change: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        return {change(key): _each_string(item, change) for key, item in value.items()}
    if isinstance(value, list):
        return [_each_string(item, change) for item in value]
    return value


def _dump(data: Mapping[str, Any]) -> str:
    """``data`` as TOML: scalars first, then a table per section."""
    lines = [f"{_key(k)} = {toml_value(v)}" for k, v in data.items() if not _is_table(v)]
    for key, value in data.items():
        if not _is_table(value):
            continue
        for item in value if isinstance(value, list) else [value]:
            header = f"[[{_key(key)}]]" if isinstance(value, list) else f"[{_key(key)}]"
            lines += ["", header]
            lines += [f"{_key(name)} = {toml_value(entry)}" for name, entry in item.items()]
    return "\n".join(lines) + "\n"


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else toml_value(key)


def _is_table(value: object) -> bool:
    if isinstance(value, dict):
        return True
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)
