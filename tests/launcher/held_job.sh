# Sourced by the launcher tests that look at or poke a running job.
#
#   start_held_job TERNRUN HOLD WORK [VAR=VALUE...]
# starts `ternrun -n 2 HOLD WORK/go` (TMPDIR=WORK/tmp, output in WORK/out,
# the variables in its environment), sets job_pid, and returns once both
# ranks hold; calls the caller's `fail` if they do not within 30 s (times
# TERN_TEST_TIME_SCALE). Touching WORK/go lets the ranks finish.
start_held_job() {
  local ternrun=$1 hold=$2 work=$3
  shift 3
  mkdir -p "$work/tmp"
  rm -f "$work/go" "$work/out"
  env TMPDIR="$work/tmp" "$@" "$ternrun" --oversubscribe -x TERN_WAIT_MODE=block -n 2 "$hold" "$work/go" \
    >"$work/out" 2>&1 &
  job_pid=$!
  local tries=$((300 * ${TERN_TEST_TIME_SCALE:-1}))
  for _ in $(seq "$tries"); do
    [[ $(grep -c "waiting for" "$work/out") -ge 2 ]] && return 0
    sleep 0.1
  done
  fail "the job did not reach its hold"
}
