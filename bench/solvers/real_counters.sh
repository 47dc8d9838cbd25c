#!/usr/bin/env bash
# Real model counters as peers (issue 49): GPMC, d4 v2, SharpSAT-TD and Ganak, built from source at
# pinned commits outside the repository, then run through `external:` on the families ladder
# beside mscsp's own backends. docs/backends.md "Real counters as peers" has the results.
#
#   bench/solvers/real_counters.sh build [NAME...]  # gpmc d4v2 sharpsat-td ganak (default: all)
#   bench/solvers/real_counters.sh backends               # the --backend list for those built
#   bench/solvers/real_counters.sh bench OUT [LIMIT] [CORPUS]
#
# `bench` runs `mscsp bench` (LIMIT seconds per position, default 60; CORPUS default
# bench/corpora/families.jsonl) with dss, mdd and d4 beside every counter built. The full
# ladder at 60 s takes hours: run it alone on the machine.
#
# Where: $COUNTERS (default /tmp/counters): sources in src/NAME, programs in bin/. Never
# inside the repository: the counters' code is not mscsp's. A source folder already there
# is used as it is (a snapshot unpacked by hand, say); otherwise it is cloned and checked out
# at its pinned commit. Needs cmake, g++ 10 or later, ninja, GMP (libgmp-dev), MPFR
# (libmpfr-dev: SharpSAT-TD), Boost program_options (libboost-program-options-dev: d4)
# and zlib; Ganak also FLINT (libflint-dev). $JOBS compile jobs (default 2), run under nice.
#
# The commands and flags (the authors' for exact counting) are in counters/peers.tsv.
# d4 v2's demo counter and SharpSAT-TD count models, not projected models: mscsp's instances
# give the same number either way (the auxiliary variables are determined by the cells).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
COUNTERS=${COUNTERS:-/tmp/counters}
JOBS=${JOBS:-2}
src=$COUNTERS/src
bin=$COUNTERS/bin

GPMC_URL=https://github.com/khashimoto-lab/GPMC
GPMC_COMMIT=d07268c86aef6d325a801fc4783a4059235cb749
D4_URL=https://github.com/crillab/d4v2
D4_COMMIT=935fe2e33f6488a636f312bdf0c5de3488e59ab8
# PaToH 3.2 (the partitioner d4 calls; a binary library, free for research use): main's
# .gitignore drops `*.a`, so it is taken from the commit of the same repository that added it
# (reachable from refs/pull/5/head).
D4_PATOH_COMMIT=d241dfad6b3e6ad7626ab6899648ea0caef097e0
SHARPSAT_URL=https://github.com/Laakeri/sharpsat-td
SHARPSAT_COMMIT=0c234c11b77115bad89484e80e1d2fc95dd42317

GANAK_URL=https://github.com/meelgroup/ganak
GANAK_COMMIT=0b4881b40126fb5ae8a1b7c9fdd4878afa25b051
# What Ganak's CMake otherwise clones at the tip of master (main), each pinned to its last
# commit before Ganak's own (2026-06-13 17:20 +0200), so that the chain is the one Ganak was
# built with that day: name, URL, commit. CryptoMiniSat, Arjun, ApproxMC and treedecomp are
# taken from beside Ganak's folder (its CMake looks there first); CaDiCaL, CaDiBack and SBVA
# through FetchContent's source folders.
GANAK_CHAIN="cadical https://github.com/meelgroup/cadical 394c3f72858c2fe8cd35321f74f11f0f61c91123
cadiback https://github.com/meelgroup/cadiback c2827bdb1c315226a6264bc6553a4b95c6f210b4
cryptominisat https://github.com/msoos/cryptominisat 5e1ee18e8a77d9d25d352b959d57e7e416c03fc2
sbva https://github.com/meelgroup/SBVA f1021c17dddee4fcd5d552969f459482907f9f84
arjun https://github.com/meelgroup/arjun 11e203eab3cc5d52c41a992ea579f2fb7bc081d9
approxmc https://github.com/meelgroup/approxmc c3f3d167464f34b15f7e4dc1b54582f4e73a5711
treedecomp https://github.com/meelgroup/treedecomp e175d2fe022f25a397f5f616efce93818d352b0f"

# checkout NAME URL COMMIT: src/NAME at COMMIT (cloned unless already there).
checkout() {
    local dir=$src/$1
    if [ -d "$dir" ]; then
        if [ -d "$dir/.git" ] && [ "$(git -C "$dir" rev-parse HEAD)" != "$3" ]; then
            echo "$dir is not at $3: remove it or check that commit out" >&2
            exit 1
        fi
        echo "using $dir as it is" >&2
        return
    fi
    git clone --quiet "$2" "$dir"
    git -C "$dir" checkout --quiet "$3"
}

build_gpmc() {
    checkout gpmc "$GPMC_URL" "$GPMC_COMMIT"
    cd "$src/gpmc"
    # counter/Normalizer.cc calls std::sort without including <algorithm>, which GCC 12's
    # headers do not pull in on their own.
    cmake -B build -S . -DCMAKE_BUILD_TYPE=Release -DGPMC_BUILD_PP=OFF \
        -DCMAKE_CXX_FLAGS="-include algorithm"
    nice -n 10 cmake --build build --parallel "$JOBS"
    cp build/gpmc "$bin/gpmc"
}

build_d4v2() {
    checkout d4v2 "$D4_URL" "$D4_COMMIT"
    cd "$src/d4v2"
    if [ ! -f 3rdParty/patoh/libpatoh.a ]; then
        git fetch --quiet origin refs/pull/5/head
        git show "$D4_PATOH_COMMIT:3rdParty/patoh/libpatoh.a" > 3rdParty/patoh/libpatoh.a
    fi
    # build.sh's steps, with $JOBS jobs: Glucose, bipe (the preprocessor), d4, its counter.
    (cd 3rdParty/glucose-3.0/core && nice -n 10 make -j"$JOBS" libst &&
        mv lib_static.a lib_glucose.a)
    (cd 3rdParty/bipe/3rdParty/glucose-3.0/core && nice -n 10 make -j"$JOBS" libst)
    (cd 3rdParty/bipe && mkdir -p build && cd build && cmake -GNinja .. -DBUILD_MODE=2 &&
        nice -n 10 ninja -j"$JOBS" && mv libbipe.a libbipetmp.a &&
        ar cqT libbipe.a libbipetmp.a ../3rdParty/glucose-3.0/core/libglucose.a &&
        printf 'create libbipe.a\naddlib libbipe.a\nsave\nend\n' | ar -M)
    (mkdir -p build && cd build && cmake -GNinja .. -DBUILD_MODE=0 &&
        nice -n 10 ninja -j"$JOBS" && mv libd4.a libd4tmp.a &&
        ar cqT libd4.a libd4tmp.a ../3rdParty/patoh/libpatoh.a \
            ../3rdParty/glucose-3.0/core/lib_glucose.a ../3rdParty/bipe/build/libbipe.a &&
        printf 'create libd4.a\naddlib libd4.a\nsave\nend\n' | ar -M)
    (cd demo/counter && nice -n 10 make -j"$JOBS" c)
    cp demo/counter/build/counter "$bin/d4v2"
}

build_sharpsat_td() {
    checkout sharpsat-td "$SHARPSAT_URL" "$SHARPSAT_COMMIT"
    cd "$src/sharpsat-td"
    mkdir -p build && cd build
    cmake -DCMAKE_BUILD_TYPE=Release ..
    nice -n 10 make -j"$JOBS"
    cp sharpSAT flow_cutter_pace17 "$bin/"
}

build_ganak() {
    checkout ganak "$GANAK_URL" "$GANAK_COMMIT"
    local name url commit
    while read -r name url commit; do
        checkout "$name" "$url" "$commit"
    done <<<"$GANAK_CHAIN"
    # Ganak finds FLINT 3 through pkg-config. Debian 12's libflint-dev is FLINT 2.9: it has
    # every function Ganak calls (fmpq, fmpq_mpoly) but no flint.pc, and declares the mpoly
    # types in mpoly.h, which FLINT 3 moved to the mpoly_types.h Ganak includes. Where
    # pkg-config knows no FLINT, a flint.pc and that one header are written in $COUNTERS/shim.
    local config=${PKG_CONFIG_PATH:-}
    if ! pkg-config --exists flint; then
        [ -f /usr/include/flint/mpoly.h ] || {
            echo "Ganak needs FLINT: apt-get install libflint-dev (or FLINT 3 with its flint.pc)" >&2
            exit 1
        }
        local shim=$COUNTERS/shim
        mkdir -p "$shim/include/flint" "$shim/pkgconfig"
        echo '#include <flint/mpoly.h>' >"$shim/include/flint/mpoly_types.h"
        printf 'Name: flint\nDescription: FLINT 2.9 (no flint.pc of its own)\nVersion: 2.9.0\nCflags: -I%s\nLibs: -lflint\n' \
            "$shim/include" >"$shim/pkgconfig/flint.pc"
        config=$shim/pkgconfig${config:+:$config}
    fi
    cd "$src/ganak"
    # Shared libraries (Ganak's default): its static build links everything statically,
    # and Debian ships FLINT only as a shared library. The program finds its own libraries
    # in build/ through its run path, so build/ stays where it is.
    PKG_CONFIG_PATH=$config cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DBUILD_SHARED_LIBS=ON -DENABLE_TESTING=OFF -DFETCHCONTENT_FULLY_DISCONNECTED=ON \
        -DFETCHCONTENT_SOURCE_DIR_CADICAL="$src/cadical" \
        -DFETCHCONTENT_SOURCE_DIR_CADIBACK="$src/cadiback" \
        -DFETCHCONTENT_SOURCE_DIR_SBVA="$src/sbva"
    nice -n 10 cmake --build build --parallel "$JOBS" --target ganak-bin
    cp build/ganak "$bin/ganak"
}

# The external: spec of each counter built (its program in $bin), one a line.
backends() {
    local name program command
    while IFS=$'\t' read -r name program command; do
        case "$name" in '#'* | '') continue ;; esac
        [ -x "$bin/$program" ] && echo "external:$command"
    done < "$repo/bench/solvers/counters/peers.tsv"
    return 0
}

case "${1:-}" in
build)
    shift
    names=("$@")
    [ "${#names[@]}" -gt 0 ] || names=(gpmc d4v2 sharpsat-td ganak)
    mkdir -p "$src" "$bin"
    for name in "${names[@]}"; do
        echo "== $name" >&2
        # Its own process, so that its first failing step stops it (errexit is off in a
        # function called on the left of ||).
        "$0" build-one "$name" || echo "!! $name did not build" >&2
    done
    ls -l "$bin"
    ;;
build-one)
    case "${2:-}" in
    gpmc | d4v2 | sharpsat-td | ganak) mkdir -p "$src" "$bin" && "build_${2//-/_}" ;;
    *) echo "no counter named ${2:-}: gpmc, d4v2, sharpsat-td or ganak" >&2 && exit 2 ;;
    esac
    ;;
backends)
    backends
    ;;
bench)
    out=${2:?bench needs OUT}
    limit=${3:-60}
    corpus=${4:-$repo/bench/corpora/families.jsonl}
    mapfile -t peers < <(backends)
    [ "${#peers[@]}" -gt 0 ] || { echo "no counter built: run '$0 build' first" >&2; exit 1; }
    list=$(IFS=,; echo "dss,mdd,d4,${peers[*]}")
    export PATH="$bin:$repo/bench/solvers/counters:$PATH" MSCSP_COUNTERS=$bin
    cd "$repo"
    mkdir -p "$out"
    uptime > "$out/uptime_start.txt"
    python -m mscsp bench --corpus "$corpus" --backend "$list" --time-limit "$limit" \
        --out "$out" --no-progress | tee "$out/tables.txt"
    uptime > "$out/uptime_end.txt"
    ;;
*)
    sed -n '2,12p' "$0" >&2
    exit 2
    ;;
esac
