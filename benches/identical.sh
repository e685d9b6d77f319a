#!/usr/bin/env bash
# Are two compilers' generations identical? Compiles every fixture and benchmark corpus the
# repository uses with kivgraph-compile built at BASE and at NEW, and compares the SHA-256 of
# every file of each pair of generations (every Parquet table, names.fst, graph.blob, terms and
# the rest); the manifests are compared with their timestamp and absolute repository roots
# removed, since those differ between any two compiles. A refactor must print IDENTICAL for
# every corpus.
#
#   benches/identical.sh BASE [NEW]      # commits (anything `git rev-parse` takes); NEW defaults
#                                        # to the working tree as it is, uncommitted changes too;
#                                        # either may also be a kivgraph-compile binary
#
# Corpora, each compiled when its sources are present (a missing one is listed as skipped):
#   fixtures  every repository under fixtures/ (one compile per language, as the tests do)
#   rust-std  the Rust fixtures with the toolchain's standard library (`--rust-sysroot auto`;
#             without the rust-src component it is the same as the fixtures' Rust compile)
#   go-std    the Go standard library at GOSRC (default /usr/share/go-1.19/src; Debian's
#             golang-1.19-src, see benches/README.md)
#   ts, py    the accuracy corpora, prepared once with
#             `WORK=$CORPORA/ts benches/accuracy/ts/run.sh prepare` (and py the same way)
#   rust      the crates of benches/corpus/rust/run.sh (vendored into $WORK/rust-vendor with
#             `cargo vendor --locked` when missing), without the sysroot
#   dart      benches/corpus/dart
#
# Environment: WORK (default /tmp/kivgraph-identical; builds and corpora are kept there and
# reused), CORPORA (where the prepared ts/ and py/ corpora are, default $WORK), CARGO_TARGET_DIR (default the workspace's target/), ONLY (a space-separated subset of
# the corpus names above), PROFILE (release, the default, or debug: quicker to build, slower to
# compile the corpora; the generations are the same). Exit status: 0 when every compiled corpus is identical, 1 otherwise.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
ws=$(cd "$here/.." && pwd)
[[ $# -ge 1 ]] || {
	sed -n '2,24p' "$0" >&2
	exit 2
}
WORK=${WORK:-/tmp/kivgraph-identical}
GOSRC=${GOSRC:-/usr/share/go-1.19/src}
ONLY=${ONLY:-fixtures rust-std go-std ts py rust dart}
CORPORA=${CORPORA:-$WORK}
PROFILE=${PROFILE:-release}
case $PROFILE in
release) profile_flag=--release ;;
debug) profile_flag= ;;
*)
	echo "PROFILE is release or debug, not $PROFILE" >&2
	exit 2
	;;
esac
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ws/target}
mkdir -p "$WORK/bin"

# build REV -> prints the path of that revision's kivgraph-compile.
build() {
	local rev=$1 sha src
	if [[ -f $rev && -x $rev ]]; then
		echo "$rev"
		return
	fi
	if [[ $rev == worktree ]]; then
		src=$ws
		sha=worktree
	else
		sha=$(git -C "$ws" rev-parse --verify "$rev^{commit}")
		src=$WORK/src/$sha
		if [[ ! -d $src ]]; then
			git -C "$ws" worktree add --detach --force "$src" "$sha" >&2
		fi
	fi
	# The binary is copied out of the shared target directory right after its build: a build of
	# another checkout into the same directory between the two would replace it, so give each
	# checkout its own CARGO_TARGET_DIR when several build at once.
	local bin=$WORK/bin/$PROFILE-$sha
	if [[ $sha == worktree || ! -x $bin/kivgraph-compile ]]; then
		echo "== build kivgraph-compile ($PROFILE) at $rev ($sha)" >&2
		# shellcheck disable=SC2086 # empty for debug
		(cd "$src" && cargo build $profile_flag -q -p kivgraph-compile --bin kivgraph-compile) >&2
		mkdir -p "$bin"
		cp "$CARGO_TARGET_DIR/$PROFILE/kivgraph-compile" "$bin/kivgraph-compile"
	fi
	echo "$bin/kivgraph-compile"
}

base_bin=$(build "$1")
new_bin=$(build "${2:-worktree}")

# Corpora inside this checkout are compiled from a copy outside any git repository: otherwise
# each repository would record the checkout's HEAD, and a commit between two runs would make
# generations differ that the compilers make alike.
inputs=$WORK/inputs
rm -rf "$inputs"
mkdir -p "$inputs"
cp -r "$ws/fixtures" "$inputs/fixtures"
cp -r "$here/corpus/dart" "$inputs/dart"

# The corpora: name, then the compile's arguments (repositories and options).
corpora=()
add() { corpora+=("$*"); }
want() { [[ " $ONLY " == *" $1 "* ]]; }
skipped=()

if want fixtures; then
	f=$inputs/fixtures
	add fixtures-go "shapes=$f/go/shapes inventory=$f/go/inventory constructs=$f/go/constructs" \
		"orphan=$f/go/orphan mathlib=$f/go/pair/mathlib app=$f/go/pair/app"
	add fixtures-ts "shop=$f/ts/shop ui=$f/ts/ui legacy=$f/ts/legacy corelib=$f/ts/pair/corelib" \
		"webapp=$f/ts/pair/webapp"
	add fixtures-python "shop=$f/python/shop corelib=$f/python/pair/corelib app=$f/python/pair/app"
	add fixtures-rust "--rust-sysroot off geo=$f/rust/geo stduse=$f/rust/stduse" \
		"corelib=$f/rust/pair/corelib app=$f/rust/pair/app"
	add fixtures-dart "shop=$f/dart/shop corelib=$f/dart/pair/corelib app=$f/dart/pair/app"
fi
if want rust-std; then
	# The Rust fixtures with the toolchain's standard library (rust-src) as rust:<release>.
	f=$inputs/fixtures
	add rust-std "--rust-sysroot auto geo=$f/rust/geo stduse=$f/rust/stduse" \
		"corelib=$f/rust/pair/corelib app=$f/rust/pair/app"
fi
if want go-std; then
	if [[ -d $GOSRC ]]; then add go-std "go=$GOSRC"; else skipped+=("go-std (no $GOSRC)"); fi
fi
for l in ts py; do
	want $l || continue
	if [[ -f $CORPORA/$l/repos.txt ]]; then
		add "$l" "$(tr '\n' ' ' <"$CORPORA/$l/repos.txt")"
	else
		skipped+=("$l (no $CORPORA/$l/repos.txt: WORK=$CORPORA/$l benches/accuracy/$l/run.sh prepare)")
	fi
done
if want rust; then
	vendor=$WORK/rust-vendor
	if [[ ! -d $vendor ]]; then
		(cd "$ws" && cargo vendor --locked --versioned-dirs "$vendor" >/dev/null)
	fi
	args="--rust-sysroot off"
	for c in parquet arrow-array arrow-buffer arrow-data arrow-schema arrow-select arrow-ipc \
		serde serde_core serde_derive serde_json regex regex-automata regex-syntax aho-corasick \
		memchr rayon rayon-core crossbeam-deque crossbeam-epoch crossbeam-utils fst roaring bytes \
		indexmap hashbrown; do
		for d in "$vendor/$c"-[0-9]*; do args+=" $(basename "$d")=$d"; done
	done
	add rust "$args"
fi
if want dart; then
	d=$inputs/dart
	add dart "ledger_core=$d/ledger_core ledger_app=$d/ledger_app"
fi

# compile BIN OUT ARGS... -> the generation's directory.
# A base generation is kept and reused while the binary (by digest) and the arguments are the
# same; a generation of the new compiler is always made afresh.
compile() {
	local bin=$1 out=$2 stamp
	mkdir -p "$(dirname "$out")"
	shift 2
	stamp="$(sha256sum <"$bin" | cut -d' ' -f1) $*"
	if [[ $out == *.base && -f $out.stamp && $(cat "$out.stamp") == "$stamp" && -f $out/CURRENT ]]; then
		echo "$out/generations/$(tr -d '\n' <"$out/CURRENT")"
		return
	fi
	rm -rf "$out" "$out.stamp"
	"$bin" --out "$out" "$@" >/dev/null 2>"$out.stderr" || {
		echo "compile failed, see $out.stderr" >&2
		return 1
	}
	echo "$stamp" >"$out.stamp"
	echo "$out/generations/$(tr -d '\n' <"$out/CURRENT")"
}

# A manifest without what differs between any two compiles of the same sources.
manifest() {
	python3 - "$1" <<-'EOF'
		import json, sys
		m = json.load(open(sys.argv[1]))
		def strip(v):
		    if isinstance(v, dict):
		        return {k: strip(x) for k, x in v.items()
		                if k not in ("created_at", "created_at_ms", "root", "generation_id")}
		    if isinstance(v, list):
		        return [strip(x) for x in v]
		    return v
		print(json.dumps(strip(m), sort_keys=True, indent=1))
	EOF
}

status=0
printf '%-26s %-10s %s\n' corpus verdict detail
for entry in "${corpora[@]}"; do
	read -r name rest <<<"$entry"
	# shellcheck disable=SC2086 # the arguments are a word list
	a=$(compile "$base_bin" "$WORK/out/$name.base" $rest) || {
		printf '%-26s %-10s %s\n' "$name" FAILED "base compile"
		status=1
		continue
	}
	# shellcheck disable=SC2086
	b=$(compile "$new_bin" "$WORK/out/$name.new" $rest) || {
		printf '%-26s %-10s %s\n' "$name" FAILED "new compile"
		status=1
		continue
	}
	diffs=()
	files=$( (cd "$a" && find . -type f; cd "$b" && find . -type f) | sort -u)
	n=0
	for f in $files; do
		n=$((n + 1))
		if [[ $f == ./manifest.json ]]; then
			cmp -s <(manifest "$a/$f") <(manifest "$b/$f") || diffs+=("manifest.json")
		elif [[ ! -f $a/$f || ! -f $b/$f ]]; then
			diffs+=("${f#./} (only in one)")
		elif [[ $(sha256sum <"$a/$f") != $(sha256sum <"$b/$f") ]]; then
			diffs+=("${f#./}")
		fi
	done
	if [[ ${#diffs[@]} -eq 0 ]]; then
		printf '%-26s %-10s %s\n' "$name" IDENTICAL "$n files, $(du -sh "$b" | cut -f1)"
	else
		printf '%-26s %-10s %s\n' "$name" DIFFERENT "${diffs[*]}"
		status=1
	fi
done
for s in "${skipped[@]}"; do printf '%-26s %-10s %s\n' "${s%% *}" skipped "${s#* }"; done
exit $status
