#!/usr/bin/env bash
# checked_run.sh [--expect ERE]... [--exit-code N|nonzero] [--hide ERE] -- COMMAND [ARGS...]
#
# Runs COMMAND (stdout and stderr together), shows its output, and decides
# whether it passed. It failed when
#   - its exit code is not the one expected: 0 by default; --exit-code N for
#     a command that must end with N; --exit-code nonzero for one that must
#     fail with any code but 124, the launchers' "time limit reached";
#   - a line matching an --expect extended regular expression is missing
#     (each --expect is checked on its own, line by line);
#   - a line reports a failure: the word FAIL or FAILED, as the test
#     programs print it;
#   - a sanitizer reported something (AddressSanitizer, LeakSanitizer,
#     ThreadSanitizer, MemorySanitizer or UndefinedBehaviorSanitizer), in any
#     process of the command, whatever the exit code.
# --hide ERE: lines matching it are checked but not shown (for chatty logs).
# Exits 0 when it passed; otherwise names every reason and exits 1. Bad
# arguments exit 2. ctest runs it through tern_checked_test (cmake/TernCheckedTest.cmake).
set -u

usage() {
  echo "usage: checked_run.sh [--expect ERE]... [--exit-code N|nonzero] [--hide ERE] -- COMMAND [ARGS...]" >&2
  exit 2
}

expects=()
expected_exit=0
hide=
while [[ $# -gt 0 ]]; do
  case $1 in
    --expect) [[ $# -ge 2 ]] || usage; expects+=("$2"); shift 2 ;;
    --exit-code) [[ $# -ge 2 ]] || usage; expected_exit=$2; shift 2 ;;
    --hide) [[ $# -ge 2 ]] || usage; hide=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "checked_run: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ $# -ge 1 ]] || usage
if [[ $expected_exit != nonzero && ! $expected_exit =~ ^[0-9]+$ ]]; then
  echo "checked_run: --exit-code '$expected_exit' is neither a number nor 'nonzero'" >&2
  usage
fi

# The output is shown as it comes (a test killed by its time limit still
# shows how far it got) and kept for the checks in a file that is unlinked
# at once, so that nothing stays behind whatever ends this script.
log=$(mktemp "${TMPDIR:-/tmp}/checked_run.XXXXXX") || exit 2
exec 4>"$log" 5<"$log"
rm -f -- "$log"
if [[ -n $hide ]]; then
  "$@" 2>&1 | tee /dev/fd/4 | grep -Ev --line-buffered -- "$hide"
else
  "$@" 2>&1 | tee /dev/fd/4
fi
exit_code=${PIPESTATUS[0]}
output=$(cat <&5)
exec 4>&- 5<&-

problems=()
if [[ $expected_exit == nonzero ]]; then
  if [[ $exit_code -eq 0 ]]; then
    problems+=("the command succeeded; it should have failed")
  elif [[ $exit_code -eq 124 ]]; then
    problems+=("the command reached its time limit (exit code 124) instead of failing")
  fi
elif [[ $exit_code -ne $expected_exit ]]; then
  problems+=("exit code $exit_code, expected $expected_exit")
fi
for expect in ${expects[@]+"${expects[@]}"}; do
  if ! grep -Eq -- "$expect" <<<"$output"; then
    problems+=("no line matches '$expect'")
  fi
done
failure=$(grep -Em1 -- '(^|[^[:alnum:]_])FAIL(ED)?([^[:alnum:]_]|$)' <<<"$output")
if [[ -n $failure ]]; then
  problems+=("a failure was reported: $failure")
fi
report=$(grep -Em1 -- '(ERROR|WARNING): [A-Za-z]+Sanitizer|SUMMARY: [A-Za-z]+Sanitizer|runtime error: ' <<<"$output")
if [[ -n $report ]]; then
  problems+=("a sanitizer reported: $report")
fi

if [[ ${#problems[@]} -ne 0 ]]; then
  for problem in "${problems[@]}"; do echo "checked_run: $problem" >&2; done
  exit 1
fi
echo "checked_run: passed (exit code $exit_code)"
exit 0
