"""Prepare a checkout of a walk for its repetitions: its worktree at the commit, the
quirks that hold there (patches) and those the walk crosses to reach it (commands,
reboots), the build steps (a quirk's, where one replaces them) and the install; and
the action between two repetitions (nothing, a reboot, a rebuild or a command).

Builds and commands between repetitions run on the [run] host, in the worktree; a
reboot reboots every ssh host of the run that has a reboot command.

A build is told its layout (:mod:`perfwalk.orchestrate.checkout.layout`); with ``layout =
"random"``, each repetition is measured on a layout of its own: before it, the
worktree is laid out again with the repetition's seed (``[build] relink``, else the
build steps again) unless it already has that layout, and the repetition keeps a
step that says the seed (:meth:`Preparation.lay_out`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from perfwalk.config.model import VariantConfig
from perfwalk.config.settings import BASE_VARIANT, RANDOM_LAYOUT
from perfwalk.git.worktree import apply_patch
from perfwalk.model import Checkout, Log, Status
from perfwalk.orchestrate.checkout.build_facts import compiler_of, record_hosts, record_symbols
from perfwalk.orchestrate.checkout.checkout_env import checkout_env, checkout_values
from perfwalk.orchestrate.checkout.install import install_checkout
from perfwalk.orchestrate.checkout.layout import (
    SEED_ENV,
    layout_env,
    layout_of,
    layout_seed,
    said_seed,
)
from perfwalk.orchestrate.checkout.quirks import (
    PlannedQuirk,
    applying,
    build_steps,
    describe_holding,
)
from perfwalk.orchestrate.checkout.variants import base_variant
from perfwalk.orchestrate.hosts.reboot import RebootOutcome, reboot
from perfwalk.orchestrate.hosts.together import run_together
from perfwalk.orchestrate.hosts.topology import Member
from perfwalk.orchestrate.steps.shell_steps import StepsOutcome, joined, run_steps
from perfwalk.orchestrate.walk.plan import PlannedCheckout
from perfwalk.orchestrate.walk.walk_setup import WalkSetup
from perfwalk.store.records import NewStep

#: what happens between two repetitions besides a command
BETWEEN_ACTIONS = ("keep", "reboot", "rebuild")
#: the name of a repetition's step that says its layout's seed: ``layout seed N``
LAYOUT_STEP = "layout seed"


@dataclass
class Preparation:
    """Prepares the checkouts of a walk (their builds stored as they end) and runs the
    action between two repetitions."""

    setup: WalkSetup
    #: the steps of the reboots since the last repetition, for the next one to keep
    pending_steps: list[NewStep] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._member = self.setup.topology.member("")
        self._host = self._member.host
        self._holding: dict[str, list[PlannedQuirk]] = {}  # by commit: the quirks that hold
        self._ready: tuple[int, Path, StepsOutcome] | None = None  # the checkout built last
        self._base = base_variant(self.setup.config)
        #: the seed of the layout each worktree was last built or relinked with
        self._laid_out: dict[Path, int] = {}

    def holding(self, checkout: Checkout) -> Sequence[PlannedQuirk]:
        """The quirks that hold at ``checkout`` (once it was prepared)."""
        return self._holding.get(checkout.commit, ())

    def prepare_once(
        self, checkout_id: int, planned: PlannedCheckout, prior: int | None
    ) -> tuple[Path, StepsOutcome]:
        """:meth:`prepare` in the ``build`` worktree, unless this checkout is the one
        built last there."""
        if self._ready is not None and self._ready[0] == checkout_id:
            return self._ready[1], self._ready[2]
        worktree, build = self.prepare(checkout_id, planned, prior)
        self._ready = (checkout_id, worktree, build) if build.status is Status.PASS else None
        return worktree, build

    def prepare(
        self,
        checkout_id: int,
        planned: PlannedCheckout,
        prior: int | None,
        slot: str = "build",
        variant: VariantConfig | None = None,
    ) -> tuple[Path, StepsOutcome]:
        """Worktree ``slot`` at the commit, the quirks that hold (patches) and those
        crossed (commands, reboots), the patches of ``variant``, then the build steps
        (the variant's, or a quirk's, where one replaces them) with its environment."""
        with self.setup.live.step("build", planned.checkout, None):
            return self._prepare(checkout_id, planned, prior, slot, variant)

    def _prepare(
        self,
        checkout_id: int,
        planned: PlannedCheckout,
        prior: int | None,
        slot: str,
        variant: VariantConfig | None,
    ) -> tuple[Path, StepsOutcome]:
        checkout = planned.checkout
        variant = variant or self._base
        worktree = self.setup.worktrees.checkout(checkout.commit, slot=slot)
        holding, crossed = applying(self.setup.quirks, prior, planned.position)
        self._holding[checkout.commit] = holding
        env = checkout_env(self._build_env(variant, checkout, 0), checkout, None, self.setup.marker)
        self._laid_out.pop(worktree, None)
        # a resumed walk does not run again what already ran here: the machine has it
        done = self._quirks_done(checkout_id) if crossed else set()
        runs: dict[str, StepsOutcome] = {}
        for quirk in holding:
            ran = StepsOutcome(Status.PASS, 0.0, Log.of(describe_holding(quirk).encode()), None)
            if quirk.patch is not None:
                status, log = _apply_patch(worktree, quirk.patch)
                failed = None if status is Status.PASS else f"patch of quirk {quirk.letter}"
                ran = joined(StepsOutcome(status, 0.0, log, failed), ran)
            if ran.status is not Status.PASS:
                self.setup.store.add_quirk_run(checkout_id, quirk.letter, ran.status, ran.log)
                self.setup.store.set_build(checkout_id, Status.NOEXIST, None, ran.log)
                return worktree, StepsOutcome(Status.NOEXIST, 0.0, ran.log, ran.failed)
            runs[quirk.letter] = ran
        if variant is not None:
            patched = _apply_patches(worktree, variant)
            if patched.status is not Status.PASS:
                for letter, ran in runs.items():
                    self.setup.store.add_quirk_run(checkout_id, letter, ran.status, ran.log)
                self.setup.store.set_build(checkout_id, Status.NOEXIST, None, patched.log)
                return worktree, patched
        for quirk in crossed:
            if quirk.letter in done:
                runs.pop(quirk.letter, None)  # its stored run says what ran
                continue
            ran = self._steps(quirk.commands, worktree, env, Status.NOEXIST)
            if ran.status is Status.PASS and quirk.config.reboot:
                ran = joined(ran, self._reboot_all("quirk"))
            runs[quirk.letter] = joined(runs[quirk.letter], ran) if quirk.letter in runs else ran
        for letter, ran in runs.items():
            self.setup.store.add_quirk_run(checkout_id, letter, ran.status, ran.log)
        build = self._steps(self._build_steps(holding, variant), worktree, env, Status.NOEXIST)
        if variant is not None and variant.patches:
            build = joined(patched, build)
        if build.status is Status.PASS and self.setup.config.install:
            build = joined(build, self._install(worktree, checkout, env))
            self.setup.hangs.installed()
        self.setup.store.set_build(checkout_id, build.status, build.seconds, build.log)
        if build.status is Status.PASS and SEED_ENV in env:
            self._laid_out[worktree] = int(env[SEED_ENV])
        self._record_facts(checkout_id, worktree, build)
        return worktree, build

    def _record_facts(self, checkout_id: int, worktree: Path, build: StepsOutcome) -> None:
        """What the checkout runs on: every host's kernel and compiler, and the symbol
        list of ``[build] symbols`` after a build that passed."""
        config = self.setup.config
        with self.setup.live.aside():
            record_hosts(self.setup.store, self.setup.topology, checkout_id, compiler_of(config))
        if build.status is Status.PASS and config.build.symbols:
            record_symbols(
                self.setup.store,
                self._host,
                checkout_id,
                worktree,
                config.build.symbols,
                list_limit=config.store.artifact_limit,
                diff_limit=config.store.log_limit,
            )

    def _install(
        self, worktree: Path, checkout: Checkout, env: Mapping[str, str], on: set[str] | None = None
    ) -> StepsOutcome:
        """Install the checkout on the hosts of its roles (``on``: those hosts only)."""
        with self.setup.live.step("install", checkout, None):
            return install_checkout(
                self.setup.config.install,
                self.setup.topology,
                worktree,
                env=env,
                values=checkout_values(checkout, worktree, None),
                output_limit=self.setup.config.store.log_limit,
                hangs=self.setup.hangs,
                on=on,
            )

    def install_again(
        self, worktree: Path, checkout: Checkout, variant: VariantConfig | None = None
    ) -> StepsOutcome | None:
        """Install the checkout again on the hosts power-cycled since it was installed
        (:mod:`perfwalk.orchestrate.hosts.hangs`), before its next repetition; None when
        none needs it."""
        hangs, install = self.setup.hangs, self.setup.config.install
        roles = {self.setup.topology.member(role).name for role in install}
        on = roles & hangs.uninstalled
        if not on:
            return None
        variant = variant or self._base
        env = checkout_env(self._build_env(variant, checkout, 0), checkout, None, self.setup.marker)
        said = f"[installed again after the power cycle of {', '.join(sorted(on))}]\n"
        done = self._install(worktree, checkout, env, on)
        hangs.installed(on)
        return joined(StepsOutcome(Status.PASS, 0.0, Log.of(said.encode()), None), done)

    def between_repetitions(
        self, worktree: Path, checkout: Checkout, rep: int, variant: VariantConfig | None = None
    ) -> StepsOutcome | None:
        """The action before repetition ``rep``: nothing, a reboot, a rebuild (as
        ``variant`` is built) or a command."""
        if self.setup.between == "keep":
            return None
        mode = self.setup.between if self.setup.between in ("reboot", "rebuild") else "command"
        with self.setup.live.step(f"between ({mode})", checkout, rep):
            return self._between(worktree, checkout, rep, variant)

    def _between(
        self, worktree: Path, checkout: Checkout, rep: int, variant: VariantConfig | None
    ) -> StepsOutcome:
        if self.setup.between == "reboot":
            return self._reboot_all("between")
        variant = variant or self._base
        env = checkout_env(
            self._build_env(variant, checkout, rep), checkout, rep, self.setup.marker
        )
        if self.setup.between == "rebuild":
            steps = self._build_steps(self.holding(checkout), variant)
            rebuilt = self._steps(steps, worktree, env, Status.NOCLEAN)
            if rebuilt.status is Status.PASS and SEED_ENV in env:
                self._laid_out[worktree] = int(env[SEED_ENV])
            return rebuilt
        return self._steps([self.setup.between], worktree, env, Status.NOCLEAN)

    def lay_out(
        self, worktree: Path, checkout: Checkout, rep: int, variant: VariantConfig | None = None
    ) -> NewStep | None:
        """With ``layout = "random"``: lay out ``worktree`` with the seed of repetition
        ``rep`` (``[build] relink``, else the build steps again) unless it has that
        layout already; the step that says the seed (the one a relink command said it
        used, if it said one), for the repetition to keep. None for other layouts."""
        variant = variant or self._base
        if layout_of(self.setup.config, variant) != RANDOM_LAYOUT:
            return None
        with self.setup.live.step("layout", checkout, rep):
            return self._lay_out(worktree, checkout, rep, variant)

    def _lay_out(
        self, worktree: Path, checkout: Checkout, rep: int, variant: VariantConfig | None
    ) -> NewStep:
        env = checkout_env(
            self._build_env(variant, checkout, rep), checkout, rep, self.setup.marker
        )
        seed = int(env[SEED_ENV])
        started = datetime.now(UTC)
        if self._laid_out.get(worktree) == seed:
            kept = StepsOutcome(Status.PASS, 0.0, Log.of(b""), None)
            return _layout_step(seed, self._member.name, "", kept, started)
        relink = self.setup.config.build.relink
        steps = [relink] if relink else self._build_steps(self.holding(checkout), variant)
        done = self._steps(steps, worktree, env, Status.NOCLEAN)
        if done.status is Status.PASS:
            self._laid_out[worktree] = seed
        else:
            self._laid_out.pop(worktree, None)
        seed = said_seed(done.log.data) or seed
        return _layout_step(seed, self._member.name, "; ".join(steps), done, started)

    def _build_env(
        self, variant: VariantConfig | None, checkout: Checkout, rep: int
    ) -> dict[str, str]:
        """[build] env, with the variant's build_env over it, and the layout of the
        variant's build (with ``layout = "random"``, that of repetition ``rep``)."""
        config = self.setup.config
        env = dict(config.build.env)
        if variant is not None:
            env.update(variant.build_env)
        seed = layout_seed(
            self.setup.series_id,
            checkout.commit,
            BASE_VARIANT if variant is None else variant.name,
            rep,
        )
        env.update(layout_env(layout_of(config, variant), config.build.layout_align, seed))
        return env

    def _build_steps(
        self, holding: Sequence[PlannedQuirk], variant: VariantConfig | None
    ) -> Sequence[str]:
        """The variant's build steps, or a holding quirk's, or [build] steps."""
        if variant is not None and variant.build_steps:
            return variant.build_steps
        return build_steps(holding, self.setup.config.build.steps)

    def _quirks_done(self, checkout_id: int) -> set[str]:
        """The letters of the quirks that already ran (PASS) at a checkout."""
        return {
            run.letter
            for row in self.setup.store.checkouts(self.setup.series_id)
            if row.id == checkout_id
            for run in row.quirk_runs
            if run.status is Status.PASS
        }

    def _steps(
        self, steps: Sequence[str], worktree: Path, env: Mapping[str, str], failure: Status
    ) -> StepsOutcome:
        return run_steps(
            self._host,
            steps,
            cwd=str(worktree),
            timeout=self.setup.config.build.timeout,
            env=env,
            output_limit=self.setup.config.store.log_limit,
            failure=failure,
        )

    def _reboot_all(self, phase: str) -> StepsOutcome:
        """Reboot every ssh host of the run that has a reboot command, all at once."""
        members = [m for m in self.setup.topology if not m.local and m.reboot]

        def job(member: Member) -> Callable[[object], RebootOutcome]:
            return lambda _cancel: reboot(member, phase=phase)

        outcomes = run_together([job(m) for m in members]) if members else []
        for outcome in outcomes:
            if outcome.status is Status.PASS:
                self.setup.topology.restore_workdir(outcome.host)
        self.pending_steps.extend(step for o in outcomes for step in o.steps)
        text = "".join(f"[{o.message}]\n" for o in outcomes) or "[no ssh host to reboot]\n"
        hangs = self.setup.hangs
        gone = hangs.suspects(
            (o.host, Status.NORUN) for o in outcomes if o.status is not Status.PASS
        )
        recovered = hangs.recover(gone, phase=phase)
        self.pending_steps.extend(recovered.steps)
        if recovered.error is not None:
            raise recovered.error
        if recovered.hung:
            text += f"[{recovered.message}]\n"
        status = Status.worst([o.status for o in outcomes])
        seconds = max((o.up_after or o.down_after or 0.0 for o in outcomes), default=0.0)
        failed = next((o.message for o in outcomes if o.status is not Status.PASS), None)
        return StepsOutcome(status, seconds, Log.of(text.encode()), failed)


def _layout_step(
    seed: int, host: str, command: str, done: StepsOutcome, started: datetime
) -> NewStep:
    """The step of a repetition that says the seed of its layout, and what laid it out
    (``command``; "": the build as it was)."""
    return NewStep(
        phase="between",
        role="",
        host=host,
        kind="command",
        name=f"{LAYOUT_STEP} {seed}",
        command=command,
        status=done.status,
        started_at=started,
        finished_at=datetime.now(UTC),
        message=done.failed or ("" if command else "the build's own layout"),
        stdout=done.log,
    )


def _apply_patches(worktree: Path, variant: VariantConfig) -> StepsOutcome:
    """The patches of ``variant``, in order: NOEXIST with git's reject at the first that
    does not apply."""
    said: list[bytes] = []
    for patch in variant.patches:
        status, log = _apply_patch(worktree, patch)
        said.append(log.data)
        if status is not Status.PASS:
            failed = f"patch {patch.name} of variant {variant.name}"
            return StepsOutcome(status, 0.0, Log.of(b"".join(said)), failed)
    return StepsOutcome(Status.PASS, 0.0, Log.of(b"".join(said)), None)


def _apply_patch(worktree: Path, patch: Path) -> tuple[Status, Log]:
    try:
        apply_patch(worktree, patch)
    except Exception as error:  # a patch that does not apply is NOEXIST, not a crash
        return Status.NOEXIST, Log.of(f"patch {patch} failed: {error}\n".encode())
    return Status.PASS, Log.of(f"applied {patch}\n".encode())
