"""A change's verdict: one state from all the evidence perfwalk has about it, with the
chain of evidence that decided it, and its one headline size.

Pure: small evidence records in (:class:`Evidence`), a :class:`Verdict` out; no store,
no clock. The rules (docs/analysis.md, "A change's verdict", says the same in words):

1. **Evidence that measured the change again decides it**, whatever the walk and the
   machine's state said: a drill (CULPRIT or RANGE confirm it, NO-CHANGE refutes it),
   a try of its two commits or of its culprit and the culprit's parent (B differs
   from A the way the change went: confirmed; the same, or the other way: refuted), a
   re-measure of its two checkouts (held: confirmed; did not hold: refuted), a second
   machine's walk that found the same change clearly (confirmed). A drill's or a
   try's UNDECIDED decides nothing. When several disagree, the weightiest decides
   (:data:`WEIGHT`: a drill and a try, then a re-measure, then a second machine), of
   equals the newest; the chain lists every one, the one that decided last.
2. Else, **the machine's state** on the change's two sides differs the way that
   explains it (:func:`perfwalk.analysis.machine.suspect`): ``suspect``.
3. Else **too little evidence either way**: a change at the edge of its series
   (fewer than ``min_size`` checkouts on a side), detected below :data:`CLEAR`, or
   not detected at all (a walk too noisy to judge its metric, whose most likely step
   below the bar a re-measure measured again: ``Detected.unseen``): ``undecided``.
4. Else the walk's detection **confirms it**: found clearly, not at the edge, and the
   machine's state does not explain it (both sides quiet, loaded alike, or not
   recorded: the chain says which).

Beside the walk's detection, the instruments of the change's test (``[[test.instrument]]``:
counts the machine's load does not touch) say whether the code moved too
(:func:`witnessed`): told in the chain, they do not change the state (a change of
layout or of waiting moves wall time and no count), except in the layout's verdict:

5. A change whose instruments did not move (each within its noise, where it could
   have seen one half as large), or that vanished in the walk's series of random
   layouts (:class:`Randomised`), at a pair of checkouts whose symbol lists show
   functions moved and none of them changed its size (:class:`CodeMoved`), is a
   **layout artefact**: the code moved, it did not change. It takes the place of
   the state rules 1 to 4 gave, unless evidence that measured it again refuted it
   (a drill that finds its culprit confirms that a commit moved the code: the
   commit moved it, it did not change it).

The headline is the size that the evidence which decided measured (a drill's, a
try's, a re-measure's, the other machine's walk's), else the walk's: one number with
its source, ``+41.7 % (drill 6)``.

A new kind of evidence (or a new fact of one, e.g. a re-measure's rounds and p-value)
is a field of its record here and a line of :func:`decide`; the records hold numbers
and short words, never a store's rows.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

from perfwalk.analysis.confirmation import NOT_HELD, UNDECIDED
from perfwalk.analysis.symbols import CodeMoves
from perfwalk.quantities import format_confidence, format_size

#: below this confidence, a walk's detection alone does not confirm a change
CLEAR = 0.999


class State(enum.Enum):
    """A change's verdict."""

    CONFIRMED = "confirmed"  # measured again and it held, or found clearly on a quiet machine
    REFUTED = "refuted"  # measured again and it was not there
    SUSPECT = "suspect"  # the machine's state explains it, and nothing measured it again
    UNDECIDED = "undecided"  # too little evidence either way
    LAYOUT = "layout artefact"  # the code moved, it did not change (rule 5)


@dataclass(frozen=True)
class Measurement:
    """A change's size as one piece of evidence measured it: the relative size (0.4
    is +40 %; ±inf from a level of 0), where it comes from (``walk 1``, ``drill 6``),
    its 95 % interval when that evidence has one, and its confidence when it has one."""

    size: float
    source: str
    low: float | None = None
    high: float | None = None
    confidence: float | None = None

    def text(self) -> str:
        """``+41.7 % (drill 6)``: the size with its source, as every page, message and
        line writes a change's size."""
        return f"{format_size(self.size)} ({self.source})"

    def interval(self) -> str:
        """``-21.0 % … -19.0 %``, its 95 % interval; "" when it has none."""
        if self.low is None or self.high is None or not math.isfinite(self.size):
            return ""
        return f"{format_size(self.low)} … {format_size(self.high)}"

    def confidence_text(self) -> str:
        """Its confidence as every page writes one; ``n/a`` when it has none."""
        return format_confidence(self.confidence)


@dataclass(frozen=True)
class Detected:
    """The walk's detection: the series (``label``: ``walk 1``, ``series 34``), the
    size with its interval and confidence, whether it is a regression, and whether
    it is at the edge of the series (``checkouts_before`` / ``checkouts_after`` the
    checkouts of its two levels). ``unseen``: the walk did not find it: it is the
    most likely step of a metric too noisy to judge, this share of a change the walk
    could see there (:class:`perfwalk.analysis.floor.Candidate`), that a re-measure
    measured again (None: the walk found it)."""

    label: str
    size: float
    low: float
    high: float
    confidence: float
    regression: bool
    edge: bool = False
    checkouts_before: int = 0
    checkouts_after: int = 0
    unseen: float | None = None


@dataclass(frozen=True)
class Sides:
    """The machine's state on the change's two sides: the repetitions with a recorded
    state and how many of them were loaded, before and after (the host that had the
    most of each); none for a load-immune metric (``immune``)."""

    before: int = 0
    before_loaded: int = 0
    after: int = 0
    after_loaded: int = 0
    #: the metric is load-immune: the machine's state is not weighed
    immune: bool = False

    def text(self) -> str:
        """ "both sides quiet", "loaded: 6 of 6 repetitions before, 5 of 6 after", "no
        machine state recorded on its sides", "load-immune: the machine's state not
        weighed"."""
        if self.immune:
            return "load-immune: the machine's state not weighed"
        if not self.before or not self.after:
            return "no machine state recorded on its sides"
        if not self.before_loaded and not self.after_loaded:
            return "both sides quiet"
        return (
            f"loaded: {self.before_loaded} of {self.before} repetitions before, "
            f"{self.after_loaded} of {self.after} after"
        )


@dataclass(frozen=True)
class Remeasured:
    """A re-measure of the change's two checkouts (``[run] confirm``, ``[watch]
    confirm``): whether the change held (:mod:`perfwalk.analysis.confirmation`), the
    relative move it measured (None: a side has no value), whether it decided
    (``decided``: False while its sequential test is undecided — then it decides
    nothing), the repetitions it measured on each side (0: not recorded) and its
    confidence (1 - p of no difference; None: not recorded). One undecided at its most
    repetitions (``final``), or that measured a clear move the other way
    (``other_way``), leaves the change undecided: neither confirmed nor refuted."""

    held: bool
    size: float | None = None
    decided: bool = True
    repetitions: tuple[int, int] = (0, 0)
    confidence: float | None = None
    #: undecided at its most repetitions: nothing more will be measured
    final: bool = False
    #: it did not hold, and measured a clear move against the change's way: a change
    #: the walk saw the wrong way (a load on one side can turn a step around)
    other_way: bool = False


def remeasured(
    *,
    outcome: str,
    held: bool,
    final: bool,
    change: float | None,
    low: float | None,
    high: float | None,
    p_value: float | None,
    repetitions: tuple[int, int],
    walked: float,
) -> Remeasured:
    """What a re-measure (:func:`perfwalk.analysis.confirmation.decide_again`: its
    ``outcome``, ``held``, ``final``, the ``change`` it measured with its interval
    ``low`` … ``high`` and ``p_value``; None or NaN when unknown) says of the change the
    walk saw (``walked``, its relative size): one still undecided decides nothing; one
    that did not hold with a clear move against ``walked`` measured it the other way."""

    def known(value: float | None) -> float | None:
        return value if value is not None and math.isfinite(value) else None

    size, low, high, p = known(change), known(low), known(high), known(p_value)
    other_way = (
        outcome == NOT_HELD
        and size is not None
        and low is not None
        and high is not None
        and size * walked < 0
        and low * high > 0
    )
    return Remeasured(
        held,
        size,
        decided=outcome != UNDECIDED,
        repetitions=repetitions,
        confidence=None if p is None else 1 - p,
        final=final,
        other_way=other_way,
    )


@dataclass(frozen=True)
class Drilled:
    """A drill's answer across the change's commits: its series, its verdict
    (``culprit``, ``range``, ``undecided``, ``no-change``), the culprit or the range
    ``lo`` … ``hi`` it named, the confidence it gave, the size it measured between
    its ends, why it stopped, and ``metric`` when it drilled another metric of the
    change ("" when this one)."""

    drill: int
    answer: str
    culprit: str | None = None
    lo: str = ""
    hi: str = ""
    confidence: float | None = None
    size: float | None = None
    reason: str = ""
    metric: str = ""


@dataclass(frozen=True)
class Tried:
    """A try (``perfwalk try``) of the change's two commits, or of its culprit and the
    culprit's parent (``culprit``): its series, its answer for the metric, B against
    A in the metric's direction (``worse``, ``better``, ``same``, ``undecided``), the
    change it measured and its Mann-Whitney confidence (1 - p, None when unknown)."""

    series: int
    answer: str
    size: float | None = None
    confidence: float | None = None
    culprit: bool = False


@dataclass(frozen=True)
class Elsewhere:
    """The same change found by another machine's walk of the same project (same
    metric, same way, across shared commits): its series' label, the machine, the
    size and confidence there, and whether it was found clearly there (not at the
    edge, at :data:`CLEAR` or more, not suspect of that machine's load)."""

    label: str
    machine: str
    size: float
    confidence: float
    clear: bool


@dataclass(frozen=True)
class Witness:
    """An instrument of the same test across the change (``[[test.instrument]]``: a
    count the machine's load does not touch): its metric, how it moved between the
    change's two levels (None: no value on a side), whether its own search found a
    change there (``found``), and the smallest change it could have seen there (its
    floor; inf: none)."""

    metric: str
    size: float | None
    found: bool
    floor: float = math.inf


@dataclass(frozen=True)
class CodeMoved:
    """The symbol lists of the change's two checkouts (``[build] symbols``): the
    binary, and what they say of its functions."""

    binary: str
    moves: CodeMoves


@dataclass(frozen=True)
class Randomised:
    """The same metric in the walk's series of random layouts (``layout = "random"``:
    each repetition on a layout of its own) across the same two checkouts: its label,
    how it moved between them (None: no value on a side), and the smallest change it
    could have seen there (inf: none)."""

    label: str
    size: float | None
    floor: float = math.inf

    def vanished(self, size: float) -> bool:
        """The change of ``size`` is not there: it could have seen one half as large,
        and it moved by at most half of what it could see."""
        return (
            self.size is not None
            and self.floor <= abs(size) / 2
            and abs(self.size) <= self.floor / 2
        )

    def text(self, size: float) -> str:
        moved = "n/a" if self.size is None else format_size(self.size)
        could = (
            f"could see ±{format_size(self.floor)[1:]}"
            if math.isfinite(self.floor)
            else "too few points to see one"
        )
        if self.vanished(size):
            said = "it vanished"
        elif self.size is None or self.floor > abs(size) / 2:
            said = "they cannot tell"
        else:
            said = "it did not vanish"
        return f"under random layouts ({self.label}): {moved} ({could}) → {said}"


def witnessed(size: float, witnesses: Sequence[Witness]) -> str:
    """What the instruments of a test say of its metric's change of ``size`` (""
    without any): the code when one of them changed the same way; the machine or the
    layout when none changed, each could have seen a change half as large, and each
    moved by at most half of what it could see (nothing, within its noise); else they
    cannot tell. ``its instruments: rusage.user_cpu +0.4 % (no change, could see
    ±3.0 %) → the machine or the layout, not the code``."""
    if not witnesses:
        return ""
    words = []
    for w in witnesses:
        moved = "n/a" if w.size is None else format_size(w.size)
        if w.found:
            words.append(f"{w.metric} {moved} (a change)")
        elif math.isfinite(w.floor):
            words.append(f"{w.metric} {moved} (no change, could see ±{format_size(w.floor)[1:]})")
        else:
            words.append(f"{w.metric} {moved} (no change, too few points to see one)")
    same_way = [w for w in witnesses if w.found and w.size is not None and w.size * size > 0]
    if same_way:
        said = "the code"
    elif _not_the_code(size, witnesses):
        said = "the machine or the layout, not the code"
    else:
        said = "they cannot tell"
    return f"its instruments: {', '.join(words)} → {said}"


def _not_the_code(size: float, witnesses: Sequence[Witness]) -> bool:
    """Every instrument (at least one) did not move across a change of ``size``: each
    could have seen one half as large, and each moved by at most half of what it
    could see."""
    return bool(witnesses) and all(
        not w.found
        and w.floor <= abs(size) / 2
        and w.size is not None
        and abs(w.size) <= w.floor / 2
        for w in witnesses
    )


def layout_artefact(evidence: Evidence) -> str:
    """Rule 5's line when it holds ("" when not): ``layout artefact: code moved, not
    changed: its instruments did not move; bench: 3 functions moved (…), none
    changed size``."""
    code = evidence.code_moved
    if code is None or not code.moves.only_moved:
        return ""
    size = evidence.detected.size
    why = []
    if _not_the_code(size, evidence.witnesses):
        why.append("its instruments did not move")
    if (random := evidence.randomised) is not None and random.vanished(size):
        why.append(f"it vanished under random layouts ({random.label})")
    if not why:
        return ""
    return (
        f"layout artefact: code moved, not changed: {' and '.join(why)}; "
        f"{code.binary}: {code.moves.text()}"
    )


@dataclass(frozen=True)
class Evidence:
    """Everything perfwalk knows about one metric's change; ``witnesses``: the
    instruments of its test across it (:class:`Witness`)."""

    detected: Detected
    sides: Sides = Sides()
    suspect: str = ""  # why the machine's state explains it ("" when it does not)
    remeasured: Remeasured | None = None
    drilled: Drilled | None = None
    tried: Tried | None = None
    elsewhere: tuple[Elsewhere, ...] = ()
    witnesses: tuple[Witness, ...] = ()
    code_moved: CodeMoved | None = None
    randomised: Randomised | None = None


@dataclass(frozen=True)
class Verdict:
    """A change's state, its evidence as short lines (the line that decided the state
    last: :attr:`because`), and its headline size."""

    state: State
    chain: tuple[str, ...]
    headline: Measurement

    @property
    def because(self) -> str:
        """The line of the chain that decided the state."""
        return self.chain[-1]

    def told(self) -> str:
        """The chain on one line: ``detected in walk 1 at > 99.99 %, …; confirmed by
        drill 6 (CULPRIT 5a17eab3, 99.98 %)``."""
        return "; ".join(self.chain)


#: how much a kind of evidence weighs when evidence disagrees: the weightiest decides
WEIGHT = {"drill": 2, "try": 2, "re-measure": 1, "elsewhere": 0}


@dataclass(frozen=True)
class _Said:
    """What one piece of evidence that measured the change again says: True confirms,
    False refutes, None decides nothing; its line, weight and age (a series id)."""

    says: bool | None
    line: str
    weight: int
    newest: int
    measured: Measurement | None
    undecides: bool = False  # it leaves the change undecided (when nothing decided it)


def decide(evidence: Evidence) -> Verdict:
    """The verdict of one metric's change (the rules: this module's docstring)."""
    found = evidence.detected
    walk = Measurement(found.size, found.label, found.low, found.high, found.confidence)
    suspect = evidence.suspect
    seen = f"detected in {found.label} at {format_confidence(found.confidence)}"
    if found.unseen is not None:
        seen = (
            f"not detected in {found.label}: its most likely step below the bar "
            f"({found.unseen:.0%} of a change it could see there)"
        )
    elif found.edge:
        seen += (
            f", at the edge ({found.checkouts_before} checkouts before it, "
            f"{found.checkouts_after} after)"
        )
    if not suspect:  # a suspicion says how the two sides differ
        seen += f", {evidence.sides.text()}"
    if witnesses := witnessed(found.size, evidence.witnesses):
        seen += f"; {witnesses}"
    if evidence.randomised is not None:
        seen += f"; {evidence.randomised.text(found.size)}"
    said = sorted(_measured_again(evidence), key=lambda s: (s.weight, s.newest))
    deciding = [s for s in said if s.says is not None]
    refuted = bool(deciding) and not deciding[-1].says
    if not refuted and (artefact := layout_artefact(evidence)):
        told = [seen, *([f"suspect: {suspect}"] if suspect else [])]
        told += [s.line for s in said]
        return Verdict(State.LAYOUT, (*told, artefact), walk)
    if deciding:  # it overrides the suspicion it answers, told before it
        last = deciding[-1]
        told = [seen, *([f"suspect: {suspect}"] if suspect else [])]
        told += [s.line for s in said if s is not last]
        state = State.CONFIRMED if last.says else State.REFUTED
        return Verdict(state, (*told, last.line), last.measured or walk)
    others = [seen, *(s.line for s in said)]  # a drill or a try that decided nothing
    if unsure := [s for s in said if s.undecides]:  # measured again, and not decided
        told = [seen, *([f"suspect: {suspect}"] if suspect else [])]
        told += [s.line for s in said if s is not unsure[-1]]
        return Verdict(State.UNDECIDED, (*told, unsure[-1].line), walk)
    if suspect:
        return Verdict(State.SUSPECT, (*others, f"suspect: {suspect}"), walk)
    if found.edge:
        why = "undecided: at the edge, confirm with more checkouts"
        return Verdict(State.UNDECIDED, (*others, why), walk)
    if found.unseen is not None:
        why = "undecided: below the walk's bar, and no re-measure held it"
        return Verdict(State.UNDECIDED, (*others, why), walk)
    if not found.confidence >= CLEAR:
        why = f"undecided: detected below {format_confidence(CLEAR)}"
        return Verdict(State.UNDECIDED, (*others, why), walk)
    return Verdict(State.CONFIRMED, (*others[1:], seen), walk)  # by its walk


def _measured_again(evidence: Evidence) -> list[_Said]:
    """What each piece of evidence that measured the change again says."""
    said: list[_Said] = []
    if (drilled := evidence.drilled) is not None:
        said.append(_drill(drilled))
    if (tried := evidence.tried) is not None:
        said.append(_try(tried, regression=evidence.detected.regression))
    if (again := evidence.remeasured) is not None:
        said.append(_remeasure(again))
    for other in evidence.elsewhere:
        if not other.clear:
            continue
        line = (
            f"confirmed by {other.label} on {other.machine} "
            f"({format_size(other.size)}, {format_confidence(other.confidence)})"
        )
        measured = Measurement(
            other.size, f"{other.label} on {other.machine}", confidence=other.confidence
        )
        said.append(_Said(True, line, WEIGHT["elsewhere"], 0, measured))
    return said


def _remeasure(again: Remeasured) -> _Said:
    measured = None
    moved = ""
    if again.size is not None:
        measured = Measurement(again.size, "re-measure", confidence=again.confidence)
        moved = format_size(again.size)
    if any(again.repetitions):
        moved = ", ".join(filter(None, (moved, "{} + {} repetitions".format(*again.repetitions))))
    moved = f" ({moved})" if moved else ""
    says: bool | None
    undecides = False
    if again.other_way:
        says, undecides = None, True
        line = (
            f"undecided: a re-measure measured it the other way{moved}: the walk saw it "
            "turned around (a load on one side?); drill it"
        )
    elif not again.decided and again.final:
        says, undecides = None, True
        line = f"undecided: a re-measure could not tell it from no change{moved}"
    elif not again.decided:
        says, line = None, f"re-measure undecided yet{moved}"
    elif again.held:
        says, line = True, f"confirmed by a re-measure{moved}: it held"
    else:
        says, line = False, f"refuted by a re-measure{moved}: it did not hold"
    return _Said(says, line, WEIGHT["re-measure"], 0, measured, undecides)


def _drill(drilled: Drilled) -> _Said:
    of = f" of {drilled.metric}" if drilled.metric else ""
    name = f"drill {drilled.drill}"
    measured = None
    if drilled.size is not None:
        measured = Measurement(drilled.size, name, confidence=drilled.confidence)
    sure = "" if drilled.confidence is None else f", {format_confidence(drilled.confidence)}"
    why = f": {drilled.reason}" if drilled.reason else ""
    says: bool | None
    if drilled.answer == "culprit":
        says, line = True, f"confirmed by {name}{of} (CULPRIT {(drilled.culprit or '')[:8]}{sure})"
    elif drilled.answer == "range":
        says = True
        line = f"confirmed by {name}{of} (RANGE {drilled.lo[:8]}..{drilled.hi[:8]}{sure})"
    elif drilled.answer == "no-change":
        says, line = False, f"refuted by {name}{of} (NO-CHANGE{why})"
    else:
        says, line = None, f"{name}{of} undecided{why}"
    return _Said(says, line, WEIGHT["drill"], drilled.drill, measured)


def _try(tried: Tried, *, regression: bool) -> _Said:
    name = f"try {tried.series}" + (" of the culprit and its parent" if tried.culprit else "")
    measured = None
    moved = ""
    if tried.size is not None:
        measured = Measurement(tried.size, f"try {tried.series}", confidence=tried.confidence)
        moved = f" {format_size(tried.size)}"
    way = "worse" if regression else "better"
    says: bool | None
    if tried.answer == way:
        says, line = True, f"confirmed by {name} (B {way}{moved})"
    elif tried.answer in ("worse", "better", "same"):
        says, line = False, f"refuted by {name} (B {tried.answer}{moved})"
    else:
        says, line = None, f"{name} undecided (B{moved})"
    return _Said(says, line, WEIGHT["try"], tried.series, measured)


#: the order in which a change of several metrics takes its verdict from them
_FIRST = (State.CONFIRMED, State.SUSPECT, State.UNDECIDED, State.LAYOUT, State.REFUTED)


def combined(verdicts: Sequence[tuple[Verdict, bool]]) -> Verdict:
    """The verdict of a change of several metrics from theirs (each with whether it is
    a regression): confirmed when one of them is, else suspect, else undecided, else
    a layout artefact, else refuted (all of them); the chain and headline of the first
    such metric, a regression before an improvement."""
    if not verdicts:
        raise ValueError("a change has at least one metric")
    return min(verdicts, key=lambda found: (_FIRST.index(found[0].state), not found[1]))[0]
