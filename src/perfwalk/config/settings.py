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
import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path
from types import MappingProxyType
from typing import Any

from perfwalk.errors import UsageError
from perfwalk.git.steps import DATE_FORMS, STEP_FORMS, parse_date, parse_step
from perfwalk.model import Direction
from perfwalk.parsers import PARSER_NAMES


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
    """``a string ('600')``: the type and, for a scalar, the value itself."""
    if isinstance(value, list | dict):
        return type_name(value)
    return f"{type_name(value)} ({toml_value(value)})"


def toml_value(value: object) -> str:
    """``value`` written as TOML (strings as basic strings, tables inline)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
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
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)


# Kinds: the TOML type of a value and the Python value it becomes.

#: Where inside a value the type is wrong (``[1]``, ``.JOBS``) and what was found.
Mismatch = tuple[str, str]


@dataclass(frozen=True)
class Kind:
    """A value's type: ``check`` finds a mismatch, ``convert`` makes the Python value."""

    name: str  # for the reference: "string", "list of strings"…
    article: str  # for messages: "a string", "an array of strings"…
    check: Callable[[object], Mismatch | None]
    convert: Callable[[Any], object] = lambda value: value


def _is(*types: type) -> Callable[[object], Mismatch | None]:
    def check(value: object) -> Mismatch | None:
        if isinstance(value, types) and (bool in types or not isinstance(value, bool)):
            return None
        return ("", described(value))

    return check


def _check_strings(value: object) -> Mismatch | None:
    if not isinstance(value, list):
        return ("", described(value))
    for index, item in enumerate(value):
        if not isinstance(item, str):
            return (f"[{index}]", described(item))
    return None


def _check_env(value: object) -> Mismatch | None:
    if not isinstance(value, dict):
        return ("", described(value))
    for name, item in value.items():
        if not isinstance(item, str):
            return (f".{name}", described(item))
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


STRING = Kind("string", "a string", _is(str))
INTEGER = Kind("integer", "an integer", _is(int))
NUMBER = Kind("number", "a number", _is(int, float), float)
BOOLEAN = Kind("boolean", "a boolean (true or false)", _is(bool))
STRINGS = Kind("list of strings", "an array of strings", _check_strings, tuple)
ENV = Kind(
    "table of strings",
    'a table of strings (NAME = "value")',
    _check_env,
    lambda value: MappingProxyType(dict(value)),
)
TABLE = Kind("table", "a table", _check_table, lambda value: MappingProxyType(copy.deepcopy(value)))
WHEN = Kind("date or commit-ish", "a date or commit-ish (as a string)", _check_when, _when_text)


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


POSITIVE = rule("> 0", lambda value: 0 < value < math.inf)
AT_LEAST_ONE = rule(">= 1", lambda value: value >= 1)
NOT_EMPTY = rule("a non-empty value", bool)
NO_EMPTY_ITEM = rule("non-blank commands", lambda value: all(item.strip() for item in value))
NAME = rule(
    "letters, digits, _ . - only",
    lambda value: re.fullmatch(r"[A-Za-z0-9_.-]+", value) is not None,
)
ENV_NAMES = rule(
    "names of letters, digits and _ (not starting with a digit)",
    lambda value: all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) for name in value),
)
HOST = rule(
    "local or an ssh destination (no blanks, not starting with -)",
    lambda value: re.fullmatch(r"[^\s-]\S*", value) is not None,
)
STORE_URL = rule(
    "a sqlite:/// or postgresql+psycopg:// URL",
    lambda value: value == "" or re.match(r"(sqlite|postgresql(\+psycopg)?)://", value) is not None,
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
DATE_OR_REV = Rule(f"a date ({DATE_FORMS}) or a commit-ish", _when_problem)


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


def _existing_file(value: str, base: Path) -> Path | None:
    if value == "":
        return None
    path = _path(value, base)
    if not path.is_file():
        raise Invalid(
            f"no such file: {path}", hint=f"give the patch file's path, relative to {base}"
        )
    return path


def _store_url(value: str, base: Path) -> str:
    if value == "":
        return f"sqlite:///{base.resolve() / 'perfwalk.db'}"
    prefix = "sqlite:///"
    rest = value.removeprefix(prefix)
    if value.startswith(prefix) and rest and rest != ":memory:" and not rest.startswith("/"):
        return f"{prefix}{_path(rest, base)}"
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
            "the line whose first-parent history is walked",
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
            "postgresql+psycopg:// database",
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
            rules=(POSITIVE,),
        ),
        Setting(
            "worktrees",
            STRING,
            "where the build worktrees go, relative to this file",
            default=".perfwalk/worktrees",
            rules=(NOT_EMPTY,),
            finish=_path,
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
            "where the build runs: local, or an ssh destination",
            default="local",
            rules=(HOST,),
        ),
        Setting(
            "steps",
            STRINGS,
            "shell commands run in order in the checkout's worktree; [] = nothing to build",
            default=["make"],
            rules=(NO_EMPTY_ITEM,),
        ),
        Setting("timeout", NUMBER, "seconds allowed per step", default=1800, rules=(POSITIVE,)),
        Setting(
            "env",
            ENV,
            "extra environment variables for the steps",
            default={},
            rules=(ENV_NAMES,),
            example={"CFLAGS": "-O2"},
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
            "the last checkout: a date or a commit-ish",
            default="HEAD",
            rules=(NOT_EMPTY, DATE_OR_REV),
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
            INTEGER,
            "how many times the tests run at each checkout",
            default=5,
            rules=(AT_LEAST_ONE,),
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
            "where the tests run: local, or an ssh destination",
            default="local",
            rules=(HOST,),
        ),
    ),
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
            default=0.025,
            rules=(POSITIVE,),
        ),
        Setting(
            "outlier",
            NUMBER,
            "relative distance of one value from the summary that marks it an outlier",
            default=0.10,
            rules=(POSITIVE,),
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
            default="mean",
            rules=(one_of("mean", "median", "best"),),
        ),
        Setting(
            "unstable_rsd",
            NUMBER,
            "this metric's analysis.unstable_rsd",
            default=None,
            rules=(POSITIVE,),
            default_doc="analysis.unstable_rsd",
            example=0.05,
        ),
        Setting(
            "outlier",
            NUMBER,
            "this metric's analysis.outlier",
            default=None,
            rules=(POSITIVE,),
            default_doc="analysis.outlier",
            example=0.2,
        ),
        Setting(
            "ignore",
            BOOLEAN,
            "keep the values but leave them out of the analysis",
            default=False,
        ),
    ),
    field="metrics",
)

_TEST = Section(
    "test",
    Form.ARRAY,
    "A test: one command whose output a parser turns into values.",
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
            "the parser that reads the command's output",
            rules=(one_of(*PARSER_NAMES),),
            example="value",
        ),
        Setting(
            "parser_options",
            TABLE,
            "options of the parser",
            default={},
        ),
        Setting("timeout", NUMBER, "seconds allowed per run", default=600, rules=(POSITIVE,)),
        Setting(
            "env",
            ENV,
            "extra environment variables for the command",
            default={},
            rules=(ENV_NAMES,),
            example={"LC_ALL": "C"},
        ),
    ),
    sections=(_METRICS,),
    field="tests",
    min_items=1,
)

_QUIRK = Section(
    "quirk",
    Form.ARRAY,
    "A known event of the history: commands to run when the walk crosses it, "
    "a patch for the checkouts it covers, and a lettered marker on every plot.",
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
            'where the patch stops applying (exclusive): a date or a commit-ish; "" = no end',
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
            finish=_existing_file,
            example="patches/fix-build.diff",
        ),
    ),
    field="quirks",
)

#: The file's sections, in the order the loader checks them and the docs list them.
SECTIONS: tuple[Section, ...] = (_PROJECT, _STORE, _BUILD, _RUN, _ANALYSIS, _TEST, _QUIRK)


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
