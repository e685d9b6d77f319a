#!/usr/bin/env bash
# Accuracy of kivgraph's Rust front end against rust-analyzer.
#
#   benches/accuracy/rs/run.sh [corpus] [ACCURACY_ARGS...]   # the pinned crate corpus (default)
#   benches/accuracy/rs/run.sh fixtures                      # regenerate fixtures.oracle.jsonl
#   benches/accuracy/rs/run.sh prepare                       # only prepare the corpus
#                                                            # (WORK/corpus, names in WORK/repos.txt)
#
# corpus: (a) builds rust-analyzer with build-oracle.sh unless RUST_ANALYZER names a binary,
# (b) unpacks the crates of CRATES at the versions the workspace's Cargo.lock pins
# (`cargo vendor --locked`), and makes each its own repository root WORK/corpus/NAME holding its
# library's sources and a minimal Cargo.toml (prepare.py: a dependency on another corpus crate
# becomes a path dependency, so both sides see the same sources), (c) runs `rust-analyzer scip`
# in each root and the oracle over all the indexes, (d) compiles the same roots with the release
# build of kivgraph-compile (`--rust-sysroot off`: uses of the standard library are not
# measured), (e) scores with the `accuracy` binary; ACCURACY_ARGS (--json,
# --min-exact-precision, --min-recall, --min-exact-recall) are passed on.
#
# fixtures: indexes the repositories geo, stduse, pair/corelib and pair/app of fixtures/rust and
# writes fixtures.oracle.jsonl beside this script. rust-analyzer runs on copies (in WORK/fx):
# the git dependency of pair/app/extras becomes a path dependency on the copy of pair/corelib (no
# git host is reachable), and geo/crates/scratch, outside the geo workspace, is indexed on its own.
#
# Environment: WORK (scratch directory, default a fresh one under /tmp), RUST_ANALYZER (the
# binary; default: build-oracle.sh's), RA_BUILD (build-oracle.sh's directory), MIN_RS_LINES
# (60000), CARGO_TARGET_DIR.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
ws=$(cd "$here/../../.." && pwd)
mode=corpus
if [[ $# -gt 0 && ($1 == corpus || $1 == fixtures || $1 == prepare) ]]; then
	mode=$1
	shift
fi
MIN_RS_LINES=${MIN_RS_LINES:-60000}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ws/target}
WORK=${WORK:-$(mktemp -d /tmp/kivgraph-rs-accuracy.XXXXXX)}
WORK=$(mkdir -p "$WORK" && cd "$WORK" && pwd)

# The corpus: crate name and the version Cargo.lock pins (a mismatch fails: update both).
CRATES=(
	"regex-syntax 0.8.12"
	"memchr 2.8.3"
	"aho-corasick 1.1.5"
	"fst 0.4.7"
	"bytes 1.12.2"
	"indexmap 2.14.2"
	"equivalent 1.0.3"
	"crossbeam-utils 0.8.23"
	"crossbeam-epoch 0.9.21"
)

if [[ $mode != prepare ]]; then
	echo "== (a) oracle: rust-analyzer" >&2
	ra=${RUST_ANALYZER:-$("$here/build-oracle.sh")}
	checker="rust-analyzer 0.0.349 (ra_ap_rust-analyzer)"
	echo "$checker" >&2
fi

# rust-analyzer scip ROOT OUT: its build-script and proc-macro runs build into WORK/ra-target,
# not into the root.
scip() {
	(cd "$1" && CARGO_TARGET_DIR="$WORK/ra-target" /usr/bin/time -f "rust-analyzer scip $(basename "$1"): %e s, %M KiB peak" \
		"$ra" scip . --output "$2" >"$2.log" 2>&1) || {
		tail -20 "$2.log" >&2
		exit 1
	}
	tail -1 "$2.log" >&2
}

if [[ $mode == fixtures ]]; then
	fx=$ws/fixtures/rust
	rm -rf "$WORK/fx" "$WORK/scip"
	mkdir -p "$WORK/fx" "$WORK/scip"
	cp -r "$fx/geo" "$fx/stduse" "$fx/pair/corelib" "$fx/pair/app" "$WORK/fx/"
	sed -i 's|^core_lib = .*|core_lib = { package = "acme-corelib", path = "../../corelib" }|' \
		"$WORK/fx/app/extras/Cargo.toml"
	scip "$WORK/fx/geo" "$WORK/scip/geo.scip"
	scip "$WORK/fx/geo/crates/scratch" "$WORK/scip/geo-scratch.scip"
	scip "$WORK/fx/stduse" "$WORK/scip/stduse.scip"
	scip "$WORK/fx/corelib" "$WORK/scip/corelib.scip"
	scip "$WORK/fx/app" "$WORK/scip/app.scip"
	python3 "$here/oracle.py" -checker "$checker" -o "$here/fixtures.oracle.jsonl" \
		-repo "geo=$fx/geo" -repo "stduse=$fx/stduse" -repo "corelib=$fx/pair/corelib" \
		-repo "app=$fx/pair/app" \
		-index "geo=$WORK/scip/geo.scip" -index "geo:crates/scratch=$WORK/scip/geo-scratch.scip" \
		-index "stduse=$WORK/scip/stduse.scip" -index "corelib=$WORK/scip/corelib.scip" \
		-index "app=$WORK/scip/app.scip"
	echo "wrote $here/fixtures.oracle.jsonl" >&2
	exit 0
fi

echo "== (b) corpus" >&2
if [[ ! -d $WORK/vendor ]]; then
	(cd "$ws" && cargo vendor --locked --versioned-dirs "$WORK/vendor" >/dev/null)
fi
corpus=$WORK/corpus
rm -rf "$corpus"
mkdir -p "$corpus"
names=()
for entry in "${CRATES[@]}"; do names+=("${entry%% *}"); done
repos=()
total=0
summary=""
for entry in "${CRATES[@]}"; do
	read -r name version <<<"$entry"
	src=$WORK/vendor/$name-$version
	[[ -d $src ]] || {
		echo "$name $version is not in Cargo.lock (vendor has: $(cd "$WORK/vendor" && echo "$name"-[0-9]*))" >&2
		exit 1
	}
	read -r lines nfiles < <(python3 "$here/prepare.py" "$src" "$corpus/$name" "$corpus" "${names[@]}")
	total=$((total + lines))
	line=$(printf '%-16s %-8s %4d files %7d lines' "$name" "$version" "$nfiles" "$lines")
	echo "$line" >&2
	summary+="$line"$'\n'
	repos+=("$name=$corpus/$name")
done
echo "corpus: $total Rust lines" >&2
if [[ $mode == prepare ]]; then
	printf '%s\n' "${repos[@]}" >"$WORK/repos.txt"
	echo "wrote $WORK/repos.txt" >&2
	exit 0
fi
if ((total < MIN_RS_LINES)); then
	echo "the corpus has $total Rust lines, under the minimum $MIN_RS_LINES" >&2
	exit 1
fi

echo "== (c) oracle" >&2
rm -rf "$WORK/scip"
mkdir -p "$WORK/scip"
oargs=()
for r in "${repos[@]}"; do
	name=${r%%=*}
	scip "${r#*=}" "$WORK/scip/$name.scip"
	oargs+=(-repo "$r" -index "$name=$WORK/scip/$name.scip")
done
# cargo metadata leaves a Cargo.lock in each root; kivgraph does not read it.
/usr/bin/time -f "oracle: %e s, %M KiB peak" python3 "$here/oracle.py" -checker "$checker" \
	-o "$WORK/rs.oracle.jsonl" "${oargs[@]}"

echo "== (d) kivgraph-compile (release)" >&2
(cd "$ws" && cargo build --release -q -p kivgraph-compile --bin kivgraph-compile &&
	cargo build --release -q -p kivgraph-benches --bin accuracy)
rm -rf "$WORK/index"
/usr/bin/time -f "compile: %e s, %M KiB peak" "$CARGO_TARGET_DIR/release/kivgraph-compile" \
	--rust-sysroot off --out "$WORK/index" "${repos[@]}" >&2

echo "== (e) score" >&2
json=false
for a in "$@"; do [[ $a == --json ]] && json=true; done
{
	echo "corpus: ${#repos[@]} crates, $total Rust lines; checker: $checker; work: $WORK"
	printf '%s' "$summary"
} >&"$([[ $json == true ]] && echo 2 || echo 1)"
status=0
"$CARGO_TARGET_DIR/release/accuracy" "$WORK/rs.oracle.jsonl" "$WORK/index" "$@" | tee "$WORK/report.txt" || status=${PIPESTATUS[0]}
echo "report: $WORK/report.txt" >&2
exit "$status"
