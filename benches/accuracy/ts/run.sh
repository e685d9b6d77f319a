#!/usr/bin/env bash
# Accuracy of kivgraph's TypeScript/JavaScript front end against the TypeScript checker.
#
#   benches/accuracy/ts/run.sh [corpus] [ACCURACY_ARGS...]   # the pinned npm corpus (default)
#   benches/accuracy/ts/run.sh fixtures                      # regenerate fixtures.oracle.jsonl
#   benches/accuracy/ts/run.sh prepare                       # only fetch and prepare the corpus
#                                                            # (WORK/corpus, names in WORK/repos.txt)
#   benches/accuracy/ts/run.sh holdout [ACCURACY_ARGS...]    # the held-out corpus (HOLDOUT below)
#
# The held-out corpus is a check that nothing is fixed against: its figures are reported, its
# misses are never studied to write a rule.
#
# corpus: (a) installs the oracle's pinned TypeScript with `npm ci`, (b) fetches each package of
# PACKAGES with `npm pack`, unpacks it into WORK/corpus/NAME as its own repository root and
# keeps only its sources (prepare.mjs: tests and compiled outputs removed, package.json entry
# points rewritten to the sources), (c) runs the oracle over all roots, (d) compiles the same
# roots with the release build of kivgraph-compile, (e) scores with the `accuracy` binary;
# ACCURACY_ARGS (--json, --min-exact-precision, --min-recall, --min-exact-recall) are passed on.
#
# fixtures: runs the oracle over the repositories of fixtures/ts (each directory with a
# package.json, tsconfig.json or source file at its top, else each such child directory, named
# by its base name; FIXTURE_REPOS="NAME=DIR ..." overrides) into fixtures.oracle.jsonl. Does
# nothing when fixtures/ts does not exist (FIXTURES=DIR measures another directory).
#
# Environment: WORK (scratch directory, default a fresh one under /tmp; tarballs are reused from
# WORK/tarballs), MIN_TS_LINES (100000), NODE_OPTIONS (default --max-old-space-size=8192),
# CARGO_TARGET_DIR.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
ws=$(cd "$here/../../.." && pwd)
mode=corpus
if [[ $# -gt 0 && ($1 == corpus || $1 == fixtures || $1 == prepare || $1 == holdout) ]]; then
	mode=$1
	shift
fi
MIN_TS_LINES=${MIN_TS_LINES:-100000}
export NODE_OPTIONS=${NODE_OPTIONS:---max-old-space-size=8192}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ws/target}

# The corpus: repository name, npm package@version, the paths holding its sources.
PACKAGES=(
	"rxjs rxjs@7.8.2 src"
	"zod zod@4.6.7 src"
	"reduxjs-toolkit @reduxjs/toolkit@2.15.0 src"
	"redux redux@5.0.1 src"
	"reselect reselect@5.3.0 src"
	"immer immer@11.2.13 src"
	"mobx mobx@7.1.3 src"
	"tanstack-query-core @tanstack/query-core@5.108.4 src"
	"tanstack-react-query @tanstack/react-query@5.108.4 src"
	"tanstack-router-core @tanstack/router-core@1.171.39 src"
	"tanstack-history @tanstack/history@1.162.5 src"
	"tanstack-store @tanstack/store@0.11.2 src"
	"trpc-server @trpc/server@11.25.2 src"
	"trpc-client @trpc/client@11.25.2 src"
	"preact preact@11.2.0 src hooks/src compat/src debug/src devtools/src jsx-runtime/src test-utils/src"
	"lodash-es lodash-es@4.18.1 *.js"
)

# The held-out corpus: packages no rule was written against.
HOLDOUT=(
	"tanstack-db @tanstack/db@0.15.2 src"
	"msw msw@2.15.0 src"
	"tanstack-form-core @tanstack/form-core@1.33.5 src"
	"tanstack-virtual-core @tanstack/virtual-core@3.19.13 src"
)
if [[ $mode == holdout ]]; then
	PACKAGES=("${HOLDOUT[@]}")
	MIN_TS_LINES=${MIN_HOLDOUT_TS_LINES:-20000}
	mode=corpus
fi

echo "== (a) oracle: TypeScript from package-lock.json" >&2
if [[ ! -f $here/node_modules/typescript/package.json ]] ||
	[[ $(node -p "require('$here/node_modules/typescript/package.json').version") != \
		$(node -p "require('$here/package-lock.json').packages['node_modules/typescript'].version") ]]; then
	(cd "$here" && npm ci --no-audit --no-fund >&2)
fi
checker=$(node -p "'typescript ' + require('$here/node_modules/typescript/package.json').version")
echo "checker: $checker" >&2

if [[ $mode == fixtures ]]; then
	fx=${FIXTURES:-$ws/fixtures/ts}
	if [[ ! -d $fx ]]; then
		echo "no $fx: nothing to do" >&2
		exit 0
	fi
	cd "$fx"
	args=()
	if [[ -n ${FIXTURE_REPOS:-} ]]; then
		for r in $FIXTURE_REPOS; do args+=(-repo "$r"); done
	else
		is_repo() {
			[[ -f $1/package.json || -f $1/tsconfig.json || -f $1/jsconfig.json ]] ||
				compgen -G "$1/*.@(ts|tsx|mts|cts|js|jsx|mjs|cjs)" >/dev/null
		}
		shopt -s extglob nullglob
		for d in */; do
			d=${d%/}
			if is_repo "$d"; then
				args+=(-repo "$(basename "$d")=$d")
			else
				for c in "$d"/*/; do
					c=${c%/}
					if is_repo "$c"; then args+=(-repo "$(basename "$c")=$c"); fi
				done
			fi
		done
	fi
	if [[ ${#args[@]} -eq 0 ]]; then
		echo "no repositories under $fx: nothing to do" >&2
		exit 0
	fi
	node "$here/oracle.mjs" -o "$here/fixtures.oracle.jsonl" "${args[@]}"
	echo "wrote $here/fixtures.oracle.jsonl" >&2
	exit 0
fi

WORK=${WORK:-$(mktemp -d /tmp/kivgraph-ts-accuracy.XXXXXX)}
mkdir -p "$WORK/tarballs"
corpus="$WORK/corpus"
rm -rf "$corpus"
mkdir -p "$corpus"

echo "== (b) corpus" >&2
repos=()
total_ts=0
total_js=0
summary=""
for entry in "${PACKAGES[@]}"; do
	read -r name spec keep <<<"$entry"
	tgz=$(echo "$spec" | sed -e 's/^@//' -e 's|/|-|' -e 's/@\([^@]*\)$/-\1/').tgz
	if [[ ! -f $WORK/tarballs/$tgz ]]; then
		(cd "$WORK/tarballs" && npm pack --silent "$spec" >/dev/null)
	fi
	[[ -f $WORK/tarballs/$tgz ]] || {
		echo "npm pack $spec did not produce $tgz" >&2
		exit 1
	}
	mkdir -p "$corpus/.unpack"
	rm -rf "$corpus/.unpack/package"
	tar xzf "$WORK/tarballs/$tgz" -C "$corpus/.unpack"
	# shellcheck disable=SC2086 # KEEP is a word list; globs like *.js are for prepare.mjs.
	set -f
	read -r ts_lines js_lines nfiles < <(node "$here/prepare.mjs" "$corpus/.unpack/package" $keep)
	set +f
	mv "$corpus/.unpack/package" "$corpus/$name"
	total_ts=$((total_ts + ts_lines))
	total_js=$((total_js + js_lines))
	line=$(printf '%-22s %-34s %5d files %7d TS lines %6d JS lines' "$name" "$spec" "$nfiles" "$ts_lines" "$js_lines")
	echo "$line" >&2
	summary+="$line"$'\n'
	repos+=("$name=$corpus/$name")
done
rmdir "$corpus/.unpack"
echo "corpus: $total_ts TS lines, $total_js JS lines" >&2
if [[ $mode == prepare ]]; then
	printf '%s\n' "${repos[@]}" >"$WORK/repos.txt"
	echo "wrote $WORK/repos.txt" >&2
	exit 0
fi
if ((total_ts < MIN_TS_LINES)); then
	echo "the corpus has $total_ts TypeScript lines, under the minimum $MIN_TS_LINES" >&2
	exit 1
fi

echo "== (c) oracle" >&2
oargs=()
for r in "${repos[@]}"; do oargs+=(-repo "$r"); done
/usr/bin/time -f "oracle: %e s, %M KiB peak" node "$here/oracle.mjs" -o "$WORK/ts.oracle.jsonl" "${oargs[@]}"

echo "== (d) kivgraph-compile (release)" >&2
(cd "$ws" && cargo build --release -q -p kivgraph-compile --bin kivgraph-compile &&
	cargo build --release -q -p kivgraph-benches --bin accuracy)
rm -rf "$WORK/index"
/usr/bin/time -f "compile: %e s, %M KiB peak" "$CARGO_TARGET_DIR/release/kivgraph-compile" \
	--out "$WORK/index" "${repos[@]}" >&2

echo "== (e) score" >&2
json=false
for a in "$@"; do [[ $a == --json ]] && json=true; done
{
	echo "corpus: ${#repos[@]} npm packages, $total_ts TS lines, $total_js JS lines; checker: $checker; work: $WORK"
	printf '%s' "$summary"
} >&"$([[ $json == true ]] && echo 2 || echo 1)"
status=0
"$CARGO_TARGET_DIR/release/accuracy" "$WORK/ts.oracle.jsonl" "$WORK/index" "$@" | tee "$WORK/report.txt" || status=${PIPESTATUS[0]}
echo "report: $WORK/report.txt" >&2
exit "$status"
