#!/usr/bin/env bash
# A job killed from outside leaves nothing behind: no rank, no /dev/shm
# segment of its ranks, no launcher temporary directory.
#
#   leaves_nothing.sh VICTIM LAUNCHER TERNRUN HOLD
#
# VICTIM: "launcher" (SIGKILL to ternrun or mpirun itself) or "rank" (SIGKILL
# to rank 1). LAUNCHER: "ternrun" or "mpirun" (Open MPI's mpirun.openmpi).
# HOLD: a program whose ranks print "waiting for" once in MPI and then sit
# still until a file appears (hold_still). Prints
# "leaves_nothing: PASS" and exits 0, or says what was left and exits 1.
set -u
victim=$1 launcher=$2 ternrun=$3 hold=$4

work=$(mktemp -d)
mkdir "$work/tmp"
job_pid=""
rank_pids=""
finish() {
  [[ -n $job_pid ]] && kill -9 "$job_pid" 2>/dev/null
  for pid in $rank_pids; do kill -9 "$pid" 2>/dev/null; done
  for pid in $rank_pids; do rm -f /dev/shm/tern-*-"$pid"-* 2>/dev/null; done
  rm -rf "$work"
}
trap finish EXIT
fail() { echo "leaves_nothing: FAIL: $*"; cat "$work/out" 2>/dev/null; exit 1; }

case "$launcher" in
  ternrun) command=("$ternrun" --oversubscribe -x TERN_WAIT_MODE=block -n 2 "$hold" "$work/never") ;;
  mpirun)
    command -v mpirun.openmpi >/dev/null || { echo "leaves_nothing: SKIPPED: no mpirun.openmpi"; exit 77; }
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    command=(mpirun.openmpi --oversubscribe --bind-to none -n 2 -x TERN_WAIT_MODE=block "$hold" "$work/never") ;;
  *) fail "unknown launcher $launcher" ;;
esac

TMPDIR=$work/tmp "${command[@]}" >"$work/out" 2>&1 &
job_pid=$!
for _ in $(seq 300); do
  [[ $(grep -c "waiting for" "$work/out") -ge 2 ]] && break
  kill -0 "$job_pid" 2>/dev/null || fail "the job ended before it held"
  sleep 0.1
done
[[ $(grep -c "waiting for" "$work/out") -ge 2 ]] || fail "the job did not reach its hold in 30 s"

# The ranks: the launcher's children running the hold program.
for pid in $(pgrep -P "$job_pid"); do
  if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "^$hold "; then rank_pids+=" $pid"; fi
done
read -r -a ranks <<<"$rank_pids"
((${#ranks[@]} == 2)) || fail "expected 2 ranks under $launcher (pid $job_pid), found: ${rank_pids:-none}"

if [[ $victim == launcher ]]; then
  kill -9 "$job_pid"
else
  kill -9 "${ranks[1]}"
fi
for _ in $(seq 300); do
  kill -0 "$job_pid" 2>/dev/null || break
  sleep 0.1
done
kill -0 "$job_pid" 2>/dev/null && fail "$launcher still runs 30 s after the kill of the $victim"
wait "$job_pid" 2>/dev/null
job_pid=""

left() {
  local what=""
  for pid in "${ranks[@]}"; do
    kill -0 "$pid" 2>/dev/null && what+=" rank pid $pid;"
    for entry in /dev/shm/tern-*-"$pid"-*; do
      [[ -e $entry ]] && what+=" $entry;"
    done
  done
  # Tern's own (ternrun's directory); Open MPI's session directory is its own.
  for entry in "$work"/tmp/ternrun.*; do
    [[ -e $entry ]] && what+=" $entry;"
  done
  echo "$what"
}
for _ in $(seq 50); do
  [[ -z $(left) ]] && break
  sleep 0.1
done
remaining=$(left)
[[ -z $remaining ]] || fail "5 s after $launcher ended (its $victim killed), still there:$remaining"
echo "leaves_nothing: PASS ($victim killed under $launcher: no rank, segment or temporary file left)"
