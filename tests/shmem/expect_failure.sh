#!/bin/sh
# expect_failure.sh LAUNCHER TIMEOUT NPES REGEX EXIT_CODE PROGRAM [ARGS...]
#
# Runs PROGRAM as a job of NPES under LAUNCHER (ternrun, or anything taking
# "--oversubscribe --timeout T -n N") and checks that it fails cleanly:
#   - the launcher exits non-zero, and not through its own timeout (124);
#   - with EXIT_CODE itself unless EXIT_CODE is "any"; EXIT_CODE 0 is for a
#     program that ends the job on purpose with status 0
#     (shmem_global_exit(0)): the job must then end, other PEs included, with
#     exit code 0;
#   - the output (stdout and stderr together) matches the extended regular
#     expression REGEX (the name of the call that was given bad input);
#   - the program never says BAD_INPUT_NOT_REJECTED (the bad call returned);
#   - no /dev/shm/tern-<job>-* entry of the job is left behind (the program
#     prints "job <id>"; without a job id, e.g. under another launcher, this
#     check is skipped).
# Prints EXPECTED_FAILURE_OK when all of that holds, and exits 0; otherwise
# says what went wrong and exits 1.
set -u
if [ $# -lt 6 ]; then
  echo "usage: $0 LAUNCHER TIMEOUT NPES REGEX EXIT_CODE PROGRAM [ARGS...]" >&2
  exit 2
fi
launcher=$1
timeout=$2
npes=$3
regex=$4
expected_rc=$5
shift 5

out=$("$launcher" --oversubscribe --timeout "$timeout" -n "$npes" "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
echo "launcher exit code: $rc"

problems=0
if [ "$rc" -eq 0 ] && [ "$expected_rc" != 0 ]; then
  echo "expect_failure: the job succeeded; it should have failed" >&2
  problems=1
fi
if [ "$rc" -eq 124 ]; then
  echo "expect_failure: the job timed out instead of ending on the error" >&2
  problems=1
fi
if [ "$expected_rc" != "any" ] && [ "$rc" -ne "$expected_rc" ]; then
  echo "expect_failure: exit code $rc, expected $expected_rc" >&2
  problems=1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
  echo "expect_failure: no message matching '$regex'" >&2
  problems=1
fi
if printf '%s\n' "$out" | grep -q BAD_INPUT_NOT_REJECTED; then
  echo "expect_failure: the bad call returned as if nothing was wrong" >&2
  problems=1
fi
job=$(printf '%s\n' "$out" | sed -n 's/.*shmem_bad_input: job \([^ ]*\) case.*/\1/p' | head -n 1)
if [ -n "$job" ]; then
  left=$(find /dev/shm -maxdepth 1 -name "tern-$job-*" 2>/dev/null)
  if [ -n "$left" ]; then
    echo "expect_failure: left in /dev/shm:" >&2
    printf '  %s\n' $left >&2
    problems=1
  fi
fi
if [ "$problems" -ne 0 ]; then
  exit 1
fi
echo "EXPECTED_FAILURE_OK"
exit 0
