#!/usr/bin/env bash
# Another user on the host tries to join a running ternrun job as rank 0,
# knowing all that is public (the server's port, the job's public id): the
# PMIx server refuses it, and the job finishes as if nothing happened.
#
#   stranger_user.sh TERNRUN HOLD FAKE_ROOT
# FAKE_ROOT: a library the stranger preloads to claim uid 0 (PMIx's native
# security takes a client's word for its uid). Needs root (to act as the user nobody); otherwise it exits 77 (skipped).
set -u
ternrun=$1 hold=$2 fake_root=$3
[[ $(id -u) -eq 0 ]] || { echo "stranger_user: SKIPPED: acting as a second user needs root"; exit 77; }
command -v setpriv >/dev/null || { echo "stranger_user: SKIPPED: no setpriv (util-linux)"; exit 77; }
work=$(mktemp -d)
chmod 755 "$work"
job_pid=""
finish() {
  [[ -n $job_pid ]] && kill "$job_pid" 2>/dev/null && wait "$job_pid" 2>/dev/null
  rm -rf "$work"
}
trap finish EXIT
fail() { echo "stranger_user: FAIL: $*"; cat "$work/out" 2>/dev/null; exit 1; }

# shellcheck source=held_job.sh
source "$(dirname "$0")/held_job.sh"
start_held_job "$ternrun" "$hold" "$work"
rank=$(pgrep -P "$job_pid" | head -1)
# What the stranger can know: the server's address (a listening port) and the
# job's public id (in the names of its sockets).
uris=$(tr '\0' '\n' <"/proc/$rank/environ" | grep '^PMIX_SERVER_URI' | tr '\n' ' ')
public_id=$(grep -o 'ternrun-[0-9]*-[0-9a-f]*' /proc/net/unix | head -1)
[[ -n $uris && -n $public_id ]] || fail "could not find the server's address or the job's public id"
# shellcheck disable=SC2086
env -i PATH=/usr/bin:/bin $uris PMIX_NAMESPACE="$public_id" PMIX_RANK=0 LD_PRELOAD="$fake_root" \
  timeout 20 setpriv --reuid=65534 --regid=65534 --clear-groups "$hold" "$work/never" >"$work/stranger" 2>&1
stranger=$?
grep -q "waiting for" "$work/stranger" && fail "the stranger joined the job: $(cat "$work/stranger")"
((stranger != 0)) || fail "the stranger's program exited 0"
# Refused at once, not left hanging in a half-made connection (exit 124).
((stranger != 124)) || fail "the stranger's PMIx_Init neither failed nor returned within 20 s"
grep -q "PMIx_Init failed" "$work/stranger" || fail "the stranger was not refused by the server: $(cat "$work/stranger")"
kill -0 "$job_pid" 2>/dev/null || fail "the job ended when the stranger knocked"
touch "$work/go"
wait "$job_pid" || fail "the job failed after the stranger was refused"
job_pid=""
echo "stranger_user: PASS (user nobody was refused as rank 0; the job finished well)"
