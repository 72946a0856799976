"""The largest count, duration and size perfwalk accepts, wherever it is given.

Declared once: the configuration file (:mod:`perfwalk.config.settings`), the command
line (:mod:`perfwalk.cli.options`) and the Conductor's files are checked against the
same bounds. Each is far beyond any real use and far below what would exhaust the
memory, overflow a clock or a database integer: ``repetitions =
9223372036854775807`` is a mistake to name, not a walk to start.
"""

from __future__ import annotations

#: Repetitions at one checkout, trials of a Conductor run, builds of a drill.
MAX_COUNT = 10_000
#: Repetitions a drill may run in all, at every commit together.
MAX_TOTAL = 1_000_000
#: Any duration in seconds (a timeout, a wait): 30 days.
MAX_SECONDS = 30 * 24 * 3600
#: Bytes kept of one output or one fetched file: 1 GiB.
MAX_BYTES = 1 << 30
#: Bytes of a file a user names to be read: a patch (``try --patch``, a quirk's, a
#: variant's), the configuration file, an ssh_config or known_hosts file: 64 MiB.
MAX_USER_FILE_BYTES = 64 << 20
#: A relative threshold (an unstable relative sd, an outlier distance): 1000 %.
MAX_SHARE = 10.0
#: A z threshold of the change detector (standard errors).
MAX_Z = 100.0
#: An id of the store (a series, a checkout): a 64-bit database integer.
MAX_ID = 2**63 - 1
#: The shortest pause between two looks of ``perfwalk serve`` (seconds).
MIN_INTERVAL = 0.1
#: The widest text plot (characters).
MAX_WIDTH = 1_000
