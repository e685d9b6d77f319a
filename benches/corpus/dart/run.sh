#!/usr/bin/env bash
# The Dart corpus: the two packages of benches/corpus/dart (ledger_core and ledger_app, which
# imports it by package: URIs), compiled together. Prints the compile throughput
# (compile_throughput), then the resolution shares and a fixed sample of exact edges for
# checking by hand (shares). Run by hand, never in CI.
#
# Usage: benches/corpus/dart/run.sh [SAMPLE_SIZE] [SEED]
set -euo pipefail
cd "$(dirname "$0")/../../.."
SAMPLE=${1:-30}
SEED=${2:-7}
WORK=target/dart-corpus
repos=(ledger_core=benches/corpus/dart/ledger_core ledger_app=benches/corpus/dart/ledger_app)
cargo build --release -q -p kivgraph-compile -p kivgraph-benches --bin kivgraph-compile --bin compile_throughput --bin shares
target/release/compile_throughput "${repos[@]}"
rm -rf "$WORK/index"
target/release/kivgraph-compile --out "$WORK/index" --json "${repos[@]}" \
  | python3 -c 'import json,sys; s=json.load(sys.stdin); print("published generation", s["generation_id"], "rows", s["rows"])'
target/release/shares "$WORK/index" --language dart --sample "$SAMPLE" --seed "$SEED"
