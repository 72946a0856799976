"""The rules of a change's verdict (perfwalk.analysis.verdict), each on its own: pure,
numbers and small evidence records in, a state with its chain and headline out."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from perfwalk.analysis.symbols import code_moves, diff_symbols, parse_nm
from perfwalk.analysis.verdict import (
    CLEAR,
    CodeMoved,
    Detected,
    Drilled,
    Elsewhere,
    Evidence,
    Measurement,
    Randomised,
    Remeasured,
    Sides,
    State,
    Tried,
    Witness,
    combined,
    decide,
)
from perfwalk.quantities import format_confidence

LOAD = "machine load: local: before 0 of 6 repetitions loaded, load 4.00; after 6 of 6, load 10.90"
QUIET = Sides(before=6, after=6)


def _detected(**changed: object) -> Detected:
    found = {
        "label": "walk 1",
        "size": 0.406,
        "low": 0.38,
        "high": 0.43,
        "confidence": 0.99999,
        "regression": True,
        "checkouts_before": 5,
        "checkouts_after": 6,
    }
    found.update(changed)
    return Detected(**found)  # type: ignore[arg-type]


def _evidence(**changed: object) -> Evidence:
    found: dict[str, object] = {"detected": _detected(), "sides": QUIET}
    found.update(changed)
    return Evidence(**found)  # type: ignore[arg-type]


def test_a_change_found_clearly_on_a_quiet_machine_is_confirmed_by_its_walk() -> None:
    verdict = decide(_evidence())
    assert verdict.state is State.CONFIRMED
    assert verdict.chain == ("detected in walk 1 at > 99.99 %, both sides quiet",)
    assert verdict.headline == Measurement(0.406, "walk 1", 0.38, 0.43, 0.99999)
    assert verdict.headline.text() == "+40.6 % (walk 1)"
    assert verdict.headline.interval() == "+38.0 % … +43.0 %"


def test_the_chain_says_when_the_machine_state_was_loaded_alike_or_not_recorded() -> None:
    alike = decide(_evidence(sides=Sides(before=6, before_loaded=6, after=6, after_loaded=5)))
    assert alike.state is State.CONFIRMED
    assert alike.because.endswith("loaded: 6 of 6 repetitions before, 5 of 6 after")
    unknown = decide(_evidence(sides=Sides()))
    assert unknown.state is State.CONFIRMED
    assert unknown.because.endswith("no machine state recorded on its sides")
    # a load-immune metric's sides carry no state: not weighed, which is not unrecorded
    immune = decide(_evidence(sides=Sides(immune=True)))
    assert immune.state is State.CONFIRMED
    assert immune.because.endswith("load-immune: the machine's state not weighed")


def test_a_change_the_machine_state_explains_is_suspect_until_measured_again() -> None:
    verdict = decide(_evidence(suspect=LOAD))
    assert verdict.state is State.SUSPECT
    assert verdict.chain == ("detected in walk 1 at > 99.99 %", f"suspect: {LOAD}")
    assert verdict.headline.source == "walk 1"


def test_an_undecided_drill_decides_nothing_and_the_suspicion_stays_last() -> None:
    drilled = Drilled(drill=6, answer="undecided", reason="the budget ran out")
    verdict = decide(_evidence(suspect=LOAD, drilled=drilled))
    assert verdict.state is State.SUSPECT
    assert verdict.chain[1] == "drill 6 undecided: the budget ran out"
    assert verdict.because == f"suspect: {LOAD}"


@pytest.mark.parametrize("answer", ["culprit", "range"])
def test_a_drill_that_names_a_commit_confirms_a_suspect_change(answer: str) -> None:
    drilled = Drilled(
        drill=6,
        answer=answer,
        culprit="5a17eab3c0ffee" if answer == "culprit" else None,
        lo="1111111111",
        hi="5a17eab3c0ffee",
        confidence=0.9998,
        size=0.417,
    )
    verdict = decide(_evidence(suspect=LOAD, drilled=drilled))
    assert verdict.state is State.CONFIRMED
    named = "CULPRIT 5a17eab3" if answer == "culprit" else "RANGE 11111111..5a17eab3"
    assert verdict.chain == (
        "detected in walk 1 at > 99.99 %",
        f"suspect: {LOAD}",
        f"confirmed by drill 6 ({named}, 99.98 %)",
    )
    assert verdict.headline.text() == "+41.7 % (drill 6)"  # the drill measured it
    assert verdict.headline.confidence_text() == "99.98 %"
    assert verdict.headline.interval() == ""


def test_a_drills_no_change_refutes_even_a_clear_change() -> None:
    drilled = Drilled(drill=7, answer="no-change", size=0.002, reason="the ends do not differ")
    verdict = decide(_evidence(drilled=drilled))
    assert verdict.state is State.REFUTED
    assert verdict.because == "refuted by drill 7 (NO-CHANGE: the ends do not differ)"
    assert verdict.headline.text() == "+0.2 % (drill 7)"


def test_another_metrics_drill_answers_for_the_range_but_gives_no_size() -> None:
    drilled = Drilled(drill=7, answer="culprit", culprit="abcdef12", metric="t.other")
    verdict = decide(_evidence(drilled=drilled))
    assert verdict.because == "confirmed by drill 7 of t.other (CULPRIT abcdef12)"
    assert verdict.headline.source == "walk 1"


def test_a_remeasure_that_held_confirms_and_one_that_did_not_refutes() -> None:
    held = decide(_evidence(suspect=LOAD, remeasured=Remeasured(held=True, size=0.39)))
    assert held.state is State.CONFIRMED
    assert held.because == "confirmed by a re-measure (+39.0 %): it held"
    assert held.headline.text() == "+39.0 % (re-measure)"
    failed = decide(_evidence(remeasured=Remeasured(held=False, size=0.001)))
    assert failed.state is State.REFUTED
    assert failed.because == "refuted by a re-measure (+0.1 %): it did not hold"
    no_value = decide(_evidence(remeasured=Remeasured(held=False)))
    assert no_value.because == "refuted by a re-measure: it did not hold"
    assert no_value.headline.source == "walk 1"


def test_a_try_that_moves_the_same_way_confirms_and_the_same_or_the_other_way_refutes() -> None:
    worse = decide(_evidence(suspect=LOAD, tried=Tried(9, "worse", 0.38, 0.999)))
    assert worse.state is State.CONFIRMED
    assert worse.because == "confirmed by try 9 (B worse +38.0 %)"
    assert worse.headline.text() == "+38.0 % (try 9)"
    same = decide(_evidence(tried=Tried(9, "same", 0.001)))
    assert same.state is State.REFUTED
    assert same.because == "refuted by try 9 (B same +0.1 %)"
    better = decide(_evidence(tried=Tried(9, "better", -0.05)))
    assert better.state is State.REFUTED
    undecided = decide(_evidence(suspect=LOAD, tried=Tried(9, "undecided", 0.2)))
    assert undecided.state is State.SUSPECT
    culprit = decide(_evidence(tried=Tried(9, "worse", 0.4, culprit=True)))
    assert culprit.because == "confirmed by try 9 of the culprit and its parent (B worse +40.0 %)"
    # an improvement is confirmed by B better
    improved = _evidence(detected=_detected(size=-0.3, regression=False))
    better_way = decide(Evidence(**{**vars(improved), "tried": Tried(9, "better", -0.29)}))
    assert better_way.state is State.CONFIRMED


def test_a_second_machine_that_found_it_clearly_confirms() -> None:
    there = Elsewhere("walk 7", "bench-2", 0.398, 0.99999, clear=True)
    verdict = decide(_evidence(suspect=LOAD, elsewhere=(there,)))
    assert verdict.state is State.CONFIRMED
    assert verdict.because == "confirmed by walk 7 on bench-2 (+39.8 %, > 99.99 %)"
    assert verdict.headline.text() == "+39.8 % (walk 7 on bench-2)"
    unclear = Elsewhere("walk 7", "bench-2", 0.398, 0.99, clear=False)
    assert decide(_evidence(suspect=LOAD, elsewhere=(unclear,))).state is State.SUSPECT


def test_the_weightiest_and_then_the_newest_evidence_decides() -> None:
    # a re-measure held, a drill then found no change: the drill weighs more
    evidence = _evidence(
        remeasured=Remeasured(held=True, size=0.4),
        drilled=Drilled(drill=6, answer="no-change"),
    )
    verdict = decide(evidence)
    assert verdict.state is State.REFUTED
    assert verdict.chain[1:] == (
        "confirmed by a re-measure (+40.0 %): it held",
        "refuted by drill 6 (NO-CHANGE)",
    )
    # a try newer than the drill (its series came later) decides against it
    newer = decide(
        _evidence(drilled=Drilled(drill=6, answer="no-change"), tried=Tried(9, "worse", 0.4))
    )
    assert newer.state is State.CONFIRMED
    assert newer.chain[-2:] == (
        "refuted by drill 6 (NO-CHANGE)",
        "confirmed by try 9 (B worse +40.0 %)",
    )
    older = decide(
        _evidence(drilled=Drilled(drill=12, answer="no-change"), tried=Tried(9, "worse", 0.4))
    )
    assert older.state is State.REFUTED


def test_a_change_at_the_edge_or_found_below_clear_is_undecided() -> None:
    edge = decide(_evidence(detected=_detected(edge=True, checkouts_after=1)))
    assert edge.state is State.UNDECIDED
    assert edge.chain == (
        "detected in walk 1 at > 99.99 %, at the edge (5 checkouts before it, 1 after), "
        "both sides quiet",
        "undecided: at the edge, confirm with more checkouts",
    )
    weak = decide(_evidence(detected=_detected(confidence=0.995)))
    assert weak.state is State.UNDECIDED
    assert weak.because == f"undecided: detected below {format_confidence(CLEAR)}"
    assert weak.chain[0].startswith("detected in walk 1 at 99.50 %")
    # what re-measured it decides, at the edge too
    held = decide(
        _evidence(detected=_detected(edge=True), remeasured=Remeasured(held=True, size=0.4))
    )
    assert held.state is State.CONFIRMED
    # a suspicion comes before the edge
    assert decide(_evidence(detected=_detected(edge=True), suspect=LOAD)).state is State.SUSPECT


def test_a_change_of_several_metrics_takes_the_first_of_confirmed_suspect_undecided() -> None:
    confirmed = decide(_evidence())
    suspect = decide(_evidence(suspect=LOAD))
    undecided = decide(_evidence(detected=_detected(edge=True)))
    refuted = decide(_evidence(drilled=Drilled(drill=3, answer="no-change")))
    assert combined([(refuted, True), (suspect, True), (confirmed, False)]) is confirmed
    assert combined([(refuted, True), (undecided, True), (suspect, False)]) is suspect
    assert combined([(refuted, True), (undecided, False)]) is undecided
    assert combined([(refuted, False), (refuted, True)]).state is State.REFUTED
    other = decide(_evidence(detected=_detected(label="walk 2")))
    assert combined([(other, False), (confirmed, True)]) is confirmed  # a regression first
    with pytest.raises(ValueError, match="at least one metric"):
        combined([])


def test_sizes_from_zero_and_confidences_are_written_one_way() -> None:
    up = decide(_evidence(detected=_detected(size=math.inf, low=math.inf, high=math.inf)))
    assert up.headline.text() == "from 0 up (walk 1)"
    assert up.headline.interval() == ""
    assert [format_confidence(c) for c in (0.99999, 0.9999, 0.9998, 0.95, None)] == [
        "> 99.99 %",
        "99.99 %",
        "99.98 %",
        "95.00 %",
        "n/a",
    ]
    assert format_confidence(0.99995) == "> 99.99 %"


def test_a_remeasure_the_other_way_or_undecided_for_good_leaves_the_change_undecided() -> None:
    # a load on one side turned a real step around: measured again quietly, it went the
    # other way clearly; that is no proof that nothing changed
    turned = decide(
        _evidence(
            suspect=LOAD,
            remeasured=Remeasured(held=False, size=-0.06, repetitions=(3, 3), other_way=True),
        )
    )
    assert turned.state is State.UNDECIDED
    assert turned.because.startswith("undecided: a re-measure measured it the other way (-6.0 %")
    assert turned.chain[1] == f"suspect: {LOAD}"
    # at its most repetitions it could not tell the change from none: not confirmed
    # by the walk alone any more, nor refuted
    unsure = Remeasured(held=False, size=-0.0002, decided=False, repetitions=(10, 10), final=True)
    stuck = decide(_evidence(remeasured=unsure))
    assert stuck.state is State.UNDECIDED
    assert stuck.because == (
        "undecided: a re-measure could not tell it from no change (0.0 %, 10 + 10 repetitions)"
    )
    # still measuring: it decides nothing yet, the walk's verdict stands
    going = decide(_evidence(remeasured=Remeasured(held=True, size=0.3, decided=False)))
    assert going.state is State.CONFIRMED
    # a drill decides over both
    drilled = Drilled(drill=6, answer="culprit", culprit="5a17eab3c0", confidence=0.9998)
    assert decide(_evidence(remeasured=unsure, drilled=drilled)).state is State.CONFIRMED


def test_a_step_the_walk_did_not_detect_is_a_change_only_once_a_remeasure_holds_it() -> None:
    # the most likely step of a metric too noisy to judge, measured again
    unseen = _detected(confidence=0.0, unseen=0.61)
    held = decide(_evidence(detected=unseen, remeasured=Remeasured(held=True, size=0.213)))
    assert held.state is State.CONFIRMED
    assert held.chain == (
        "not detected in walk 1: its most likely step below the bar (61% of a change it "
        "could see there), both sides quiet",
        "confirmed by a re-measure (+21.3 %): it held",
    )
    assert held.headline.text() == "+21.3 % (re-measure)"
    # without a re-measure that decided, it is no more than undecided, suspect or not
    for evidence in (
        _evidence(detected=unseen),
        _evidence(detected=unseen, remeasured=Remeasured(held=True, size=0.2, decided=False)),
    ):
        assert decide(evidence).state is State.UNDECIDED
        assert decide(evidence).because == (
            "undecided: below the walk's bar, and no re-measure held it"
        )
    assert decide(_evidence(detected=unseen, suspect=LOAD)).state is State.SUSPECT
    refuted = decide(_evidence(detected=unseen, remeasured=Remeasured(held=False, size=0.0)))
    assert refuted.state is State.REFUTED


def test_the_instruments_of_a_test_say_whether_its_wall_time_change_is_the_codes() -> None:
    wall = 0.40

    def chain(*witnesses: Witness) -> str:
        return decide(_evidence(detected=_detected(size=wall), witnesses=witnesses)).chain[0]

    code = chain(Witness("rusage.user_cpu", 0.38, found=True))
    assert code.endswith("; its instruments: rusage.user_cpu +38.0 % (a change) → the code")
    machine = chain(Witness("cachegrind.instructions", 0.001, found=False, floor=0.02))
    assert machine.endswith(
        "cachegrind.instructions +0.1 % (no change, could see ±2.0 %) → the machine or the "
        "layout, not the code"
    )
    # moved, if not enough for its search; or could not have seen half the change
    for unsure in (
        Witness("rusage.user_cpu", 0.15, found=False, floor=0.2),
        Witness("rusage.user_cpu", 0.0, found=False, floor=0.3),
        Witness("rusage.user_cpu", None, found=False, floor=0.01),
    ):
        assert chain(unsure).endswith("→ they cannot tell"), unsure
    # one that moved the other way is no witness of the code either
    assert chain(Witness("rusage.user_cpu", -0.2, found=True)).endswith("→ they cannot tell")
    # the state is the walk's: witnesses are told, not weighed
    nothing = (Witness("rusage.user_cpu", 0.0, found=False, floor=0.01),)
    assert decide(_evidence(witnesses=nothing)).state is decide(_evidence()).state


def _moves(*, resized: bool = False, sized: bool = True) -> CodeMoved:
    before = parse_nm(
        "1000 0000000000000020 T main\n1040 0000000000000030 T work\n"
        "1080 0000000000000010 D table\n"
    )
    work = "0000000000000038" if resized else "0000000000000030"
    after = parse_nm(
        "1000 0000000000000020 T main\n1020 0000000000000018 t pad\n"
        f"1070 {work} T work\n1090 0000000000000010 D table\n"
    )
    if not sized:
        before = tuple(replace(s, size=None) for s in before)
    return CodeMoved("bench", code_moves(diff_symbols(before, after), before, after))


STILL = (Witness("cachegrind.instructions", 0.0004, found=False, floor=0.01),)


def test_code_that_moved_and_instruments_that_did_not_make_a_layout_artefact() -> None:
    verdict = decide(_evidence(witnesses=STILL, code_moved=_moves()))
    print(verdict.told())
    assert verdict.state is State.LAYOUT
    assert verdict.because == (
        "layout artefact: code moved, not changed: its instruments did not move; bench: "
        "1 function moved (work +48 B), none changed size, 1 added"
    )
    assert "→ the machine or the layout, not the code" in verdict.chain[0]
    # a layout artefact is a state of its own, after undecided and before refuted
    assert combined([(verdict, True), (decide(_evidence()), True)]).state is State.CONFIRMED
    refuted = decide(_evidence(drilled=Drilled(drill=7, answer="no-change")))
    assert combined([(refuted, True), (verdict, True)]).state is State.LAYOUT


def test_no_layout_artefact_without_every_part_of_its_evidence() -> None:
    moved = _moves()
    for evidence in (
        _evidence(witnesses=STILL),  # no symbol lists
        _evidence(witnesses=STILL, code_moved=_moves(resized=True)),  # work changed size
        _evidence(witnesses=STILL, code_moved=_moves(sized=False)),  # sizes unknown
        _evidence(code_moved=moved),  # no instruments, no random layouts
        _evidence(  # an instrument that moved with the wall time: the code
            witnesses=(Witness("cachegrind.instructions", 0.39, found=True),), code_moved=moved
        ),
        _evidence(  # one that could not have seen the change
            witnesses=(Witness("rusage.user_cpu", 0.0, found=False, floor=0.5),),
            code_moved=moved,
        ),
        _evidence(  # the random layouts moved as much: it did not vanish there
            randomised=Randomised("series 2 (shuffled)", 0.41, floor=0.01), code_moved=moved
        ),
        _evidence(  # too noisy to see it: no witness either way
            randomised=Randomised("series 2 (shuffled)", 0.01, floor=0.5), code_moved=moved
        ),
    ):
        verdict = decide(evidence)
        print(verdict.state.value, "|", verdict.told())
        assert verdict.state is not State.LAYOUT
        assert not verdict.because.startswith("layout artefact")


def test_a_change_that_vanished_under_random_layouts_is_a_layout_artefact() -> None:
    gone = Randomised("series 2 (shuffled)", 0.002, floor=0.05)
    verdict = decide(_evidence(randomised=gone, code_moved=_moves()))
    print(verdict.told())
    assert verdict.state is State.LAYOUT
    assert "it vanished under random layouts (series 2 (shuffled))" in verdict.because
    assert verdict.chain[0].endswith(
        "under random layouts (series 2 (shuffled)): +0.2 % (could see ±5.0 %) → it vanished"
    )


def test_a_drill_that_finds_the_commit_leaves_a_layout_artefact_and_a_refutation_wins() -> None:
    culprit = Drilled(drill=6, answer="culprit", culprit="5a17eab3", confidence=0.9998, size=0.41)
    found = decide(_evidence(witnesses=STILL, code_moved=_moves(), drilled=culprit))
    assert found.state is State.LAYOUT
    assert any(line.startswith("confirmed by drill 6") for line in found.chain[:-1])
    nothing = Drilled(drill=7, answer="no-change", size=0.002)
    refuted = decide(_evidence(witnesses=STILL, code_moved=_moves(), drilled=nothing))
    assert refuted.state is State.REFUTED
