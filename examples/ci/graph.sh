#!/usr/bin/env bash
# The one script the CI recipe's steps call (examples/ci/kivgraph.yml). Each command is a step:
#
#   graph.sh unit UNIT NAME=PATH
#       Compiles one checked-out repository alone into the compile unit UNIT (the extraction
#       cache in $KIVGRAPH_CACHE when set, so a cached CI directory makes later runs parse only
#       what changed). Run in each repository's own pipeline; it reads no other repository.
#   graph.sh link ARTIFACT UNIT...
#       Links the units (made by the same kivgraph-compile build) into a fresh index without any
#       checkout, verifies the generation and packs it into ARTIFACT with ARTIFACT.sha256 beside
#       it. The units are registered in the order given. With $KIVGRAPH_CACHE, what a later link
#       reuses (the Rust standard library's resolution) is kept there.
#   graph.sh build ARTIFACT NAME=PATH...
#       The same in one job: compiles the checked-out repositories together into a fresh index,
#       verifies and packs it. The artifact holds no path of the runner.
#   graph.sh tables ARTIFACT OUT
#       Installs ARTIFACT into a scratch index and exports its tables partitioned by repository
#       (Hive layout) into OUT, for Spark, Trino or DuckDB.
#   graph.sh install ARTIFACT INDEX [NAME=PATH...]
#       Checks ARTIFACT against ARTIFACT.sha256 and installs it as the next generation of INDEX
#       (`kivgraph pull`); NAME=PATH says where a repository's sources are on this machine, for
#       get_source. Prints graph_status.
#
# Binaries: $KIVGRAPH_COMPILE and $KIVGRAPH, else `kivgraph-compile` and `kivgraph` on PATH.
set -euo pipefail

compile=${KIVGRAPH_COMPILE:-kivgraph-compile}
kivgraph=${KIVGRAPH:-kivgraph}

usage() {
  sed -n '2,25p' "$0" >&2
  exit 2
}

[ $# -ge 1 ] || usage
command=$1
shift
cache=()
if [ -n "${KIVGRAPH_CACHE:-}" ]; then
  cache=(--cache-dir "$KIVGRAPH_CACHE")
fi
case "$command" in
  unit)
    [ $# -eq 2 ] || usage
    "$compile" unit -o "$1" "${cache[@]}" -- "$2"
    ;;
  link)
    [ $# -ge 2 ] || usage
    artifact=$1
    shift
    index=$(mktemp -d)
    trap 'rm -rf "$index"' EXIT
    "$compile" link --out "$index" "${cache[@]}" -- "$@"
    "$compile" verify "$index" >/dev/null
    "$compile" pack "$index" -o "$artifact"
    ;;
  build)
    [ $# -ge 2 ] || usage
    artifact=$1
    shift
    index=$(mktemp -d)
    trap 'rm -rf "$index"' EXIT
    "$compile" --out "$index" "${cache[@]}" --rust-sysroot off -- "$@"
    "$compile" verify "$index" >/dev/null
    "$compile" pack "$index" -o "$artifact"
    ;;
  tables)
    [ $# -eq 2 ] || usage
    artifact=$1
    out=$2
    index=$(mktemp -d)
    trap 'rm -rf "$index"' EXIT
    "$kivgraph" --index "$index" pull "$artifact" >/dev/null
    "$compile" export "$index" --out "$out"
    ;;
  install)
    [ $# -ge 2 ] || usage
    artifact=$1
    index=$2
    shift 2
    sources=()
    for s in "$@"; do
      sources+=(--source "$s")
    done
    "$kivgraph" --index "$index" "${sources[@]}" pull "$artifact"
    "$kivgraph" --index "$index" "${sources[@]}" status
    ;;
  *)
    usage
    ;;
esac
