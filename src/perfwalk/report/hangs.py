"""The hosts that hung in a series and were power-cycled, per checkout, from the
``power cycle`` steps its repetitions keep: what ``perfwalk show`` says below its
table. A checkout at which a host hung at every repetition stored is a functional
break (it hangs its host), not a speed without a value."""

from __future__ import annotations

from dataclasses import dataclass

from perfwalk.store import Store


@dataclass(frozen=True)
class HungCheckout:
    """A checkout of a series where a host hung: the repetitions it has, and per
    repetition that hung, what its power cycle said."""

    series_id: int
    idx: int
    sha: str
    repetitions: int
    hung: tuple[tuple[int, str], ...]  # (repetition, message of its power cycle)

    @property
    def every(self) -> bool:
        """Whether a host hung at every repetition of the checkout."""
        return len({rep for rep, _said in self.hung}) >= self.repetitions

    def lines(self) -> list[str]:
        """``checkout 2 (ab12cd34ef): repetition 1: host dut hung: power-cycled …``,
        one per power cycle, after a line that says so when every repetition hung."""
        head = f"checkout {self.idx} ({self.sha[:10]})"
        found = []
        if self.every:
            reps = {rep for rep, _said in self.hung}
            found.append(
                f"{head}: a host hung at every repetition ({len(reps)} of {self.repetitions}): "
                "a functional break, no speed measured; the console of each power cycle: "
                f"`perfwalk log {self.series_id}:{self.idx}`"
            )
        found += [f"{head}: repetition {rep}: {said}" for rep, said in self.hung]
        return found


def series_hangs(store: Store, series_id: int) -> list[HungCheckout]:
    """The checkouts of ``series_id`` where a host hung, in checkout order."""
    by_checkout: dict[int, list[tuple[int, str]]] = {}
    for checkout, rep, step in store.power_cycles(series_id):
        by_checkout.setdefault(checkout, []).append((rep, step.message))
    if not by_checkout:
        return []
    done: dict[int, int] = {}
    for idx, _rep in store.done_repetitions(series_id):
        done[idx] = done.get(idx, 0) + 1
    return [
        HungCheckout(series_id, row.idx, row.sha, done.get(row.idx, 0), tuple(by_checkout[row.idx]))
        for row in store.checkouts(series_id)
        if row.idx in by_checkout
    ]
