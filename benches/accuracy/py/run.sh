#!/usr/bin/env bash
# Accuracy of kivgraph's Python front end against pyright.
#
#   benches/accuracy/py/run.sh [corpus] [ACCURACY_ARGS...]   # the pinned PyPI corpus (default)
#   benches/accuracy/py/run.sh fixtures                      # regenerate fixtures.oracle.jsonl
#   benches/accuracy/py/run.sh prepare                       # only fetch and prepare the corpus
#                                                            # (WORK/corpus, names in WORK/repos.txt)
#
# corpus: (a) creates the virtualenv .venv beside this script (pip, jedi from requirements.txt)
# and installs the oracle's pinned pyright with `npm ci`, (b) fetches each source distribution
# of PACKAGES with `pip download --no-binary :all: --no-deps`, checks its sha256, unpacks it into
# WORK/corpus/NAME as its own repository root and keeps only its package sources (prepare.py:
# tests, docs, examples and build files removed; pyproject.toml and setup.cfg kept), (c) runs
# the oracle over all roots, (d) compiles the same roots with the release build of
# kivgraph-compile, (e) scores with the `accuracy` binary; ACCURACY_ARGS (--json,
# --min-exact-precision, --min-recall, --min-exact-recall) are passed on.
#
# fixtures: runs the oracle over the repositories of fixtures/python (each directory with a
# pyproject.toml, setup.cfg, setup.py or .py file at its top, else each such child directory,
# named by its base name; FIXTURE_REPOS="NAME=DIR ..." overrides) into fixtures.oracle.jsonl.
# Does nothing when fixtures/python does not exist (FIXTURES=DIR measures another directory).
#
# Environment: WORK (scratch directory, default a fresh one under /tmp; source distributions
# are reused from WORK/sdists), MIN_PY_LINES (100000), PYTHON (the interpreter the virtualenv
# is made from, default python3; 3.11 or newer), CHECKER (pyright, or jedi for comparison),
# CARGO_TARGET_DIR.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
ws=$(cd "$here/../../.." && pwd)
mode=corpus
if [[ $# -gt 0 && ($1 == corpus || $1 == fixtures || $1 == prepare) ]]; then
	mode=$1
	shift
fi
MIN_PY_LINES=${MIN_PY_LINES:-100000}
CHECKER=${CHECKER:-pyright}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ws/target}

# The corpus: repository name, PyPI name==version, sdist sha256, the paths holding its sources.
PACKAGES=(
	"flask flask==3.1.3 0ef0e52b8a9cd932855379197dd8f94047b359ca0a78695144304cb45f87c9eb src/flask"
	"werkzeug werkzeug==3.1.9 55ca7c70a75689be937aa27f8ff4b018f06ff4838fc73045560bf0f5a1291060 src/werkzeug"
	"jinja2 jinja2==3.1.6 0137fb05990d35f1275a587e9aee6d56da821fc83491a0fb838183be43f66d6d src/jinja2"
	"click click==8.5.1 9bbfada76703fd1d784b83eea012e3e8c6a001a876543ef104fa56aaaeb072b4 src/click"
	"markupsafe markupsafe==3.0.4 2e9ad7dd851bf45fab9f75cbff4cb493fee9979e8d8c7c9c3ee119022518edd6 src/markupsafe"
	"itsdangerous itsdangerous==2.2.0 e0050c0b7da1eea53ffaf149c0cfbb5c6e2e2b69c4bef22c81fa6eb73e5f6173 src/itsdangerous"
	"blinker blinker==1.9.0 b4ce2265a7abece45e7cc896e98dbebe6cead56bcf805a3d23136d145f5445bf src/blinker"
	"requests requests==2.34.2 f288924cae4e29463698d6d60bc6a4da69c89185ad1e0bcc4104f584e960b9ed src/requests"
	"urllib3 urllib3==2.8.0 63bf2ead4c879426ebf22ef2a781eeb4aa3b4ae798a0435506f8687fd5bb9b63 src/urllib3"
	"charset-normalizer charset-normalizer==3.5.2 39de2a259fc954455c57274dc94c79d5842774e1247a016aff30bc0efed0f4ef src/charset_normalizer"
	"httpx httpx==0.28.1 75e98c5f16b0f35b567856f597f06ff2270a374470a5c2392242528e3e3e42fc httpx"
	"httpcore httpcore==1.0.9 6e34463af53fd2ab5d807f399a9b45ea31c3dfa2276f15a2c3f00afff6e176e8 httpcore"
	"h11 h11==0.16.0 4e35b956cf45792e4caa5885e69fba00bdbc6ffafbfa020300e549b208ee5ff1 h11"
	"anyio anyio==4.16.0 59bb03251907983d1603d27c3087ddb1e93299ea2163adcdba37899a4fb12ffb src/anyio"
	"sniffio sniffio==1.3.1 f4324edc670a0f49750a81b895f35c3adb843cca46f0530f79fc1babb23789dc sniffio"
	"attrs attrs==26.1.0 d03ceb89cb322a8fd706d4fb91940737b6642aa36998fe130a9bc96c985eff32 src/attr src/attrs"
	"pydantic pydantic==1.10.27 62906b7ca1237ceefb3db38276417286ee0cd2c81720a6b8932cc57bfeba496a pydantic"
	"marshmallow marshmallow==4.4.0 9e6ffa8511012ca89732324c1c253efd7b4d35632dcbdf80aa793fe01804af3e src/marshmallow"
	"packaging packaging==26.3 94edc256424af38762eb31306eed28beb9f0efc50a8837492c9d6fd6004aed79 src/packaging"
)

echo "== (a) oracle: virtualenv and pyright from package-lock.json" >&2
venv=$here/.venv
if [[ ! -x $venv/bin/python ]]; then
	"${PYTHON:-python3}" -m venv "$venv"
fi
if ! cmp -s "$here/requirements.txt" "$venv/.requirements.txt"; then
	"$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt" >&2
	cp "$here/requirements.txt" "$venv/.requirements.txt"
fi
if [[ $CHECKER == pyright ]]; then
	if [[ ! -f $here/node_modules/pyright/package.json ]] ||
		[[ $(node -p "require('$here/node_modules/pyright/package.json').version") != \
			$(node -p "require('$here/package-lock.json').packages['node_modules/pyright'].version") ]]; then
		(cd "$here" && npm ci --no-audit --no-fund >&2)
	fi
fi
py=$venv/bin/python

if [[ $mode == fixtures ]]; then
	fx=${FIXTURES:-$ws/fixtures/python}
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
			[[ -f $1/pyproject.toml || -f $1/setup.cfg || -f $1/setup.py ]] ||
				compgen -G "$1/*.py" >/dev/null
		}
		shopt -s nullglob
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
	"$py" "$here/oracle.py" -checker "$CHECKER" -o "$here/fixtures.oracle.jsonl" "${args[@]}"
	echo "wrote $here/fixtures.oracle.jsonl" >&2
	exit 0
fi

WORK=${WORK:-$(mktemp -d /tmp/kivgraph-py-accuracy.XXXXXX)}
mkdir -p "$WORK/sdists"
corpus="$WORK/corpus"
rm -rf "$corpus"
mkdir -p "$corpus"

echo "== (b) corpus" >&2
repos=()
total=0
summary=""
for entry in "${PACKAGES[@]}"; do
	read -r name spec sha keep <<<"$entry"
	pkg=${spec%%==*}
	ver=${spec##*==}
	# The sdist's file name: the project name normalised (PEP 625: lower case, `_` for `-`).
	norm=$(echo "$pkg" | tr '[:upper:]' '[:lower:]' | sed 's/[-.]/_/g')
	sdist=$WORK/sdists/$norm-$ver.tar.gz
	if [[ ! -f $sdist ]]; then
		"$venv/bin/pip" download -q --disable-pip-version-check --no-binary :all: --no-deps \
			-d "$WORK/sdists" "$spec" >&2
	fi
	[[ -f $sdist ]] || {
		echo "pip download $spec did not produce $sdist" >&2
		exit 1
	}
	got=$(sha256sum "$sdist" | cut -d' ' -f1)
	if [[ $got != "$sha" ]]; then
		echo "$sdist: sha256 $got, expected $sha" >&2
		exit 1
	fi
	rm -rf "$corpus/.unpack"
	mkdir -p "$corpus/.unpack"
	tar xzf "$sdist" -C "$corpus/.unpack"
	top=$(find "$corpus/.unpack" -mindepth 1 -maxdepth 1 -type d)
	# shellcheck disable=SC2086 # KEEP is a word list.
	read -r lines nfiles < <("$py" "$here/prepare.py" "$top" $keep)
	mv "$top" "$corpus/$name"
	total=$((total + lines))
	line=$(printf '%-20s %-28s %5d files %7d lines' "$name" "$spec" "$nfiles" "$lines")
	echo "$line" >&2
	summary+="$line"$'\n'
	repos+=("$name=$corpus/$name")
done
rm -rf "$corpus/.unpack"
echo "corpus: $total Python lines" >&2
if [[ $mode == prepare ]]; then
	printf '%s\n' "${repos[@]}" >"$WORK/repos.txt"
	echo "wrote $WORK/repos.txt" >&2
	exit 0
fi
if ((total < MIN_PY_LINES)); then
	echo "the corpus has $total Python lines, under the minimum $MIN_PY_LINES" >&2
	exit 1
fi

echo "== (c) oracle" >&2
oargs=()
for r in "${repos[@]}"; do oargs+=(-repo "$r"); done
/usr/bin/time -f "oracle: %e s, %M KiB peak" "$py" "$here/oracle.py" -checker "$CHECKER" \
	-o "$WORK/py.oracle.jsonl" "${oargs[@]}"
checker=$(head -1 "$WORK/py.oracle.jsonl" | "$py" -c 'import json,sys; print(json.load(sys.stdin)["checker"])')

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
	echo "corpus: ${#repos[@]} PyPI packages, $total Python lines; checker: $checker; work: $WORK"
	printf '%s' "$summary"
} >&"$([[ $json == true ]] && echo 2 || echo 1)"
status=0
"$CARGO_TARGET_DIR/release/accuracy" "$WORK/py.oracle.jsonl" "$WORK/index" "$@" | tee "$WORK/report.txt" || status=${PIPESTATUS[0]}
echo "report: $WORK/report.txt" >&2
exit "$status"
