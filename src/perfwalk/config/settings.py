"""Every setting of ``perfwalk.toml``, declared once, as data.

A :class:`Setting` says what a key holds (its :class:`Kind`), its default, whether
it is required, what values are allowed (:class:`Rule`) and what it means (help).
Sections group settings the way the file does: ``[project]`` is a table,
``[[test]]`` an array of tables, ``[test.metrics.<name>]`` a table per name.

The loader (:mod:`perfwalk.config.load`) validates a file by walking
:data:`SECTIONS`; the reference (``docs/configuration.md``) and the
``perfwalk init`` template are generated from them. A new setting is one more
entry here and nowhere else.
"""

from __future__ import annotations

import copy
import enum
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path
from types import MappingProxyType
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from perfwalk.config.derived import ExpressionError, parse
from perfwalk.config.env import ENTRY_KEYS as ENV_ENTRY_KEYS
from perfwalk.config.env import Env
from perfwalk.config.env import entry as env_entry
from perfwalk.config.instruments import INSTRUMENT_KINDS, INSTRUMENT_METRICS, INSTRUMENT_RUNS
from perfwalk.config.sweeps import MOST_MEMBERS, sweep_problem
from perfwalk.errors import UsageError
from perfwalk.folded import MOST_FRAMES, MOST_PROFILE_BYTES, MOST_SAMPLES
from perfwalk.git.walk_steps import DATE_FORMS, STEP_FORMS, parse_date, parse_step
from perfwalk.limits import (
    MAX_BYTES,
    MAX_COUNT,
    MAX_SECONDS,
    MAX_SHARE,
    MAX_USER_FILE_BYTES,
    MAX_Z,
)
from perfwalk.model import Direction
from perfwalk.parsers import PARSER_NAMES
from perfwalk.parsers.snapshots import SNAPSHOT_PARSER_NAMES
from perfwalk.policy import (
    DEFAULT_MIN_CHANGE,
    DEFAULT_MIN_SIZE,
    DEFAULT_OUTLIER,
    DEFAULT_SUMMARY,
    DEFAULT_THRESHOLD,
    DEFAULT_UNSTABLE_RSD,
    EXACT_COUNT_MIN_CHANGE,
    EXACT_COUNT_MIN_SIZE,
    SUMMARIES,
)
from perfwalk.quantities import read_bytes
from perfwalk.regress.formats import FORMAT_NAMES
from perfwalk.secret_text import hide_password, looks_secret
from perfwalk.text_files import check_user_file
from perfwalk.untrusted import shortened


class Invalid(Exception):
    """A value broke a rule; the loader adds the file and the key."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: The default of a setting that must be given.
REQUIRED: Any = _Required()


def type_name(value: object) -> str:
    """How a TOML value is called in messages: ``a string``, ``an array``…"""
    names: tuple[tuple[type, str], ...] = (
        (bool, "a boolean"),
        (int, "an integer"),
        (float, "a float"),
        (str, "a string"),
        (list, "an array"),
        (dict, "a table"),
        (datetime, "a date-time"),
        (date, "a date"),
        (time, "a time"),
    )
    return next((name for cls, name in names if isinstance(value, cls)), type(value).__name__)


def described(value: object) -> str:
    """``a string ('600')``: the type and, for a scalar, the value itself (its first
    40 characters)."""
    if isinstance(value, list | dict):
        return type_name(value)
    return f"{type_name(value)} ({shortened(toml_value(value))})"


def toml_value(value: object) -> str:
    """``value`` written as TOML (strings as basic strings, tables inline)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        items = (f"{_toml_key(str(k))} = {toml_value(v)}" for k, v in value.items())
        return "{ " + ", ".join(items) + " }"
    raise TypeError(f"no TOML form for {value!r}")


def _toml_key(key: str) -> str:
    return (
        key
        if re.fullmatch(r"[A-Za-z0-9_-]+", key)
        else json.dumps(key, ensure_ascii=False, allow_nan=False)
    )


# Rules: what values of the right type are allowed.


@dataclass(frozen=True)
class Rule:
    """An allowed-values rule: ``problem`` says what is wrong, or None."""

    expected: str  # for the reference: "> 0", "one of: mean, median, best"
    problem: Callable[[Any], str | None]
    choices: tuple[str, ...] = ()  # offered as "did you mean" when a value is not one


def rule(expected: str, ok: Callable[[Any], bool]) -> Rule:
    """A rule whose complaint is ``expected <expected>, got <value>``."""

    def problem(value: Any) -> str | None:
        return None if ok(value) else f"expected {expected}, got {toml_value(value)}"

    return Rule(expected, problem)


def one_of(*choices: str) -> Rule:
    listed = ", ".join(choices)
    return Rule(
        f"one of: {listed}",
        lambda value: None if value in choices else f"expected one of {listed}, got {value!r}",
        choices,
    )


# Kinds: the TOML type of a value and the Python value it becomes.

#: Where inside a value the type is wrong (``[1]``, ``.JOBS``) and what was found.
Mismatch = tuple[str, str]


@dataclass(frozen=True)
class Kind:
    """A value's type: ``check`` finds a mismatch, ``convert`` makes the Python value,
    ``rules`` hold for every value of the kind (before the setting's own)."""

    name: str  # for the reference: "string", "list of strings"…
    article: str  # for messages: "a string", "an array of strings"…
    check: Callable[[object], Mismatch | None]
    convert: Callable[[Any], object] = lambda value: value
    rules: tuple[Rule, ...] = ()


def _is(*types: type) -> Callable[[object], Mismatch | None]:
    def check(value: object) -> Mismatch | None:
        if isinstance(value, types) and (bool in types or not isinstance(value, bool)):
            return None
        return ("", described(value))

    return check


#: The largest integer a number setting takes (beyond it, a float is infinite).
_LARGEST_NUMBER = 2**1023


def _check_number(value: object) -> Mismatch | None:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= _LARGEST_NUMBER:
        return ("", f"an integer beyond the float range ({shortened(str(value))})")
    return _is(int, float)(value)


def _check_strings(value: object) -> Mismatch | None:
    if not isinstance(value, list):
        return ("", described(value))
    for index, item in enumerate(value):
        if not isinstance(item, str):
            return (f"[{index}]", described(item))
    return None


def _check_vars(value: object) -> Mismatch | None:
    if not isinstance(value, dict):
        return ("", described(value))
    for name, item in value.items():
        if not isinstance(item, str):
            return (f".{name}", described(item))
    return None


def _check_env(value: object) -> Mismatch | None:
    """Strings, or ``{ value = "…", secret = true }``; a value that may be secret is
    not repeated in the message."""
    if not isinstance(value, dict):
        return ("", described(value))
    for name, item in value.items():
        if env_entry(name, item) is not None:
            continue
        if not isinstance(item, dict):
            return (f".{name}", type_name(item) if looks_secret(name) else described(item))
        unknown = sorted(set(item) - set(ENV_ENTRY_KEYS))
        if unknown:
            return (f".{name}", f"a table with the key {unknown[0]!r}")
        if not isinstance(item.get("value"), str):
            return (f".{name}.value", type_name(item.get("value")) if "value" in item else "none")
        return (f".{name}.secret", type_name(item["secret"]))
    return None


def _check_table(value: object) -> Mismatch | None:
    return None if isinstance(value, dict) else ("", described(value))


def _check_when(value: object) -> Mismatch | None:
    if isinstance(value, str | date) and not isinstance(value, time):
        return None
    return ("", described(value))


def _when_text(value: str | date) -> str:
    if isinstance(value, datetime):
        return value.isoformat(timespec="seconds")
    if isinstance(value, date):
        return value.isoformat()
    return value


def _nul_problem(value: object) -> str | None:
    """Where a string of ``value`` (a string, an array or a table of them) holds a NUL
    byte, which no command, argument, environment value or file name can carry."""
    found: list[tuple[str, str]] = []
    if isinstance(value, str):
        found = [("the string", value)]
    elif isinstance(value, list | tuple):
        found = [(f"item {i}", v) for i, v in enumerate(value) if isinstance(v, str)]
    elif isinstance(value, Mapping):
        found = [(f"the value of {k}", v) for k, v in value.items() if isinstance(v, str)]
    for what, text in found:
        if "\x00" in text:
            return (
                f"{what} holds a NUL byte (\\u0000) at character {text.index(chr(0))}:"
                " no command, argument or environment value can carry one"
            )
    return None


#: Every string of the file reaches a process, a file name or a page: none holds a NUL.
NO_NUL = Rule("no NUL byte", _nul_problem)

STRING = Kind("string", "a string", _is(str), rules=(NO_NUL,))
INTEGER = Kind("integer", "an integer", _is(int))
NUMBER = Kind("number", "a number", _check_number, float)
BOOLEAN = Kind("boolean", "a boolean (true or false)", _is(bool))
STRINGS = Kind("list of strings", "an array of strings", _check_strings, tuple, rules=(NO_NUL,))
ENV = Kind(
    "table of strings or secrets",
    'a table of strings (NAME = "value", or NAME = { value = "…", secret = true })',
    _check_env,
    Env.from_toml,
    rules=(NO_NUL,),
)
VARS = Kind(
    "table of strings",
    'a table of strings (name = "value")',
    _check_vars,
    lambda value: MappingProxyType(dict(value)),
    rules=(NO_NUL,),
)
TABLE = Kind("table", "a table", _check_table, lambda value: MappingProxyType(copy.deepcopy(value)))
#: ``[test.sweep]``: each parameter's values (their own checks: the rule SWEEP below)
SWEEP_TABLE = Kind(
    "table of lists",
    "a table of lists (size = [64, 1500])",
    _check_table,
    lambda value: MappingProxyType(
        {name: tuple(v) if isinstance(v, list) else v for name, v in value.items()}
    ),
)
#: ``[run] repetitions``: a count, or "auto" (adaptive, from repetitions_min to _max).
AUTO = "auto"
COUNT_OR_AUTO = Kind(
    'integer or "auto"',
    'an integer or "auto"',
    lambda value: None if value == AUTO else _is(int)(value),
)
WHEN = Kind(
    "date or commit-ish",
    "a date or commit-ish (as a string)",
    _check_when,
    _when_text,
    rules=(NO_NUL,),
)


# Bounds (perfwalk.limits): NaN, infinity and a count that would exhaust the memory are
# refused with the same rule in the file and on the command line (perfwalk.cli.options).
COUNT = rule(f"1 to {MAX_COUNT}", lambda value: 1 <= value <= MAX_COUNT)
_DAYS = f"{MAX_SECONDS} ({MAX_SECONDS // 86400} days)"
SECONDS = rule(f"> 0 and at most {_DAYS}", lambda value: 0 < value <= MAX_SECONDS)
WAIT_SECONDS = rule(f">= 0 and at most {_DAYS}", lambda value: 0 <= value <= MAX_SECONDS)
BYTES = rule(f"1 to {MAX_BYTES} (1 GiB)", lambda value: 1 <= value <= MAX_BYTES)
SHARE = rule(f"> 0 and at most {MAX_SHARE:g}", lambda value: 0 < value <= MAX_SHARE)
SHARE_OR_NONE = rule(f">= 0 and at most {MAX_SHARE:g}", lambda value: 0 <= value <= MAX_SHARE)
Z = rule(f"> 0 and at most {MAX_Z:g}", lambda value: 0 < value <= MAX_Z)
POWER_OF_TWO = rule(
    "a power of two from 1 to 65536", lambda value: 1 <= value <= 65536 and value & (value - 1) == 0
)
NOT_EMPTY = rule("a non-empty value", bool)
SWEEP = Rule(
    "parameters of lower-case letters, digits and _, each a non-empty list of numbers or "
    f"words, at most {MOST_MEMBERS} combinations",
    sweep_problem,
)
ONE_LINE = rule(
    "one line of printable text, at most 200 characters",
    lambda value: value.isprintable() and len(value) <= 200,
)
NO_EMPTY_ITEM = rule("non-blank commands", lambda value: all(item.strip() for item in value))


def _named(value: str) -> bool:
    return re.fullmatch(r"[A-Za-z0-9_.-]+", value) is not None


NAME = rule("letters, digits, _ . - only", _named)
ENV_NAMES = rule(
    "names of letters, digits and _ (not starting with a digit)",
    lambda value: all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) for name in value),
)


def _one_word(value: str) -> bool:
    return re.fullmatch(r"[^\s-]\S*", value) is not None


HOST = rule("local or an ssh destination (no blanks, not starting with -)", _one_word)
HOST_OR_NONE = rule(
    'local, an ssh destination or a host of [hosts] (no blanks, not starting with -), or ""',
    lambda value: value == "" or _one_word(value),
)
IMAGE = rule(
    'a container image reference (no blanks, not starting with -), or ""',
    lambda value: value == "" or _one_word(value),
)
ROLE = rule(
    "a role name: lower-case letters, digits and _ (dut, source, sink…)",
    lambda value: re.fullmatch(r"[a-z][a-z0-9_]*", value) is not None,
)
ROLE_OR_NONE = rule(
    'a role name (lower-case letters, digits and _) or ""',
    lambda value: value == "" or re.fullmatch(r"[a-z][a-z0-9_]*", value) is not None,
)
ROLES = rule(
    "role names: lower-case letters, digits and _ (dut, source, sink…), each once",
    lambda value: (
        len(set(value)) == len(value)
        and all(re.fullmatch(r"[a-z][a-z0-9_]*", item) for item in value)
    ),
)
VAR_NAMES = rule(
    "names of lower-case letters, digits and _ (they become {host.<role>.<name>})",
    lambda value: all(re.fullmatch(r"[a-z][a-z0-9_]*", name) for name in value),
)
SSH_OPTIONS = rule(
    "ssh options as Key=Value (see man ssh_config)",
    lambda value: all(re.fullmatch(r"[A-Za-z][A-Za-z0-9]*=\S.*", item) for item in value),
)
TOOL_NAMES = rule(
    "program names or paths, without blanks or =",
    lambda value: all(re.fullmatch(r"[^\s=]+", item) for item in value),
)
#: The programs fingerprinted by default: compilers, build tools and interpreters.
DEFAULT_TOOLS = (
    "cc",
    "c++",
    "gcc",
    "g++",
    "clang",
    "make",
    "cmake",
    "ninja",
    "python3",
    "perl",
    "rustc",
    "git",
)
#: How a walk orders its repetitions ([run] order).
ORDERS = ("checkout", "rounds")

#: How a build places code in memory ([build] layout, [[variant]] layout).
AS_BUILT = "as-built"
RANDOM_LAYOUT = "random"
LAYOUTS = (AS_BUILT, "sort", "align", RANDOM_LAYOUT)
REPETITIONS = rule(
    f'1 to {MAX_COUNT}, or "auto"', lambda value: value == AUTO or 1 <= value <= MAX_COUNT
)
REPETITIONS_MIN = rule(
    f'0 (3 with repetitions = "auto") or at most {MAX_COUNT}',
    lambda value: 0 <= value <= MAX_COUNT,
)
#: The most repetitions of a checkout under repetitions = "auto" with no repetitions_max.
AUTO_MAX = 20
#: The least under repetitions = "auto" with no repetitions_min.
AUTO_MIN = 3
REPETITIONS_MAX = rule(
    f"0 (fixed repetitions) or at most {MAX_COUNT}", lambda value: 0 <= value <= MAX_COUNT
)
WARMUPS = rule(f"0 to {MAX_COUNT}", lambda value: 0 <= value <= MAX_COUNT)
CPU_LIST = rule(
    'a CPU list as taskset -c takes it: "2-3", "0,2,4-7" ("" = not pinned)',
    lambda value: value == "" or re.fullmatch(r"\d+(-\d+)?(,\d+(-\d+)?)*", value) is not None,
)
PORT = rule("a TCP port, 1-65535 (0 = none)", lambda value: 0 <= value <= 65535)
STORE_URL = Rule(
    "a sqlite:/// or postgresql+psycopg:// URL",
    lambda value: (
        None
        if value == "" or re.match(r"(sqlite|postgresql(\+psycopg)?)://", value)
        else f"expected a sqlite:/// or postgresql+psycopg:// URL, got {hide_password(value)!r}"
    ),
)


def _step_problem(value: str) -> str | None:
    try:
        parse_step(value)
    except UsageError as error:
        return error.message
    return None


def _url_problem(value: str) -> str | None:
    if value == "":
        return None
    try:
        value.format(commit="0")
    except (KeyError, IndexError, ValueError) as error:
        return f"expected only the placeholder {{commit}} in {value!r} ({error})"
    if "{commit}" not in value:
        return f"expected a URL containing {{commit}}, got {value!r}"
    return None


def _file_url_problem(value: str) -> str | None:
    if value == "":
        return None
    try:
        value.format(commit="0", path="a")
    except (KeyError, IndexError, ValueError) as error:
        return f"expected only the placeholders {{commit}} and {{path}} in {value!r} ({error})"
    if "{commit}" not in value or "{path}" not in value:
        return f"expected a URL containing {{commit}} and {{path}}, got {value!r}"
    return None


_DATE_LIKE = re.compile(r"\s*\d{4}-\d")


def _rev_problem(value: str) -> str | None:
    """Anything git could take as a revision, and nothing it could take as an option."""
    if value.startswith("-") or value != value.strip() or not value.isprintable():
        return f"expected a commit-ish (hash, tag, branch, HEAD~3), got {value!r}"
    return None


def _when_problem(value: str) -> str | None:
    """A date must be a valid date; anything else must be usable as a revision."""
    if value == "":
        return None
    if _DATE_LIKE.match(value):
        try:
            parse_date(value)
        except UsageError as error:
            return error.message
        return None
    return _rev_problem(value)


STEP = Rule(STEP_FORMS, _step_problem)
REVISION = Rule("a commit-ish (hash, tag, branch, HEAD~3)", _rev_problem)
COMMIT_URL = Rule("a URL containing {commit}", _url_problem)
FILE_URL = Rule("a URL containing {commit} and {path}", _file_url_problem)
DATE_OR_REV = Rule(f"a date ({DATE_FORMS}) or a commit-ish", _when_problem)


def _worktree_path_problem(value: str) -> str | None:
    """A path inside the worktree: relative, without ``..``."""
    if value.startswith("/") or ".." in value.split("/"):
        return f'expected a path inside the worktree (relative, no ".."), got {toml_value(value)}'
    return None


WORKTREE_PATH = Rule(
    'a path relative to the worktree, without ".." ("" = none)', _worktree_path_problem
)


# Finishing: turning a valid value into what the program uses, given the file's directory.


def _path(value: str, base: Path) -> Path:
    return Path(base, Path(value).expanduser()).resolve()


def _existing_dir(value: str, base: Path) -> Path:
    path = _path(value, base)
    if not path.is_dir():
        raise Invalid(
            f"no such directory: {path}",
            hint=f"give the git repository's path, relative to {base}",
        )
    return path


def _user_file(value: str, base: Path, what: str) -> Path | None:
    """The file ``value`` resolved against ``base`` ("" = none), refused unless it is a
    regular file perfwalk can read, of at most :data:`MAX_USER_FILE_BYTES` (a device, a
    FIFO, a folder are named for what they are; a FIFO is never waited on)."""
    if value == "":
        return None
    path = _path(value, base)
    try:
        check_user_file(
            path, str(path), MAX_USER_FILE_BYTES, hint=f"give the {what}'s path, relative to {base}"
        )
    except UsageError as error:
        raise Invalid(error.message, hint=error.hint) from None
    return path


def _patch_files(values: tuple[str, ...], base: Path) -> tuple[Path, ...]:
    """Patch files, each resolved against ``base`` and checked."""
    found = (_user_file(value, base, "patch file") for value in values)
    return tuple(path for path in found if path is not None)


def _user_file_or_none(what: str) -> Callable[[str, Path], Path | None]:
    """A finish that resolves an optional file and checks it (:func:`_user_file`)."""

    def finish(value: str, base: Path) -> Path | None:
        return _user_file(value, base, what)

    return finish


def _store_url(value: str, base: Path) -> str:
    if value == "":
        return f"sqlite:///{base.resolve() / 'perfwalk.db'}"
    prefix = "sqlite:///"
    rest = value.removeprefix(prefix)
    if value.startswith(prefix) and rest and rest != ":memory:" and not rest.startswith("/"):
        return f"{prefix}{_path(rest, base)}"
    return value


def _expression(value: str, _base: Path) -> str:
    """A derived metric's expression, once it parses (kept as its text)."""
    try:
        parse(value)
    except ExpressionError as error:
        raise Invalid(
            f"cannot read the expression {value!r}: {error}",
            hint="an expression holds numbers, value names, sweep.<parameter>, + - * / and "
            "parentheses, e.g. receiver / 10e9 * 100 (docs/sweeps.md)",
        ) from None
    return value


# Declarations.


@dataclass(frozen=True)
class Setting:
    """One key of the file.

    ``default`` is :data:`REQUIRED` when the key must be given and None when an
    absent key means "not set" (``default_doc`` then says what applies instead).
    ``finish`` turns a valid value into the program's value, given the config
    file's directory (paths are resolved against it).
    """

    key: str
    kind: Kind
    help: str
    default: Any = REQUIRED
    rules: tuple[Rule, ...] = ()
    finish: Callable[[Any, Path], object] | None = None
    field: str = ""  # the dataclass field, when the key is not a Python name
    default_doc: str = ""  # how the reference describes a computed or absent default
    example: Any = None  # a value for messages and the template, when the default is none

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def attribute(self) -> str:
        return self.field or self.key

    @property
    def sample(self) -> Any:
        """A value worth showing: the example, else the default."""
        if self.example is not None:
            return self.example
        return None if self.required else self.default


class Form(enum.Enum):
    """How a section appears in the file."""

    TABLE = "table"  # [project]
    ARRAY = "array"  # [[test]], any number (at least min_items)
    NAMED = "named"  # [test.metrics.<name>], one table per name


@dataclass(frozen=True)
class Section:
    """A table of the file: its settings and the sections inside it."""

    key: str
    form: Form
    help: str
    settings: tuple[Setting, ...]
    sections: tuple[Section, ...] = ()
    field: str = ""  # the attribute holding it (``tests`` for ``test``)
    min_items: int = 0

    @property
    def attribute(self) -> str:
        return self.field or self.key

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(s.key for s in self.settings) + tuple(s.key for s in self.sections)


_PROJECT = Section(
    "project",
    Form.TABLE,
    "The software under test.",
    (
        Setting(
            "name",
            STRING,
            "the project's name on pages",
            default="",
            default_doc="the repository directory's name",
        ),
        Setting(
            "repo",
            STRING,
            "the git repository, relative to this file",
            default=".",
            finish=_existing_dir,
        ),
        Setting(
            "branch",
            STRING,
            "the line whose first-parent history is walked; with a branch set, `[run] to = "
            '"HEAD"` means its tip, and every commit-ish of a walk must be on this line',
            default="HEAD",
            rules=(NOT_EMPTY, REVISION),
        ),
        Setting(
            "commit_url",
            STRING,
            "a web viewer's address for a commit; {commit} becomes the commit's id",
            default="",
            rules=(COMMIT_URL,),
            example="https://git.example.org/demo/commit/{commit}",
        ),
        Setting(
            "file_url",
            STRING,
            "a web viewer's address for a file as a commit left it; {commit} becomes the "
            "commit's id, {path} the file's path: each file a commit page lists links there "
            "(empty: to the commit, with commit_url)",
            default="",
            rules=(FILE_URL,),
            example="https://git.example.org/demo/blob/{commit}/{path}",
        ),
    ),
)

_STORE = Section(
    "store",
    Form.TABLE,
    "Where values and logs are kept.",
    (
        Setting(
            "url",
            STRING,
            "the result store: a sqlite:/// file (relative to this file) or a "
            "postgresql+psycopg:// database; its password is shown as ***",
            default="",
            rules=(STORE_URL,),
            finish=_store_url,
            default_doc='the SQLite file "perfwalk.db" next to this file',
            example="postgresql+psycopg://perfwalk@db.example.org/perfwalk",
        ),
        Setting(
            "log_limit",
            INTEGER,
            "bytes kept of the head and of the tail of each output",
            default=1 << 20,
            rules=(BYTES,),
        ),
        Setting(
            "worktrees",
            STRING,
            "where the build worktrees go, relative to this file: each walk and drill builds "
            "in `series-<id>-<store id>/` there, its own (locked while it runs, checked before "
            "each test, removed when it ends)",
            default=".perfwalk/worktrees",
            rules=(NOT_EMPTY,),
            finish=_path,
        ),
        Setting(
            "artifact_limit",
            INTEGER,
            "bytes kept of the head and of the tail of each file fetched from a host",
            default=8 << 20,
            rules=(BYTES,),
        ),
    ),
)

_BUILD = Section(
    "build",
    Form.TABLE,
    "How each checkout is built.",
    (
        Setting(
            "host",
            STRING,
            "where the build runs: local, the only value read (kept for older files). A "
            "checkout is built on the host that runs its tests without a role ([run] host, "
            "a [[walk]]'s host, an [[environment]]'s host), in its worktree's path",
            default="local",
            rules=(one_of("local"),),
        ),
        Setting(
            "steps",
            STRINGS,
            "shell commands run in order in the checkout's worktree; [] = nothing to build",
            default=["make"],
            rules=(NO_EMPTY_ITEM,),
        ),
        Setting("timeout", NUMBER, "seconds allowed per step", default=1800, rules=(SECONDS,)),
        Setting(
            "env",
            ENV,
            "extra environment variables for the steps; secret ones are shown as *** (see Secrets)",
            default={},
            rules=(ENV_NAMES,),
            example={"CFLAGS": "-O2"},
        ),
        Setting(
            "symbols",
            STRING,
            "a binary of the build, relative to the worktree, whose symbol list (`nm -n -S`) "
            "is kept after each successful build: the series page shows, per checkout, the "
            "symbols added, removed and moved against the previous checkout, with the diff "
            "(the layout of a binary alone can move a benchmark), and a change at checkouts "
            "whose functions only moved can be a layout artefact (docs/layout.md); "
            '"" = none',
            default="",
            rules=(WORKTREE_PATH,),
            example="bsd",
        ),
        Setting(
            "layout",
            STRING,
            "how the build places code in memory (docs/layout.md): "
            '"as-built" as the build does it; "sort" functions in their own sections, '
            'linked in sorted order; "align" every function aligned to layout_align '
            'bytes; "random" a new seeded layout for every repetition (relinked, or '
            "built again, before each): the build receives the mode, its seed and "
            "compiler and linker flags in its environment (PERFWALK_LAYOUT, "
            "PERFWALK_LAYOUT_SEED, PERFWALK_LAYOUT_CFLAGS, PERFWALK_LAYOUT_LDFLAGS)",
            default=AS_BUILT,
            rules=(one_of(*LAYOUTS),),
        ),
        Setting(
            "layout_align",
            INTEGER,
            'the alignment of every function, in bytes, with layout = "align" (64: a '
            "cache line; 4096: a page)",
            default=64,
            rules=(POWER_OF_TWO,),
        ),
        Setting(
            "relink",
            STRING,
            'the command that lays out the built checkout again with layout = "random", '
            "in its worktree before each repetition, with the repetition's seed in "
            "PERFWALK_LAYOUT_SEED (a kernel's relink, `make relink`); a line "
            "`PERFWALK_LAYOUT_SEED=N` in its output records the seed it used instead; "
            '"" = the build steps run again',
            default="",
            example="make relink",
        ),
    ),
)

_RUN = Section(
    "run",
    Form.TABLE,
    "Defaults of `perfwalk run`; its command-line options override each.",
    (
        Setting(
            "from",
            WHEN,
            'the first checkout: a date or a commit-ish; "" = the first commit',
            default="",
            rules=(DATE_OR_REV,),
            field="from_",
            example="2024-01-01",
        ),
        Setting(
            "to",
            WHEN,
            "the last checkout: a date or a commit-ish; HEAD is the tip of `[project] branch`, "
            "and a commit-ish that is not on that branch's first-parent line is an error",
            default="HEAD",
            rules=(NOT_EMPTY, DATE_OR_REV),
        ),
        Setting(
            "quirks_since",
            WHEN,
            "the state the machine starts from: before its first build, a walk runs the "
            "commands (and reboots) of every quirk after this point up to its first checkout, "
            "in date order, and marks that checkout with their letters. A date: quirks dated "
            "from it on; a commit-ish of the walked line: quirks after it (its own are taken "
            'as done); "" = none: a walk takes the machine as it is',
            default="",
            rules=(DATE_OR_REV,),
            example="2023-11-01",
        ),
        Setting(
            "step",
            STRING,
            "the distance between checkouts: a duration (1day, 1week…), commit or commit/N",
            default="1day",
            rules=(STEP,),
        ),
        Setting(
            "repetitions",
            COUNT_OR_AUTO,
            'how many times the tests run at each checkout; "auto": adaptive repetitions, '
            "from `repetitions_min` to `repetitions_max`, stopping at a checkout once the "
            "relative standard error (sd / mean / sqrt(n)) of each of its values is below "
            "`rse_target`, as the Phoronix Test Suite does",
            default=5,
            rules=(REPETITIONS,),
        ),
        Setting(
            "repetitions_min",
            INTEGER,
            f'with repetitions = "auto": the least each checkout gets (0 = {AUTO_MIN})',
            default=0,
            rules=(REPETITIONS_MIN,),
            example=AUTO_MIN,
        ),
        Setting(
            "repetitions_max",
            INTEGER,
            "adaptive repetitions: the most a checkout gets, adding repetitions beyond "
            "`repetitions` (then the least) until the relative standard error (sd / mean / "
            "sqrt(n)) of each of its values is below `rse_target` or this many ran; 0 = "
            f'every checkout gets `repetitions` ({AUTO_MAX} with repetitions = "auto"); '
            "the pages say how many each checkout needed",
            default=0,
            rules=(REPETITIONS_MAX,),
            example=AUTO_MAX,
        ),
        Setting(
            "rse_target",
            NUMBER,
            "the relative standard error at which adaptive repetitions (`repetitions_max`) "
            "stop adding repetitions to a checkout",
            default=0.01,
            rules=(SHARE,),
        ),
        Setting(
            "order",
            STRING,
            "checkout: each checkout is built, then all its repetitions run (for builds that "
            "must be installed per checkout, kernels); rounds: every checkout is built once "
            "in its own worktree, kept until the walk ends, then repetition 1 of every "
            "checkout runs, then repetition 2… each round in a seeded shuffled order, so that "
            "a slow change of the machine is not taken for a change between two checkouts",
            default="checkout",
            rules=(one_of(*ORDERS),),
        ),
        Setting(
            "warmup",
            INTEGER,
            "runs of each test at a checkout before its first repetition, never counted: their "
            "output is kept as `warmup` steps of the checkout's next repetition, their values "
            "nowhere (as hyperfine's --warmup); they see PERFWALK_WARMUP=1, 2…; a test's own "
            "warmup replaces it",
            default=0,
            rules=(WARMUPS,),
            example=1,
        ),
        Setting(
            "cpus",
            STRING,
            'the CPUs the test commands run on (taskset -c, util-linux): "2-3", "0,2"; '
            '"" = not pinned; a test\'s own cpus replaces it; recorded with the series',
            default="",
            rules=(CPU_LIST,),
            example="2-3",
        ),
        Setting(
            "between",
            STRING,
            "what happens between repetitions: keep, reboot, rebuild, "
            "or any other text = a shell command run in the worktree",
            default="keep",
            rules=(NOT_EMPTY,),
        ),
        Setting(
            "host",
            STRING,
            "where a test without a role runs: local, a host of [hosts], or an ssh destination",
            default="local",
            rules=(HOST,),
        ),
        Setting(
            "tools",
            STRINGS,
            "the programs whose version (the first line `<tool> --version` prints) goes into the "
            "fingerprint of every host of a walk; only these are run, never the first word of "
            "a build or test command",
            default=list(DEFAULT_TOOLS),
            rules=(TOOL_NAMES,),
        ),
        Setting(
            "exclude_loaded",
            BOOLEAN,
            "leave the repetitions measured on a loaded machine out of the summaries and "
            "of change detection (which repetition is loaded: the machine's state recorded "
            "with each, see docs/analysis.md), but for a metric they would leave too "
            "little to judge: there they are kept and its changes suspect; false = mark "
            "them, count them",
            default=False,
        ),
        Setting(
            "confirm",
            BOOLEAN,
            "at the end of a walk (and of a resumed one), measure its changes again: both "
            "checkouts of each, interleaved (before, after, after, before…), until a "
            "sequential test decides whether the change held or the budget "
            "(confirm_repetitions, confirm_seconds) is spent; a change that did not hold "
            "is refuted (shown apart, never counted) and fails no check (docs/analysis.md)",
            default=False,
        ),
        Setting(
            "confirm_max_repetitions",
            INTEGER,
            "the most repetitions per side one change's re-measure runs (over all the walks "
            "and watch cycles that measure it); it stops undecided there",
            default=10,
            rules=(rule("3 to 1000", lambda value: 3 <= value <= 1000),),
        ),
        Setting(
            "confirm_repetitions",
            INTEGER,
            "the repetitions (both sides counted) all the re-measures at the end of one walk "
            "may run together; a change the budget leaves undecided is measured on by the "
            "next walk or watch cycle",
            default=200,
            rules=(rule("0 to 1000000", lambda value: 0 <= value <= 1_000_000),),
        ),
        Setting(
            "confirm_seconds",
            NUMBER,
            "the seconds all the re-measures at the end of one walk may take together, "
            "their waits for a quiet machine included; 0 = no limit",
            default=0,
            rules=(WAIT_SECONDS,),
        ),
        Setting(
            "confirm_wait",
            NUMBER,
            "before each change's re-measure, the most seconds to wait for the load of the "
            "hosts it runs on to fall below their cores (docs/analysis.md); then it measures "
            "anyway and says so (and the changes after it in the same walk do not wait "
            "again); 0 = never wait",
            default=120,
            rules=(WAIT_SECONDS,),
        ),
        Setting(
            "lease_wait",
            NUMBER,
            "seconds to wait for hosts another run holds; 0 = stop at once, naming the holder",
            default=0,
            rules=(WAIT_SECONDS,),
        ),
        Setting(
            "lease_expiry",
            NUMBER,
            "seconds a lease on the hosts lasts without a heartbeat (renewed while the run "
            "lives); a run that died leaves a lease that expires after this",
            default=300,
            rules=(rule(f">= 10 and at most {_DAYS}", lambda value: 10 <= value <= MAX_SECONDS),),
        ),
    ),
)


#: A host pool's name: a queue name of the team's workers.
_POOL = re.compile(r"[A-Za-z0-9_.-]{0,64}")
_CRON_FIELD = re.compile(r"[0-9*/,A-Za-z-]+")


def _cron_ok(value: str) -> bool:
    """Five cron fields, or six (the sixth: seconds), or none: the queue checks the
    rest when a worker starts."""
    fields = value.split()
    return not fields or (
        len(fields) in (5, 6) and all(_CRON_FIELD.fullmatch(f) is not None for f in fields)
    )


#: What becomes of a host when a run that held it ends ([hosts.<name>] at_end).
AT_END = ("leave", "power_off")

_HOSTS = Section(
    "hosts",
    Form.NAMED,
    "The machines of a multi-host test, by name: where each is (local or an ssh "
    "destination), the roles it plays (dut, source, sink…) and its variables, which "
    "commands use as {host.<role>.<variable>} placeholders.",
    (
        Setting(
            "target",
            STRING,
            "local, or an ssh destination (user@host, a Host alias of the ssh_config)",
            default="local",
            rules=(HOST,),
            example="root@dut.lab.example.org",
        ),
        Setting(
            "roles",
            STRINGS,
            "the roles this host plays; each role belongs to one host",
            default=[],
            rules=(ROLES,),
            example=["dut"],
        ),
        Setting(
            "vars",
            VARS,
            "the host's variables (addresses, interfaces): {host.<role>.<name>} in commands "
            "becomes the value as one quoted word (commands are stored and shown: pass "
            "secrets in env, not here)",
            default={},
            rules=(VAR_NAMES,),
            example={"addr": "10.0.1.1", "ifname": "eth1"},
        ),
        Setting(
            "ssh_config",
            STRING,
            'an ssh_config file used instead of ~/.ssh/config (ssh -F); "" = the usual one',
            default="",
            finish=_user_file_or_none("ssh_config file"),
        ),
        Setting(
            "known_hosts",
            STRING,
            "a known_hosts file checked strictly for this host (a lab's generated one); "
            '"" = the usual ones. Host keys are always checked',
            default="",
            finish=_user_file_or_none("known_hosts file"),
        ),
        Setting(
            "ssh_options",
            STRINGS,
            "extra ssh options, as Key=Value",
            default=[],
            rules=(SSH_OPTIONS,),
            example=["Port=2222"],
        ),
        Setting(
            "connect_timeout",
            NUMBER,
            "seconds allowed to open the ssh connection",
            default=10,
            rules=(SECONDS,),
        ),
        Setting(
            "reboot",
            STRING,
            'the command that reboots the host (between = "reboot", quirks with reboot); '
            '"" = never reboot it',
            default="reboot",
        ),
        Setting(
            "reboot_timeout",
            NUMBER,
            "seconds allowed for a reboot: to go down and to answer ssh again",
            default=600,
            rules=(SECONDS,),
        ),
        Setting(
            "console",
            STRING,
            "a command run on this machine after each reboot of the host whose output is "
            'stored with the repetition (its serial console, for kernels that panic); "" = none',
            default="",
            example="tail -n 200 /var/log/consoles/dut",
        ),
        Setting(
            "power_cycle",
            STRING,
            "a command run on this machine that power-cycles the host (IPMI, a PDU, virsh) "
            "when it stops answering: a command or a reboot that timed out or lost the "
            "host, then no answer for alive_timeout seconds; the host is waited for within "
            'reboot_timeout and the walk goes on (docs/lab.md, "Hosts that hang"); "" = a '
            "host that stops answering is not recovered",
            default="",
            example="ipmitool -I lanplus -H dut-bmc -U admin -E chassis power cycle",
        ),
        Setting(
            "power_cycles",
            INTEGER,
            "the most power cycles of the host in one run: a host that hangs once more "
            "ends the run (a build that hangs every boot does not loop all night)",
            default=4,
            rules=(COUNT,),
        ),
        Setting(
            "alive_timeout",
            NUMBER,
            "seconds a host with a power_cycle command gets to answer a new ssh "
            "connection after a command or a reboot timed out or lost it, before it is "
            "taken as hung and power-cycled",
            default=60,
            rules=(SECONDS,),
        ),
        Setting(
            "power_on",
            STRING,
            "a command run on this machine that powers the host on when it does not "
            'answer as a run starts (at_end = "power_off" left it off); it is then waited '
            'for within reboot_timeout; "" = a host that does not answer stops the run',
            default="",
            example="ipmitool -I lanplus -H dut-bmc -U admin -E chassis power on",
        ),
        Setting(
            "power_off",
            STRING,
            'a command run on this machine that powers the host off (at_end = "power_off")',
            default="",
            example="ipmitool -I lanplus -H dut-bmc -U admin -E chassis power off",
        ),
        Setting(
            "at_end",
            STRING,
            "what becomes of the host when a run that held it ends (finished, failed or "
            'interrupted): "leave" it as it is, or "power_off" with its power_off command',
            default="leave",
            rules=(one_of(*AT_END),),
        ),
        Setting(
            "lease",
            STRING,
            "the name of the lease a run takes on this host",
            default="",
            default_doc="the target (local: this machine's name)",
            example="dut.lab.example.org",
        ),
        Setting(
            "pool",
            STRING,
            "team mode: the host pool of this host, the queue of the jobs that run on it "
            "(`perfwalk worker --hosts POOL` takes them; docs/team.md)",
            default="",
            default_doc='"default"',
            rules=(
                rule("letters, digits, '-', '_' or '.'", lambda v: _POOL.fullmatch(v) is not None),
            ),
            example="rack-a",
        ),
    ),
    field="hosts",
)

_INSTALL = Section(
    "install",
    Form.NAMED,
    "What is installed on a role's host at each checkout, after the build (a kernel, "
    "a ruleset): files copied from the worktree, then commands on the host.",
    (
        Setting(
            "files",
            STRINGS,
            "files of the worktree copied into the host's work directory ({hostdir})",
            default=[],
            rules=(NO_EMPTY_ITEM,),
            example=["ruleset.nft"],
        ),
        Setting(
            "steps",
            STRINGS,
            "shell commands run on the host, in its work directory, after the copy",
            default=[],
            rules=(NO_EMPTY_ITEM,),
            example=["nft -f ruleset.nft"],
        ),
        Setting("timeout", NUMBER, "seconds allowed per step", default=600, rules=(SECONDS,)),
        Setting(
            "reboot",
            BOOLEAN,
            "reboot the host after the steps and wait until it answers again",
            default=False,
        ),
    ),
    field="install",
)

_ANALYSIS = Section(
    "analysis",
    Form.TABLE,
    "Thresholds of the analysis; each metric may override them.",
    (
        Setting(
            "unstable_rsd",
            NUMBER,
            "relative standard deviation at or above which a repetition set is unstable",
            default=DEFAULT_UNSTABLE_RSD,
            rules=(SHARE,),
        ),
        Setting(
            "outlier",
            NUMBER,
            "relative distance of one value from the summary that marks it an outlier",
            default=DEFAULT_OUTLIER,
            rules=(SHARE,),
        ),
        Setting(
            "min_change",
            NUMBER,
            "the smallest relative change of a metric's level that is reported, however "
            "certain (0: every certain change); an instrument's exact count (instructions, "
            f"simulated cycles) has {EXACT_COUNT_MIN_CHANGE:g} of its own",
            default=DEFAULT_MIN_CHANGE,
            rules=(SHARE_OR_NONE,),
        ),
        Setting(
            "threshold",
            NUMBER,
            "standard errors a change of level must reach (the change detector's threshold; "
            "lower finds smaller changes and raises more false alarms)",
            default=DEFAULT_THRESHOLD,
            rules=(Z,),
        ),
        Setting(
            "min_size",
            INTEGER,
            "checkouts a level must hold at least (fewer at either end: reported at the "
            "edge, to confirm with more checkouts); an instrument's exact count has "
            f"{EXACT_COUNT_MIN_SIZE} of its own",
            default=DEFAULT_MIN_SIZE,
            rules=(COUNT,),
        ),
        Setting(
            "suspect_load",
            BOOLEAN,
            "mark a change suspect (shown, not to act on) when the machine's recorded state "
            "differs between its two sides in the sense that explains it; false = a "
            "benchmark known not to feel the machine's load (a simulator, a count of "
            "instructions) is judged on its values alone, the state still recorded and shown",
            default=True,
        ),
    ),
)

_METRICS = Section(
    "metrics",
    Form.NAMED,
    "Per value name (as the parser calls it), optional.",
    (
        Setting(
            "unit",
            STRING,
            "the value's unit, replacing the one the parser found",
            default=None,
            rules=(NOT_EMPTY,),
            default_doc="the parsed unit",
            example="bits/sec",
        ),
        Setting(
            "direction",
            STRING,
            "which way is better: higher or lower",
            default=None,
            rules=(one_of(*(d.value for d in Direction)),),
            finish=lambda value, _base: Direction(value),
            default_doc="from the unit (rates higher, times and sizes lower)",
            example="higher",
        ),
        Setting(
            "summary",
            STRING,
            "the one number of a repetition set: mean, median or best",
            default=DEFAULT_SUMMARY,
            rules=(one_of(*SUMMARIES),),
        ),
        Setting(
            "unstable_rsd",
            NUMBER,
            "this metric's analysis.unstable_rsd",
            default=None,
            rules=(SHARE,),
            default_doc="analysis.unstable_rsd",
            example=0.05,
        ),
        Setting(
            "outlier",
            NUMBER,
            "this metric's analysis.outlier",
            default=None,
            rules=(SHARE,),
            default_doc="analysis.outlier",
            example=0.2,
        ),
        Setting(
            "min_change",
            NUMBER,
            "this metric's analysis.min_change",
            default=None,
            rules=(SHARE_OR_NONE,),
            default_doc="analysis.min_change",
            example=0.05,
        ),
        Setting(
            "threshold",
            NUMBER,
            "this metric's analysis.threshold",
            default=None,
            rules=(Z,),
            default_doc="analysis.threshold",
            example=6.0,
        ),
        Setting(
            "min_size",
            INTEGER,
            "this metric's analysis.min_size",
            default=None,
            rules=(COUNT,),
            default_doc="analysis.min_size",
            example=5,
        ),
        Setting(
            "ignore",
            BOOLEAN,
            "keep the values (tables, exports) but leave them out of the analysis (no "
            "change, finding or notification) and of the plots",
            default=False,
        ),
    ),
    field="metrics",
)

_SERVICE = Section(
    "service",
    Form.ARRAY,
    "A background service of the test (a server): started in the startup phase, "
    "waited for by a readiness check, stopped by its process id in the reset phase.",
    (
        Setting(
            "role",
            STRING,
            "the role whose host runs it",
            rules=(ROLE,),
            example="sink",
        ),
        Setting(
            "command",
            STRING,
            "the shell command of the service; its output goes to a log stored with the repetition",
            rules=(NOT_EMPTY,),
            example="iperf3 -s -p 5201",
        ),
        Setting(
            "ready_port",
            INTEGER,
            "ready once this TCP port accepts on the host; 0 = no port check",
            default=0,
            rules=(PORT,),
            example=5201,
        ),
        Setting(
            "ready_text",
            STRING,
            'ready once this text appears in the service\'s output; "" = no text check',
            default="",
            example="Server listening",
        ),
        Setting(
            "ready_timeout",
            NUMBER,
            "seconds allowed to become ready",
            default=30,
            rules=(SECONDS,),
        ),
    ),
    field="services",
)

_ROLES = Section(
    "roles",
    Form.NAMED,
    "What a role does in this test, phase by phase (optional): startup steps, run "
    "commands started together with the test's command behind a start barrier, collect "
    "commands and files, reset steps (always run).",
    (
        Setting(
            "startup",
            STRINGS,
            "shell commands run in order before the run phase",
            default=[],
            rules=(NO_EMPTY_ITEM,),
            example=["sysctl -w net.ipv4.ip_forward=1"],
        ),
        Setting(
            "run",
            STRINGS,
            "shell commands run in order, started at the same moment as the test's command",
            default=[],
            rules=(NO_EMPTY_ITEM,),
            example=["vmstat 1 3"],
        ),
        Setting(
            "collect",
            STRINGS,
            "shell commands run after the run phase; their output is stored",
            default=[],
            rules=(NO_EMPTY_ITEM,),
            example=["nstat -a"],
        ),
        Setting(
            "fetch",
            STRINGS,
            "files fetched from the host after the run phase, stored as artifacts; a relative "
            "path is looked up where the host's commands run (the worktree on the local host, "
            "{hostdir} on an ssh host)",
            default=[],
            rules=(NO_EMPTY_ITEM,),
            example=["/var/log/kern.log"],
        ),
        Setting(
            "reset",
            STRINGS,
            "shell commands run at the end, whatever happened before",
            default=[],
            rules=(NO_EMPTY_ITEM,),
            example=["sysctl -w net.ipv4.ip_forward=0"],
        ),
        Setting(
            "parser",
            STRING,
            "a parser for the output of the run commands; its values are stored with the "
            'test\'s, named <role>.<value>; "" = none',
            default="",
            rules=(one_of("", *PARSER_NAMES),),
            example="value",
        ),
        Setting(
            "parser_options",
            TABLE,
            "options of that parser",
            default={},
        ),
    ),
    field="roles",
)

#: What [test.profile] records: nothing, Linux perf, or a profiler command.
PROFILE_TOOLS = ("", "perf", "command")
#: Which repetitions are profiled: one more, uncounted, per checkout; or every one.
PROFILE_REPETITIONS = ("extra", "all")
#: The placeholder of a profiler command for the file it writes its folded stacks to.
PROFILE_FILE = "profile"
MAX_FREQUENCY = 100_000
FREQUENCY = rule(f"1 to {MAX_FREQUENCY} (samples per second)", lambda v: 1 <= v <= MAX_FREQUENCY)
PERF_EVENT = rule(
    'a perf event name (cpu-clock, cycles, task-clock:u…) or "" for perf\'s default',
    lambda value: re.fullmatch(r"[A-Za-z0-9_.:/=,-]*", value) is not None,
)

_PROFILE = Section(
    "profile",
    Form.TABLE,
    "Profiles of the test's command (optional): where it runs, under a sampling profiler, "
    "whose call stacks are stored per checkout (folded, compressed, bounded) and compared "
    'between a culprit and its parent by `perfwalk drill`. With `tool = "perf"` the '
    "command runs under `perf record -g -F <frequency> -e <event>` on its host (Debian: "
    "linux-perf; `kernel.perf_event_paranoid` ≤ 2 or root) and `perf script` is read back; "
    'with `tool = "command"` under any profiler that writes folded stacks. With '
    '`repetitions = "extra"` each checkout gets one more run of the test, profiled, after '
    "its counted repetitions: its values are kept with the profile and never counted in "
    "summaries, changes, drills or tries. A profiler that is missing or fails never costs "
    "the test its values: the profile is recorded as failed (XFAIL, with the reason) and "
    "the test keeps its status. Nothing a profiler writes can stop a walk or a publish: "
    f"at most {MOST_PROFILE_BYTES >> 20} MiB of its output are read (the first and last "
    f"halves of more); a stack deeper than {MOST_FRAMES} frames keeps its "
    f"{MOST_FRAMES - 2} outermost frames and its leaf, the frames between folded into one "
    f"`[… N frames]`; a count of a stack, or of the whole profile, beyond {MOST_SAMPLES} "
    "samples is counted as that; then `limit` below applies. What a bound changed is "
    "said in the profile's note, shown above its flame graph.",
    (
        Setting(
            "tool",
            STRING,
            '"perf" (Linux perf), "command" (the profiler command below) or "" (no profile)',
            default="",
            rules=(one_of(*PROFILE_TOOLS),),
            example="perf",
        ),
        Setting(
            "frequency",
            INTEGER,
            "samples per second (perf record -F)",
            default=999,
            rules=(FREQUENCY,),
        ),
        Setting(
            "min_samples",
            INTEGER,
            "the fewest samples a side of a differential profile (a drill's culprit and its "
            "parent, a try's A and B) should have: with fewer, its page and `perfwalk drill` "
            "warn that one sample moves a share by more than the table can tell apart, and "
            "suggest a higher frequency",
            default=500,
            rules=(COUNT,),
        ),
        Setting(
            "event",
            STRING,
            "the sampled perf event (perf record -e); cpu-clock is a software event that "
            'works where there are no hardware counters (virtual machines); "" = perf\'s '
            "default (cycles)",
            default="cpu-clock",
            rules=(PERF_EVENT,),
        ),
        Setting(
            "command",
            STRING,
            "with tool = \"command\": the profiler's command line, placed before the test's "
            "command (run as `sh -c <command>`); it writes folded stacks (`a;b;c 12` lines) "
            f"to the file {{{PROFILE_FILE}}}",
            default="",
            example="py-spy record -r 999 -f raw --subprocesses -o {profile} --",
        ),
        Setting(
            "repetitions",
            STRING,
            '"extra": one more profiled run per checkout, never counted; "all": every '
            "repetition profiled (its values counted: the profiler's cost is in them)",
            default="extra",
            rules=(one_of(*PROFILE_REPETITIONS),),
        ),
        Setting(
            "limit",
            INTEGER,
            "bytes of folded stacks stored per profile (before compression); beyond it the "
            "heaviest stacks are kept and the profile says how many samples were cut",
            default=1 << 20,
            rules=(BYTES,),
        ),
        Setting(
            "role",
            STRING,
            'the role whose run commands are profiled (its [test.roles.<role>] run); "" = '
            "the test's command",
            default="",
            rules=(ROLE_OR_NONE,),
            example="dut",
        ),
    ),
)

_TEST_VALIDITY = Section(
    "validity",
    Form.TABLE,
    "What the test's benchmark is made of, for the warnings that it measures the wrong "
    'thing ([validity], docs/analysis.md "Benchmark validity"): the files of its hot '
    "path and the functions of its own harness.",
    (
        Setting(
            "hot_paths",
            STRINGS,
            "the files of the code the test measures, as paths in the repository (globs; a "
            "directory holds every file below it): a metric flat over many checkouts while "
            "many commits changed them is said; the files its profiles' frames name (a "
            "profiler that writes `function (file:line)` frames) count too",
            default=[],
            example=["src/hot.c", "src/net/"],
        ),
        Setting(
            "harness_frames",
            STRINGS,
            "the harness's own functions (globs over a profile's frames): samples spent in "
            "them, or below them, count as overhead with the clock's and the kernel entry's",
            default=[],
            example=["bench_loop_overhead", "harness_*"],
        ),
    ),
)

_INSTRUMENT = Section(
    "instrument",
    Form.ARRAY,
    "An instrument of the test (optional, several allowed, each kind once): a "
    "measurement of the test's command beside its own values, stored as values of the "
    "test with their unit and direction (lower is better), that the machine's load "
    "does not move (but CPU times, counted cycles and cache misses, involuntary context "
    "switches and major page faults): never suspect on the machine's recorded state "
    "(docs/analysis.md). "
    "docs/instruments.md says what each measures, how, and what it costs. Kinds and "
    "the metrics they add: "
    + "; ".join(
        f"`{kind}`: " + ", ".join(f"`{m.name}` ({m.unit})" for m in metrics)
        for kind, metrics in INSTRUMENT_METRICS.items()
    )
    + ".",
    (
        Setting(
            "kind",
            STRING,
            "what the instrument measures, one of: " + ", ".join(INSTRUMENT_KINDS),
            rules=(NOT_EMPTY,),
            example="rusage",
        ),
        Setting(
            "runs",
            STRING,
            '"all": every repetition of the test runs under the instrument (its own values '
            'too: the instrument\'s cost is in them); "extra": one more run per checkout, '
            "before its first repetition, under the instrument alone, whose values of the "
            "test are never counted (its instrument's metrics are stored with the first "
            "repetition): for an instrument that slows the test, such as cachegrind",
            default="all",
            rules=(one_of(*INSTRUMENT_RUNS),),
        ),
    ),
    field="instruments",
)

_DERIVED = Section(
    "derived",
    Form.ARRAY,
    "A derived metric of the test (optional, several allowed): a value computed at each "
    "repetition from the test's measured ones (and its sweep's parameters), stored, "
    "summarised, analysed, plotted and drilled like them. The expression is "
    "arithmetic: numbers, value names (a role's `sink.receiver`, an instrument's "
    '`rusage.user_cpu` when it runs in every repetition (`runs = "all"`), a derived '
    "metric declared before it; a name with other "
    "characters between quotes), `sweep.<parameter>`, `+ - * /` and parentheses; "
    "never Python. A value it cannot compute at a repetition (a name without a value "
    "there, a division by zero) is left out of that repetition, with the reason in "
    "its result's message; the test keeps its status and its other values. "
    "`[test.metrics.<name>]` may set its summary and thresholds like a measured "
    "value's. docs/sweeps.md has examples.",
    (
        Setting(
            "name",
            STRING,
            "the value's name, unique among the test's values",
            rules=(NAME,),
            example="line_rate",
        ),
        Setting(
            "expression",
            STRING,
            "how it is computed from the repetition's values",
            rules=(NOT_EMPTY,),
            finish=_expression,
            example="receiver / 10e9 * 100",
        ),
        Setting(
            "unit",
            STRING,
            "its unit",
            rules=(NOT_EMPTY,),
            example="%",
        ),
        Setting(
            "direction",
            STRING,
            "which way is better: higher or lower",
            default=None,
            rules=(one_of(*(d.value for d in Direction)),),
            finish=lambda value, _base: Direction(value),
            default_doc="from the unit (rates higher, times, sizes and % lower)",
            example="higher",
        ),
    ),
    field="derived",
)

_TEST = Section(
    "test",
    Form.ARRAY,
    "A test: one command whose output a parser turns into values. With "
    "`[test.sweep]`, one test per combination of its parameters' values "
    "(docs/sweeps.md).",
    (
        Setting(
            "name",
            STRING,
            "the test's stable id, unique; never derived from the command",
            rules=(NAME,),
            example="latency",
        ),
        Setting(
            "command",
            STRING,
            "a shell command run in the checkout's worktree",
            rules=(NOT_EMPTY,),
            example="./bench",
        ),
        Setting(
            "parser",
            STRING,
            "the parser that reads the command's output; docs/parsers.md lists each with its "
            "options and the values it stores, and `perfwalk parse` tries one on a saved output",
            rules=(one_of(*PARSER_NAMES),),
            example="value",
        ),
        Setting(
            "parser_options",
            TABLE,
            "options of the parser (regex: pattern, name, unit, units, scale; hdrhistogram, "
            "bpftrace-hist, dtrace-quantize: percentiles, unit, name; see docs/parsers.md)",
            default={},
        ),
        Setting("timeout", NUMBER, "seconds allowed per run", default=600, rules=(SECONDS,)),
        Setting(
            "parse_timeout",
            NUMBER,
            "seconds the parsers (the test's and its roles') may take on one output; a parse "
            "that takes longer is stopped and the test is FAIL",
            default=30,
            rules=(SECONDS,),
        ),
        Setting(
            "env",
            ENV,
            "extra environment variables for the command; secret ones are shown as *** "
            "(see Secrets)",
            default={},
            rules=(ENV_NAMES,),
            example={"LC_ALL": "C"},
        ),
        Setting(
            "role",
            STRING,
            'the role whose host runs the command (in its work directory); "" = the [run] '
            "host, in the checkout's worktree",
            default="",
            rules=(ROLE_OR_NONE,),
            example="source",
        ),
        Setting(
            "phase_timeout",
            NUMBER,
            "seconds allowed per startup, collect and reset step",
            default=120,
            rules=(SECONDS,),
        ),
        Setting(
            "warmup",
            INTEGER,
            "this test's run.warmup: uncounted runs before its first repetition at a checkout",
            default=None,
            rules=(WARMUPS,),
            default_doc="run.warmup",
            example=2,
        ),
        Setting(
            "cpus",
            STRING,
            "this test's run.cpus: the CPUs its command runs on (taskset -c)",
            default=None,
            rules=(CPU_LIST,),
            default_doc="run.cpus",
            example="2-3",
        ),
        Setting(
            "group",
            STRING,
            "the group of tests it belongs to (net, fs…): `perfwalk run --tests <group>` "
            "runs the group's tests only, and show, changes and report show them only; a "
            'group may not have the name of a test; "" = none',
            default="",
            rules=(rule("letters, digits, _ . - only, or empty", lambda v: v == "" or _named(v)),),
            example="net",
        ),
        Setting(
            "description",
            STRING,
            "what the test measures, in one line: shown on its plots",
            default="",
            rules=(ONE_LINE,),
            example="UDP throughput from source to sink through the DUT",
        ),
        Setting(
            "sweep",
            SWEEP_TABLE,
            "parameters and their values: the test stands for one test per combination, "
            "named <name>[<parameter>=<value>,…] (parameters in alphabetical order), whose "
            "commands get each value as {sweep.<parameter>} (one shell-quoted word)",
            default={},
            rules=(SWEEP,),
            example={"size": [64, 512, 1500], "streams": [1, 10]},
        ),
    ),
    sections=(_METRICS, _SERVICE, _ROLES, _PROFILE, _INSTRUMENT, _DERIVED, _TEST_VALIDITY),
    field="tests",
    min_items=1,
)

_SNAPSHOT = Section(
    "snapshot",
    Form.ARRAY,
    "A snapshot of counters (netstat -s, nstat -az, vmstat -s, /proc/interrupts): a "
    "command run on chosen roles' hosts right before each test's run phase (after its "
    "startup) and right after it (before its collect phase), as the kernel lab diffed "
    "netstat and vmstat around each test. Both outputs are stored as steps of the "
    "repetition (phases snapshot-before and snapshot-after) with the counters read from "
    "them; the checkout page shows, per repetition, role and snapshot, the counters "
    "that changed (before, after, difference), largest change first; at each change, "
    "the counters whose change per unit of work (per) coincides with the step are "
    "ranked (docs/analysis.md, What moved with it). A snapshot that "
    "fails (a command that fails or times out, an output without a counter) is shown "
    "as such with its output and leaves the test's status as it is: it observes the "
    "test, it is not part of it.",
    (
        Setting(
            "name",
            STRING,
            "the snapshot's stable id, unique in this file",
            rules=(NAME,),
            example="netstat",
        ),
        Setting(
            "command",
            STRING,
            "a shell command that prints counters, run as written (no placeholders) where "
            "the host's commands run",
            rules=(NOT_EMPTY,),
            example="nstat -az",
        ),
        Setting(
            "roles",
            STRINGS,
            "the roles whose hosts it runs on; [] = the host of each test's command (its "
            "role, else the [run] host)",
            default=[],
            rules=(ROLES,),
            example=["dut"],
        ),
        Setting(
            "tests",
            STRINGS,
            "the tests (by name) it runs around; [] = every test",
            default=[],
            rules=(
                rule(
                    "names of [[test]]s",
                    lambda value: all(re.fullmatch(r"[A-Za-z0-9_.-]+", item) for item in value),
                ),
            ),
            example=["git-log"],
        ),
        Setting(
            "parser",
            STRING,
            "how its output becomes counters: counters (lines of a name and a number, or "
            "a number and a name, as nstat -az, netstat -s and vmstat -s print them, and "
            "/proc/net/snmp's tables) or proc-interrupts (/proc/interrupts, each "
            "interrupt's per-CPU counts summed)",
            default="counters",
            rules=(one_of(*SNAPSHOT_PARSER_NAMES),),
        ),
        Setting(
            "per",
            STRINGS,
            "the unit of work of its counters around a test, as TEST.METRIC (a metric of "
            "that test: packets, bytes, operations): at a change, each counter's "
            "difference is divided by that metric's value in the same repetition to say "
            "what moved with it (docs/analysis.md, What moved with it); a test not named "
            "here: per second between the two snapshots",
            default=[],
            rules=(
                rule(
                    "TEST.METRIC, a test at most once",
                    lambda value: (
                        all(re.fullmatch(r"[A-Za-z0-9_-]+\.\S+", item) for item in value)
                        and len({item.split(".", 1)[0] for item in value}) == len(value)
                    ),
                ),
            ),
            example=["git-log.seconds"],
        ),
        Setting(
            "timeout",
            NUMBER,
            "seconds allowed to each run of the command",
            default=30,
            rules=(SECONDS,),
        ),
    ),
    field="snapshots",
)

_QUIRK_TEST = Section(
    "test",
    Form.NAMED,
    "What a quirk over a range changes in the test of that name (a test of [[test]]) "
    "at the checkouts it holds for: its command, its parser or the parser's options. "
    "What is not set stays the test's; a test's roles and services are not changed.",
    (
        Setting(
            "command",
            STRING,
            "a shell command run instead of the test's command; \"\" = the test's",
            default="",
            example="./bench --old-output",
        ),
        Setting(
            "parser",
            STRING,
            "the parser that reads the output instead of the test's; \"\" = the test's",
            default="",
            rules=(one_of("", *PARSER_NAMES),),
            example="value",
        ),
        Setting(
            "parser_options",
            TABLE,
            "options of the parser: with parser set, its options (none when empty); without, "
            "the test's parser with these options instead of the test's (the test's when empty)",
            default={},
        ),
    ),
    field="tests",
)

_QUIRK = Section(
    "quirk",
    Form.ARRAY,
    "A known event of the history, drawn as a lettered marker (A…Z, a…z, A′…, by date) on "
    "every plot and table. A quirk does one or both of two things. **When the walk "
    "crosses `at`** (between two checkouts, or before the first build with `[run] "
    "quirks_since`), its commands run in the worktree, then the ssh hosts reboot with "
    "`reboot = true`: a tool to rebuild, a machine to update; the letter marks that "
    "checkout. **Over a range** `[at, until)`, at every checkout in it: its patch is "
    "applied, its `build_steps` replace `[build] steps` and its `[quirk.test.<name>]` "
    "tables replace a test's command or parser (old checkouts that need another make "
    "target, a benchmark whose output changed format); the letter marks every checkout "
    "of the range, and each keeps a quirk log saying what was replaced (the build log "
    "and each result keep the commands that ran). Where ranges overlap, the later quirk's "
    "build steps and test replacements win. `perfwalk changes` names a quirk as the "
    "known cause of a change only when the walk crossed `at`, or the range started or "
    "ended, between the change's two checkouts. A resumed walk does not run again the "
    "commands of a quirk that already ran (PASS) at a checkout.",
    (
        Setting(
            "at",
            WHEN,
            "where it starts: a date or a commit-ish (resolved by the walk)",
            rules=(NOT_EMPTY, DATE_OR_REV),
            example="2024-03-01",
        ),
        Setting(
            "until",
            WHEN,
            "where its range ends (exclusive): a date or a commit-ish; only with a patch, "
            'build_steps or [quirk.test.<name>]; "" = no end',
            default="",
            rules=(DATE_OR_REV,),
            example="2024-04-01",
        ),
        Setting(
            "comment",
            STRING,
            "what happened, shown in the quirk legend",
            rules=(NOT_EMPTY,),
            example="the build needs the new tool",
        ),
        Setting(
            "commands",
            STRINGS,
            "shell commands run in the worktree when the walk crosses `at`",
            default=[],
            rules=(NO_EMPTY_ITEM,),
            example=["make -C tools install"],
        ),
        Setting(
            "patch",
            STRING,
            'a patch file (relative to this file) applied to checkouts in [at, until); "" = none',
            default="",
            finish=_user_file_or_none("patch file"),
            example="patches/fix-build.diff",
        ),
        Setting(
            "build_steps",
            STRINGS,
            "shell commands that replace [build] steps (and a rebuild between repetitions) "
            "for checkouts in [at, until); [] = the [build] steps",
            default=[],
            rules=(NO_EMPTY_ITEM,),
            example=["make old-target"],
        ),
        Setting(
            "reboot",
            BOOLEAN,
            "reboot the ssh hosts of the run when the walk crosses `at`, after the commands",
            default=False,
        ),
    ),
    sections=(_QUIRK_TEST,),
    field="quirks",
)


_RELEASE = Section(
    "release",
    Form.ARRAY,
    "A release of the project, drawn as a labelled vertical line on every plot and offered "
    'as a window above the plots ("7.4 → 7.5", "7.5 → now") that zooms every plot of '
    "the page to the checkouts between two releases. Releases only mark the pages: they "
    "change nothing measured, nor the configuration hash of a series. `at` is resolved "
    "when the site is published: a date as it is, a commit-ish to its commit's date in "
    "the project's repository (one it cannot resolve stops the publish, naming the "
    "release); without a repository to read, releases given by a commit-ish are left "
    "out with a warning.",
    (
        Setting(
            "name",
            STRING,
            "the release's name as the plots and the window selector show it, unique in this file",
            rules=(NOT_EMPTY,),
            example="7.4",
        ),
        Setting(
            "at",
            WHEN,
            "when it was released: a date or a commit-ish (a tag) of the project",
            rules=(NOT_EMPTY, DATE_OR_REV),
            example="v7.4",
        ),
        Setting(
            "comment",
            STRING,
            'what the release was, shown in the tooltip of its line; "" = none',
            default="",
        ),
    ),
    field="releases",
)


#: A named walk's name: it names its series in the store and on the command line.
WALK_NAME = rule(
    "a letter, then letters, digits, _ and - (at most 64)",
    lambda value: re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]{0,63}", value) is not None,
)

_WALK = Section(
    "walk",
    Form.ARRAY,
    "A named walk: `perfwalk run --walk <name>` continues it, from the last checkout it "
    "measured to the newest commit of its branch at its step (a walk that never ran starts "
    "at `from`); its checkouts are appended to one series, found in the store by the walk's "
    "name, and nothing measured already is measured again. What is not set is taken from "
    "[run] and [project].",
    (
        Setting(
            "name",
            STRING,
            "the walk's name, unique in this file",
            rules=(WALK_NAME,),
            example="nightly",
        ),
        Setting(
            "from",
            WHEN,
            "where the walk starts the first time it runs: a date or a commit-ish",
            default=None,
            rules=(DATE_OR_REV,),
            field="from_",
            default_doc="run.from",
            example="2024-01-01",
        ),
        Setting(
            "to",
            WHEN,
            "where each run of the walk ends: a date or a commit-ish (HEAD is the tip of its "
            "branch)",
            default=None,
            rules=(NOT_EMPTY, DATE_OR_REV),
            default_doc="run.to",
            example="HEAD",
        ),
        Setting(
            "step",
            STRING,
            "the distance between checkouts: a duration (1day, 1week…), commit or commit/N",
            default=None,
            rules=(STEP,),
            default_doc="run.step",
            example="1day",
        ),
        Setting(
            "repetitions",
            INTEGER,
            "how many times the tests run at each checkout",
            default=None,
            rules=(COUNT,),
            default_doc="run.repetitions",
            example=5,
        ),
        Setting(
            "branch",
            STRING,
            "the line whose first-parent history the walk follows",
            default=None,
            rules=(NOT_EMPTY, REVISION),
            default_doc="project.branch",
            example="main",
        ),
        Setting(
            "host",
            STRING,
            "where this walk's tests without a role run: local, a host of [hosts], or an ssh "
            "destination; `perfwalk watch` runs walks on disjoint hosts at the same time and "
            "queues those that share one",
            default=None,
            rules=(HOST,),
            default_doc="run.host",
            example="bench-2",
        ),
        Setting(
            "variants",
            STRINGS,
            "the [[variant]]s measured at each checkout besides the plain one, each in a "
            "series of its own (as `perfwalk run --variants`)",
            default=[],
            rules=(NO_EMPTY_ITEM,),
            example=["notso"],
        ),
    ),
    field="walks",
)

#: A variant's name: the plain checkout is "base".
BASE_VARIANT = "base"

_MODIFIER = Section(
    "modifier",
    Form.ARRAY,
    "A runtime modifier of the variant: commands run on a role's host in the startup "
    "phase of each of its tests (before the test's own startup steps) and undone in the "
    "reset phase (after the test's own reset steps), which always runs: after a failure, "
    "a timeout or Ctrl-C too. A modifier that fails to apply makes the test NOEXIST; one "
    "that fails to undo makes it NOCLEAN. While in place it is recorded in the store: a "
    "walk killed meanwhile (`kill -9`) leaves it to the next walk on that host, which "
    "runs its undo commands before it measures, or does not start when they fail "
    "(docs/ab.md).",
    (
        Setting(
            "role",
            STRING,
            'the role whose host the commands run on; "" = the [run] host',
            default="",
            rules=(ROLE_OR_NONE,),
            example="dut",
        ),
        Setting(
            "apply",
            STRINGS,
            "shell commands that put the modifier in place",
            rules=(NOT_EMPTY, NO_EMPTY_ITEM),
            example=["sysctl -w net.ipv4.tcp_congestion_control=reno"],
        ),
        Setting(
            "undo",
            STRINGS,
            "shell commands that take it away again",
            rules=(NOT_EMPTY, NO_EMPTY_ITEM),
            example=["sysctl -w net.ipv4.tcp_congestion_control=cubic"],
        ),
    ),
    field="modifiers",
)

_VARIANT = Section(
    "variant",
    Form.ARRAY,
    "An A/B variant of every checkout, measured beside the plain one in the same walk "
    "(`perfwalk run --variants NAME,…`, `perfwalk try --variant NAME`): patches applied "
    "to the checkout before its build, build environment or steps of its own, and "
    "runtime modifiers undone after each test. Each variant's repetitions are "
    "interleaved with those of the plain checkout, the variant `base`, in a seeded "
    "shuffled order. A variant named `base` says what the plain checkout is (e.g. a "
    "modifier every walk runs with). A variant with patches, build_env or build_steps "
    "is built in a worktree of its own; a patch that does not apply marks that "
    "variant's checkout NOEXIST (with git's reject), the other variants go on.",
    (
        Setting(
            "name",
            STRING,
            "the variant's name, unique in this file; `base` is the plain checkout",
            rules=(WALK_NAME,),
            example="notso",
        ),
        Setting(
            "comment",
            STRING,
            "what the variant is, shown on the pages",
            default="",
            example="TSO off on the dut",
        ),
        Setting(
            "patches",
            STRINGS,
            "patch files (relative to this file) applied in order to the checkout before "
            "its build, after the patches of the quirks that hold there",
            default=[],
            rules=(NO_EMPTY_ITEM,),
            finish=_patch_files,
            example=["patches/fast-path.diff"],
        ),
        Setting(
            "build_env",
            ENV,
            "environment variables added to [build] env for this variant's build",
            default={},
            rules=(ENV_NAMES,),
            example={"CFLAGS": "-O3"},
        ),
        Setting(
            "build_steps",
            STRINGS,
            "shell commands that replace [build] steps for this variant; [] = the [build] "
            "steps (or a quirk's)",
            default=[],
            rules=(NO_EMPTY_ITEM,),
            example=["make CFLAGS=-O3"],
        ),
        Setting(
            "run_env",
            ENV,
            "environment variables of this variant's tests (under a test's own env): a "
            "library path, an allocator's setting",
            default={},
            rules=(ENV_NAMES,),
            example={"MALLOC_ARENA_MAX": "2"},
        ),
        Setting(
            "layout",
            STRING,
            "the layout of this variant's build, as [build] layout says (a walk measures "
            'several layouts side by side); "" = [build] layout',
            default="",
            rules=(one_of("", *LAYOUTS),),
            example="random",
        ),
    ),
    sections=(_MODIFIER,),
    field="variants",
)

_ENVIRONMENT = Section(
    "environment",
    Form.ARRAY,
    "An environment a commit can be measured in, other than the walk's own: a toolchain "
    "(its build environment or build steps), a library path or a setting of the tests "
    "(their environment), a host (another kernel, another machine), a container image. "
    "`perfwalk drill-env` measures a change's two commits in each "
    "environment named, in the order given (oldest first), to tell whether a step follows "
    "the code or the environment (docs/drill.md).",
    (
        Setting(
            "name",
            STRING,
            "the environment's name, unique in this file",
            rules=(WALK_NAME,),
            example="gcc-13",
        ),
        Setting(
            "comment",
            STRING,
            "what the environment is, shown on the pages",
            default="",
            example="the toolchain of the new CI image",
        ),
        Setting(
            "build_env",
            ENV,
            "environment variables added to [build] env for a build in this environment",
            default={},
            rules=(ENV_NAMES,),
            example={"CC": "gcc-13"},
        ),
        Setting(
            "build_steps",
            STRINGS,
            "shell commands that replace [build] steps in this environment; [] = the [build] steps",
            default=[],
            rules=(NO_EMPTY_ITEM,),
            example=["make CC=/opt/gcc-13/bin/gcc"],
        ),
        Setting(
            "run_env",
            ENV,
            "environment variables of the tests in this environment (under a test's own env)",
            default={},
            rules=(ENV_NAMES,),
            example={"LD_LIBRARY_PATH": "/opt/libc-2.36/lib"},
        ),
        Setting(
            "host",
            STRING,
            "the host that builds and runs the tests in this environment (those without a "
            "role), in the place of [run] host: a host of [hosts], local, or an ssh "
            'destination (another kernel, another machine); "" = [run] host',
            default="",
            rules=(HOST_OR_NONE,),
            example="dut-kernel-6",
        ),
        Setting(
            "image",
            STRING,
            "a container image the builds and tests of this environment run in, on its "
            "host, through engine: the worktrees, the project's repository, the run's work "
            'directory and this file\'s folder are mounted at the same paths; "" = none',
            default="",
            rules=(IMAGE,),
            example="registry.example.org/ci/debian-13:2026-11",
        ),
        Setting(
            "engine",
            STRINGS,
            "the command that runs one command in image (perfwalk adds --name, -v, -w, -e "
            "NAME, the image and the command; NAME's value passes in the engine's "
            'environment); docker: ["docker", "run", "--rm", "--network=host"]',
            default=["podman", "run", "--rm", "--network=host"],
            rules=(NO_EMPTY_ITEM, NOT_EMPTY),
        ),
    ),
    field="environments",
)

#: The confidence levels of ministat's Student's t table, which a try decides at.
TRY_CONFIDENCES = (80.0, 90.0, 95.0, 98.0, 99.0, 99.5)

_TRY = Section(
    "try",
    Form.TABLE,
    "`perfwalk try`: how sure it must be before it stops, and how long it may go on. A "
    "try builds its two sides once, then alternates their repetitions A B B A … and "
    "stops as soon as a sequential test decides every metric (a difference either way, "
    "or equivalence within the metric's min_change) or at max_repetitions per side.",
    (
        Setting(
            "confidence",
            NUMBER,
            "the confidence (%) of its verdicts, corrected for looking after every pair",
            default=95.0,
            rules=(
                rule(
                    "one of ministat's levels: 80, 90, 95, 98, 99, 99.5",
                    lambda value: value in TRY_CONFIDENCES,
                ),
            ),
        ),
        Setting(
            "max_repetitions",
            INTEGER,
            "the most repetitions per side before it stops undecided",
            default=30,
            rules=(rule("3 to 1000", lambda value: 3 <= value <= 1000),),
        ),
    ),
    field="try_",
)

_DRILL = Section(
    "drill",
    Form.TABLE,
    "`perfwalk drill`: what it does once it named a culprit. With `prove`, it undoes the "
    "culprit on today's tip of the walk's branch (its revert as a patch) and measures the "
    "tip with the revert against the tip as `perfwalk try` does, with [try]'s confidence: "
    "the cost still there, gone since, or the revert does not apply (`perfwalk prove`, "
    "docs/drill.md).",
    (
        Setting(
            "prove",
            BOOLEAN,
            "after a drill names a culprit, prove it on today's tip of the branch; false = "
            "only with `perfwalk prove` (a watch cycle proves by [watch] prove)",
            default=False,
        ),
        Setting(
            "prove_repetitions",
            INTEGER,
            "the most repetitions per side of a proof before it stops undecided",
            default=20,
            rules=(rule("3 to 1000", lambda value: 3 <= value <= 1000),),
        ),
    ),
)

#: the frames of the clock, matched anywhere in a stack (a sample below one is the clock's)
CLOCK_FRAMES = (
    "clock_gettime*",
    "__clock_gettime*",
    "gettimeofday*",
    "__gettimeofday*",
    "__vdso_*",
    "__cvdso_*",
    "[vdso]",
    "*sys_clock_gettime*",
    "*sys_gettimeofday*",
)
#: the frames of entering and leaving the kernel, matched at a stack's leaf only (the
#: work of a system call below them is the benchmark's, not overhead)
SYSCALL_FRAMES = (
    "entry_SYSCALL*",
    "entry_SYSENTER*",
    "syscall_return_via_sysret",
    "do_syscall_64",
    "syscall_enter_from_user_mode*",
    "syscall_exit_to_user_mode*",
    "exit_to_user_mode*",
    "el0_svc*",
)
#: the parsers whose time values are a command's own timing of what it ran (not a time
#: per iteration of a loop a harness sized, nor a latency or jitter a tool reports): the
#: only ones [validity]'s resolution and floor judge
TIMED_PARSERS = ("value", "regex", "time-p", "gnu-time", "hyperfine")
FRACTION = rule("> 0 and < 1", lambda value: 0 < value < 1)

_VALIDITY = Section(
    "validity",
    Form.TABLE,
    "The warnings that a benchmark measures the wrong thing, each with its evidence, on "
    'its series\' page and in `perfwalk show` (docs/analysis.md "Benchmark validity"): '
    "its profile mostly the clock, the kernel's entry or its harness; a receiver far below "
    "its sender; a metric flat while its hot path changed many times; a run shorter than "
    "its timer can tell. Their patterns and thresholds; a test's own hot path and harness "
    "are in its [test.validity].",
    (
        Setting(
            "overhead_share",
            NUMBER,
            "the share of a test's profiled samples in the clock, the kernel's entry and "
            "its harness above which it is said to measure them",
            default=0.5,
            rules=(FRACTION,),
        ),
        Setting(
            "clock_frames",
            STRINGS,
            "the clock's frames (globs), matched anywhere in a stack",
            default=list(CLOCK_FRAMES),
        ),
        Setting(
            "syscall_frames",
            STRINGS,
            "the frames of entering and leaving the kernel (globs), matched at a stack's "
            "leaf only: the work of a system call is the benchmark's",
            default=list(SYSCALL_FRAMES),
        ),
        Setting(
            "receiver_share",
            NUMBER,
            "a test's `receiver` below this share of its `sender` (the median over its "
            "checkouts) measures what is dropped, not throughput",
            default=0.5,
            rules=(FRACTION,),
        ),
        Setting(
            "flat_within",
            NUMBER,
            "a metric is flat over checkouts whose summaries (by its summary policy) stay "
            "within ± this share of each other",
            default=0.005,
            rules=(FRACTION,),
        ),
        Setting(
            "flat_checkouts",
            INTEGER,
            "the fewest checkouts of a flat stretch that is said",
            default=20,
            rules=(rule("2 to 100000", lambda value: 2 <= value <= 100_000),),
        ),
        Setting(
            "flat_commits",
            INTEGER,
            "the fewest commits changing the test's hot path during a flat stretch that "
            "make it said",
            default=10,
            rules=(COUNT,),
        ),
        Setting(
            "resolution_ticks",
            INTEGER,
            "a time metric whose values are multiples of one step (its timer's resolution, "
            "as its values show it) with a median under this many steps, or with a value of "
            "0, is said to finish under its timer's resolution (the metrics of the parsers "
            + ", ".join(TIMED_PARSERS)
            + " only: a command's own timing of what it ran)",
            default=10,
            rules=(COUNT,),
        ),
        Setting(
            "time_floor",
            NUMBER,
            "seconds: a time metric whose median per repetition (over its newest 50 "
            "checkouts) is below it is said to time a region too short to measure (the "
            "parsers of resolution_ticks only); 0 = never",
            default=1e-5,
            rules=(rule(">= 0 and at most 1", lambda value: 0 <= value <= 1),),
        ),
    ),
)

_WATCH = Section(
    "watch",
    Form.TABLE,
    "The daily loop: `perfwalk watch --once` continues every [[walk]], finds the changes, "
    "drills the new ones within a budget, publishes the site and notifies; `perfwalk "
    "watch` repeats it every `interval`.",
    (
        Setting(
            "site",
            STRING,
            "where the site is published, relative to this file (by `perfwalk watch`, and "
            "by `perfwalk report` and `serve` without --out); `perfwalk regress publish` "
            "without --site writes the regress matrix in its regress/",
            default="site",
            rules=(NOT_EMPTY,),
            finish=_path,
        ),
        Setting(
            "interval",
            NUMBER,
            "seconds from the start of one cycle of `perfwalk watch` to the start of the next",
            default=86400,
            rules=(SECONDS,),
            example=3600,
        ),
        Setting(
            "drill_builds",
            INTEGER,
            "the builds all the drills of one cycle may spend together; a change left "
            "undrilled is drilled by the next cycle; 0 = drill nothing",
            default=20,
            rules=(rule("0 to 10000", lambda value: 0 <= value <= 10_000),),
        ),
        Setting(
            "drill_repetitions",
            INTEGER,
            "the repetitions all the drills of one cycle may run together",
            default=200,
            rules=(rule("0 to 1000000", lambda value: 0 <= value <= 1_000_000),),
        ),
        Setting(
            "prove",
            BOOLEAN,
            "every cycle proves the culprits its drills named on today's tip of their "
            "branch ([drill] prove), within what is left of drill_repetitions; false = never",
            default=True,
        ),
        Setting(
            "confirm",
            BOOLEAN,
            "every cycle re-measures, after the walks and before the drills and "
            "notifications, the changes of the named walks that a re-measure has not "
            "decided yet, as [run] confirm does (within confirm_repetitions and "
            "confirm_seconds per cycle); false = only with [run] confirm",
            default=True,
        ),
        Setting(
            "confirm_repetitions",
            INTEGER,
            "the repetitions (both sides counted) all the re-measures of one cycle may run "
            "together; a change left undecided is measured on by the next cycle",
            default=100,
            rules=(rule("0 to 1000000", lambda value: 0 <= value <= 1_000_000),),
        ),
        Setting(
            "confirm_seconds",
            NUMBER,
            "the seconds all the re-measures of one cycle may take together, their waits "
            "for a quiet machine included; 0 = no limit",
            default=3600,
            rules=(WAIT_SECONDS,),
        ),
        Setting(
            "schedule",
            STRING,
            "team mode: when the workers run a cycle, in cron syntax (minute hour day month "
            'weekday), once per period however many workers are up; "" = never '
            "(docs/team.md)",
            default="",
            rules=(rule("five cron fields, e.g. 0 3 * * *", _cron_ok),),
            example="0 3 * * *",
        ),
        Setting(
            "stale_after",
            NUMBER,
            "seconds after the end of the last walk or watch cycle when the index's "
            '"last night" strip turns red and `perfwalk status` says the runs stopped; '
            "0 = twice the schedule (the longest gap between two times of `schedule`, "
            "else `interval`)",
            default=0,
            rules=(WAIT_SECONDS,),
            example=172800,
        ),
    ),
)


def _size_problem(value: str) -> str | None:
    try:
        read_bytes(value)
    except ValueError as err:
        return str(err)
    return None


def _size(value: str, _base: Path) -> int:
    return read_bytes(value)


#: ``[retention] older_than``, and ``perfwalk prune --older-than``: days
RETENTION_DAYS = rule("1 to 36500 (a hundred years)", lambda value: 1 <= value <= 36_500)

_RETENTION = Section(
    "retention",
    Form.TABLE,
    "What `perfwalk prune` drops by default, and what `perfwalk watch` drops at the end of "
    "each cycle when either key is set (nothing is dropped unless asked): the logs and "
    "the profiles' stacks of old checkouts. Every value, summary, status, triage and "
    "drill answer is kept, and so are the logs of the checkouts a change, a break or a "
    "drill points at and of the newest checkout of each series (docs/retention.md).",
    (
        Setting(
            "older_than",
            INTEGER,
            "days: the outputs of the checkouts measured longer ago are dropped",
            default=None,
            rules=(RETENTION_DAYS,),
            default_doc="no age limit",
            example=90,
        ),
        Setting(
            "max_size",
            STRING,
            "the most the logs and profiles may take in the store (stored, compressed): "
            "beyond it, the outputs of the checkouts measured longest ago are dropped "
            "first; binary K, M, G, T (500M, 2GiB), SI kB, MB, GB, TB, or bytes",
            default=None,
            rules=(Rule("a size such as 500M, 2GiB, 1.5GB or 4096", _size_problem),),
            finish=_size,
            default_doc="no size limit",
            example="10GiB",
        ),
    ),
)


def _source_url_problem(value: str) -> str | None:
    if value == "":
        return None
    try:
        value.format(path="x", commit="0")
    except (KeyError, IndexError, ValueError) as error:
        return f"expected only the placeholders {{path}} and {{commit}} in {value!r} ({error})"
    if "{path}" not in value:
        return f"expected a URL containing {{path}}, got {value!r}"
    return None


def _regex_problem(value: str) -> str | None:
    try:
        re.compile(value)
    except re.error as error:
        return f"expected a regular expression, got {value!r} ({error})"
    return None


SOURCE_URL = Rule("a URL containing {path} (and optionally {commit})", _source_url_problem)
REGEX = Rule("a Python regular expression", _regex_problem)
PRINTABLE = rule("printable text", lambda value: value.isprintable())

_REGRESS_TEST = Section(
    "test",
    Form.ARRAY,
    "A test of the suite: a test directory (its command runs in it) or a command.",
    (
        Setting(
            "name",
            STRING,
            "the test's id in the matrix, unique",
            default="",
            rules=(PRINTABLE,),
            default_doc="its dir",
            example="sys/kern/fork",
        ),
        Setting(
            "dir",
            STRING,
            "the test's directory, relative to regress.dir; a missing one is NOEXIST",
            default="",
            rules=(PRINTABLE,),
            example="sys/kern/fork",
        ),
        Setting(
            "command",
            STRING,
            "a shell command run in the test's dir (else in regress.dir)",
            default="",
            default_doc="regress.command when dir is set",
            example="./run-tests.sh",
        ),
        Setting(
            "timeout",
            NUMBER,
            "seconds allowed; then its process group is killed (NOTERM)",
            default=None,
            rules=(SECONDS,),
            default_doc="regress.timeout",
            example=600,
        ),
        Setting(
            "source",
            STRING,
            "the path of its source for regress.source_url",
            default="",
            default_doc="its dir",
            example="regress/sys/kern/fork",
        ),
    ),
    field="tests",
)

_REGRESS = Section(
    "regress",
    Form.TABLE,
    "The functional regression suite of `perfwalk regress`: test directories or "
    "commands ([[regress.test]]), or a runner whose results file is read.",
    (
        Setting(
            "host",
            STRING,
            "where the suite runs: local, or an ssh destination",
            default="local",
            rules=(HOST,),
        ),
        Setting(
            "dir",
            STRING,
            "the directory on the host the tests run in; relative to this file on the "
            "local host, to the login directory on an ssh host",
            default=".",
            rules=(NOT_EMPTY,),
        ),
        Setting(
            "command",
            STRING,
            "the shell command run in each test directory without a command of its own",
            default="make regress",
            rules=(NOT_EMPTY,),
        ),
        Setting(
            "clean",
            STRING,
            'a shell command run in a test\'s directory before it; failing is NOCLEAN; "" = none',
            default="",
            example="make clean",
        ),
        Setting(
            "timeout",
            NUMBER,
            "seconds allowed per test, and for the runner",
            default=3600,
            rules=(SECONDS,),
        ),
        Setting(
            "env",
            ENV,
            "extra environment variables for the tests and the runner; secret ones are "
            "shown as *** (see Secrets)",
            default={},
            rules=(ENV_NAMES,),
            example={"LC_ALL": "C"},
        ),
        Setting(
            "runner",
            STRING,
            "a shell command, run in regress.dir, whose results are read instead of "
            '[[regress.test]]; "" = none',
            default="",
            example="pytest --junitxml=results.xml",
        ),
        Setting(
            "format",
            STRING,
            "the runner's results format: junit (XML), tap (or prove -v output) or markers",
            default="junit",
            rules=(one_of(*FORMAT_NAMES),),
        ),
        Setting(
            "output",
            STRING,
            'the file the runner writes its results to, relative to regress.dir; "" = its '
            "standard output",
            default="",
            example="results.xml",
        ),
        Setting(
            "source_url",
            STRING,
            "a web viewer's address of a test's source: {path} becomes the test's source "
            "path, {commit} the run's commit",
            default="",
            rules=(SOURCE_URL,),
            example="https://git.example.org/demo/tree/{commit}/{path}",
        ),
        Setting(
            "stock_kernel",
            STRING,
            "a regular expression: a run whose kernel version matches it is a stock build, "
            'others custom; "" = not told',
            default="",
            rules=(REGEX,),
            example="Debian",
        ),
    ),
    sections=(_REGRESS_TEST,),
)


def _base_url_problem(value: str) -> str | None:
    if value == "":
        return None
    if not value.isprintable() or not re.fullmatch(r"https?://[^\s\"'<>]+", value):
        return f"expected an http:// or https:// address without spaces or quotes, got {value!r}"
    return None


def _without_slash(value: str, _base: Path) -> str:
    return value.rstrip("/")


BASE_URL = Rule("an http:// or https:// address", _base_url_problem)


def _time_zone_problem(value: str) -> str | None:
    try:
        ZoneInfo(value)
    except (ValueError, ZoneInfoNotFoundError):  # a bad path; a name the database lacks
        return f"expected an IANA time zone name such as Europe/Berlin, got {value!r}"
    return None


TIME_ZONE = Rule("an IANA time zone name (Area/City, or UTC)", _time_zone_problem)

_REPORT = Section(
    "report",
    Form.TABLE,
    "The published site, as others link to it.",
    (
        Setting(
            "base_url",
            STRING,
            "the address the site is served at: links in `perfwalk changes --format "
            'markdown` and in the feed changes.xml point to its pages; "" = the feed\'s '
            "links are relative and the Markdown report has none to the site",
            default="",
            rules=(BASE_URL,),
            finish=_without_slash,
            example="https://perf.example.org/demo",
        ),
        Setting(
            "time_zone",
            STRING,
            "the one time zone every date and time of the site is written in (its pages, "
            "the axes and tooltips of its plots), said once on each page that shows one; "
            "the store keeps UTC whatever it is",
            default="UTC",
            rules=(TIME_ZONE,),
            example="Europe/Berlin",
        ),
    ),
)


def _receivers_problem(value: tuple[str, ...]) -> str | None:
    """The first URL of ``[notify] urls`` that Apprise cannot use, by its index (the URL
    is not repeated: it may hold a token)."""
    from perfwalk.config.receivers import receiver_problem  # imports Apprise: only if used

    for index, url in enumerate(value):
        problem = receiver_problem(url)
        if problem is not None:
            return f"item {index} (urls[{index}]): {problem}"
    if len(set(value)) != len(value):
        return "a URL is given twice: each receiver would get every message twice"
    return None


#: ``[notify] urls``: Apprise URLs, each a secret as a whole (it may hold a token).
RECEIVERS = Rule(
    "Apprise URLs (https://github.com/caronc/apprise/wiki), each once", _receivers_problem
)
#: The longest pause between two attempts to send a message (seconds): a day.
LONGEST_RETRY = 86400

_NOTIFY = Section(
    "notify",
    Form.TABLE,
    "Where new changes are told: one message per alert group (the new changes of one "
    "culprit or of overlapping commit ranges, across metrics, walks and hosts: its worst "
    "change's kind, size with the 95 % interval, confidence, series, the hosts, culprit "
    "commit or commit range, the link to its page, then the other metrics) to each "
    "receiver, through Apprise. "
    "Messages wait in the store until sent: a receiver that is down is tried again "
    "later, with a growing pause, until `give_up_after`.",
    (
        Setting(
            "urls",
            STRINGS,
            "the receivers, as Apprise URLs: mailto://, slack://, matrix://, mmost://, "
            "json:// (a generic webhook)… (https://github.com/caronc/apprise/wiki); they may "
            "hold tokens, so they are masked (***) wherever the configuration is shown; "
            "[] = no notifications",
            default=[],
            rules=(RECEIVERS,),
            example=["mailto://user:password@mail.example.org?to=perf@example.org"],
        ),
        Setting(
            "retry_after",
            NUMBER,
            "seconds before a message that could not be sent is tried again; the pause "
            f"doubles with each failure, up to {LONGEST_RETRY // 3600} hours",
            default=60,
            rules=(SECONDS,),
        ),
        Setting(
            "give_up_after",
            NUMBER,
            "seconds after which a message still not sent is given up: kept in the store "
            "and shown by `perfwalk notify`, never tried again",
            default=7 * 86400,
            rules=(SECONDS,),
        ),
        Setting(
            "timeout",
            NUMBER,
            "seconds to connect to a receiver and to wait for its answer",
            default=30,
            rules=(SECONDS,),
        ),
    ),
)


def _listen_problem(value: str) -> str | None:
    host, colon, port = value.rpartition(":")
    if not colon or not host.strip("[]") or not port.isdigit() or not 1 <= int(port) <= 65535:
        return "expected HOST:PORT, e.g. 127.0.0.1:8080 (a port 1-65535)"
    if any(c.isspace() for c in value):
        return "no spaces"
    return None


def _base_path_problem(value: str) -> str | None:
    if value and (not value.startswith("/") or value.endswith("/") or "?" in value):
        return 'a path starting with / and not ending with one, e.g. "/perf" ("" = none)'
    return None


def _host_names_problem(value: Sequence[str]) -> str | None:
    for name in value:
        if not name or any(c.isspace() or c in "/:@[]" for c in name):
            return f"{name!r} is not a host name: give names such as perf.example.org"
    return None


def _one_to(most: int) -> Rule:
    return rule(f"1 to {most}", lambda value: 1 <= value <= most)


#: ``[api] push_values`` and ``push_series``: up to far beyond any CI's file and
#: branches, below what makes every read of the store slow.
PUSH_VALUES = _one_to(1_000_000)
PUSH_SERIES = _one_to(100_000)
LISTEN = Rule("HOST:PORT", _listen_problem)
HOST_NAMES = Rule("host names such as perf.example.org (no port)", _host_names_problem)
BASE_PATH = Rule('a URL path such as /perf, or ""', _base_path_problem)

_API = Section(
    "api",
    Form.TABLE,
    "The HTTP API that `perfwalk api` serves (docs/api.md): reads without a token; "
    "pushes from CI, triage and job submissions with a token of the right scope "
    "(`perfwalk tokens add`).",
    (
        Setting(
            "listen",
            STRING,
            "the address and port to listen on; another address than loopback serves "
            "other machines: put a TLS proxy in front (tokens travel in a header)",
            default="127.0.0.1:8080",
            rules=(LISTEN,),
        ),
        Setting(
            "max_body",
            INTEGER,
            "the largest request body accepted, in bytes; a larger one is refused (413) "
            "before it is read",
            default=1 << 20,
            rules=(BYTES,),
        ),
        Setting(
            "base_path",
            STRING,
            'the path the API is served under behind a proxy, e.g. "/perf" (its '
            'endpoints are then /perf/api/v1/…); "" = at the root',
            default="",
            rules=(BASE_PATH,),
        ),
        Setting(
            "allowed_hosts",
            STRINGS,
            "the names besides its listen address and localhost that requests may give "
            "in their Host header, e.g. the public name of a proxy in front; another "
            "name is refused (403), so that a web page cannot read the API through "
            "a name of its own pointed at this machine (DNS rebinding)",
            default=[],
            rules=(HOST_NAMES,),
            example=["perf.example.org"],
        ),
        Setting(
            "read_timeout",
            NUMBER,
            "seconds a client has to send a whole request, its headers and its body, "
            "from when it connects (or from the previous answer on the same "
            "connection); a slower one is answered 408 and its connection closed",
            default=30,
            rules=(SECONDS,),
        ),
        Setting(
            "max_connections",
            INTEGER,
            "connections served at once; a connection beyond them is answered 503 "
            "and closed at once",
            default=256,
            rules=(COUNT,),
        ),
        Setting(
            "push_values",
            INTEGER,
            "the most values one push may hold (what its file's parser finds); a push "
            "with more is refused (422, field text) and nothing of it is stored",
            default=10_000,
            rules=(PUSH_VALUES,),
        ),
        Setting(
            "push_series",
            INTEGER,
            "the most push series a project may have (one per branch and host pushed "
            "to); a push that would make one more is refused (422, field branch)",
            default=300,
            rules=(PUSH_SERIES,),
        ),
        Setting(
            "push_future",
            NUMBER,
            "how far past the API's clock a push's date may lie, in seconds; a later "
            "one is refused (422, field date), and so is one before 1970 (git records "
            "no earlier date). A commit the API's clone of [project] repo knows is "
            "placed by git's date whatever the push said",
            default=86_400,
            rules=(SECONDS,),
        ),
    ),
)

#: The file's sections, in the order the loader checks them and the docs list them.
SECTIONS: tuple[Section, ...] = (
    _PROJECT,
    _STORE,
    _BUILD,
    _RUN,
    _HOSTS,
    _INSTALL,
    _ANALYSIS,
    _TEST,
    _SNAPSHOT,
    _QUIRK,
    _RELEASE,
    _WALK,
    _VARIANT,
    _ENVIRONMENT,
    _TRY,
    _DRILL,
    _VALIDITY,
    _WATCH,
    _RETENTION,
    _REGRESS,
    _REPORT,
    _NOTIFY,
    _API,
)


def walk(
    sections: tuple[Section, ...] = SECTIONS, prefix: str = ""
) -> Iterator[tuple[str, Section, Setting]]:
    """Every setting with its dotted name (``test.metrics.<name>.unit``) and section."""
    for section in sections:
        name = prefix + section.key + (".<name>" if section.form is Form.NAMED else "")
        for setting in section.settings:
            yield f"{name}.{setting.key}", section, setting
        yield from walk(section.sections, name + ".")


def setting(dotted: str) -> Setting:
    """The setting called ``dotted`` (``run.step``, ``test.metrics.<name>.summary``)."""
    for name, _section, found in walk():
        if name == dotted:
            return found
    raise KeyError(dotted)


def default_of(dotted: str) -> Any:
    """The default of ``dotted`` as the program uses it (a tuple for a list…)."""
    found = setting(dotted)
    if found.default is None or found.required:
        return found.default
    return found.kind.convert(found.default)
