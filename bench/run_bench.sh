#!/bin/sh
# make bench: every benchmark case in one run, on a machine with an NVIDIA GPU.
#   1. build/kernel_bench (built here when nvcc is present): ceilings, cuBLAS, gpudot kernels;
#   2. bench/octave_bench.m: calls from Octave, host and resident data, with the BLAS that
#      Octave loads, and again with the reference BLAS when OpenBLAS came from
#      LD_LIBRARY_PATH (the octave bundle's env.sh);
#   3. bench/search_bench.m (gsearch, 768 x 10^6) and bench/search_torch.py (PyTorch's
#      peer, where torch imports);
#   4. bench/shard_bench.m where more than one GPU is visible: garrays on all of them;
#   5. bench/report.py: bench/results/<device>.csv and BENCHMARKS.md.
# Environment: BUILD (build), OCTAVE (octave-cli), BENCH_MAXLOG (30: largest log2 n of the
# kernel part; the Octave part stops at 26), BENCH_SKIP_BUILD=1 (use the binaries as they are).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
OCTAVE=${OCTAVE:-octave-cli}
MAXLOG=${BENCH_MAXLOG:-30}
OCT="$OCTAVE --no-history --no-init-file --no-site-file"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "${BENCH_SKIP_BUILD:-0}" != 1 ] && command -v "${NVCC:-nvcc}" >/dev/null 2>&1; then
  make -s -f mex.mk SRC=. OUT="$BUILD" CUDA_ARCHS="${CUDA_ARCHS:-90}" bench
fi
[ -x "$BUILD/kernel_bench" ] || { echo "run_bench: $BUILD/kernel_bench missing (needs nvcc and cuBLAS)" >&2; exit 1; }
[ -f "$BUILD/__gpudot__.mex" ] || { echo "run_bench: $BUILD/__gpudot__.mex missing (make)" >&2; exit 1; }
start=$(date +%s)
echo "run_bench: kernels (n = 2^10 ... 2^$MAXLOG, batched shapes, copies)"
"$BUILD/kernel_bench" "$MAXLOG" 10 > "$tmp/kernel.csv"
echo "run_bench: Octave calls ($(($(date +%s) - start)) s so far)"
BENCH_CSV="$tmp/octave.csv" GPUDOT_MEXDIR="$BUILD" $OCT bench/octave_bench.m
case "${LD_LIBRARY_PATH:-}" in
  *openblas*)
    echo "run_bench: host calls again with the reference BLAS ($(($(date +%s) - start)) s so far)"
    ref=$(printf %s "$LD_LIBRARY_PATH" | tr : '\n' | grep -v openblas | paste -sd:)
    LD_LIBRARY_PATH=$ref BENCH_PARTS=host BENCH_CSV="$tmp/octave.csv" GPUDOT_MEXDIR="$BUILD" \
      $OCT bench/octave_bench.m ;;
esac
echo "run_bench: similarity search ($(($(date +%s) - start)) s so far)"
BENCH_CSV="$tmp/octave.csv" GPUDOT_MEXDIR="$BUILD" $OCT bench/search_bench.m
if python3 -c 'import torch' 2>/dev/null; then
  BENCH_CSV="$tmp/octave.csv" python3 bench/search_torch.py
fi
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${ngpu:-0}" -gt 1 ]; then
  echo "run_bench: $ngpu GPUs: garrays on all of them ($(($(date +%s) - start)) s so far)"
  BENCH_CSV="$tmp/octave.csv" GPUDOT_MEXDIR="$BUILD" $OCT bench/shard_bench.m
fi
echo "run_bench: report ($(($(date +%s) - start)) s in all)"
python3 bench/report.py "$tmp/kernel.csv" "$tmp/octave.csv" \
  --command "make bench" --seconds "$(($(date +%s) - start))"
