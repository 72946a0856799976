"""Write the lab example: a dut-configuration git repository, its walk, its known changes.

    python3 examples/lab/make_example.py DIR [--lab NAME | --hosts FILE]

writes, under ``DIR``:

* ``dut-config/``: a git repository of the dut's forwarding path. ``nft.rules``
  grows by one rule at a time; ``tc.sh`` puts a ``tbf`` rate limit of 500 Mbit/s
  on the dut's link to the sink at one commit and takes it off at a later one;
  the other commits only touch the documentation. Fixed dates and identity: the
  same commit ids on every machine.
* ``perfwalk.toml``: the ``[hosts]`` of the lab (``hosts.toml``, written by
  ``perfwalk lab up``) followed by the walk of ``examples/lab/perfwalk.toml``.
* ``known-changes.json``: the two changes the walk must find, with their commits.

The lab must be up first (``perfwalk lab up``): its ``hosts.toml`` gives the
addresses and interfaces of this machine's lab. Exit status 0, or 2 with a
message for a mistake.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
WALK = HERE / "perfwalk.toml"
LAB_ROOT = Path("/run/perfwalk")
REPO = "dut-config"
BRANCH = "main"
AUTHOR = "Lab Operator <lab-operator@example.org>"
START = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)
RATE = "500mbit"

NFT_HEAD = """\
# The dut's packet filter: loaded with `nft -f nft.rules` at each install.
flush ruleset

table inet dut {
\tchain forward {
\t\ttype filter hook forward priority filter; policy accept;
"""
NFT_TAIL = "\t}\n}\n"

TC_NONE = """\
#!/bin/sh
# The shaping of the dut's link to the sink; $1 is its interface.
# Run at each install: it starts from the interface's default queue.
set -eu
dev=$1
tc qdisc del dev "$dev" root 2>/dev/null || true
"""
TC_LIMIT = TC_NONE + f'tc qdisc add dev "$dev" root tbf rate {RATE} burst 256kb latency 50ms\n'

README = """\
# dut-config

The forwarding path of the device under test: `nft.rules` (its packet filter)
and `tc.sh` (the queueing of its link to the sink). Both are applied on the dut
at each install.
"""


@dataclass(frozen=True)
class Change:
    """One commit: its subject, the rule it adds, the tc.sh or README it writes."""

    subject: str
    rule: str | None = None
    tc: str | None = None
    readme: str | None = None
    label: str | None = None


#: The history, oldest first: five checkouts on each level, 0-4 unlimited, 5-9
#: limited (``limit``), 10-14 unlimited again (``unlimit``). The analysis takes a
#: level of four checkouts or fewer between two jumps for a spike (docs/analysis.md).
HISTORY = (
    Change("dut: forward everything, no shaping", tc=TC_NONE, readme=README),
    Change("nft: count established and related flows",
           rule="ct state established,related counter accept"),
    Change("docs: say where the rules are applied",
           readme=README + "\nThe rules are applied by `nft -f nft.rules` as root.\n"),
    Change("nft: accept icmp", rule="meta l4proto { icmp, ipv6-icmp } counter accept"),
    Change("nft: accept ssh", rule="tcp dport 22 counter accept"),
    Change(f"tc: limit the sink link to {RATE} (tbf)", tc=TC_LIMIT, label="limit"),
    Change("nft: accept the iperf3 ports",
           rule="meta l4proto { tcp, udp } th dport 5201-5299 counter accept"),
    Change("docs: name the files", readme=README + "\nFiles: nft.rules, tc.sh.\n"),
    Change("nft: count the rest of udp", rule="meta l4proto udp counter"),
    Change("nft: count tcp connection attempts", rule="tcp flags & (syn | ack) == syn counter"),
    Change("tc: remove the rate limit of the sink link", tc=TC_NONE, label="unlimit"),
    Change("nft: count ipv6", rule="meta nfproto ipv6 counter"),
    Change("docs: how to see the counters",
           readme=README + "\nFiles: nft.rules, tc.sh. Counters: `nft list ruleset`.\n"),
    Change("nft: count new flows", rule="ct state new counter"),
    Change("docs: the queue statistics",
           readme=README + "\nFiles: nft.rules, tc.sh. Counters: `nft list ruleset`,"
           " `tc -s qdisc show`.\n"),
)  # fmt: skip


class ExampleError(Exception):
    """A mistake or a failure, with what to do about it."""


def make_example(out: Path, hosts_toml: str) -> dict[str, str]:
    """Write the repository, perfwalk.toml and known-changes.json under ``out``;
    the commit of each labelled change."""
    repo = out / REPO
    if repo.exists() and any(repo.iterdir()):
        raise ExampleError(
            f"{repo} already exists and is not empty: remove it, or give another DIR"
        )
    repo.mkdir(parents=True, exist_ok=True)
    commits = _commit_history(repo)
    labels = {c.label: sha for c, sha in zip(HISTORY, commits, strict=True) if c.label}
    (out / "perfwalk.toml").write_text(
        hosts_toml.rstrip("\n") + "\n\n" + WALK.read_text(encoding="utf-8"), encoding="utf-8"
    )
    (out / "known-changes.json").write_text(_known_changes(commits, labels), encoding="utf-8")
    return labels


def _commit_history(repo: Path) -> list[str]:
    _git(repo, "init", "-q", f"--initial-branch={BRANCH}")
    rules: list[str] = []
    commits: list[str] = []
    for n, change in enumerate(HISTORY):
        if change.rule is not None:
            rules.append(change.rule)
        files = {"nft.rules": NFT_HEAD + "".join(f"\t\t{r}\n" for r in rules) + NFT_TAIL}
        if change.tc is not None:
            files["tc.sh"] = change.tc
        if change.readme is not None:
            files["README.md"] = change.readme
        for name, text in files.items():
            (repo / name).write_text(text, encoding="utf-8")
        (repo / "tc.sh").chmod(0o755)
        when = f"{int((START + timedelta(days=n)).timestamp())} +0000"
        _git(repo, "add", "-A")
        dates = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
        _git(repo, "commit", "-q", "-m", change.subject, env=dates)
        commits.append(_git(repo, "rev-parse", "HEAD").strip())
    return commits


def _known_changes(commits: list[str], labels: dict[str, str]) -> str:
    def entry(label: str, direction: str, description: str) -> dict[str, object]:
        index = commits.index(labels[label])
        return {
            "commit": labels[label],
            "previous": commits[index - 1],
            "subject": HISTORY[index].subject,
            "direction": direction,
            "tests": ["tcp", "udp"],
            "metric": "receiver",
            "description": description,
        }

    entries = [
        entry("limit", "regression", f"tbf rate {RATE} on the dut's link to the sink"),
        entry("unlimit", "improvement", "the tbf rate limit is removed"),
    ]
    return json.dumps(entries, indent=2) + "\n"


def _git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    name, _, email = AUTHOR.partition(" <")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    email = email.rstrip(">")
    clean.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, LC_ALL="C")
    clean.update(GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email)
    clean.update(GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email, **(env or {}))
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), *args],
            capture_output=True,
            text=True,
            env=clean,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise ExampleError("git is not installed: apt-get install git") from None
    if done.returncode != 0:
        raise ExampleError(f"git {args[0]} failed in {repo}: {done.stderr.strip()}")
    return done.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", type=Path, help="where to write the example")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--lab", default="pwlab", help="the lab's name (default pwlab)")
    which.add_argument("--hosts", type=Path, help="a [hosts] file (default: the lab's hosts.toml)")
    args = parser.parse_args(argv)
    hosts = args.hosts or LAB_ROOT / f"lab-{args.lab}" / "hosts.toml"
    try:
        try:
            hosts_toml = hosts.read_text(encoding="utf-8")
        except OSError as error:
            raise ExampleError(
                f"cannot read the lab's hosts {hosts}: {error.strerror};"
                f" bring the lab up first: perfwalk lab up --name {args.lab}"
            ) from None
        labels = make_example(args.dir.absolute(), hosts_toml)
    except ExampleError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    files = f"{args.dir / 'perfwalk.toml'}, {args.dir / 'known-changes.json'}"
    print(f"wrote {args.dir / REPO} ({len(HISTORY)} commits), {files}")
    print(f"rate limit added at {labels['limit'][:12]}, removed at {labels['unlimit'][:12]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
