#!/bin/sh
# make fuzz: the differential fuzzer's cases split into JOBS Octave processes, each a
# contiguous range of seeds (the same cases as one process), run side by side; their
# reports follow one another, then one line
#   N passed, N failed, 0 skipped
# The exit status is non-zero if any process failed.  Cases are small and a process
# keeps about one core busy, so two on the 2-core CI machine take half the time.
#   tests/fuzz_jobs.sh JOBS CASES SEED        (environment: OCTAVE, GPUDOT_MEXDIR, ...)
set -u
jobs=${1:?usage: tests/fuzz_jobs.sh JOBS CASES SEED}
cases=${2:?}
seed=${3:?}
octave=${OCTAVE:-octave-cli}
here=$(cd "$(dirname "$0")" && pwd)

if [ "$jobs" -le 1 ]; then
    GPUDOT_FUZZ_CASES=$cases GPUDOT_FUZZ_SEED=$seed \
        exec "$octave" --no-history --no-init-file --no-site-file "$here/run_fuzz.m"
fi

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
per=$(( (cases + jobs - 1) / jobs ))
pids=
j=0
while [ $j -lt "$jobs" ] && [ $((j * per)) -lt "$cases" ]; do
    n=$((cases - j * per))
    [ $n -gt $per ] && n=$per
    GPUDOT_FUZZ_CASES=$n GPUDOT_FUZZ_SEED=$((seed + j * per)) \
        "$octave" --no-history --no-init-file --no-site-file "$here/run_fuzz.m" \
        > "$logs/$j.log" 2>&1 &
    pids="$pids $!"
    j=$((j + 1))
done
rc=0
for p in $pids; do
    wait "$p" || rc=1
done
passed=0
failed=0
j=0
for p in $pids; do
    # each process's report without its own closing line
    grep -v '^[0-9]* passed, [0-9]* failed, [0-9]* skipped$' "$logs/$j.log"
    line=$(grep '^[0-9]* passed, [0-9]* failed, [0-9]* skipped$' "$logs/$j.log" | tail -n 1)
    if [ -z "$line" ]; then
        echo "fuzz_jobs: process $j ended without its closing line (counted as a failure)"
        failed=$((failed + 1))
    else
        passed=$((passed + $(echo "$line" | cut -d' ' -f1)))
        failed=$((failed + $(echo "$line" | cut -d' ' -f3)))
    fi
    j=$((j + 1))
done
[ $failed -gt 0 ] && rc=1
echo "$passed passed, $failed failed, 0 skipped"
exit $rc
