#!/bin/sh
# bench.sh regenerates BENCHMARKS.md: it runs the benchmarks of the root
# package, of internal/peerbench (saidex vs Eino) and of the saidexeino
# module (Eino's ToolsNode with and without the saidex configuration), then
# turns their output into ratio tables with internal/cmd/benchtable, and
# appends the import weight measured by internal/cmd/importweight (packages
# and binary size saidex adds to a minimal program; it builds, so needs the
# module cache or the module proxy), then writes the generated Cost section
# of docs/cost.md from BENCHMARKS.md.
#
#   scripts/bench.sh            # COUNT=6 BENCHTIME=1s by default
#   COUNT=3 BENCHTIME=200ms scripts/bench.sh
#   BASE=HEAD~10 scripts/bench.sh
#
# Each test binary is built once and run COUNT times with -test.count 1, so
# that every round runs all the benchmarks being compared one after another:
# on a shared, noisy machine a change of load then hits both sides of a
# ratio, instead of every run of one side (as -count N would, which repeats
# each benchmark N times in a row). The raw output is kept in OUT_DIR (a new
# temporary directory by default), for benchstat.
set -eu
cd "$(dirname "$0")/.."

COUNT=${COUNT:-6}
BENCHTIME=${BENCHTIME:-1s}
BASE=${BASE-6044af4}
OUT_DIR=${OUT_DIR:-$(mktemp -d)}
ROOT_OUT=$OUT_DIR/root.txt
PEER_OUT=$OUT_DIR/peerbench.txt
EINO_OUT=$OUT_DIR/saidexeino.txt
mkdir -p "$OUT_DIR"

go test -c -o "$OUT_DIR/root.test" .
if [ -n "$BASE" ]; then
	git worktree add -q --detach "$OUT_DIR/base" "$BASE"
	(cd "$OUT_DIR/base" && go test -c -o "$OUT_DIR/base.test" .)
	git worktree remove --force "$OUT_DIR/base"
fi
(cd internal/peerbench && go test -c -o "$OUT_DIR/peerbench.test" .)
(cd saidexeino && go test -c -o "$OUT_DIR/saidexeino.test" .)

run_rounds() { # dir binary [base binary]
	i=0
	while [ "$i" -lt "$COUNT" ]; do
		(cd "$1" && "$2" -test.run '^$' -test.bench . -test.benchmem -test.count 1 -test.benchtime "$BENCHTIME")
		if [ -n "${3:-}" ]; then
			(cd "$1" && "$3" -test.run '^$' -test.bench 'BenchmarkRepairSize/text/' -test.benchmem -test.count 1 -test.benchtime "$BENCHTIME") |
				sed 's/^BenchmarkRepairSize/BenchmarkBaseRepairSize/'
		fi
		i=$((i + 1))
	done
}

{
	echo "# go test -c . && $COUNT rounds of: ./saidex-go.test -test.run '^\$' -test.bench . -test.benchmem -test.count 1 -test.benchtime $BENCHTIME"
	if [ -n "$BASE" ]; then
		echo "# and in each round, built at $BASE ($(git rev-parse --short "$BASE")): ./base.test -test.run '^\$' -test.bench 'BenchmarkRepairSize/text/' -test.benchmem -test.count 1 -test.benchtime $BENCHTIME, renamed BenchmarkBaseRepairSize"
	fi
	echo "# load average before the root rounds (1, 5, 15 min): $(cut -d' ' -f1-3 /proc/loadavg)"
	run_rounds . "$OUT_DIR/root.test" "${BASE:+$OUT_DIR/base.test}"
	echo "# load average after the root rounds: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$ROOT_OUT"
{
	echo "# cd internal/peerbench && go test -c . && $COUNT rounds of: ./peerbench.test -test.run '^\$' -test.bench . -test.benchmem -test.count 1 -test.benchtime $BENCHTIME"
	run_rounds internal/peerbench "$OUT_DIR/peerbench.test"
} >"$PEER_OUT"
{
	echo "# cd saidexeino && go test -c . && $COUNT rounds of: ./saidexeino.test -test.run '^\$' -test.bench . -test.benchmem -test.count 1 -test.benchtime $BENCHTIME"
	echo "# load average before the saidexeino rounds (1, 5, 15 min): $(cut -d' ' -f1-3 /proc/loadavg)"
	run_rounds saidexeino "$OUT_DIR/saidexeino.test"
	echo "# load average after them: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$EINO_OUT"
echo "# scripts/bench.sh (COUNT=$COUNT BENCHTIME=$BENCHTIME): go run ./internal/cmd/benchtable root.txt peerbench.txt saidexeino.txt, then go run ./internal/cmd/importweight -agent -by-dependency, into BENCHMARKS.md" >>"$PEER_OUT"

go run ./internal/cmd/benchtable "$ROOT_OUT" "$PEER_OUT" "$EINO_OUT" >"$OUT_DIR/tables.md"
go run ./internal/cmd/importweight -agent -by-dependency >"$OUT_DIR/importweight.md"
{
	cat "$OUT_DIR/tables.md"
	echo
	cat "$OUT_DIR/importweight.md"
} >BENCHMARKS.md
# The Cost section of docs/cost.md is generated from BENCHMARKS.md (and
# checked against it by internal/cmd/benchtable's test).
go run ./internal/cmd/benchtable -readme docs/cost.md BENCHMARKS.md
echo "wrote BENCHMARKS.md and docs/cost.md's Cost section; raw output in $OUT_DIR"
