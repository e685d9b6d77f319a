#!/usr/bin/env bash
# The Rust corpus: the published sources of a pinned set of this workspace's own dependencies
# (the versions Cargo.lock names), compiled together, one repository per crate, so that the
# crates that depend on each other (parquet on arrow-*, serde_json on serde, rayon on
# rayon-core, regex on regex-automata, …) bind across repositories through their Cargo.toml.
#
# Prints the compile throughput (compile_throughput), then the resolution shares and a fixed
# sample of exact edges for checking by hand (shares). Run by hand, never in CI.
#
# Usage: benches/corpus/rust/run.sh [SAMPLE_SIZE] [SEED]
set -euo pipefail
cd "$(dirname "$0")/../../.."
SAMPLE=${1:-30}
SEED=${2:-7}
WORK=target/rust-corpus
CRATES=(
  parquet arrow-array arrow-buffer arrow-data arrow-schema arrow-select arrow-ipc
  serde serde_core serde_derive serde_json
  regex regex-automata regex-syntax aho-corasick memchr
  rayon rayon-core crossbeam-deque crossbeam-epoch crossbeam-utils
  fst roaring bytes indexmap hashbrown
)
# `cargo vendor` unpacks exactly the locked versions, from the registry.
if [ ! -d "$WORK/vendor" ]; then
  mkdir -p "$WORK"
  cargo vendor --locked --versioned-dirs "$WORK/vendor" >/dev/null
fi
repos=()
for c in "${CRATES[@]}"; do
  dirs=("$WORK/vendor/$c"-[0-9]*)
  [ -d "${dirs[0]}" ] || { echo "crate $c is not in Cargo.lock" >&2; exit 1; }
  for d in "${dirs[@]}"; do repos+=("$(basename "$d")=$d"); done
done
files=$(for r in "${repos[@]}"; do find "${r#*=}" -name '*.rs'; done | wc -l)
lines=$(for r in "${repos[@]}"; do find "${r#*=}" -name '*.rs' -print0 | xargs -0 cat; done | wc -l)
echo "corpus: ${#repos[@]} crates, $files .rs files, $lines lines"
cargo build --release -q -p kivgraph-compile -p kivgraph-benches --bin kivgraph-compile --bin compile_throughput --bin shares
target/release/compile_throughput "${repos[@]}"
rm -rf "$WORK/index"
target/release/kivgraph-compile --out "$WORK/index" --rust-sysroot off --json "${repos[@]}" \
  | python3 -c 'import json,sys; s=json.load(sys.stdin); print("published generation", s["generation_id"], "rows", s["rows"])'
target/release/shares "$WORK/index" --language rust --sample "$SAMPLE" --seed "$SEED"
