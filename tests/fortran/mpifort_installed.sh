#!/usr/bin/env bash
# mpifort_installed.sh <cmake> <build dir> <source dir>: installs the build
# into a temporary prefix, moves the prefix, and builds and runs an mpi_f08
# program with the installed mpifort, which must find mpif.h, the modules
# and the libraries from where it lies.
set -euo pipefail
cmake=$1
build=$2
sources=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Link flags the build type needs (sanitizer runtimes).
read -r -a ldflags <<<"${TERN_TEST_LDFLAGS:-}"

"$cmake" --install "$build" --prefix "$work/installed" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; echo "FAIL: cmake --install"; exit 1; }
mv "$work/installed" "$work/moved"
prefix="$work/moved"
for file in include/mpif.h include/mpi.mod include/mpi_f08.mod bin/mpifort bin/mpif90 bin/mpif77; do
  [[ -e "$prefix/$file" ]] || { echo "FAIL: $file is not installed"; exit 1; }
done
echo "installed mpifort -show: $("$prefix/bin/mpifort" -show "$sources/hello_f08.f90")"
"$prefix/bin/mpifort" "$sources/hello_f08.f90" "${ldflags[@]}" -o "$work/hello_f08"
"$prefix/bin/ternrun" --timeout 30 -n 2 "$work/hello_f08"
