"""The parameters of a job, checked in one place: where it is submitted (``perfwalk
submit``, ``POST /api/v1/jobs``), so that a mistake is told to the one who submits,
and again by the worker that takes it, against the configuration that worker loaded.

A job chooses only among what the operator's configuration allows: a named walk
(``[[walk]]``), named variants (``[[variant]]``), its tests (groups, tests, sweeps:
``tests``), a stored series to extend (``extend``), commits and dates, counts within
their bounds, and ``between`` as ``keep``, ``rebuild`` or ``reboot``. It never
carries a command: build steps, tests, a variant's modifiers, a ``between`` command
and any other configuration come from the worker's own configuration file. Each
parameter has one type, checked as it is given (a JSON ``true`` is not a count, a
string is not a list of names); an error names the parameter (``params.NAME``) and
says what it takes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from perfwalk.config.model import Config
from perfwalk.config.settings import COUNT, TRY_CONFIDENCES, Rule, rule
from perfwalk.config.test_selection import chosen_tests, select_tests
from perfwalk.errors import UsageError
from perfwalk.git.walk_steps import parse_step
from perfwalk.limits import MAX_ID, MAX_TOTAL
from perfwalk.orchestrate.checkout.variants import chosen_variants
from perfwalk.orchestrate.extend.refusals import check_options
from perfwalk.orchestrate.session.queue import KINDS
from perfwalk.orchestrate.walk.plan import RunOptions, named_walk
from perfwalk.orchestrate.walk.preparation import BETWEEN_ACTIONS
from perfwalk.untrusted import show_controls

#: The longest name, commit-ish or change id a job takes (characters).
MAX_WORD = 255


class JobParamError(UsageError):
    """A job's kind or parameter is wrong; ``field`` names it as the API's body does
    (``kind``, ``params.repetitions``)."""

    def __init__(self, field: str, message: str, *, hint: str | None = None) -> None:
        super().__init__(f"{field}: {message}", hint=hint)
        self.field = field


#: Checks one parameter's value against a configuration: its value as the job keeps
#: it, or a UsageError (made a JobParamError naming the parameter by the caller).
Check = Callable[[Config, Any], Any]


def _shown(value: Any) -> str:
    text = repr(value)
    return show_controls(text if len(text) <= 60 else text[:60] + "…")


def _word(what: str) -> Check:
    """A non-empty string of at most MAX_WORD characters, without control characters."""

    def check(_config: Config, value: Any) -> str:
        if not isinstance(value, str):
            raise UsageError(f"expected {what} (a string), got {_shown(value)}")
        if not value.strip() or len(value) > MAX_WORD:
            raise UsageError(f"expected {what} of 1 to {MAX_WORD} characters, got {_shown(value)}")
        if any(ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0 for char in value):
            raise UsageError(f"expected {what} without control characters, got {_shown(value)}")
        return value

    return check


#: Characters that mean something to a shell and nothing to git's revisions and dates.
_SHELL_ONLY = frozenset("$`;|&<>()'\"\\")


def _commitish(what: str) -> Check:
    """A commit-ish or a date: a word that git cannot take for an option, without the
    characters that only a shell reads (it reaches git as one argument anyway)."""
    word = _word(what)

    def check(config: Config, value: Any) -> str:
        found: str = word(config, value)
        if found.startswith("-"):
            raise UsageError(f"expected {what}, got {_shown(value)}: it starts with '-'")
        shell = sorted(_SHELL_ONLY.intersection(found))
        if shell:
            raise UsageError(
                f"expected {what}, got {_shown(value)}: {' '.join(shell)} is in no commit-ish"
            )
        return found

    return check


def _count(rule: Rule) -> Check:
    def check(_config: Config, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise UsageError(f"expected a whole number, {rule.expected}, got {_shown(value)}")
        problem = rule.problem(value)
        if problem is not None:
            raise UsageError(problem)
        return value

    return check


def _flag(_config: Config, value: Any) -> bool:
    if not isinstance(value, bool):
        raise UsageError(f"expected true or false, got {_shown(value)}")
    return value


def _step(config: Config, value: Any) -> str:
    found: str = _word("a step (1week, commit/10…)")(config, value)
    parse_step(found)
    return found


def _between_word(config: Config, value: Any) -> str:
    found: str = _word("keep, rebuild or reboot")(config, value)
    if found not in BETWEEN_ACTIONS:
        raise UsageError(
            f"expected one of {', '.join(BETWEEN_ACTIONS)}, got {_shown(value)}",
            hint="a job cannot carry a command: a command between repetitions is the "
            "worker's own [run] between, used when the job does not set between",
        )
    return found


def _walk(config: Config, value: Any) -> str:
    found: str = _word("the name of a [[walk]]")(config, value)
    named_walk(config, found)
    return found


def _names(config: Config, value: Any) -> list[str]:
    if not isinstance(value, list):
        raise UsageError(f"expected a list of [[variant]] names, got {_shown(value)}")
    names = [_word("the name of a [[variant]]")(config, item) for item in value]
    chosen_variants(config, names, option="variants")
    return names


def _tests(config: Config, value: Any) -> list[str]:
    """Groups, tests and sweeps (as ``perfwalk run --tests`` names them) of the
    worker's configuration."""
    if not isinstance(value, list):
        raise UsageError(f"expected a list of test or group names, got {_shown(value)}")
    names = [_word("the name of a test, group or sweep")(config, item) for item in value]
    chosen_tests(config, names, option="tests")
    return names


def _variant(config: Config, value: Any) -> str:
    found: str = _word("the name of a [[variant]]")(config, value)
    chosen_variants(config, [found], option="variant")
    return found


def _confidence(_config: Config, value: Any) -> float:
    levels = ", ".join(f"{level:g}" for level in TRY_CONFIDENCES)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UsageError(f"expected a number, one of {levels}, got {_shown(value)}")
    if float(value) not in TRY_CONFIDENCES:
        raise UsageError(f"expected one of {levels}, got {_shown(value)}")
    return float(value)


def _commit_pair(config: Config, value: Any) -> list[str]:
    if not isinstance(value, list) or len(value) != 2:
        raise UsageError(f"expected two commits [BEFORE, AFTER], got {_shown(value)}")
    return [_commitish("a commit-ish")(config, item) for item in value]


#: The repetitions a drill may run in all (as `perfwalk drill --max-repetitions`).
_DRILL_TOTAL = rule(f"2 to {MAX_TOTAL}", lambda value: 2 <= value <= MAX_TOTAL)

#: The series a run job extends (as `perfwalk run --extend`).
_SERIES_ID = rule(f"a series id, 1 to {MAX_ID}", lambda value: 1 <= value <= MAX_ID)

#: Per kind of job, each parameter it takes and its check.
PARAMS: dict[str, dict[str, Check]] = {
    "run": {
        "from_": _commitish("a date (YYYY-MM-DD[THH:MM]) or a commit-ish"),
        "to": _commitish("a date (YYYY-MM-DD[THH:MM]) or a commit-ish"),
        "step": _step,
        "repetitions": _count(COUNT),
        "between": _between_word,
        "name": _word("a name for the series"),
        "resume": _flag,
        "walk": _walk,
        "variants": _names,
        "tests": _tests,
        "extend": _count(_SERIES_ID),
    },
    "drill": {
        "change": _word("a change id, as `perfwalk changes` names it"),
        "between": _commit_pair,
        "test": _word("the name of a test"),
        "value": _word("the name of a value of that test"),
        "max_builds": _count(COUNT),
        "max_repetitions": _count(_DRILL_TOTAL),
    },
    "try": {
        "base": _commitish("a commit-ish"),
        "head": _commitish("a commit-ish"),
        "variant": _variant,
        "max_repetitions": _count(COUNT),
        "confidence": _confidence,
        "profile": _flag,
    },
    "watch": {},
}
assert tuple(PARAMS) == KINDS


def checked_params(config: Config, kind: Any, params: Any) -> dict[str, Any]:
    """The parameters of a job ``kind`` as it keeps them (JSON values), every one
    checked against ``config``; a :class:`JobParamError` names the first one wrong."""
    if not isinstance(kind, str) or kind not in PARAMS:
        raise JobParamError(
            "kind", f"no job kind {_shown(kind)}", hint=f"one of {', '.join(KINDS)}"
        )
    if not isinstance(params, Mapping):
        raise JobParamError("params", f"expected an object of parameters, got {_shown(params)}")
    allowed = PARAMS[kind]
    if kind == "try" and "patches" in params:
        raise JobParamError(
            "params.patches",
            "a try job cannot carry patch files (a worker may not see them)",
            hint="describe the patch as a [[variant]] and give --variant NAME",
        )
    for name in params:
        if name not in allowed:
            raise JobParamError(
                f"params.{show_controls(str(name))[:60]}",
                f"a {kind} job takes no parameter of this name",
                hint=f"its parameters: {', '.join(allowed) or 'none'}",
            )
    checked: dict[str, Any] = {}
    for name, value in params.items():
        if value is None:  # as if not given: the worker's configuration decides
            continue
        try:
            checked[name] = allowed[name](config, value)
        except UsageError as error:
            raise JobParamError(f"params.{name}", error.message, hint=error.hint) from None
    _check_together(kind, checked)
    if kind == "run" and "extend" in checked:
        _check_extension(config, checked)
    return checked


def _check_extension(config: Config, params: Mapping[str, Any]) -> None:
    """A run job that extends a series takes what ``run --extend`` takes (-n and
    --variants), refused where it is submitted as the worker would refuse it."""
    options = RunOptions(**{k: v for k, v in params.items() if k in _WALK_OPTIONS})
    if "tests" in params:
        config = select_tests(config, params["tests"], "tests", same_hash=True)
    try:
        check_options(options, config, params["extend"])
    except UsageError as error:
        raise JobParamError("params.extend", error.message, hint=error.hint) from None


#: The parameters of a run job that are the walk's options (:class:`RunOptions`).
_WALK_OPTIONS = frozenset(
    ("from_", "to", "step", "repetitions", "between", "name", "resume", "walk", "extend")
)


#: What a named walk takes from its [[walk]], not from the job (as `run --walk`).
_NOT_WITH_WALK = ("from_", "to", "step", "variants", "resume", "name")


def _check_together(kind: str, params: Mapping[str, Any]) -> None:
    if kind == "run" and params.get("resume") and params.get("variants"):
        raise JobParamError(
            "params.variants",
            "cannot be given with resume",
            hint="a resumed walk measures the variants it started with; leave out variants",
        )
    if kind == "run" and params.get("tests") and (params.get("resume") or "walk" in params):
        raise JobParamError(
            "params.tests",
            f"cannot be given with {'resume' if params.get('resume') else 'walk'}",
            hint="a resumed walk measures the tests it started with, a named walk all its "
            "tests; leave out tests",
        )
    if kind == "run" and "walk" in params:
        given = [name for name in _NOT_WITH_WALK if params.get(name) not in (None, False)]
        if given:
            raise JobParamError(
                f"params.{given[0]}",
                f"cannot be given with walk: [[walk]] {params['walk']} takes its from, to, "
                "step, variants and series from the configuration",
                hint="leave it out, or leave out walk",
            )
    if kind == "try" and "base" not in params:
        raise JobParamError(
            "params.base", "a try job needs its base commit", hint="perfwalk submit try BASE"
        )
    if kind == "drill":
        if "change" in params and "between" in params:
            raise JobParamError(
                "params.between",
                "a drill job drills a change or a range, not both",
                hint="give change or between",
            )
        if "change" not in params and "between" not in params:
            raise JobParamError(
                "params.change",
                "a drill job needs a change or a range",
                hint="perfwalk submit drill --change ID, or --between GOOD BAD",
            )
