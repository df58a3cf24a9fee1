#!/bin/sh
# JOBS copies of a test runner side by side (make fuzz, make check-valgrind): copy j runs
# with GPUDOT_JOB=j and GPUDOT_JOBS=JOBS in its environment and takes its share of the
# work (tests/run_fuzz.m: a range of seeds; tests/run_tests.m: the test files it claims
# first from the queue directory GPUDOT_QUEUE, and every JOBS-th grid case), so that
# together they run what one would.  Their reports follow one
# another, each without its closing line, then one line for all
#   N passed, N failed, N skipped
# and the exit status is non-zero if any copy failed or ended without that line.
#   tests/run_jobs.sh JOBS COMMAND [ARGS...]
set -u
jobs=${1:?usage: tests/run_jobs.sh JOBS COMMAND [ARGS...]}
shift
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
mkdir "$logs/queue"
pids=
j=0
while [ $j -lt "$jobs" ]; do
    GPUDOT_JOB=$j GPUDOT_JOBS=$jobs GPUDOT_QUEUE="$logs/queue" "$@" > "$logs/$j.log" 2>&1 &
    pids="$pids $!"
    j=$((j + 1))
done
rc=0
for p in $pids; do
    wait "$p" || rc=1
done
closing='^[0-9]* passed, [0-9]* failed, [0-9]* skipped$'
passed=0
failed=0
skipped=0
j=0
while [ $j -lt "$jobs" ]; do
    grep -v "$closing" "$logs/$j.log"
    line=$(grep "$closing" "$logs/$j.log" | tail -n 1)
    if [ -z "$line" ]; then
        echo "run_jobs: copy $j ended without its closing line (counted as a failure)"
        failed=$((failed + 1))
    else
        set -- $line
        passed=$((passed + $1))
        failed=$((failed + $3))
        skipped=$((skipped + $5))
    fi
    j=$((j + 1))
done
[ $failed -gt 0 ] && rc=1
echo "$passed passed, $failed failed, $skipped skipped"
exit $rc
