#!/usr/bin/env bash
# Accuracy of kivgraph's Go front end against go/types, in one command.
#
#   benches/accuracy/run.sh [stdlib] [ACCURACY_ARGS...]   # the standard-library corpus (default)
#   benches/accuracy/run.sh fixtures                      # regenerate fixtures.oracle.jsonl
#
# stdlib: (a) builds the oracle, (b) copies the measured standard-library packages (non-test .go
# files of every build variant, so that build constraints are exercised) into a corpus root with
# std's go.mod and runs the oracle over it, (c) compiles the same root with the release build of
# kivgraph-compile, (d) scores with the `accuracy` binary; ACCURACY_ARGS (--json, thresholds) are
# passed on. The packages are PACKAGES; when they alone are under MIN_LINES lines for
# linux/amd64, their transitive in-tree dependencies are added (unsafe excepted: go/types
# treats it as a pseudo-package).
#
# Environment: GOSRC (default /usr/share/go-1.19/src), PACKAGES, MIN_LINES (200000), WORK (a
# scratch directory, default a fresh one under /tmp), CARGO_TARGET_DIR.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
ws=$(cd "$here/../.." && pwd)
mode=stdlib
if [[ $# -gt 0 && ( $1 == stdlib || $1 == fixtures ) ]]; then
	mode=$1
	shift
fi
GOSRC=${GOSRC:-/usr/share/go-1.19/src}
PACKAGES=${PACKAGES:-"net/http go/types encoding/json text/template"}
MIN_LINES=${MIN_LINES:-200000}
WORK=${WORK:-$(mktemp -d /tmp/kivgraph-accuracy.XXXXXX)}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ws/target}
mkdir -p "$WORK"

echo "== (a) oracle" >&2
(cd "$here/oracle" && go build -o "$WORK/oracle" .)

if [[ $mode == fixtures ]]; then
	# fixtures/go/orphan is left out: its required module exists nowhere, so go/types would
	# report the import as a type error, with this checkout's absolute paths in the output.
	cd "$ws/fixtures/go"
	"$WORK/oracle" -o "$here/fixtures.oracle.jsonl" \
		-repo shapes=shapes -repo inventory=inventory \
		-repo mathlib=pair/mathlib -repo app=pair/app \
		-repo constructs=constructs
	echo "wrote $here/fixtures.oracle.jsonl" >&2
	exit 0
fi

# Lines of the non-test Go files go/build selects for linux/amd64.
built_lines() {
	(cd "$GOSRC" && GOOS=linux GOARCH=amd64 CGO_ENABLED=1 go list \
		-f '{{range .GoFiles}}{{$.Dir}}/{{.}}{{"\n"}}{{end}}{{range .CgoFiles}}{{$.Dir}}/{{.}}{{"\n"}}{{end}}' "$@" \
		| xargs cat | wc -l)
}

echo "== (b) corpus" >&2
version=$(dpkg-query -W -f '${Package} ${Version}' golang-1.19-src 2>/dev/null || go version)
selected=$PACKAGES
named_lines=$(built_lines $PACKAGES)
echo "named packages ($PACKAGES): $named_lines lines for linux/amd64" >&2
if ((named_lines < MIN_LINES)); then
	selected=$(cd "$GOSRC" && GOOS=linux GOARCH=amd64 CGO_ENABLED=1 go list -deps $PACKAGES | grep -vx unsafe)
	echo "under $MIN_LINES lines: adding their transitive in-tree dependencies" >&2
fi
corpus="$WORK/corpus"
rm -rf "$corpus"
mkdir -p "$corpus"
cp "$GOSRC/go.mod" "$corpus/go.mod"
npkgs=0
for p in $selected; do
	mkdir -p "$corpus/$p"
	find "$GOSRC/$p" -maxdepth 1 -type f -name '*.go' ! -name '*_test.go' -exec cp {} "$corpus/$p/" \;
	npkgs=$((npkgs + 1))
done
copied=$(find "$corpus" -name '*.go' | xargs cat | wc -l)
echo "corpus: $version, $npkgs packages, $copied lines copied (all build variants)" >&2

"$WORK/oracle" -o "$WORK/stdlib.oracle.jsonl" -repo go="$corpus" ./...

echo "== (c) kivgraph-compile (release)" >&2
(cd "$ws" && cargo build --release -q -p kivgraph-compile --bin kivgraph-compile \
	&& cargo build --release -q -p kivgraph-benches --bin accuracy)
rm -rf "$WORK/index"
/usr/bin/time -f "compile: %e s, %M KiB peak" "$CARGO_TARGET_DIR/release/kivgraph-compile" \
	--out "$WORK/index" go="$corpus" >&2

echo "== (d) score" >&2
echo "corpus: $version; packages: $PACKAGES (+ deps: $([[ $selected == "$PACKAGES" ]] && echo no || echo yes)); work: $WORK"
status=0
"$CARGO_TARGET_DIR/release/accuracy" "$WORK/stdlib.oracle.jsonl" "$WORK/index" "$@" | tee "$WORK/report.txt" || status=${PIPESTATUS[0]}
echo "report: $WORK/report.txt" >&2
exit "$status"
