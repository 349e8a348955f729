#!/usr/bin/env bash
# Checks a build-tree compiler wrapper (build/bin/ternc++, mpicc, ...):
#
#   wrapper_flags.sh <wrapper> <include dir> <library> [<source> <expected output>]
#
# -show prints the compiler with the include directory, the library
# directory and the library, and runs nothing; --showme:compile and
# --showme:link split those; -c/-E/-S/-M drop the link flags; without an input
# file (--version) the compiler runs bare. With a source, the wrapper builds it
# and the program must print <expected output>.
# TERN_TEST_LDFLAGS: link flags the build type needs (sanitizer runtimes).
set -euo pipefail

wrapper="${1:?usage: wrapper_flags.sh <wrapper> <include dir> <library> [<source> <expected>]}"
incdir="${2:?}"
lib="${3:?}"
source="${4:-}"
expected="${5:-}"
name="$(basename "$wrapper")"
read -r -a test_ldflags <<<"${TERN_TEST_LDFLAGS:-}"

failures=0
check() {  # check <description> <command output> <must contain...> [-- <must not contain...>]
  local what="$1" output="$2" word negate=0
  shift 2
  for word in "$@"; do
    if [[ "$word" == "--" ]]; then
      negate=1
      continue
    fi
    if ((negate == 0)) && [[ "$output" != *"$word"* ]]; then
      printf 'FAIL: %s: no "%s" in: %s\n' "$what" "$word" "$output" >&2
      failures=$((failures + 1))
    elif ((negate == 1)) && [[ "$output" == *"$word"* ]]; then
      printf 'FAIL: %s: unexpected "%s" in: %s\n' "$what" "$word" "$output" >&2
      failures=$((failures + 1))
    fi
  done
  printf 'ok: %s: %s\n' "$what" "$output"
}

[[ -x "$wrapper" ]] || { echo "FAIL: $wrapper is missing or not executable" >&2; exit 1; }

for show in -show --showme -showme; do
  check "$name $show" "$("$wrapper" "$show")" "-I$incdir" "-L" "-l$lib"
done
out="$("$wrapper" -show source.c -o program)"
check "$name -show source.c -o program" "$out" "-I$incdir" " source.c -o program " "-l$lib"
[[ "$out" == *"-I$incdir"*" source.c "*"-l$lib"* ]] ||
  { echo "FAIL: include flags must come before the sources and libraries after them: $out" >&2; failures=$((failures + 1)); }
for mode in -c -E -S -M; do
  check "$name -show $mode source.c" "$("$wrapper" -show "$mode" source.c)" "-I$incdir" "$mode" -- "-l$lib" "-L"
done
check "$name --showme:compile" "$("$wrapper" --showme:compile)" "-I$incdir" -- "-l$lib"
check "$name --showme:link" "$("$wrapper" --showme:link)" "-l$lib" "-L" -- "-I"
check "$name --showme:libs" "$("$wrapper" --showme:libs)" "$lib"
check "$name --showme:incdirs" "$("$wrapper" --showme:incdirs)" "$incdir"
check "$name --showme:version" "$("$wrapper" --showme:version)" "Tern"
check "$name --showme:help" "$("$wrapper" --showme:help)" "--showme:compile"
if "$wrapper" --showme:nonsense >/dev/null 2>&1; then
  echo "FAIL: $name --showme:nonsense succeeded" >&2
  failures=$((failures + 1))
fi
# No input file: the compiler alone (as Open MPI's wrappers do).
"$wrapper" --version >/dev/null || { echo "FAIL: $name --version failed" >&2; failures=$((failures + 1)); }
check "$name --showme:command with TERN_CC/TERN_CXX" \
  "$(TERN_CC=/opt/some-cc TERN_CXX=/opt/some-cc "$wrapper" --showme:command)" "/opt/some-cc"

if [[ -n "$source" ]]; then
  work="$(mktemp -d /tmp/tern-inst-wrapper-XXXXXX)"
  trap 'rm -rf "$work"' EXIT
  if ! "$wrapper" "$source" "${test_ldflags[@]}" -o "$work/program"; then
    echo "FAIL: $name $source did not build" >&2
    exit 1
  fi
  output="$(timeout 60 "$work/program" 2>&1)" || { echo "FAIL: the program exited non-zero: $output" >&2; exit 1; }
  check "$name-built program" "$output" "$expected"
fi

if ((failures > 0)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "PASS"
