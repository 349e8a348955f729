#!/usr/bin/env bash
# ternrun's job namespace is the password of its PMIx server (a client must
# name a registered namespace and rank): while a job runs, no name that other
# users on the host can see (/dev/shm, unix sockets, command lines, the
# temporary directory's listing) may show it.
#
#   secret_namespace.sh TERNRUN HOLD
set -u
ternrun=$1 hold=$2
work=$(mktemp -d)
job_pid=""
finish() {
  [[ -n $job_pid ]] && kill "$job_pid" 2>/dev/null && wait "$job_pid" 2>/dev/null
  rm -rf "$work"
}
trap finish EXIT
fail() { echo "secret_namespace: FAIL: $*"; exit 1; }

# shellcheck source=held_job.sh
source "$(dirname "$0")/held_job.sh"
start_held_job "$ternrun" "$hold" "$work"
rank=$(pgrep -P "$job_pid" | head -1)
nspace=$(tr '\0' '\n' <"/proc/$rank/environ" | sed -n 's/^PMIX_NAMESPACE=//p')
secret=${nspace##*-}
((${#secret} >= 32)) || fail "namespace '$nspace' carries no 128-bit secret"
{
  ls -a /dev/shm
  cat /proc/net/unix
  ps -eo args
  ls -a "$work/tmp"
} >"$work/public" 2>/dev/null
grep -q -- "$secret" "$work/public" && fail "the namespace's secret shows in: $(grep -- "$secret" "$work/public" | head -3)"
touch "$work/go"
wait "$job_pid" || fail "the job failed (exit $?)"
job_pid=""
echo "secret_namespace: PASS (the namespace's secret appears in no public name)"
