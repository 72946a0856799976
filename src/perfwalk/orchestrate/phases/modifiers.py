"""The runtime modifiers of variants, and those in place on hosts, kept in the store so
that none outlives the walk that applied it without a word.

- :class:`RuntimeModifier`: one ``[[variant.modifier]]`` as a test runs it
  (:func:`runtime_modifiers` of a variant);
- :class:`ModifierLedger`: a walk records each modifier (its host, variant, undo
  commands as they will run, who applies it and when) *before* its apply commands
  run, and clears the record once its undo commands passed (the test's reset phase,
  :mod:`perfwalk.orchestrate.phases.phases`; after Ctrl-C or SIGTERM too). An undo that
  fails keeps the record.
- :func:`undo_left`: before it measures, a walk runs the undo commands of every
  modifier recorded on the hosts it leases (the lease says no other walk uses them:
  whoever applied it was killed, or its undo failed) and clears them; when one
  cannot be undone, the walk does not start (HostError naming each, and how to clear
  it once undone by hand).
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from perfwalk.config.model import ModifierConfig, VariantConfig
from perfwalk.errors import HostError
from perfwalk.model import Status
from perfwalk.orchestrate.hosts.topology import Member, Topology
from perfwalk.orchestrate.steps.recorder import why
from perfwalk.store import Store
from perfwalk.store.leases import Holder
from perfwalk.store.modifiers import AppliedModifier, NewModifier
from perfwalk.untrusted import show_controls

#: Bytes of an undo command's output kept to say why it failed.
_OUTPUT_LIMIT = 64 * 1024


@dataclass(frozen=True)
class RuntimeModifier:
    """One ``[[variant.modifier]]`` of a variant as its tests run it: its variant's
    name and its number among the variant's modifiers."""

    variant: str
    number: int
    config: ModifierConfig

    @property
    def key(self) -> str:
        """Its key in the configuration: ``variant.NAME.modifier[N]``."""
        return f"variant.{self.variant}.modifier[{self.number}]"


def runtime_modifiers(variant: VariantConfig | None) -> tuple[RuntimeModifier, ...]:
    """The runtime modifiers a test runs with for ``variant`` (see
    :mod:`perfwalk.orchestrate.phases.phases`: applied first in their role's startup, in
    their order; undone last in its reset, in the reverse order)."""
    if variant is None:
        return ()
    return tuple(
        RuntimeModifier(variant.name, number, modifier)
        for number, modifier in enumerate(variant.modifiers)
    )


class ModifierLedger:
    """The records of the modifiers one walk (series ``series_id``, its processes
    marked ``marker``) puts in place."""

    def __init__(
        self,
        store: Store,
        series_id: int,
        marker: str,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._store = store
        self._series_id = series_id
        holder = Holder.this_process(f"series {series_id}")
        self._holder = dataclasses.replace(holder, token=marker) if marker else holder
        self._clock = clock

    def applying(
        self,
        member: Member,
        modifier: RuntimeModifier,
        *,
        role: str,
        undo: Sequence[str],
        cwd: str,
        timeout: float,
    ) -> int:
        """``modifier`` is about to be applied on ``member`` (its ``undo`` commands as
        they will run, in ``cwd``, ``timeout`` seconds each): its record's id."""
        new = NewModifier(
            host=member.lease or member.name,
            member=member.name,
            role=role,
            variant=modifier.variant,
            modifier=modifier.number,
            undo=tuple(undo),
            cwd=cwd,
            timeout=timeout,
            series_id=self._series_id,
        )
        return self._store.modifiers.record(new, self._holder, self._clock())

    def undone(self, record: int) -> None:
        """The modifier of record ``record`` is undone."""
        self._store.modifiers.clear(record)


@dataclass(frozen=True)
class Undone:
    """A modifier a gone walk left in place, now undone."""

    modifier: AppliedModifier

    def describe(self) -> str:
        applied = self.modifier
        state = "that is gone" if not applied.applier_alive() else "that no longer leases it"
        commands = "; ".join(applied.undo)
        return show_controls(
            f"undid {applied.describe()}, left in place by a walk {state}: {commands}"
        )


def undo_left(store: Store, topology: Topology, leased: Collection[str]) -> list[Undone]:
    """Undo every modifier recorded on the hosts of ``topology`` whose leases (``leased``)
    this process holds, the newest first (as a walk undoes them: in the reverse order of
    their applying), and clear their records; what was undone. A HostError naming those
    that could not be undone (their records kept)."""
    members = {member.lease: member for member in topology if member.lease in leased}
    if not members:
        return []
    undone: list[Undone] = []
    failed: list[tuple[AppliedModifier, str]] = []
    for applied in reversed(store.modifiers.on(sorted(members))):  # the newest first
        problem = _undo(topology, members[applied.host], applied)
        if problem:
            failed.append((applied, problem))
            continue
        store.modifiers.clear(applied.id)
        undone.append(Undone(applied))
    if failed:
        count = f"{len(failed)} runtime modifier{'s' if len(failed) > 1 else ''}"
        told = "; ".join(f"{a.describe()} (record {a.id}): {problem}" for a, problem in failed)
        raise HostError(
            show_controls(
                f"{count} left in place by an earlier walk could not be undone, so nothing "
                f"is measured: {told}"
            ),
            hint="undo it by hand on its host, then forget its record: "
            + ", ".join(f"`perfwalk hosts --forget-modifier {a.id}`" for a, _ in failed)
            + " (`perfwalk hosts` lists the modifiers left in place)",
        )
    return undone


def _undo(topology: Topology, member: Member, applied: AppliedModifier) -> str:
    """Run the undo commands of ``applied`` on ``member``, in its directory of then when
    it is still there, else in this walk's work directory; why they failed ("" when
    they passed)."""
    try:
        workdir = topology.workdir(member.name)
    except HostError as error:
        return str(error)
    for command in applied.undo:
        done = member.host.run(
            ["sh", "-c", f"cd {shlex.quote(applied.cwd)} 2>/dev/null; {command}"],
            timeout=applied.timeout,
            cwd=workdir,
            output_limit=_OUTPUT_LIMIT,
        )
        reason = why(done, Status.NOCLEAN)
        if reason:
            return f"`{command}`: {reason}"
    return ""
