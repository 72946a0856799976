#!/usr/bin/env bash
# Record raw outputs of the real tools as inputs of the parser golden tests.
#
# Run by hand, never by the tests:
#     bash tests/golden/parsers/capture.sh              # every tool
#     bash tests/golden/parsers/capture.sh iperf3 fio   # only these
# then rewrite the expected parses and read what changed:
#     .venv/bin/pytest tests/parsers --regen-golden
#     git diff --stat tests/golden/parsers
#
# Each case is written to tests/golden/parsers/<parser>/<case>.out: what the
# test command prints, stdout and stderr joined as the walk joins them. A
# <case>.options.json beside it holds the parser options (regex parser).
#
# tcpbench, udpbench and netperf have no Debian package (netperf is in non-free),
# nor has DTrace (not on Linux): their cases are written from the tools' documented
# output (the README says how).
#
# Needs: iperf3, fsmark, hyperfine, fio, GNU time (/usr/bin/time), libbenchmark-dev and
# g++, go, lz4, python3 (pytest-benchmark is installed into a throwaway venv), perf
# (linux-perf; the software event cpu-clock, so no hardware counters), javac and
# libhdrhistogram-java, bpftrace (as root). Only
# loopback is used; the iperf3 server is stopped by the PID in its pidfile.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/perfwalk-capture.XXXXXX)
iperf_pidfile="$work/iperf3.pid"

cleanup() {
    if [[ -s $iperf_pidfile ]]; then
        kill "$(cat "$iperf_pidfile")" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# out <parser> <case> <command...>: run the command, keep stdout+stderr.
# A non-zero exit is kept too (some cases are failures on purpose).
out() {
    local parser=$1 case=$2
    shift 2
    mkdir -p "$here/$parser"
    "$@" 2>&1 | cat >"$here/$parser/$case.out" || true
    echo "captured $parser/$case.out"
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_iperf3_server() {
    iperf3_port=$(free_port)
    iperf3 -s -B 127.0.0.1 -p "$iperf3_port" -D -I "$iperf_pidfile"
    for _ in $(seq 50); do
        (exec 3<>"/dev/tcp/127.0.0.1/$iperf3_port") 2>/dev/null && break
        sleep 0.1
    done
}

stop_iperf3_server() {
    kill "$(cat "$iperf_pidfile")"
    rm -f "$iperf_pidfile"
}

capture_iperf3() {
    start_iperf3_server
    local c=(iperf3 -c 127.0.0.1 -p "$iperf3_port" -t 1 --json)
    out iperf3 tcp "${c[@]}"
    out iperf3 tcp-reverse "${c[@]}" -R
    out iperf3 tcp-parallel4 "${c[@]}" -P 4
    out iperf3 udp "${c[@]}" -u -b 100M -w 4M
    out iperf3 udp-reverse "${c[@]}" -u -b 100M -w 4M -R
    stop_iperf3_server
    # Nothing listens on a fresh free port: iperf3 reports the error in its JSON.
    out iperf3 error-refused iperf3 -c 127.0.0.1 -p "$(free_port)" -t 1 --json
}

capture_iperf3_text() {
    # The same runs as capture_iperf3, without --json: iperf3's text report.
    start_iperf3_server
    local c=(iperf3 -c 127.0.0.1 -p "$iperf3_port" -t 2)
    out iperf3-text tcp "${c[@]}"
    out iperf3-text tcp-reverse "${c[@]}" -R
    out iperf3-text tcp-parallel2 "${c[@]}" -P 2
    out iperf3-text tcp-bidir "${c[@]}" --bidir
    out iperf3-text tcp-bytes-per-sec "${c[@]}" -f M
    out iperf3-text tcp-verbose-timestamps "${c[@]}" -V --timestamps
    out iperf3-text tcp-server-output "${c[@]}" --get-server-output
    out iperf3-text udp "${c[@]}" -u -b 100M -w 4M
    out iperf3-text udp-reverse "${c[@]}" -u -b 100M -w 4M -R
    out iperf3-text udp-parallel2 "${c[@]}" -u -b 50M -w 4M -P 2
    stop_iperf3_server
    out iperf3-text error-refused iperf3 -c 127.0.0.1 -p "$(free_port)" -t 1
}

capture_hyperfine() {
    # --export-json /dev/stdout through a pipe: the text report and the JSON
    # interleave, and hyperfine rewrites the JSON after every command.
    out hyperfine stdout-one hyperfine -N -w 1 -r 5 --export-json /dev/stdout 'sleep 0.01'
    out hyperfine stdout-two hyperfine -N -r 3 --export-json /dev/stdout 'sleep 0.01' 'sleep 0.02'
    out hyperfine stdout-named hyperfine -r 3 --export-json /dev/stdout \
        -n short 'sleep 0.01' -n long 'sleep 0.02'
    out hyperfine stdout-parameter hyperfine -N -r 3 --export-json /dev/stdout \
        -P ms 10 20 -D 10 'sleep 0.0{ms}'
    # The exported file itself; a single run gives a null stddev.
    hyperfine -N -r 1 --export-json "$work/hf.json" 'sleep 0.01' >/dev/null
    out hyperfine file-one-run cat "$work/hf.json"
}

capture_time_p() {
    out time-p bash-keyword bash -c 'echo "compiling"; time -p sleep 0.1; echo done'
    out time-p usr-bin-time /usr/bin/time -p sh -c 'echo working; sleep 0.05'
    out time-p two-blocks bash -c 'time -p sleep 0.02; echo between; time -p sleep 0.1'
}

capture_gnu_time() {
    out gnu-time verbose /usr/bin/time -v sh -c 'echo working; sleep 0.1'
    out gnu-time verbose-exit3 /usr/bin/time -v sh -c 'sleep 0.05; exit 3'
    out gnu-time default-format /usr/bin/time sh -c 'sleep 0.05'
}

capture_fio() {
    local f=(--filename="$work/fio.dat" --ioengine=psync --size=4M --output-format=json)
    out fio seqread fio --name=seqread --rw=read --bs=64k "${f[@]}"
    out fio randrw-numjobs2 fio --name=mixed --rw=randrw --bs=4k --numjobs=2 "${f[@]}"
    out fio two-jobs fio "${f[@]}" --bs=4k \
        --name=reader --rw=randread --name=writer --rw=randwrite
    # Text before and after the JSON document.
    out fio normal-and-json fio --name=seqwrite --rw=write --bs=16k \
        --filename="$work/fio.dat" --ioengine=psync --size=4M --output-format=normal,json
}

capture_fs_mark() {
    # Debian's fsmark; fs_mark writes its log (fs_log.txt) in the working directory.
    mkdir -p "$work/fsm"
    (cd "$work" && out fs_mark no-sync-3-loops fs_mark -d "$work/fsm" -s 4096 -n 200 -L 3 -S 0)
    (cd "$work" && out fs_mark fsync-2-threads fs_mark -d "$work/fsm" -s 16384 -n 50 -t 2)
    # its directory must not exist (and a path of 40 bytes or more is refused)
    (cd "$work" && out fs_mark error-no-directory fs_mark -d /nonexistent/fsm -n 10)
}

capture_gbench() {
    cat >"$work/bench.cc" <<'CC'
#include <benchmark/benchmark.h>

#include <numeric>
#include <string>
#include <vector>

static void BM_StringCopy(benchmark::State& state) {
  std::string src(static_cast<size_t>(state.range(0)), 'x');
  for (auto _ : state) {
    std::string copy(src);
    benchmark::DoNotOptimize(copy);
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_StringCopy)->Arg(64)->Arg(4096);

static void BM_Accumulate(benchmark::State& state) {
  std::vector<int> v(1000, 1);
  for (auto _ : state) {
    benchmark::DoNotOptimize(std::accumulate(v.begin(), v.end(), 0));
  }
  state.SetItemsProcessed(state.iterations() * 1000);
}
BENCHMARK(BM_Accumulate)->Unit(benchmark::kMicrosecond);

static void BM_Fails(benchmark::State& state) {
  for (auto _ : state) {
    state.SkipWithError("no device");
    break;
  }
}
BENCHMARK(BM_Fails);

BENCHMARK_MAIN();
CC
    g++ -O2 -o "$work/bench" "$work/bench.cc" -lbenchmark -lpthread
    local b=("$work/bench" --benchmark_format=json --benchmark_min_time=0.01)
    out gbench plain "${b[@]}" --benchmark_filter='BM_(StringCopy|Accumulate)'
    out gbench repetitions3 "${b[@]}" --benchmark_filter='BM_(StringCopy|Accumulate)' \
        --benchmark_repetitions=3
    out gbench aggregates-only "${b[@]}" --benchmark_filter=BM_Accumulate \
        --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
    out gbench with-error "${b[@]}"
    out gbench only-error "${b[@]}" --benchmark_filter=BM_Fails
}

capture_pytest_benchmark() {
    python3 -m venv "$work/venv"
    "$work/venv/bin/pip" install -q pytest pytest-benchmark
    mkdir -p "$work/pb"
    cat >"$work/pb/test_demo.py" <<'PY'
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def test_fib(benchmark):
    benchmark(fib, 15)


def test_sort(benchmark):
    data = list(range(1000, 0, -1))
    benchmark(sorted, data)
PY
    local p=("$work/venv/bin/pytest" -q -p no:cacheprovider "$work/pb/test_demo.py"
        --rootdir="$work/pb" --benchmark-min-rounds=5 --benchmark-max-time=0.000001
        --benchmark-warmup=off)
    "${p[@]}" --benchmark-json="$work/pb.json" >/dev/null
    out pytest-benchmark two-tests cat "$work/pb.json"
    # The JSON on stdout, after pytest's own report.
    out pytest-benchmark stdout-one-test "${p[@]}" -k fib --benchmark-json=/dev/stdout
}

make_gomod() {
    [[ -d $work/gomod ]] && return
    mkdir -p "$work/gomod"
    cat >"$work/gomod/go.mod" <<'GO'
module example.com/benchdemo

go 1.21
GO
    cat >"$work/gomod/bench_test.go" <<'GO'
package benchdemo

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
)

func BenchmarkSHA256(b *testing.B) {
	data := make([]byte, 4096)
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		sha256.Sum256(data)
	}
}

func BenchmarkJoin(b *testing.B) {
	b.ReportAllocs()
	parts := []string{"a", "b", "c", "d"}
	for i := 0; i < b.N; i++ {
		_ = strings.Join(parts, ",")
	}
}

func BenchmarkCustom(b *testing.B) {
	hits := 0
	for i := 0; i < b.N; i++ {
		if i%3 == 0 {
			hits++
		}
	}
	b.ReportMetric(float64(hits)/float64(b.N), "hits/op")
}

func BenchmarkUpper(b *testing.B) {
	for _, n := range []int{16, 1024} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s := strings.Repeat("y", n)
			for i := 0; i < b.N; i++ {
				_ = strings.ToUpper(s)
			}
		})
	}
}
GO
}

capture_gotest() {
    make_gomod
    local g=(go test -C "$work/gomod" -run '^$' -bench . -benchtime 2000x)
    out gotest count1 "${g[@]}"
    out gotest count3-benchmem "${g[@]}" -count 3 -benchmem
    out gotest cpu1-verbose "${g[@]}" -cpu 1 -v -benchmem
}

capture_value() {
    # A test script in the lab format: VALUE lines among its other output.
    cat >"$work/dd-values.sh" <<'SH'
echo "measuring dd"
dd if=/dev/zero of=/dev/null bs=1M count=256 2>"$1"
cat "$1"
awk '/copied/ { printf "VALUE %.0f bytes/sec dd_throughput\n", $1 / $(NF-3) }' "$1"
awk '/copied/ { printf "VALUE %e s dd_elapsed\n", $(NF-3) }' "$1"
echo "VALUE 256 MiB dd_size"
echo "done"
SH
    out value dd-script sh "$work/dd-values.sh" "$work/dd.err"
}

capture_regex() {
    out regex dd-elapsed dd if=/dev/zero of=/dev/null bs=1M count=256
    cat >"$here/regex/dd-elapsed.options.json" <<'JSON'
{"pattern": "copied, (?P<value>[0-9.]+) s,", "name": "elapsed", "unit": "s"}
JSON
    make_gomod
    out regex gotest-named-units go test -C "$work/gomod" -run '^$' -bench . -benchtime 1000x
    cat >"$here/regex/gotest-named-units.options.json" <<'JSON'
{"pattern": "(?m)^(?P<name>Benchmark\\S+?)-\\d+\\s+\\d+\\s+(?P<value>[0-9.]+) (?P<unit>ns)/op"}
JSON
}

capture_lz4() {
    # lz4's benchmark: two speeds per level on a progress line written over with \r,
    # the level's "N#" after the last one. Regex cases with a group per speed.
    seq 1 1000000 >"$work/lz4corpus"
    out regex lz4-bench lz4 -b1 -e2 "$work/lz4corpus"
    cat >"$here/regex/lz4-bench.options.json" <<'JSON'
{"pattern": "(?P<compress>[0-9.]+) MB/s ?, ?(?P<decompress>[0-9.]+) MB/s\r *(?P<name>\\d+)#", "unit": "MB/s"}
JSON
    # lz4 1.10 writes ", " between the speeds where 1.9 writes " ,"; Debian 12 has 1.9.4,
    # so this is the output of 1.10's two format strings (programs/bench.c), by printf.
    out regex lz4-1.10-bench printf '%2s-%-17.17s :%10u ->%10u (%5.3f),%6.1f MB/s, %6.1f MB/s\r%2i#\n' \
        '|' lz4corpus 11578560 4176168 2.773 558.1 5415.6 1
    cp "$here/regex/lz4-bench.options.json" "$here/regex/lz4-1.10-bench.options.json"
}

# perf_out <case> <perf record args...> -- <command...>: record with perf and
# keep the text of `perf script` as <case>.script (the input of the profile
# parser, tests/parsers/test_profile_golden.py); the samples differ per run.
perf_out() {
    local case=$1
    shift
    mkdir -p "$here/perf-script"
    perf record -q -o "$work/perf.data" "$@" >/dev/null 2>&1
    perf script -i "$work/perf.data" >"$here/perf-script/$case.script" 2>/dev/null
    rm -f "$work/perf.data"
    echo "captured perf-script/$case.script"
}

capture_perf_script() {
    # A hot function under two callers, built as the profiled fixture is.
    cat >"$work/hot.c" <<'C'
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) unsigned checksum_block(const unsigned char *p, int n) {
  unsigned s = 0;
  for (int i = 0; i < n; i++) s = s * 31 + p[i];
  return s;
}
__attribute__((noinline)) unsigned fill(unsigned char *p, int n, unsigned seed) {
  for (int i = 0; i < n; i++) p[i] = (unsigned char)(seed + i * 7);
  return checksum_block(p, n / 4);
}
int main(int argc, char **argv) {
  static unsigned char buf[4096];
  unsigned t = 0;
  int rounds = argc > 1 ? atoi(argv[1]) : 20000;
  for (int j = 0; j < rounds; j++) t += fill(buf, sizeof buf, j) + checksum_block(buf, sizeof buf);
  printf("%u\n", t);
  return 0;
}
C
    # Names a page must escape and a folded line cannot hold as they are.
    cat >"$work/hostile.c" <<'C'
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) unsigned evil(unsigned n) __asm__("\"<script>alert(1)</script>\"");
__attribute__((noinline)) unsigned semi(unsigned n) __asm__("\"semi;colon with space\"");
__attribute__((noinline)) unsigned evil(unsigned n) {
  unsigned s = 0;
  for (unsigned i = 0; i < n; i++) s = s * 33 + i;
  return s;
}
__attribute__((noinline)) unsigned semi(unsigned n) {
  unsigned s = 1;
  for (unsigned i = 0; i < n; i++) s = (s * 37) ^ i;
  return s;
}
int main(int argc, char **argv) {
  unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 100000000u;
  printf("%u\n", evil(n) + semi(n));
  return 0;
}
C
    cat >"$work/templates.cc" <<'CC'
#include <cstdio>
#include <map>
#include <string>
#include <vector>

template <typename T, int N>
__attribute__((noinline)) T accumulate_n(const std::vector<T>& v) {
  T s{};
  for (int r = 0; r < N; r++)
    for (const T& x : v) s = s * 3 + x;
  return s;
}

int main() {
  std::vector<unsigned long> v(1 << 16, 1);
  std::map<std::string, unsigned long> m;
  for (int i = 0; i < 200; i++) m[std::to_string(i)] = accumulate_n<unsigned long, 20>(v);
  std::printf("%lu\n", m["7"]);
  return 0;
}
CC
    cc -O2 -g -fno-omit-frame-pointer -o "$work/hot" "$work/hot.c"
    cc -O2 -g -fno-omit-frame-pointer -o "$work/hostile" "$work/hostile.c"
    g++ -O2 -g -fno-omit-frame-pointer -o "$work/templates" "$work/templates.cc"
    perf_out c-hot -g -F 999 -e cpu-clock -- "$work/hot" 40000
    perf_out c-hot-no-callchain -F 999 -e cpu-clock -- "$work/hot" 20000
    perf_out hostile-names -g -F 999 -e cpu-clock -- "$work/hostile" 200000000
    perf_out cxx-templates -g -F 999 -e cpu-clock -- "$work/templates"
    # Two processes (a shell and its child), two events: only the first counts.
    perf_out shell-two-events -g -F 499 -e cpu-clock -e task-clock -- \
        sh -c "\"$work/hot\" 20000 >/dev/null; \"$work/hot\" 10000"
}

# cachegrind_out <case> <command>: the command under perfwalk's cachegrind instrument,
# what the instrument reads back of its processes' outputs (cachegrind/<case>.txt).
cachegrind_out() {
    local case=$1 command=$2
    mkdir -p "$here/cachegrind"
    (cd "$work" && PYTHONPATH="$here/../../../src" "$python" - "$command" \
        >"$here/cachegrind/$case.txt") <<'PY'
import sys
from perfwalk.hosts import LocalHost
from perfwalk.orchestrate.instruments.cachegrind import READ, Cachegrind
from perfwalk.orchestrate.hosts.topology import Member

member = Member("local", LocalHost(), local=True)
path = "/tmp/perfwalk-capture-cachegrind"
wrapper = Cachegrind().wrapper(member, path)
member.host.run([*wrapper, "sh", "-c", sys.argv[1]], timeout=600)
sys.stdout.write(member.host.run(["sh", "-c", READ, path], timeout=600).stdout.text())
PY
    echo "captured cachegrind/$case.txt"
}

capture_cachegrind() {
    # needs valgrind and cc; perfwalk's Python (.venv) runs the instrument's own commands
    python="$here/../../../.venv/bin/python"
    [[ -x $python ]] || python=python3
    cat >"$work/work.c" <<'C'
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  static unsigned char buf[1 << 16];
  unsigned long s = 0;
  for (long i = 0; i < n; i++) {
    buf[(i * 2654435761u) & 0xffff] += i;
    s += buf[i & 0xffff];
  }
  printf("%lu\n", s);
  return 0;
}
C
    cc -O1 -o "$work/work" "$work/work.c"
    cachegrind_out one-process 'exec ./work 100000'
    # the shell, two runs of the program and a cat: four processes
    cachegrind_out process-tree './work 100000; ./work 200000 | cat'
}

# HdrHistogram's own table, from the Java library (libhdrhistogram-java): the
# recorder of tests/fixtures/latency_recorder.py, seeded, in text and in CSV.
capture_hdrhistogram() {
    (cd "$here/../../.." && python3 -c 'from tests.fixtures.latency_recorder import SOURCE; print(SOURCE, end="")') >"$work/Record.java"
    javac -cp /usr/share/java/hdrhistogram.jar -d "$work" "$work/Record.java"
    out hdrhistogram tail-1-percent java -cp "/usr/share/java/hdrhistogram.jar:$work" Record 10000 1 1000 7
    out hdrhistogram tail-5-percent java -cp "/usr/share/java/hdrhistogram.jar:$work" Record 10000 5 1000 7
    out hdrhistogram csv java -cp "/usr/share/java/hdrhistogram.jar:$work" Record 1000 1 1000 7 csv
}

# bpftrace's hist() (log2, with K and M bounds), lhist() (open buckets at both ends)
# and a keyed map, printed by bpftrace at its end (needs root and BPF: a BEGIN probe).
capture_bpftrace_hist() {
    out bpftrace-hist three-maps bpftrace -e 'BEGIN { $i = 0; while ($i < 200) {
        @usecs = hist($i * $i * 3); @bytes = lhist($i - 20, 0, 150, 25);
        @lat[comm] = hist($i * 5000); $i++; } exit(); }'
}

all=(iperf3 iperf3_text hyperfine time_p gnu_time fio fs_mark gbench pytest_benchmark gotest value regex lz4 perf_script
    cachegrind hdrhistogram bpftrace_hist)
wanted=("$@")
[[ ${#wanted[@]} -gt 0 ]] || wanted=("${all[@]}")
for tool in "${wanted[@]}"; do
    "capture_${tool//-/_}"
done
