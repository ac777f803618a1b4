#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Prove that ns3-rocev2 builds and passes its tests as a contrib module of a real
# ns-3 source tree, the way users install it, on each ns-3 release the module
# supports (doc/rocev2.rst, "Supported ns-3 versions"):
#
#   --ns3=3.37  Debian bookworm's ns-3, fetched with `apt-get source ns3`
#               (a deb-src entry for bookworm main is added if apt has none);
#   --ns3=3.48  the current release, unpacked from its source tarball
#               (ns-3.48.tar.xz: --tarball=PATH, else $ROCEV2_NS3_TARBALL, else
#               ../shared/ns-3/ beside the checkout), checked against the
#               SHA-256 file beside it when there is one.
#
# Then, in that tree:
#   1. copy the module to contrib/rocev2, replacing an older copy;
#   2. ./ns3 configure with the debug profile (-Werror, asserts and logs on), only
#      the rocev2 module and its dependencies, rocev2's examples and tests only;
#   3. build (what ./ns3 build runs, with -j N);
#   4. ./test.py --no-build on the rocev2-* suites, then on the examples of
#      test/examples-to-run.py;
#   5. with --results=DIR, the runs whose results must not depend on the ns-3
#      release (the incast example with and without PFC pauses and with
#      DCQCN, and 1 ms of the HPCC web-search fat-tree under DCQCN and HPCC):
#      their reports and FCT and PFC files, in DIR.
#      utils/compare-in-tree-results.sh compares two versions' folders
#      (.ci/run does it).
#
# Each version's source tree and build folder stay in a cache of its own, so a
# second run only rebuilds what changed. A first build (ns-3's core, network,
# internet, bridge, stats and traffic-control, and the module) took 4.3 min for
# 3.37 and 6.7 min for 3.48 on 2 cores.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_ROOT="${ROCEV2_INTREE_CACHE:-$HOME/.cache/rocev2-intree}"
# What a user copies into contrib/rocev2 (the standalone-only cmake/, gtest/,
# bench/ and build folders stay out).
MODULE_ITEMS=(CMakeLists.txt VERSION LICENSE README.md model helper examples test doc data)

usage() {
    cat <<EOF
Usage: utils/check-in-tree.sh [--ns3=VERSION] [--tarball=PATH] [--configure-only]
                              [--fullness=F] [-j N]

Build and test the rocev2 module inside an ns-3 source tree, as contrib/rocev2,
with the debug profile (warnings are errors).

Options:
  --ns3=VERSION     3.37 (default): Debian's source package (apt-get source ns3);
                    3.48: the release tarball (see --tarball)
  --tarball=PATH    ns-3.48.tar.xz for --ns3=3.48 (default: \$ROCEV2_NS3_TARBALL,
                    else $DEFAULT_TARBALL)
  --configure-only  stop after './ns3 configure' (checks that the module is
                    picked up, without the long build)
  --fullness=F      test.py fullness: QUICK (default), EXTENSIVE or TAKES_FOREVER
  --results=DIR     then write the results of the cross-version runs into DIR
                    (see the script's header); compare two versions' folders
                    with utils/compare-in-tree-results.sh
  -j N              parallel build jobs (default: $(nproc 2>/dev/null || echo 2))
  -h, --help        show this help

Environment:
  ROCEV2_INTREE_CACHE  where the ns-3 source trees are kept, one folder per
                       version (default: \$HOME/.cache/rocev2-intree; now:
                       $CACHE_ROOT)
  ROCEV2_NS3_TARBALL   the ns-3.48 source tarball (see --tarball)
EOF
}

DEFAULT_TARBALL="$(cd "$ROOT/.." && pwd)/shared/ns-3/ns-3.48.tar.xz"
configure_only=0
fullness=QUICK
version=3.37
results=""
tarball="${ROCEV2_NS3_TARBALL:-$DEFAULT_TARBALL}"
jobs="$(nproc 2>/dev/null || echo 2)"
while (($#)); do
    case $1 in
        -h | --help) usage; exit 0 ;;
        --configure-only) configure_only=1; shift ;;
        --ns3=*) version=${1#*=}; shift ;;
        --tarball=*) tarball=${1#*=}; shift ;;
        --results=*) results=${1#*=}; shift ;;
        --fullness=*) fullness=${1#*=}; shift ;;
        -j) (($# >= 2)) || { echo "check-in-tree: -j needs a value" >&2; exit 2; }; jobs=$2; shift 2 ;;
        -j*) jobs=${1#-j}; shift ;;
        *) echo "check-in-tree: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case $fullness in
    QUICK | EXTENSIVE | TAKES_FOREVER) ;;
    *) echo "check-in-tree: --fullness must be QUICK, EXTENSIVE or TAKES_FOREVER" >&2; exit 2 ;;
esac
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "check-in-tree: -j expects a positive integer" >&2; exit 2; }
case $version in
    3.37 | 3.48) ;;
    *) echo "check-in-tree: --ns3=$version: the supported versions are 3.37 and 3.48" >&2; exit 2 ;;
esac
CACHE="$CACHE_ROOT/ns3-$version"
if [[ -n $results ]]; then
    # Relative to where the script was started (it works inside the ns-3 tree).
    mkdir -p "$results" || { echo "check-in-tree: --results=$results: cannot create it" >&2; exit 2; }
    results="$(cd "$results" && pwd)"
fi

start=$SECONDS
step() {
    echo
    echo "=== [$((SECONDS - start)) s] $*"
}
die() {
    echo "check-in-tree: error: $*" >&2
    exit 1
}

SUDO=()
if ((EUID != 0)); then
    SUDO=(sudo)
fi
as_root() {
    if ((${#SUDO[@]})) && ! command -v sudo >/dev/null 2>&1; then
        die "need root (or sudo) for: $*"
    fi
    ${SUDO[@]+"${SUDO[@]}"} env DEBIAN_FRONTEND=noninteractive "$@"
}

# ns-3's ./ns3 refuses to run when $USER is root (it guards against sudo-made,
# root-owned build trees). This throw-away tree is root's own when the check
# runs as root (CI machines), so run ./ns3 under a neutral name then.
ns3_user="${USER:-}"
if [[ $ns3_user == root ]]; then
    ns3_user=rocev2-check
fi
ns3() {
    USER="$ns3_user" ./ns3 "$@"
}

# The unpacked ns-3 tree of this version in its cache: CACHE/ns-3.<ver> (the
# tarball's folder), or CACHE/ns3-<ver>/ns-3.<ver> (apt-get source's layout:
# the Debian package folder holds the ns-3 tree).
find_tree() {
    local d
    for d in "$CACHE/ns-$version" "$CACHE/ns3-$version"/ns-"$version"; do
        if [[ -x $d/ns3 && -f $d/test.py ]]; then
            echo "$d"
            return 0
        fi
    done
    return 1
}

has_deb_src() {
    grep -qsE '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list ||
        grep -qsE '^[[:space:]]*Types:.*deb-src' /etc/apt/sources.list.d/*.sources
}

# The tools that apt-get source, the tarball and ns-3's build need.
need_tools() {
    local tool
    for tool in dpkg-source cmake ninja g++ python3 xz; do
        if ! command -v "$tool" >/dev/null 2>&1; then
            step "installing the build tools apt-get source and ns-3 need ($tool is missing)"
            as_root apt-get update -q
            as_root apt-get install -y -q --no-install-recommends dpkg-dev cmake ninja-build g++ \
                python3 xz-utils
            break
        fi
    done
}

fetch_source() {
    mkdir -p "$CACHE"
    if ! has_deb_src; then
        step "adding a deb-src entry for Debian bookworm main"
        as_root tee /etc/apt/sources.list.d/rocev2-deb-src.sources >/dev/null <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
        as_root apt-get update -q
    fi
    step "apt-get source ns3 (into $CACHE)"
    if ! (cd "$CACHE" && apt-get source ns3); then
        # The deb-src lists may never have been downloaded.
        as_root apt-get update -q
        (cd "$CACHE" && apt-get source ns3) || die "apt-get source ns3 failed"
    fi
}

# ----------------------------------------------------------------------------

# Unpack the release tarball into the cache, after checking it against the
# SHA-256 file beside it (ns-3.48.tar.xz.sha256) when there is one.
unpack_tarball() {
    [[ -f $tarball ]] || die "--ns3=$version needs the ns-$version source tarball: $tarball does not exist (give --tarball=PATH or set ROCEV2_NS3_TARBALL)"
    case $(basename "$tarball") in
        ns-"$version".tar.xz | ns-"$version".tar.bz2 | ns-"$version".tar.gz) ;;
        *) die "--tarball=$tarball is not an ns-$version source tarball (expected ns-$version.tar.xz)" ;;
    esac
    if [[ -f $tarball.sha256 ]]; then
        step "checking $tarball against $tarball.sha256"
        local want have
        want="$(awk '{print $1; exit}' "$tarball.sha256")"
        have="$(sha256sum "$tarball" | awk '{print $1}')"
        [[ $want == "$have" ]] || die "$tarball: SHA-256 $have, but $tarball.sha256 says $want"
        echo "SHA-256 OK ($have)"
    fi
    step "unpacking $tarball (into $CACHE)"
    mkdir -p "$CACHE"
    tar -xf "$tarball" -C "$CACHE"
}

step "ns-$version source tree"
need_tools
if ! tree="$(find_tree)"; then
    if [[ $version == 3.37 ]]; then
        fetch_source
    else
        unpack_tarball
    fi
    tree="$(find_tree)" || die "no ns-$version tree (ns-$version or ns3-$version/ns-$version) in $CACHE after fetching it"
fi
echo "using $tree ($(cat "$tree/VERSION" 2>/dev/null || echo 'unknown version'))"

step "copying the module to contrib/rocev2"
dest="$tree/contrib/rocev2"
rm -rf "$dest"
mkdir -p "$dest"
copied=()
for item in "${MODULE_ITEMS[@]}"; do
    if [[ -e $ROOT/$item ]]; then
        cp -a "$ROOT/$item" "$dest/"
        copied+=("$item")
    fi
done
echo "copied: ${copied[*]}"
# ns-3's configure writes build/include/ns3/<name>.h as a one-line forwarder to
# the module's header and does not rewrite one that exists: after a header moved
# or was renamed, the old forwarder points at nothing. Remove the module's
# forwarders so that configure writes them afresh.
if [[ -d $tree/build/include/ns3 ]]; then
    grep -l -F "contrib/rocev2/" "$tree"/build/include/ns3/*.h 2>/dev/null | xargs -r rm -f
fi
[[ -f $dest/CMakeLists.txt ]] || die "$ROOT has no CMakeLists.txt"

cd "$tree"
generator=()
if command -v ninja >/dev/null 2>&1; then
    generator=(-G Ninja)
fi
step "./ns3 configure (debug profile, rocev2 only)"
configure_log="$(mktemp)"
trap 'rm -f "$configure_log"' EXIT
if ! ns3 configure ${generator[@]+"${generator[@]}"} -d debug \
    --enable-modules=rocev2 --enable-tests --enable-examples \
    --filter-module-examples-and-tests=rocev2 --disable-python-bindings 2>&1 |
    tee "$configure_log"; then
    die "./ns3 configure failed (see the CMake errors above)"
fi
# The summary lists the modules to be built; rocev2 must be among them.
if ! sed -n '/Modules configured to be built/,/^$/p' "$configure_log" | grep -qw rocev2; then
    die "configure succeeded but rocev2 is not among the modules configured to be built"
fi
echo "configure OK: rocev2 is configured to be built"
if ((configure_only)); then
    step "done (--configure-only): total wall time $((SECONDS - start)) s"
    exit 0
fi

# ./ns3 build caps its jobs at one less than the machine's cores (one job on
# a 2-core machine); cmake --build on its cache folder is the same build
# with -j as given.
step "cmake --build cmake-cache -j $jobs (./ns3 build)"
build_start=$SECONDS
cmake --build cmake-cache -j "$jobs"
echo "build wall time: $((SECONDS - build_start)) s"

step "./test.py: rocev2-* suites (fullness $fullness)"
test_start=$SECONDS
USER="$ns3_user" ./test.py --no-build --fullness="$fullness" --suite='rocev2-*'

step "./test.py: rocev2 examples (test/examples-to-run.py)"
USER="$ns3_user" ./test.py --no-build --constrain=example
echo "test wall time: $((SECONDS - test_start)) s"

# The runs of the cross-version comparison: NAME, the number of links
# (ns-3 channels) the run builds, then the example and its arguments (run in
# contrib/rocev2, so that the HPCC configs find their data). The incasts link
# each sender and the receiver to one switch; fat-tree-320 has 480 links.
COMPARE_RUNS=(
    "incast|17|rocev2-incast"
    "incast-pfc|17|rocev2-incast --senders=16 --size=300000 --buffer=2"
    "incast-dcqcn|9|rocev2-incast --senders=8 --size=500000 --dcqcn-preset=nvidia-cx"
    "websearch-dcqcn|480|rocev2-hpcc-compat --config=examples/hpcc/config-websearch-dcqcn.txt --stop=2.001s"
    "websearch-hp|480|rocev2-hpcc-compat --config=examples/hpcc/config-websearch-hp.txt --stop=2.001s"
)
if [[ -n $results ]]; then
    step "cross-version runs (into $results)"
    # What utils/compare-in-tree-results.sh reads besides the reports: the
    # release, and each run's executed events with its number of links.
    cat VERSION >"$results/ns3-version"
    : >"$results/events.txt"
    for run in "${COMPARE_RUNS[@]}"; do
        IFS='|' read -r name links cmd <<<"$run"
        extra=""
        if [[ $cmd == rocev2-hpcc-compat* ]]; then
            extra=" --fct=$results/$name-fct.txt --pfc=$results/$name-pfc.txt"
        fi
        run_start=$SECONDS
        if ! ns3 run --no-build --cwd="$dest" "$cmd$extra" >"$results/$name.out" 2>&1; then
            cat "$results/$name.out" >&2
            die "cross-version run $name failed: $cmd"
        fi
        # The report without its wall-clock figure ("in 13.491 s wall"); the
        # event count goes to events.txt (it differs by one per link from
        # ns-3.41 on: doc/rocev2.rst, "Supported ns-3 versions").
        events="$(sed -n 's/^BENCH events=//p' "$results/$name.out")"
        [[ -n $events ]] || die "cross-version run $name printed no 'BENCH events=' line"
        echo "$name $events $links" >>"$results/events.txt"
        sed -i -E -e 's/ in [0-9.]+ s wall//' -e '/^BENCH events=/d' "$results/$name.out"
        echo "$name: $cmd ($((SECONDS - run_start)) s, $events events)"
    done
fi

step "in-tree check passed: total wall time $((SECONDS - start)) s"
