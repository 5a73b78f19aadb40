#!/bin/sh
# bench.sh regenerates BENCHMARKS.md: it runs the benchmarks of the root
# package and of internal/peerbench (saidex vs Eino), then turns their
# output into ratio tables with internal/cmd/benchtable.
#
#   scripts/bench.sh            # COUNT=6 BENCHTIME=1s by default
#   COUNT=3 BENCHTIME=200ms scripts/bench.sh
#
# The raw benchmark output is kept in OUT_DIR (a new temporary directory by
# default), for benchstat.
set -eu
cd "$(dirname "$0")/.."

COUNT=${COUNT:-6}
BENCHTIME=${BENCHTIME:-1s}
OUT_DIR=${OUT_DIR:-$(mktemp -d)}
ROOT_OUT=$OUT_DIR/root.txt
PEER_OUT=$OUT_DIR/peerbench.txt
mkdir -p "$OUT_DIR"

root_cmd="go test -run '^\$' -bench . -benchmem -count $COUNT -benchtime $BENCHTIME ."
peer_cmd="(cd internal/peerbench && go test -run '^\$' -bench . -benchmem -count $COUNT -benchtime $BENCHTIME .)"

{
	echo "# $root_cmd"
	go test -run '^$' -bench . -benchmem -count "$COUNT" -benchtime "$BENCHTIME" .
} >"$ROOT_OUT"
{
	echo "# $peer_cmd"
	(cd internal/peerbench && go test -run '^$' -bench . -benchmem -count "$COUNT" -benchtime "$BENCHTIME" .)
} >"$PEER_OUT"
echo "# scripts/bench.sh (COUNT=$COUNT BENCHTIME=$BENCHTIME): go run ./internal/cmd/benchtable root.txt peerbench.txt > BENCHMARKS.md" >>"$PEER_OUT"

go run ./internal/cmd/benchtable "$ROOT_OUT" "$PEER_OUT" >BENCHMARKS.md
echo "wrote BENCHMARKS.md; raw output in $OUT_DIR"
