"""The exit statuses of ``perfwalk``, each with its meaning, declared once: every
command returns one of these names, and docs/cli.md's table is made from
:data:`MEANINGS` (:mod:`perfwalk.cli.reference`).

129, 130 and 143 are 128 + the number of the signal that stopped the command
(:func:`perfwalk.cli.signals.exit_status` computes them).
"""

from __future__ import annotations

#: success; for the commands that look for something: nothing found
OK = 0
#: the command worked and found something to look at
FOUND = 1
#: a user error (message + hint)
USER = 2
#: an internal error (a bug)
BUG = 3
#: the command worked, and could not decide: what it looked for may be there unseen
UNDECIDED = 4
#: stopped by SIGHUP, SIGINT (Ctrl-C), SIGTERM: 128 + the signal's number
HANGUP, INTERRUPTED, TERMINATED = 129, 130, 143

#: what each status means, in the order of docs/cli.md
MEANINGS: dict[int, str] = {
    OK: "success",
    FOUND: "the command worked and found something to look at: a walk finished with "
    "builds or tests that are not PASS (or, with [run] confirm, a confirmed regression), "
    "compare proved a difference, detect found a change, changes or watch --once found a "
    "confirmed regression without a known cause and not triaged (its verdict: "
    "docs/analysis.md), regress found a failing test, lab is not up (or not fully down), a "
    "Conductor run had a step that is not PASS, notify --test found a receiver that "
    "does not work, parse found no value (each command's --help and "
    "docs/analysis.md say more)",
    USER: "a user error: bad configuration, argument, repository, store (message + hint)",
    BUG: "an internal error (a bug: please report it with the traceback)",
    UNDECIDED: "the command worked and could not decide: a change it found is neither "
    "confirmed nor refuted yet (changes, watch --once, run with [run] confirm: the worst "
    "untriaged regression without a known cause is suspect or undecided), a drill stayed "
    "undecided (its budget ran out, or the evidence is not one step), or the measurements "
    "were too noisy (or too many were left out) to see a change as small as the metric's "
    "min_change; nothing was found to act on, and nothing says there is none (each "
    "command's --help and docs/analysis.md say more)",
    HANGUP: "stopped by SIGHUP (the terminal closed), as for Ctrl-C",
    INTERRUPTED: "interrupted (Ctrl-C, SIGINT): the running test is reset and its "
    "processes killed, the series marked interrupted; `perfwalk run --resume` "
    "continues a walk",
    TERMINATED: "stopped by SIGTERM, as for Ctrl-C (128 + the signal's number, like 129 and 130)",
}

#: the one line of ``perfwalk --help`` that lists them
SUMMARY = (
    "exit status: 0 ok, 1 something found (non-PASS results, a difference, a change), "
    "2 user error, 3 internal error, 4 undecided, 130 interrupted (129 SIGHUP, 143 SIGTERM)"
)
