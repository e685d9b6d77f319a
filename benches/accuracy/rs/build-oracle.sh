#!/usr/bin/env bash
# Builds the Rust oracle's checker: rust-analyzer, from the crate registry (package
# `ra_ap_rust-analyzer` 0.0.349, whose `rust-analyzer` binary has the `scip` subcommand), with the
# dependency versions its published Cargo.lock pins (`--locked`). Not run by CI; run.sh calls it
# when the binary is missing. About 11 minutes on 2 cores at opt-level 1, 2-3 GB of disk.
#
#   benches/accuracy/rs/build-oracle.sh        # prints the binary's path on stdout
#
# Environment: RA_BUILD (where to build: its own target directory and install root; default
# ${XDG_CACHE_HOME:-~/.cache}/kivgraph/rust-analyzer-0.0.349).
#
# 0.0.349 builds on stable Rust 1.95 only with nightly features switched on: RUSTC_BOOTSTRAP=1
# and the crate attribute `feature(assert_matches)` for every crate. opt-level 1 keeps the build
# short; an index of the ~140 k-line corpus then takes a few minutes.
set -euo pipefail

VERSION=0.0.349
RA_BUILD=${RA_BUILD:-${XDG_CACHE_HOME:-$HOME/.cache}/kivgraph/rust-analyzer-$VERSION}
bin=$RA_BUILD/install/bin/rust-analyzer
if [[ -x $bin ]]; then
	echo "$bin"
	exit 0
fi
mkdir -p "$RA_BUILD"
echo "building rust-analyzer $VERSION into $RA_BUILD (about 11 minutes)" >&2
(
	export RUSTC_BOOTSTRAP=1
	export RUSTFLAGS='-Zcrate-attr=feature(assert_matches)'
	export CARGO_PROFILE_RELEASE_OPT_LEVEL=1
	export CARGO_PROFILE_RELEASE_DEBUG=false
	export CARGO_PROFILE_RELEASE_INCREMENTAL=false
	export CARGO_TARGET_DIR=$RA_BUILD/target
	nice cargo install --locked --root "$RA_BUILD/install" --version "$VERSION" \
		ra_ap_rust-analyzer --bin rust-analyzer >&2
)
"$bin" --version >&2
echo "$bin"
