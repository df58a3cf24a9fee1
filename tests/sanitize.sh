#!/bin/sh
# make check-sanitize (GPU machine): the whole test suite inside compute-sanitizer, once per
# tool (memcheck with device leak checking, racecheck, initcheck, synccheck), the four runs
# side by side.  Octave runs inside the sanitizer, which follows the MEX's CUDA calls and
# the suite's child octave-cli processes.  GPUDOT_SANITIZE tells the suite to skip the
# blocks that make CUDA fail on purpose.  Logs: $OUT_DIR/<tool>.log.  Passes when every run
# passed its tests and its sanitizer reported 0 errors.
#
#   tests/sanitize.sh OUT_DIR [tool ...]      (env: OCTAVE, GPUDOT_MEXDIR or GPUDOT_PKG_PREFIX)
set -u
out=${1:?usage: tests/sanitize.sh OUT_DIR [tool ...]}
shift
tools=${*:-memcheck racecheck initcheck synccheck}
san=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
octave=${OCTAVE:-octave-cli}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
threads=$(( $(nproc) / $(echo $tools | wc -w) ))
[ "$threads" -ge 1 ] || threads=1
echo "compute-sanitizer: $("$san" --version | tail -n 1); tools: $tools; $threads threads each"
for t in $tools; do
  extra=
  [ "$t" = memcheck ] && extra="--leak-check full"
  (
    start=$(date +%s)
    GPUDOT_SANITIZE=$t OMP_NUM_THREADS=$threads timeout "${SANITIZE_TIMEOUT:-0}" "$san" --tool "$t" $extra \
      --target-processes all --error-exitcode 99 --print-limit 100 \
      "$octave" --no-history --no-init-file --no-site-file "$here/run_tests.m" \
      > "$out/$t.log" 2>&1
    echo "$? $(( $(date +%s) - start ))" > "$out/$t.rc"
  ) &
done
wait
fail=0
for t in $tools; do
  read rc secs < "$out/$t.rc"
  suite=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$out/$t.log" | tail -n 1)
  # one summary per sanitized process (the suite and its child octave-cli runs):
  # "ERROR SUMMARY: N errors", or racecheck's "RACECHECK SUMMARY: ... (N errors, M warnings)"
  sums=$(grep -E '(ERROR|RACECHECK) SUMMARY: ' "$out/$t.log")
  nsum=$(printf '%s' "$sums" | grep -c 'SUMMARY: ')
  errs=$(printf '%s\n' "$sums" | sed -nE 's/.*ERROR SUMMARY: ([0-9]+) error.*/\1/p; s/.*RACECHECK SUMMARY: .*\(([0-9]+) error.*/\1/p' \
         | awk '{s += $1} END {print s + 0}')
  echo "$t: exit $rc, ${secs}s, suite: ${suite:-no summary line}; sanitizer: ${errs:-?} errors in $nsum processes"
  if [ "$rc" != 0 ] || [ -z "$suite" ] || [ "${errs:-1}" != 0 ] || [ "$nsum" = 0 ]; then
    fail=1
  fi
done
exit $fail
