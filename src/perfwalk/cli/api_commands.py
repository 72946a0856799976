"""Sub-commands of the team area: serve the HTTP API (``perfwalk api``), manage its
tokens (``perfwalk tokens``), push a result made elsewhere through it (``perfwalk
push``). Only these import the web parts (FastAPI, uvicorn, httpx): the other
commands start without them."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from perfwalk.cli import exits
from perfwalk.cli.spec import Command
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:
    from perfwalk.model import Commit

SCOPE_WORDS = ("push", "triage", "submit")


# -- api ------------------------------------------------------------------------------


def _api_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--listen",
        metavar="HOST:PORT",
        help="the address to listen on (default: [api] listen, 127.0.0.1:8080)",
    )


def cmd_api(args: argparse.Namespace) -> int:
    from perfwalk.api.serve import serve
    from perfwalk.config.load import load_config
    from perfwalk.config.settings import LISTEN
    from perfwalk.errors import UsageError
    from perfwalk.services.inspect import opened

    if args.listen is not None and (problem := LISTEN.problem(args.listen)) is not None:
        raise UsageError(
            f"--listen {args.listen!r}: {problem}", hint="e.g. --listen 127.0.0.1:8080"
        )
    config = load_config(args.config)
    queue = None
    if config.store.url.startswith("postgresql"):  # team mode: the queue is in the store
        from perfwalk.api.app import JobQueue
        from perfwalk.composites.jobs import listed_jobs, submit

        queue = JobQueue(submit, listed_jobs)
    with opened(config) as store:
        serve(config, store, listen=args.listen, queue=queue)
    return exits.OK


# -- tokens ---------------------------------------------------------------------------


def _scopes(text: str) -> tuple[str, ...]:
    words = tuple(word.strip() for word in text.split(",") if word.strip())
    wrong = [word for word in words if word not in SCOPE_WORDS]
    if wrong or not words:
        raise argparse.ArgumentTypeError(
            f"expected scopes among {', '.join(SCOPE_WORDS)}, comma-separated "
            f"(e.g. push,triage), got {text!r}"
        )
    return words


def _tokens_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "action",
        choices=("add", "list", "revoke"),
        help="add: make a token and print it (once: the store keeps its sha256 only); "
        "list: the tokens' names and scopes; revoke: forget a token",
    )
    p.add_argument("name", nargs="?", metavar="NAME", help="the token's name (add, revoke)")
    p.add_argument(
        "--scope",
        type=_scopes,
        metavar="SCOPES",
        help="add: what the token may do, comma-separated: push (store results from CI), "
        "triage (say what a change is), submit (queue a job); reading needs no token",
    )


def cmd_tokens(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from perfwalk.config.load import load_config
    from perfwalk.errors import UsageError
    from perfwalk.services.inspect import opened
    from perfwalk.store.leases import user_at_machine
    from perfwalk.store.tokens import new_token

    if args.action != "list" and not args.name:
        raise UsageError(
            f"`perfwalk tokens {args.action}` needs the token's NAME",
            hint=f"e.g. `perfwalk tokens {args.action} ci"
            + (" --scope push`" if args.action == "add" else "`"),
        )
    if args.action == "add" and args.scope is None:
        raise UsageError(
            "`perfwalk tokens add` needs --scope",
            hint="e.g. --scope push for a CI job, --scope push,triage,submit for a person",
        )
    if args.action != "add" and args.scope is not None:
        raise UsageError(f"`perfwalk tokens {args.action}` takes no --scope", hint="leave it out")
    config = load_config(args.config)
    with opened(config, read_only=args.action == "list") as store:
        if args.action == "list":
            rows = store.tokens.list()
            for row in rows:
                print(
                    f"{show_controls(row.name)}\t{','.join(row.scopes)}\t"
                    f"{row.created_at:%Y-%m-%d %H:%M} UTC\t{show_controls(row.who)}"
                )
            if not rows:
                print("no tokens (`perfwalk tokens add NAME --scope push` makes one)")
            return exits.OK
        if args.action == "revoke":
            if not store.tokens.revoke(args.name):
                raise UsageError(
                    f"no token called {args.name!r} in the store {store.url}",
                    hint="`perfwalk tokens list` shows their names",
                )
            print(f"revoked token {show_controls(args.name)}")
            return exits.OK
        token = new_token()
        store.tokens.add(args.name, args.scope, token, who=user_at_machine(), at=datetime.now(UTC))
    print(token)
    return exits.OK


# -- push -----------------------------------------------------------------------------


def _push_args(p: argparse.ArgumentParser) -> None:
    from perfwalk.services.push import PUSH_FORMATS

    p.add_argument("file", type=Path, metavar="FILE", help="the JSON file a benchmark tool wrote")
    p.add_argument(
        "--commit",
        required=True,
        help="the commit measured: its full id, or a name (HEAD, a branch) the git checkout "
        "of --repo resolves",
    )
    p.add_argument("--branch", required=True, help="the branch it is on")
    p.add_argument("--host", required=True, help="the machine that measured it (the runner)")
    p.add_argument(
        "--api",
        required=True,
        metavar="URL",
        help="the address of `perfwalk api`, e.g. http://127.0.0.1:8080 (with its base path)",
    )
    p.add_argument(
        "--format",
        choices=(*PUSH_FORMATS, "auto"),
        default="auto",
        help="the tool that wrote FILE (default auto: told by its keys)",
    )
    p.add_argument(
        "--date",
        help="the commit's date, ISO 8601 with its offset (default: the commit's in the "
        "repository, else now)",
    )
    p.add_argument(
        "--repo",
        type=Path,
        default=Path(),
        help="the git checkout that knows the commit: its full id, date, subject and "
        "author are pushed with it (default: the one around the current directory)",
    )
    p.add_argument("--project", help="the project (default: the API's [project] name)")
    p.add_argument("--test", help="the name of the result (default: the format)")


def cmd_push(args: argparse.Namespace) -> int:
    from datetime import datetime

    from perfwalk.api.client import TOKEN_ENV, guess_format, post_push, push_body
    from perfwalk.errors import UsageError
    from perfwalk.services.push import COMMIT_ID
    from perfwalk.text_files import read_user_text

    token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise UsageError(
            f"no token: {TOKEN_ENV} is not set",
            hint=f"set {TOKEN_ENV} to a token of scope push (`perfwalk tokens add ci "
            "--scope push` prints one); CI keeps it as a secret",
        )
    date = None
    if args.date is not None:
        try:
            date = datetime.fromisoformat(args.date)
        except ValueError:
            date = None
        if date is None or date.utcoffset() is None:
            raise UsageError(
                f"--date {args.date!r} is not an ISO 8601 date with an offset",
                hint="e.g. --date 2024-03-01T12:00:00+01:00 (git log -1 --format=%cI)",
            )
    text = read_user_text(args.file)
    kind = guess_format(text, str(args.file)) if args.format == "auto" else args.format
    known = _commit_in(args.repo, args.commit)
    if known is None and not re.fullmatch(COMMIT_ID, args.commit):
        raise UsageError(
            f"--commit {args.commit!r} is not a commit id and no git repository at "
            f"{args.repo} knows it",
            hint="give the commit's full id (git rev-parse HEAD), or run in the project's "
            "checkout (or name it with --repo) to push a name such as HEAD",
        )
    if known is None and date is None:
        print(
            f"perfwalk push: commit {args.commit} is not in a git repository at {args.repo}: "
            "its date is taken as now (give --date, or push from the project's checkout)",
            file=sys.stderr,
        )
    body = push_body(
        format=kind,
        text=text,
        commit=args.commit if known is None else known.id,
        branch=args.branch,
        host=args.host,
        date=date if date is not None or known is None else known.date,
        project=args.project,
        test=args.test,
        subject=None if known is None else known.subject,
        author=None if known is None else known.author,
    )
    done = post_push(args.api, token, body)
    said = {key: show_controls(str(done.get(key)))[:40] for key in _ANSWERED}  # the server's
    print(
        f"pushed {said['values']} values of {show_controls(str(args.file))} to series "
        f"{said['series']}, checkout {said['checkout']}, repetition {said['repetition']}"
    )
    return exits.OK


#: What ``perfwalk push`` prints of the API's answer (untrusted: a server's words).
_ANSWERED = ("values", "series", "checkout", "repetition")


def _commit_in(where: Path, commitish: str) -> Commit | None:
    """The commit ``commitish`` names in the git repository around ``where``; None
    when there is none or it does not know that commit."""
    from perfwalk.errors import GitError
    from perfwalk.git.repo import Repo

    try:
        return Repo.around(where).commit(commitish)
    except GitError:
        return None


COMMANDS: dict[str, Command] = {
    "api": Command(
        "serve the HTTP API ([api] listen): reads without a token; pushes from CI, triage "
        "and job submissions with a token of that scope (docs/api.md)",
        _api_args,
        cmd_api,
    ),
    "tokens": Command(
        "the API's tokens: add NAME --scope push[,triage,submit] prints a new one (the "
        "store keeps its sha256), list, revoke NAME",
        _tokens_args,
        cmd_tokens,
    ),
    "push": Command(
        "push a benchmark file made elsewhere (hyperfine, pytest-benchmark, Google "
        "Benchmark JSON) with its commit, branch and host to `perfwalk api --api URL`, "
        "the token from $PERFWALK_TOKEN: it joins the series of that branch and host",
        _push_args,
        cmd_push,
        needs_config=False,
    ),
}
