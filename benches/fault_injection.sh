#!/usr/bin/env bash
# Fault injection into publishing: TRIALS compiles of a small fixture repository, each cut at one
# step of the publish protocol (SPEC.md sections 1.4 and 1.8) by KIVGRAPH_FAULT, as an error or as
# a crash (`crash:STEP` aborts the process), plus every seventh trial killed with SIGKILL at a
# random moment. After every trial: `kivgraph-compile verify` of CURRENT and of every generation
# directory visible under its id, and a query served by `kivgraph query`. At the end a normal
# compile must leave no leftover. Prints the counts; exits 1 when any check failed.
#
#   benches/fault_injection.sh [TRIALS]      # default 1000
#
# Environment: CARGO_TARGET_DIR (default the workspace's target/); the release binaries are built.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
ws=$(cd "$here/.." && pwd)
trials=${1:-1000}
target=${CARGO_TARGET_DIR:-$ws/target}
(cd "$ws" && cargo build --release -q -p kivgraph-compile -p kivgraph)
compile=$target/release/kivgraph-compile
engine=$target/release/kivgraph
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
index=$work/index
repo="shapes=$ws/fixtures/go/shapes"

steps=(during-write after-files-written after-rename before-current-swap after-current-swap during-collect)
errors=0 crashes=0 kills=0 bad_current=0 partial=0 failed_queries=0 unexpected=0
"$compile" --out "$index" "$repo" >/dev/null
start=$(date +%s)
for ((i = 0; i < trials; i++)); do
	step=${steps[$((i % ${#steps[@]}))]}
	if ((i % 7 == 6)); then
		# A kill at a random moment of a compile.
		"$compile" --out "$index" "$repo" >/dev/null 2>&1 &
		pid=$!
		sleep "0.0$((RANDOM % 10))"
		kill -9 "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		kills=$((kills + 1))
	elif (((i / ${#steps[@]}) % 2)); then
		status=0
		# The braces keep the shell's own "Aborted" notice out of the output.
		{ KIVGRAPH_FAULT="crash:$step" "$compile" --out "$index" "$repo" >/dev/null 2>&1 || status=$?; } 2>/dev/null
		# 134 = killed by SIGABRT.
		if ((status == 134)); then crashes=$((crashes + 1)); else unexpected=$((unexpected + 1)); fi
	else
		KIVGRAPH_FAULT="$step" "$compile" --out "$index" "$repo" >/dev/null 2>&1 || true
		errors=$((errors + 1))
	fi
	"$compile" verify "$index" >/dev/null 2>&1 || bad_current=$((bad_current + 1))
	for dir in "$index"/generations/[0-9][0-9][0-9][0-9][0-9][0-9]; do
		[[ -d $dir ]] || continue
		"$compile" verify "$dir" >/dev/null 2>&1 || {
			partial=$((partial + 1))
			echo "incomplete generation visible after trial $i ($step): $dir" >&2
		}
	done
	"$engine" query --index "$index" find_symbol '{"name":"Area"}' >/dev/null 2>&1 ||
		failed_queries=$((failed_queries + 1))
done
elapsed=$(($(date +%s) - start))
"$compile" --out "$index" "$repo" >/dev/null
leftovers=$(find "$index" -maxdepth 2 \( -name '.tmp-*' -o -name 'CURRENT.tmp' \) | wc -l)
kept=$(find "$index/generations" -mindepth 1 -maxdepth 1 | wc -l)

echo "trials                         $trials ($errors injected errors, $crashes injected crashes, $kills kills at random moments) in ${elapsed}s"
echo "bad CURRENT after a trial      $bad_current"
echo "incomplete generation visible  $partial"
echo "queries not served             $failed_queries"
echo "crash faults that did not crash $unexpected"
echo "leftovers after a normal publish $leftovers (generations kept: $kept)"
((bad_current + partial + failed_queries + unexpected + leftovers == 0)) && ((kept <= 3))
