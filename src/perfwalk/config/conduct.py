"""Read Conductor test configurations as they are: a master file and one file per player.

Master file (``conduct MASTER.cfg``)::

    [Test]
    trials: 5
    [Clients]                  # or [Workers], the 2025 name
    client1: source.cfg        # a player file, relative to the master file

Player file::

    [Master]                   # or [Coordinator], the 2025 name
    player: 192.168.5.81       # the player's address: perfwalk reaches it by ssh
    conductor: 192.168.5.1     # read, not used: results come back over ssh
    cmdport: 6970
    resultsport: 6971
    [Startup]
    step1: kldload if_ix
    [Run]
    timeout30: iperf3 -s       # a step with a 30 s timeout
    spawn1: tcpdump -i ix0     # a step started in the background
    step2: timeout10:ping -c 3 x   # the 2025 value prefixes: timeoutN: and spawn:
    [Collect]
    [Reset]

As in Conductor: ``:`` and ``=`` both separate keys from values, keys are
lower-cased, steps run in file order, a step without a timeout gets 30 s, ``%``
is not special. A key containing ``spawn`` or a value starting with ``spawn:``
starts the step in the background; a key ``timeout<N>`` or a value prefix
``timeout<N>:`` sets its timeout (in every phase, not only Run). Unlike
Conductor, a duplicate key, a duplicate or unknown section, an unknown key of
[Master], a bad number or a missing player file is a
:class:`~perfwalk.errors.ConfigError` naming the file, the line and the remedy.
An unknown key of [Test] is ignored, as Conductor ignores it, with a warning
(:attr:`MasterConfig.warnings`) naming the file, the section and the key.
Inline comments (``player = 10.0.1.20  # web server``) are stripped from the
[Test] and [Master] values, where they cannot be part of the value; never from
steps, which are shell commands.
"""

from __future__ import annotations

import configparser
import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from perfwalk.errors import ConfigError, UsageError
from perfwalk.limits import MAX_COUNT, MAX_SECONDS, MAX_USER_FILE_BYTES
from perfwalk.text_files import read_user_file

#: The phases, in the order they run, as the player files name them.
PHASES = ("Startup", "Run", "Collect", "Reset")
#: Conductor's timeout for a step that does not set one.
DEFAULT_TIMEOUT = 30.0

_MASTER_SECTIONS = ("Test", "Clients", "Workers")
_TEST_KEYS = ("trials", "format", "output", "max_message_size")
_PLAYER_SECTIONS = ("Master", "Coordinator", *PHASES)
_ADDRESS_KEYS = ("player", "conductor", "cmdport", "resultsport")
_INLINE_COMMENT = re.compile(r"\s+[#;].*$")
_TIMEOUT_KEY = re.compile(r"timeout(\d+(?:\.\d+)?)")
_TIMEOUT_PREFIX = re.compile(r"timeout(\d+(?:\.\d+)?):")


@dataclass(frozen=True)
class Step:
    """One step of a phase: its key, its shell command, how it runs."""

    key: str
    command: str
    spawn: bool = False
    timeout: float = DEFAULT_TIMEOUT


@dataclass(frozen=True)
class Player:
    """One player: the name the master gives it, its file, its address, its phases."""

    name: str
    file: Path
    address: str
    conductor: str = ""
    cmdport: int | None = None
    resultsport: int | None = None
    phases: dict[str, tuple[Step, ...]] = field(default_factory=dict)

    def steps(self, phase: str) -> tuple[Step, ...]:
        return self.phases.get(phase, ())


@dataclass(frozen=True)
class MasterConfig:
    """A master file with its players; ``text`` is every file read, for the store."""

    path: Path
    trials: int
    players: tuple[Player, ...]
    text: str
    format: str = ""
    output: str = ""
    #: What is read but ignored (unknown keys of [Test]), each naming file, section, key.
    warnings: tuple[str, ...] = ()


def read_master(path: Path) -> MasterConfig:
    """Read a master file and every player file it names."""
    path = Path(path)
    parser, text = _parse(path, pipes=True)
    for section in parser.sections():
        if section not in _MASTER_SECTIONS:
            _unknown_section(path, section, _MASTER_SECTIONS)
    if not parser.has_section("Test"):
        _fail(path, "no [Test] section", "a master file starts with [Test] and trials: N")
    test = {key: _strip(value) for key, value in parser.items("Test")}
    warnings = tuple(
        _ignored_key(path, "Test", key, _TEST_KEYS) for key in test if key not in _TEST_KEYS
    )
    trials = _integer(path, "Test", "trials", test.get("trials", "1"), minimum=1)
    if trials > MAX_COUNT:
        _fail(path, f"[Test] trials: at most {MAX_COUNT}, not {trials}", "trials: 5")
    names: dict[str, str] = {}
    for section in ("Clients", "Workers"):
        if parser.has_section(section):
            for name, value in parser.items(section):
                if name in names:
                    _fail(
                        path,
                        f"player {name!r} is listed twice ([Clients] and [Workers])",
                        "list each player once",
                    )
                names[name] = value.strip()
    if not names:
        _fail(
            path,
            "no players: the file has no [Clients] (or [Workers]) entries",
            "add [Clients] with one line per player: name: player.cfg",
        )
    players = []
    texts = [f"### {path}\n{text}"]
    for name, file in names.items():
        player_path = _player_path(path, name, file)
        player, player_text = read_player(player_path, name)
        players.append(player)
        texts.append(f"### {player_path}\n{player_text}")
    return MasterConfig(
        path=path,
        trials=trials,
        players=tuple(players),
        text="\n".join(texts),
        format=test.get("format", ""),
        output=test.get("output", ""),
        warnings=warnings,
    )


def read_player(path: Path, name: str) -> tuple[Player, str]:
    """Read one player file; the player and the file's text."""
    parser, text = _parse(path)
    for section in parser.sections():
        if section not in _PLAYER_SECTIONS:
            _unknown_section(path, section, _PLAYER_SECTIONS)
    heads = [s for s in ("Master", "Coordinator") if parser.has_section(s)]
    if not heads:
        _fail(
            path,
            "no [Master] section (or [Coordinator])",
            "a player file starts with [Master] and player: ADDRESS",
        )
    if len(heads) == 2:
        _fail(path, "both [Master] and [Coordinator]", "keep one: they are the same section")
    head = heads[0]
    values = {key: _strip(value) for key, value in parser.items(head)}
    for key in values:
        if key not in _ADDRESS_KEYS:
            _unknown_key(path, head, key, _ADDRESS_KEYS)
    address = values.get("player", "")
    if not address:
        _fail(path, f"[{head}] has no player address", "add player: ADDRESS (the host to run on)")
    phases = {
        phase: tuple(_step(path, phase, key, value) for key, value in parser.items(phase))
        for phase in PHASES
        if parser.has_section(phase)
    }
    player = Player(
        name=name,
        file=path,
        address=address,
        conductor=values.get("conductor", ""),
        cmdport=_port(path, head, "cmdport", values.get("cmdport")),
        resultsport=_port(path, head, "resultsport", values.get("resultsport")),
        phases=phases,
    )
    return player, text


def _step(path: Path, phase: str, key: str, value: str) -> Step:
    command = value.strip()
    spawn = "spawn" in key
    timeout = DEFAULT_TIMEOUT
    found = _TIMEOUT_KEY.fullmatch(key)
    if found:
        timeout = float(found.group(1))
    elif key.startswith("timeout"):
        _fail(
            path,
            f"[{phase}] {key}: a timeout key needs its seconds",
            "write timeout30: COMMAND for a 30 s timeout",
        )
    while True:  # the 2025 value prefixes, in any order
        if command.startswith("spawn:"):
            spawn, command = True, command[len("spawn:") :].strip()
            continue
        prefix = _TIMEOUT_PREFIX.match(command)
        if prefix:
            timeout, command = float(prefix.group(1)), command[prefix.end() :].strip()
            continue
        break
    if not command:
        _fail(path, f"[{phase}] {key}: empty command", "give the shell command after the key")
    if not 0 < timeout <= MAX_SECONDS:
        _fail(
            path,
            f"[{phase}] {key}: a timeout must be > 0 and at most {MAX_SECONDS} seconds"
            f" (30 days), not {timeout:g}",
            "write e.g. timeout30",
        )
    return Step(key=key, command=command, spawn=spawn, timeout=timeout)


def _parse(path: Path, *, pipes: bool = False) -> tuple[configparser.RawConfigParser, str]:
    """A Conductor file, parsed, and its text; a master file may be a pipe (``pipes``),
    a player file it names is a regular file."""
    hint = "give the path of a Conductor configuration file"
    try:
        data = read_user_file(path, "", MAX_USER_FILE_BYTES, hint, pipes=pipes)
        text = data.decode("utf-8")
    except UsageError as error:
        _fail(path, error.message, hint)
    except UnicodeDecodeError as error:
        _fail(path, f"not UTF-8 text (byte {error.start})", "convert it with iconv")
    parser = configparser.RawConfigParser(
        delimiters=(":", "="), comment_prefixes=("#", ";"), strict=True
    )
    try:
        parser.read_string(text, source=str(path))
    except configparser.DuplicateOptionError as error:
        _fail(
            path,
            f"line {error.lineno}: duplicate key {error.option!r} in [{error.section}]",
            "Conductor refuses it too (configparser); number the keys: timeout30, timeout31 …",
        )
    except configparser.DuplicateSectionError as error:
        _fail(
            path,
            f"line {error.lineno}: duplicate section [{error.section}]",
            "merge the two sections into one",
        )
    except configparser.MissingSectionHeaderError as error:
        _fail(
            path,
            f"line {error.lineno}: a key before any [Section]: {error.line.strip()!r}",
            "start the file with a section header such as [Test] or [Master]",
        )
    except configparser.ParsingError as error:
        where = ", ".join(f"line {n}: {line.strip()!r}" for n, line in error.errors[:3])
        _fail(
            path,
            f"not an INI file: {where}",
            "each line is [Section], key: value, key = value, or a comment",
        )
    return parser, text


def _player_path(master: Path, name: str, file: str) -> Path:
    """A player file: relative to the master file's directory, else to the current one
    (the first that exists: what it is, if not a file, is told when it is read)."""
    if not file:
        _fail(master, f"player {name!r} names no file", "write name: player.cfg")
    candidates = [master.parent / file, Path(file)]
    for candidate in candidates:
        if candidate.exists():
            return candidate
    tried = " and ".join(str(c) for c in dict.fromkeys(candidates))
    return _fail(
        master,
        f"player {name!r}: no such file {file!r} (tried {tried})",
        "player files are relative to the master file's directory",
    )


def _integer(path: Path, section: str, key: str, value: str, *, minimum: int) -> int:
    try:
        number = int(value)
    except ValueError:
        _fail(path, f"[{section}] {key}: expected a whole number, got {value!r}", f"{key}: 5")
    if number < minimum:
        _fail(path, f"[{section}] {key}: must be at least {minimum}, not {number}", f"{key}: 5")
    return number


def _port(path: Path, section: str, key: str, value: str | None) -> int | None:
    if value is None or value == "":
        return None
    number = _integer(path, section, key, value, minimum=1)
    if number > 65535:
        _fail(path, f"[{section}] {key}: {number} is not a port", "a port is 1-65535")
    return number


def _strip(value: str) -> str:
    return _INLINE_COMMENT.sub("", value).strip()


def _unknown_section(path: Path, section: str, known: tuple[str, ...]) -> NoReturn:
    close = difflib.get_close_matches(section, known, 1)
    hint = f"did you mean [{close[0]}]? " if close else ""
    _fail(
        path,
        f"unknown section [{section}]",
        f"{hint}known sections: {', '.join(f'[{s}]' for s in known)}",
    )


def _unknown_key(path: Path, section: str, key: str, known: tuple[str, ...]) -> NoReturn:
    close = difflib.get_close_matches(key, known, 1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    _fail(path, f"[{section}] unknown key {key!r}", f"{hint}known keys: {', '.join(known)}")


def _ignored_key(path: Path, section: str, key: str, known: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(key, known, 1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return (
        f"{path}: [{section}] unknown key {key!r} ignored, as Conductor ignores it "
        f"({hint}known keys: {', '.join(known)})"
    )


def _fail(path: Path, message: str, hint: str) -> NoReturn:
    raise ConfigError(message, path=str(path), hint=hint)
