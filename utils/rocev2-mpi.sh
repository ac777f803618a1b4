# SPDX-License-Identifier: GPL-2.0-only
#
# The MPI build of ns3-rocev2, sourced by ./rocev2 (setup --mpi, build --mpi,
# run --mpi=N). Debian's libns3-dev has no MPI module: setup --mpi builds
# ns-3's src/mpi from Debian's own ns3 source package (the version of the
# installed libns3-dev) against the installed ns-3 libraries and Debian's
# Open MPI, Release, into a cache outside the checkout:
#
#   ${ROCEV2_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ns3-rocev2}/ns3-VERSION-mpi/
#     source/   the extracted source package (dpkg-source -x)
#     build/    the CMake build of src/mpi (cmake/ns3-mpi)
#     lib/ include/ns3/   the installed module: libns3-mpi.so and its headers
#
# Nothing is rebuilt while lib/libns3-mpi.so and the stamp file are there.

MPI_PACKAGES=(openmpi-bin libopenmpi-dev dpkg-dev)

# The version of the installed libns3-dev (the source package must match it).
ns3_version() {
    dpkg-query -W -f='${Version}' libns3-dev 2>/dev/null || true
}

# mpi_cache_dir: the cache folder of the installed ns-3 version.
mpi_cache_dir() {
    local base="${ROCEV2_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ns3-rocev2}"
    local v
    v="$(ns3_version)"
    [[ -n $v ]] || die "libns3-dev is not installed; run './$PROG setup' first"
    echo "$base/ns3-${v//[^A-Za-z0-9.+-]/_}-mpi"
}

# mpi_ready: true when the cache holds a built MPI module.
mpi_ready() {
    local dir
    dir="$(mpi_cache_dir)"
    [[ -f $dir/lib/libns3-mpi.so && -f $dir/stamp ]]
}

# as_root COMMAND...: run as root (sudo unless root already).
as_root() {
    if ((EUID == 0)); then
        "$@"
    else
        command -v sudo >/dev/null 2>&1 || die "'$1' needs root: run as root or install sudo"
        sudo "$@"
    fi
}

# fetch_ns3_source DIR VERSION: download and extract Debian's ns3 source
# package VERSION into DIR/source. Adds deb-src entries for the configured
# Debian archives when apt has none.
fetch_ns3_source() {
    local dir=$1 version=$2
    local dl="$dir/download"
    mkdir -p "$dl"
    if ! (cd "$dl" && apt-get source --download-only -q "ns3=$version" >/dev/null 2>&1); then
        local list=/etc/apt/sources.list.d/ns3-rocev2-deb-src.sources
        info "setup --mpi: adding deb-src entries ($list) for Debian's ns3 source package"
        local text=""
        local f
        for f in /etc/apt/sources.list.d/*.sources; do
            [[ -f $f && $f != "$list" ]] || continue
            text+="$(sed -e 's/^Types:.*/Types: deb-src/' "$f")"$'\n\n'
        done
        if [[ -f /etc/apt/sources.list ]]; then
            local lines
            lines="$(sed -n 's/^deb \(.*\)/deb-src \1/p' /etc/apt/sources.list)"
            if [[ -n $lines ]]; then
                as_root sh -c "printf '%s\n' \"\$1\" > /etc/apt/sources.list.d/ns3-rocev2-deb-src.list" \
                    sh "$lines"
            fi
        fi
        [[ -z $text ]] || printf '%s' "$text" | as_root tee "$list" >/dev/null
        as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
        (cd "$dl" && apt-get source --download-only -q "ns3=$version") ||
            die "setup --mpi: could not download the ns3 $version source package"
    fi
    local dsc="" f
    for f in "$dl"/ns3_*.dsc; do
        [[ -f $f ]] && dsc=$f
    done
    [[ -n $dsc ]] || die "setup --mpi: no ns3 .dsc in $dl"
    rm -rf "$dir/source"
    info "setup --mpi: extracting $(basename "$dsc")"
    dpkg-source --no-check -x "$dsc" "$dir/source" >/dev/null ||
        die "setup --mpi: dpkg-source could not extract $dsc"
}

# mpi_source_dir DIR: src/mpi of the extracted package (the upstream tarball
# is ns-3-allinone: the tree is ns-3.VERSION/), or nothing.
mpi_source_dir() {
    local d
    for d in "$1"/source/src/mpi "$1"/source/ns-3*/src/mpi; do
        if [[ -f $d/model/mpi-interface.cc ]]; then
            echo "$d"
            return 0
        fi
    done
}

# setup_mpi JOBS: install Open MPI and build the MPI module into the cache.
setup_mpi() {
    local jobs=$1
    local missing=()
    mapfile -t missing < <(missing_packages "${MPI_PACKAGES[@]}")
    if ((${#missing[@]})); then
        info "setup --mpi: installing ${missing[*]}"
        as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
        as_root env DEBIAN_FRONTEND=noninteractive \
            apt-get install -y -q --no-install-recommends "${missing[@]}"
    fi
    local dir version
    dir="$(mpi_cache_dir)"
    version="$(ns3_version)"
    if mpi_ready; then
        info "setup --mpi: ns-3 $version MPI module already built in $dir"
        return 0
    fi
    local start=$SECONDS
    mkdir -p "$dir"
    local src
    src="$(mpi_source_dir "$dir")"
    if [[ -z $src ]]; then
        fetch_ns3_source "$dir" "$version"
        src="$(mpi_source_dir "$dir")"
        [[ -n $src ]] || die "setup --mpi: no src/mpi in the source package ($dir/source)"
    fi
    info "setup --mpi: building ns-3 $version src/mpi (Release, Open MPI) into $dir"
    cmake -S "$ROOT/cmake/ns3-mpi" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DNS3_MPI_SOURCE="$src" -DCMAKE_INSTALL_PREFIX="$dir" >"$dir/configure.log" 2>&1 ||
        { cat "$dir/configure.log" >&2; die "setup --mpi: configuring the MPI module failed"; }
    cmake --build "$dir/build" -j "$jobs" || die "setup --mpi: building the MPI module failed"
    cmake --install "$dir/build" >/dev/null || die "setup --mpi: installing into $dir failed"
    # Keep src/mpi (and Debian's packaging notes); the rest of the 200 MB tree
    # and the downloaded archives are not needed again.
    local tree="${src%/src/mpi}"
    find "$tree" -mindepth 1 -maxdepth 1 ! -name src -exec rm -rf {} +
    find "$tree/src" -mindepth 1 -maxdepth 1 ! -name mpi -exec rm -rf {} +
    find "$dir/source" -mindepth 1 -maxdepth 1 ! -name "$(basename "$tree")" ! -name debian \
        -exec rm -rf {} +
    rm -rf "$dir/download" "$dir"/ns3_*.tar.* "$dir"/ns3_*.dsc
    echo "ns3 $version src/mpi, built $(date -u +%Y-%m-%dT%H:%M:%SZ) in $((SECONDS - start)) s" \
        >"$dir/stamp"
    info "setup --mpi: done in $((SECONDS - start)) s ($dir)"
}

# mpirun_options: Open MPI's options for runs on this machine: more ranks
# than cores (--oversubscribe), root (--allow-run-as-root), shared memory
# and loopback only (no network interfaces probed, no warnings about them).
mpirun_options() {
    command -v mpirun >/dev/null 2>&1 || die "mpirun not found; run './$PROG setup --mpi'"
    local opts=(--oversubscribe --bind-to none --mca btl self,vader)
    ((EUID != 0)) || opts+=(--allow-run-as-root)
    echo "${opts[@]}"
}
