#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Prove that ns3-rocev2 builds and passes its tests as a contrib module of a real
# ns-3 source tree (Debian's ns-3.37 source package), the way users install it:
#
#   1. fetch the ns-3 source with `apt-get source ns3` into a cache folder
#      (adding a deb-src entry for bookworm main if apt has none);
#   2. copy the module to contrib/rocev2 of that tree, replacing an older copy;
#   3. ./ns3 configure with the debug profile (-Werror, asserts and logs on), only
#      the rocev2 module and its dependencies, rocev2's examples and tests only;
#   4. ./ns3 build;
#   5. ./test.py --no-build on the rocev2-* suites, then on the examples of
#      test/examples-to-run.py.
#
# The source tree and its build folder stay in the cache, so a second run only
# rebuilds what changed. A first full build takes ~15-25 min on 2 cores.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${ROCEV2_INTREE_CACHE:-$HOME/.cache/rocev2-intree}"
# What a user copies into contrib/rocev2 (the standalone-only cmake/, gtest/,
# bench/ and build folders stay out).
MODULE_ITEMS=(CMakeLists.txt VERSION LICENSE README.md model helper examples test doc data)

usage() {
    cat <<EOF
Usage: utils/check-in-tree.sh [--configure-only] [--fullness=F] [-j N]

Build and test the rocev2 module inside an ns-3 source tree (apt-get source ns3),
as contrib/rocev2, with the debug profile (warnings are errors).

Options:
  --configure-only  stop after './ns3 configure' (checks that the module is
                    picked up, without the long build)
  --fullness=F      test.py fullness: QUICK (default), EXTENSIVE or TAKES_FOREVER
  -j N              parallel build jobs (default: $(nproc 2>/dev/null || echo 2))
  -h, --help        show this help

Environment:
  ROCEV2_INTREE_CACHE  where the ns-3 source tree is kept
                       (default: \$HOME/.cache/rocev2-intree; now: $CACHE)
EOF
}

configure_only=0
fullness=QUICK
jobs="$(nproc 2>/dev/null || echo 2)"
while (($#)); do
    case $1 in
        -h | --help) usage; exit 0 ;;
        --configure-only) configure_only=1; shift ;;
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

# The unpacked ns-3 tree in the cache: CACHE/ns3-<ver>/ns-3.<ver>.
find_tree() {
    local d
    for d in "$CACHE"/ns3-*/ns-3.*; do
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

fetch_source() {
    mkdir -p "$CACHE"
    for tool in dpkg-source cmake g++ python3; do
        if ! command -v "$tool" >/dev/null 2>&1; then
            step "installing the build tools apt-get source and ns-3 need"
            as_root apt-get update -q
            as_root apt-get install -y -q --no-install-recommends dpkg-dev cmake ninja-build g++ \
                python3
            break
        fi
    done
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

step "ns-3 source tree"
if ! tree="$(find_tree)"; then
    fetch_source
    tree="$(find_tree)" || die "no ns-3 tree (ns3-*/ns-3.*) found in $CACHE after apt-get source"
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

step "./ns3 build -j $jobs"
build_start=$SECONDS
ns3 build -j "$jobs"
echo "build wall time: $((SECONDS - build_start)) s"

step "./test.py: rocev2-* suites (fullness $fullness)"
test_start=$SECONDS
USER="$ns3_user" ./test.py --no-build --fullness="$fullness" --suite='rocev2-*'

step "./test.py: rocev2 examples (test/examples-to-run.py)"
USER="$ns3_user" ./test.py --no-build --constrain=example
echo "test wall time: $((SECONDS - test_start)) s"

step "in-tree check passed: total wall time $((SECONDS - start)) s"
