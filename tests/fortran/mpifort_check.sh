#!/usr/bin/env bash
# mpifort_check.sh <bin dir> <source dir>: the Fortran wrappers print their
# command with -show and build programs that run under ternrun: an mpi_f08
# program with mpifort, a fixed-form mpif.h program with mpif77 (mpif90 is
# the same wrapper).
set -euo pipefail
bin=$1
sources=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Link flags the build type needs (sanitizer runtimes).
read -r -a ldflags <<<"${TERN_TEST_LDFLAGS:-}"

for wrapper in mpifort mpif90 mpif77; do
  echo "$wrapper -show: $("$bin/$wrapper" -show "$sources/hello_f08.f90" -o "$work/hello")"
done
"$bin/mpifort" -O2 -Wall -Werror "$sources/hello_f08.f90" "${ldflags[@]}" -o "$work/hello_f08"
"$bin/ternrun" --timeout 30 -n 2 "$work/hello_f08"
"$bin/mpif77" -O2 "$sources/hello77.f" "${ldflags[@]}" -o "$work/hello77"
"$bin/ternrun" --oversubscribe -x TERN_WAIT_MODE=block --timeout 30 -n 3 "$work/hello77"
