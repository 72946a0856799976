import shlex

import pytest

from perfwalk.errors import ConfigError
from perfwalk.orchestrate.steps.placeholders import names, substitute


def test_values_become_single_quoted_words() -> None:
    hostile = "x'; touch /tmp/pwned; echo '$(id)"
    out = substitute("echo {commit} done", {"commit": hostile}, key="test.t.command")
    assert shlex.split(out) == ["echo", hostile, "done"]


def test_shell_braces_are_left_alone() -> None:
    command = "awk '{print $1}' ${HOME} {commit} ${x} {{literal}}"
    out = substitute(command, {"commit": "abc"}, key="k")
    assert out == "awk '{print $1}' ${HOME} abc ${x} {{literal}}"


def test_unknown_placeholder_names_the_key_and_the_known_ones() -> None:
    with pytest.raises(ConfigError) as caught:
        substitute("run {comit}", {"commit": "a"}, key="test.bench.command")
    assert "test.bench.command" in str(caught.value)
    assert "{comit}" in str(caught.value)
    assert caught.value.hint is not None
    assert "{commit}" in caught.value.hint


def test_names_in_order() -> None:
    assert names("{a} x {host.sink.addr} {b}") == ["a", "host.sink.addr", "b"]


def test_host_variables_are_quoted_words_and_paths_can_stay_unquoted() -> None:
    values = {"host.sink.addr": "10.0.0.2; reboot", "hostdir": "/tmp/a b"}
    assert (
        substitute("iperf3 -c {host.sink.addr}", values, key="k") == "iperf3 -c '10.0.0.2; reboot'"
    )
    assert substitute("{hostdir}/x.log", values, key="k", quote=False) == "/tmp/a b/x.log"
