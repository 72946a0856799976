"""The environment tables of the configuration (``[build] env``, ``[[test]] env``,
``[regress] env``): their values, and which of them are secret.

A value is a string, or a table that says whether it is secret::

    env = { LC_ALL = "C", UPLOAD = { value = "s3cr3t", secret = true } }

Without ``secret``, a value is secret when its name looks secret
(:func:`perfwalk.secret_text.looks_secret`: ``API_TOKEN``, ``PGPASSWORD``…);
``secret = false`` says that a name that looks secret is not (``KEYMAP``). A secret
value reaches the commands as it is and is shown nowhere: ``***`` in pages,
exports, messages and the configuration text stored with a series.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from perfwalk.secret_text import MASK, looks_secret

#: The keys of a value given as a table.
ENTRY_KEYS = ("value", "secret")


def entry(name: str, raw: object) -> tuple[str, bool] | None:
    """The value and secrecy of one entry of an environment table as the file gives
    it; None when it is neither a string nor a ``{ value, secret }`` table."""
    if isinstance(raw, str):
        return raw, looks_secret(name)
    if not isinstance(raw, Mapping) or set(raw) - set(ENTRY_KEYS):
        return None
    value, secret = raw.get("value"), raw.get("secret", looks_secret(name))
    if not isinstance(value, str) or not isinstance(secret, bool):
        return None
    return value, secret


class Env(Mapping[str, str]):
    """An immutable environment table; ``secret`` names the variables whose values
    are not to be shown."""

    def __init__(
        self, values: Mapping[str, str] | None = None, secret: frozenset[str] = frozenset()
    ):
        self._values = dict(values or {})
        self.secret = frozenset(secret) & frozenset(self._values)

    @classmethod
    def from_toml(cls, raw: Mapping[str, object]) -> Env:
        """The table as the file gives it (already checked: every entry is valid)."""
        values: dict[str, str] = {}
        secret: set[str] = set()
        for name, item in raw.items():
            found = entry(name, item)
            if found is None:
                raise ValueError(f"not an environment entry: {name}")
            values[name] = found[0]
            if found[1]:
                secret.add(name)
        return cls(values, frozenset(secret))

    def __getitem__(self, name: str) -> str:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Env({self.masked()!r})"

    def masked(self) -> dict[str, str]:
        """The values, the secret ones as ``***``."""
        return {name: MASK if name in self.secret else value for name, value in self.items()}

    def secrets(self) -> list[str]:
        """The secret values."""
        return [self._values[name] for name in sorted(self.secret)]
