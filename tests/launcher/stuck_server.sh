#!/usr/bin/env bash
# ternrun finishes whatever becomes of its PMIx server: with a server whose
# shutdown never returns (PMIx_server_finalize replaced by one that blocks),
# a job whose ranks are done ends within ternrun's 5 s bound with their exit
# code, a warning and nothing left behind, and SIGTERM during that wait ends
# ternrun at once.
#
#   stuck_server.sh TERNRUN HOLD PRELOAD
set -u
ternrun=$1 hold=$2 preload=$3
scale=${TERN_TEST_TIME_SCALE:-1}
work=$(mktemp -d)
job_pid=""
finish() {
  [[ -n $job_pid ]] && kill -KILL "$job_pid" 2>/dev/null && wait "$job_pid" 2>/dev/null
  rm -rf "$work"
}
trap finish EXIT
fail() {
  echo "stuck_server: FAIL: $*"
  sed 's/^/  | /' "$work/out" 2>/dev/null
  exit 1
}
now_ms() { date +%s%3N; }
job_segments() { find /dev/shm -maxdepth 1 -name "tern-$1*" 2>/dev/null; }

# shellcheck source=held_job.sh
source "$(dirname "$0")/held_job.sh"
start_job() { start_held_job "$ternrun" "$hold" "$work" LD_PRELOAD="$preload"; }
job_id() { tr '\0' '\n' <"/proc/$(pgrep -P "$job_pid" | head -1)/environ" | sed -n 's/^TERN_JOB_ID=//p'; }
# Lets the ranks finish; returns once none is left (ternrun then stops its server).
release_ranks() {
  touch "$work/go"
  for _ in $(seq $((300 * scale))); do
    [[ -z $(pgrep -P "$job_pid") ]] && return
    sleep 0.05
  done
  fail "the ranks did not finish"
}

# 1. The ranks finish; the server's shutdown hangs: ternrun gives up on it
#    after its bound, says so, exits 0 and leaves nothing behind.
start_job
id=$(job_id)
[[ -n $id ]] || fail "no TERN_JOB_ID in a rank's environment"
release_ranks
started=$(now_ms)
wait "$job_pid"
rc=$?
job_pid=""
took=$(($(now_ms) - started))
((rc == 0)) || fail "ternrun exited $rc after its ranks exited 0"
grep -q "the PMIx server did not shut down" "$work/out" || fail "no warning that the server did not shut down"
((took <= 5000 + 3000 * scale)) || fail "ternrun took ${took} ms to give up on the server (bound: 5 s)"
((took >= 4000)) || fail "ternrun ended after ${took} ms: the blocking finalize was not reached (preload not used?)"
[[ -z $(job_segments "$id") ]] || fail "left $(job_segments "$id")"
[[ -z $(ls -A "$work/tmp") ]] || fail "left $(ls -A "$work/tmp") in TMPDIR"
first="gave up on the server after ${took} ms"

# 2. SIGTERM while ternrun waits for that shutdown ends it at once.
start_job
release_ranks
sleep 0.5
started=$(now_ms)
kill -TERM "$job_pid"
wait "$job_pid"
rc=$?
job_pid=""
took=$(($(now_ms) - started))
((took <= 1500 * scale)) || fail "ternrun took ${took} ms to end after SIGTERM"
[[ -z $(ls -A "$work/tmp") ]] || fail "left $(ls -A "$work/tmp") in TMPDIR after SIGTERM"
echo "stuck_server: PASS ($first; ended ${took} ms after SIGTERM, exit $rc)"
