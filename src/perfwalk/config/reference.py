"""The configuration reference (``docs/configuration.md``), generated from the declarations.

``pytest tests/config --regen-golden`` rewrites the file; a test checks that the
committed file is what this module generates, so the reference cannot fall behind.
"""

from __future__ import annotations

from pathlib import Path

from perfwalk.config.example import example_config
from perfwalk.config.settings import SECTIONS, Form, Section, Setting, toml_value

_INTRO = """\
# Configuration reference

<!-- Generated from src/perfwalk/config/settings.py: run `pytest tests/config --regen-golden`
     after changing a setting. Do not edit by hand. -->

perfwalk reads its settings from a TOML file, `perfwalk.toml` unless another is
named. `perfwalk init` writes one that runs as written (see the example at the
end). Relative paths in the file are relative to the file's directory.

The file is checked completely when it is loaded, before anything runs: an unknown
key (with a "did you mean"), a missing required key, a value of the wrong type or
outside its allowed values, a missing repository or patch file, and a TOML syntax
error (with its line and column) each stop perfwalk with a message that names the
file and the key, such as `perfwalk.toml: test[1].metrics.sender.direction:
expected one of higher, lower, got 'up'`. Arrays of tables are counted from 0.
A file the configuration names (a patch, an `ssh_config` or `known_hosts` file) must
be a regular file of at most 64 MiB that can be read: a device such as `/dev/zero`, a
FIFO (never waited on), a directory, a file that cannot be read or one too large is
refused with what it is, e.g. `perfwalk.toml: quirk[0].patch: /dev/zero is a
character device, not a regular file`. The configuration file itself is a regular
file or a pipe (`-c <(envsubst < perfwalk.toml.in)`, read as far as 64 MiB); a device
or a directory is refused the same way.

Every count, duration and size has an upper bound (listed with each setting; the
command-line options that override them have the same): a count that would exhaust
the memory, a timeout beyond what a clock can wait, NaN or infinity is refused when
the file is loaded. No string may hold a NUL byte (no command, argument or
environment value can carry one), and arrays and tables nest at most 32 deep.

A loaded file has a hash: the sha256 of its validated settings as canonical JSON.
Comments and layout do not change it; any setting does, except a secret's value
(secrets enter the hash as `***`).

Dates are `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM[:SS]`, optionally followed by a zone
(`Z`, `+02:00`); a date without a zone is UTC. A commit-ish is anything git
accepts as a revision: a hash, a tag, a branch, `HEAD~3`; it may not start with
`-`. A value that starts like a date (`2024-…`) must be a valid date.

### Secrets

The password of `[store] url` (and a query parameter such as `?password=`) and
the secret values of the `env` tables are shown nowhere: pages, exports, messages
and the configuration text kept with each series (the setup page shows it) have
`***` instead. A value of an `env` table is secret when its name looks secret,
ignoring case: it contains PASSWORD, PASSWD, PASSPHRASE, SECRET, TOKEN,
CREDENTIAL, PRIVATE or COOKIE, or one of its `_`-separated words is PASS, PWD or
AUTH or ends with KEY (`PGPASSWORD`, `API_KEY`, `GITHUB_TOKEN`, `BASIC_AUTH`).
A table entry says it either way:

```toml
[build]
env = { UPLOAD = { value = "s3cr3t", secret = true }, KEYMAP = { value = "us", secret = false } }
```

In the kept text every string equal to a secret is masked, however it is quoted,
and a secret of 4 characters or more is masked wherever it appears (a comment, a
command), as is the password of any `scheme://user:password@` address. Host
`vars` are not secrets: they become part of commands, which are stored and shown;
give a command a secret through `env`. What a test prints is stored as it is: a
test that prints its secret shows it in its log.
"""


def reference() -> str:
    """The whole reference as Markdown."""
    parts = [_INTRO]
    for section in SECTIONS:
        parts += _section(section, section.key)
    parts += [
        "## Example\n",
        "What `perfwalk init` writes in a repository called `demo`:\n",
        "```toml\n" + example_config(Path("demo")) + "```\n",
    ]
    return "\n".join(parts)


def _section(section: Section, path: str) -> list[str]:
    if section.form is Form.NAMED:
        path = f"{path}.<name>"
        title = f"[{path}]"
    else:
        title = f"[[{path}]]" if section.form is Form.ARRAY else f"[{path}]"
    text = section.help
    if section.min_items:
        text += f" At least {section.min_items} is required."
    rows = [
        f"## `{title}`\n",
        text + "\n",
        "| key | type | default | meaning |",
        "|---|---|---|---|",
        *(_row(setting) for setting in section.settings),
        "",
    ]
    for child in section.sections:
        rows += _section(child, f"{path}.{child.key}")
    return rows


def _row(setting: Setting) -> str:
    if setting.required:
        default = "**required**"
    elif setting.default_doc:
        default = setting.default_doc
    else:
        default = f"`{toml_value(setting.default)}`"
    meaning = setting.help
    allowed = "; ".join(rule.expected for rule in setting.rules)
    if allowed:
        meaning += f". Allowed: {allowed}"
    cells = (f"`{setting.key}`", setting.kind.name, default, meaning)
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"
