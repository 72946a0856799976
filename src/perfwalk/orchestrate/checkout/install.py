"""Install a built checkout on the hosts of its roles (``[install.<role>]``).

For each role, in the order of the file: the listed files of the worktree are
copied into the host's work directory, the steps run there, and the host is
rebooted if asked. This is where a kernel is installed or a ruleset loaded: a
failure makes the checkout NOEXIST, like a failed build, with the log saying
which role and which step.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from pathlib import Path, PurePosixPath

from perfwalk.config.host_model import InstallConfig
from perfwalk.errors import HostError
from perfwalk.model import Log, Status
from perfwalk.orchestrate.hosts.hangs import Hangs
from perfwalk.orchestrate.hosts.reboot import reboot
from perfwalk.orchestrate.hosts.topology import Topology
from perfwalk.orchestrate.steps.placeholders import substitute
from perfwalk.orchestrate.steps.shell_steps import StepsOutcome, run_steps
from perfwalk.store.records import NewStep


def install_checkout(
    install: Mapping[str, InstallConfig],
    topology: Topology,
    worktree: Path,
    *,
    env: Mapping[str, str],
    values: Mapping[str, str],
    output_limit: int,
    hangs: Hangs | None = None,
    on: Collection[str] | None = None,
) -> StepsOutcome:
    """Install the checkout in ``worktree`` on every role of ``install`` (``on``: the
    roles on those hosts only); a host that does not come back from its reboot is
    power-cycled by ``hangs`` when it has a power command (the install fails all
    the same: what was installed did not boot)."""
    parts: list[bytes] = []
    seconds = 0.0
    for role, config in install.items():
        member = topology.member(role)
        if on is not None and member.name not in on:
            continue
        workdir = topology.workdir(member.name)
        parts.append(f"== install on {role} ({member.name}) ==\n".encode())
        for name in config.files:
            source = worktree / name
            target = str(PurePosixPath(workdir) / PurePosixPath(name).name)
            try:
                member.host.put(source, target)
            except HostError as error:
                parts.append(f"[NOEXIST: {error}]\n".encode())
                return StepsOutcome(Status.NOEXIST, seconds, Log.of(b"".join(parts)), name)
            parts.append(f"copied {name} to {target}\n".encode())
        placeholders = {**values, **topology.placeholders(), "hostdir": workdir}
        steps = [
            substitute(step, placeholders, key=f"install.{role}.steps[{n}]")
            for n, step in enumerate(config.steps)
        ]
        ran = run_steps(
            member.host,
            steps,
            cwd=workdir,
            timeout=config.timeout,
            env=env,
            output_limit=output_limit,
            failure=Status.NOEXIST,
        )
        seconds += ran.seconds
        parts.append(ran.log.data)
        if ran.status is not Status.PASS:
            return StepsOutcome(ran.status, seconds, Log.of(b"".join(parts)), ran.failed)
        if config.reboot:
            outcome = reboot(member, phase="install")
            parts.append(f"[{outcome.message}]\n".encode())
            if outcome.status is not Status.PASS:
                parts.extend(_consoles(outcome.steps))
                if hangs is not None:
                    gone = hangs.suspects([(member.name, Status.NORUN)])
                    recovered = hangs.recover(gone, phase="install")
                    if recovered.hung:
                        parts.append(f"[{recovered.message}]\n".encode())
                        parts.extend(_consoles(recovered.steps))
                    if recovered.error is not None:
                        raise recovered.error
                log = Log.of(b"".join(parts))
                return StepsOutcome(Status.NOEXIST, seconds, log, f"reboot of {member.name}")
            topology.restore_workdir(member.name)
    return StepsOutcome(Status.PASS, seconds, Log.of(b"".join(parts)), None)


def _consoles(steps: Iterable[NewStep]) -> list[bytes]:
    """The output of the console steps among ``steps``, for the install's log."""
    return [
        f"== console of {step.host} ==\n".encode() + step.stdout.data
        for step in steps
        if step.kind == "console"
    ]
