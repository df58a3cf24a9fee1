#!/bin/sh
# How mex.mk builds the CUDA engine on this machine: prints make variables (obj/config.mk)
# on stdout and says what it chose, and why, on stderr (which `pkg install` shows as it
# runs).  Never fails: where the GPU engine cannot be built it says why, and what would
# enable it, and the build makes the CPU engine alone.
#
# Environment: NVCC, CUDA_ARCHS, CUDA_PTX, NVCC_CCBIN, GPUDOT_NO_CUDA, GPUDOT_PACKAGE (1 in
# `pkg install`'s build), SRC (the source folder), JOBS (parallel jobs of this make).
# With GPUDOT_PROBE_NEEDS=1 it prints only the Debian package that would let nvcc build
# (a g++-N it supports), if that is all that is missing: the Makefile's `deps` installs it.
set -u
SRC=${SRC:-.}
JOBS=${JOBS:-1}
[ "$JOBS" -ge 1 ] 2>/dev/null || JOBS=1

say() { echo "gpudot: $*" >&2; }

NEEDS=${GPUDOT_PROBE_NEEDS:-0}
# cpu_only CAUSE [REMEDY]: the CPU engine alone.  With a remedy the decision is probed again
# on the next make (CONFIG_RETRY), so that it holds only until the remedy is applied.
cpu_only() {
    [ "$NEEDS" = 1 ] && exit 0
    say "building the CPU engine only: $1."
    [ -n "${2:-}" ] && say "  For the GPU engine, $2."
    echo "HAVE_NVCC :="
    [ "${GPUDOT_NO_CUDA:-0}" = 1 ] || echo "CONFIG_RETRY := 1"
    exit 0
}

[ "${GPUDOT_NO_CUDA:-0}" = 1 ] && cpu_only "GPUDOT_NO_CUDA=1" "unset GPUDOT_NO_CUDA"

NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
command -v "$NVCC" >/dev/null 2>&1 ||
    cpu_only "nvcc not found ($NVCC)" "install the CUDA toolkit and set CUDA_HOME (or NVCC)"
nvcc_version=$("$NVCC" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')

# ---- host compiler: the default, else an installed g++-N that this nvcc accepts; with
# glibc 2.42+ and CUDA 13.0, cuda/compat/math.h routes around their rsqrt clash ----
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpudot-probe.XXXXXX") || cpu_only "mktemp failed" "free /tmp"
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/probe.cu" <<'PROBE'
#include <cmath>
#include <omp.h>
#include <cuda_runtime.h>
__global__ void probe(float *x) { x[0] = rsqrtf(x[0]) + sqrtf(x[1]) + std::fabs(x[2]); }
PROBE

# probe CCBIN SHIM: can nvcc compile a kernel and its host code with these?
probe() {
    "$NVCC" -std=c++17 ${1:+-ccbin "$1"} ${2:+-I"$2"} -Xcompiler -fopenmp \
        -gencode=arch=compute_75,code=compute_75 -c "$tmp/probe.cu" -o "$tmp/probe.o" \
        > "$tmp/log" 2>&1
}

compat="$SRC/cuda/compat"
ccbin= shim= found=
if [ -n "${NVCC_CCBIN:-}" ]; then
    candidates=$NVCC_CCBIN
else
    candidates="default"
    for n in 16 15 14 13 12 11 10 9; do
        command -v "g++-$n" >/dev/null 2>&1 && candidates="$candidates g++-$n"
    done
fi
first_error=
max_gcc=
for c in $candidates; do
    cc=$c
    [ "$c" = default ] && cc=
    if probe "$cc" ""; then
        ccbin=$cc found=1
        break
    fi
    [ -z "$first_error" ] && first_error=$( (grep -m1 -i 'error' "$tmp/log" || head -n 1 "$tmp/log") | cut -c1-200)
    m=$(sed -n 's/.*gcc versions later than \([0-9]*\) are not supported.*/\1/p' "$tmp/log" | head -n 1)
    [ -n "$m" ] && max_gcc=$m
    if grep -q 'rsqrt' "$tmp/log" && probe "$cc" "$compat"; then
        ccbin=$cc shim=$compat found=1
        break
    fi
done
if [ -z "$found" ]; then
    if [ -n "$max_gcc" ]; then
        [ "$NEEDS" = 1 ] && echo "g++-$max_gcc" && exit 0
        cpu_only "nvcc $nvcc_version supports gcc up to $max_gcc, and no such g++ is installed" \
            "install g++-$max_gcc (Debian: apt-get install g++-$max_gcc), or set NVCC_CCBIN"
    fi
    cpu_only "nvcc $nvcc_version cannot compile with ${NVCC_CCBIN:-the default host compiler}: $first_error" \
        "set NVCC_CCBIN to a host compiler that nvcc supports"
fi

[ "$NEEDS" = 1 ] && exit 0

# ---- architectures ----
supported=$("$NVCC" --list-gpu-code 2>/dev/null | sed -n 's/^sm_\([0-9]*\)$/\1/p' | tr '\n' ' ')
has() { case " $supported " in *" $1 "*) return 0 ;; esac; return 1; }
newest() { printf '%s\n' "$@" | sort -n | tail -n 1; }

gpus=
if command -v nvidia-smi >/dev/null 2>&1; then
    gpus=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d '. ' |
           grep -E '^[0-9]+$' | sort -un | tr '\n' ' ')
fi
why=
if [ -n "${CUDA_ARCHS:-}" ]; then
    archs=$CUDA_ARCHS
    [ "$archs" = none ] && archs=
    why="CUDA_ARCHS"
elif [ -n "$gpus" ]; then
    archs=
    for a in $gpus; do
        has "$a" && archs="$archs $a"
    done
    [ -z "$archs" ] &&
        cpu_only "this machine's GPU (sm_$gpus) is not supported by nvcc $nvcc_version (sm_$(echo $supported | cut -d' ' -f1) and newer)" \
            "use a CUDA toolkit that supports it (set CUDA_HOME)"
    why="this machine's GPU"
elif [ "${GPUDOT_PACKAGE:-0}" = 1 ]; then
    # No GPU here: one binary per major architecture (a cubin runs on every GPU of its
    # major version with the same or a higher minor), so the first call never waits.
    archs=
    for a in 75 80 90 100 110 120; do
        has "$a" && archs="$archs $a"
    done
    why="no GPU here: every architecture"
else
    # An in-tree build with no GPU cannot run the CUDA engine: compile all device code
    # once, to PTX only (no machine code), so errors still show.
    archs=
    CUDA_PTX=${CUDA_PTX-$(echo $supported | cut -d' ' -f1)}
    why="no GPU here: PTX only, to check the device code"
fi
for a in $archs; do
    has "$a" || cpu_only "nvcc $nvcc_version cannot build sm_$a (it supports: $supported)" \
        "set CUDA_ARCHS to architectures it supports"
done
[ -n "$archs" ] && ptx=${CUDA_PTX-$(newest $archs)} || ptx=${CUDA_PTX-}
[ -z "$archs$ptx" ] && cpu_only "CUDA_ARCHS=none and no CUDA_PTX" "set CUDA_ARCHS or CUDA_PTX"

gencode=
for a in $archs; do gencode="$gencode -gencode=arch=compute_$a,code=sm_$a"; done
for a in $ptx; do gencode="$gencode -gencode=arch=compute_$a,code=compute_$a"; done

# ---- what it will cost, fitted to builds on a 2-core Debian 12 VM (nvcc 13.0): ~15 s
# of wall time, and ~270 s of one core for each machine-code architecture, ~230 s for PTX
# alone (sm_90: 149 s; PTX of sm_75 alone: 131 s; six architectures and PTX: 833 s) ----
nsass=$(echo $archs | wc -w)
nptx_only=0
for a in $ptx; do case " $archs " in *" $a "*) ;; *) nptx_only=$((nptx_only + 1)) ;; esac; done
secs=$(( 15 + (270 * nsass + 230 * nptx_only) / JOBS ))
if [ "$secs" -lt 120 ]; then took="$secs s"; else took="$(( (secs + 30) / 60 )) min"; fi
desc=
[ -n "$archs" ] && desc="sm_$(echo $archs | sed 's/ /, sm_/g')"
[ -n "$ptx" ] && desc="$desc${desc:+ + }PTX compute_$(echo $ptx | sed 's/ /, compute_/g')"
say "CUDA engine for $desc ($why), nvcc $nvcc_version${ccbin:+, host compiler $ccbin}${shim:+, with cuda/compat/math.h for glibc's rsqrt}"
say "  about $took on $JOBS job(s); CUDA_ARCHS=<list> builds fewer (see README)"

echo "HAVE_NVCC := yes"
echo "NVCC_HOST :=${ccbin:+ -ccbin $ccbin}${shim:+ -I$shim}"
echo "NVCC_GENCODE :=$gencode"
echo "NVCC_THREADS := $( [ "$nsass" -gt 1 ] && echo 2 || echo 1)"
