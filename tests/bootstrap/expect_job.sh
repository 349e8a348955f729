#!/usr/bin/env bash
# Runs one job and judges it by its exit code and its output, both:
#   expect_job.sh [--within S] [--exit 0|fail] [--lines N ERE]... [--none ERE]... -- COMMAND...
#   --within S    the command must end within S seconds (60 by default): a
#                 job that fails by hanging until a time limit did not fail
#                 as it should
#   --exit 0      the command must exit 0 (the default)
#   --exit fail   it must exit non-zero, but not 124 (a time limit) nor by a
#                 signal that a hang ends with
#   --lines N ERE exactly N output lines must match ERE (a line per rank);
#                 +N: at least N
#   --none ERE    no output line may match ERE
# A sanitizer report anywhere in the output fails the job too.
# Prints the output, then what did not hold; exits 0 only when all did.
set -u
want_exit=0
within=60
declare -a counted=() patterns=() forbidden=()
while (($# > 0)); do
  case $1 in
    --within) within=$2; shift 2 ;;
    --exit) want_exit=$2; shift 2 ;;
    --lines) counted+=("$2"); patterns+=("$3"); shift 3 ;;
    --none) forbidden+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "expect_job.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
(($# > 0)) || { echo "expect_job.sh: no command" >&2; exit 2; }

output=$(mktemp "${TMPDIR:-/tmp}/tern-expect.XXXXXX")
trap 'rm -f "$output"' EXIT
timeout -k 5 "$within" "$@" >"$output" 2>&1
code=$?
cat "$output"

failed=0
if ((code == 124 || code == 137)); then
  echo "expect_job.sh: still running after ${within} s, ended"
  failed=1
elif [[ $want_exit == 0 ]]; then
  ((code == 0)) || { echo "expect_job.sh: exit code $code, expected 0"; failed=1; }
else
  ((code != 0)) || { echo "expect_job.sh: exit code 0, expected a failure"; failed=1; }
fi
for i in "${!patterns[@]}"; do
  seen=$(grep -cE -- "${patterns[$i]}" "$output")
  wanted=${counted[$i]}
  if [[ $wanted == +* ]] && ((seen >= ${wanted#+})); then
    continue
  elif [[ $wanted != +* ]] && ((seen == wanted)); then
    continue
  else
    echo "expect_job.sh: $seen lines match '${patterns[$i]}', expected ${counted[$i]}"
    failed=1
  fi
done
forbidden+=('(Address|Thread|Leak|UndefinedBehavior)Sanitizer|runtime error:')
for pattern in "${forbidden[@]}"; do
  if grep -qE -- "$pattern" "$output"; then
    echo "expect_job.sh: a line matches '$pattern', which must not appear"
    failed=1
  fi
done
exit $failed
