#!/usr/bin/env bash
# Installs a built Tern into a temporary prefix, moves the prefix (everything
# in it must find its own location), and builds and runs a program against it
# in every supported way:
#
#   install_package.sh engine   find_package(Tern) + Tern::engine, P/bin/ternc++, pkg-config tern-engine
#   install_package.sh mpi      find_package(Tern) + Tern::mpi, P/bin/mpicc, P/bin/mpicxx, pkg-config tern-mpi,
#                               and P/bin/ternrun -n 2 when ternrun was installed
#   install_package.sh shmem    find_package(Tern) + Tern::shmem, P/bin/oshcc, P/bin/oshcxx, pkg-config
#                               tern-shmem, and P/bin/oshrun -n 2 when it was installed
#
# Environment (set by tests/install/CMakeLists.txt):
#   TERN_BUILD_DIR     the build tree to install
#   TERN_SOURCE_DIR    the source tree (nothing installed may point into it)
#   TERN_CONSUMERS     tests/install/consumer
#   TERN_LIBDIR, TERN_BINDIR   install directories, relative to the prefix
#   TERN_CMAKE, TERN_PKG_CONFIG, CMAKE_GENERATOR, TERN_MAKE_PROGRAM   tools
#   TERN_CC, TERN_CXX  the build's compilers (also used by the wrappers)
#   TERN_TEST_LDFLAGS  link flags the build type needs (sanitizer runtimes)
set -euo pipefail

mode="${1:?usage: install_package.sh engine|mpi|shmem}"
build="${TERN_BUILD_DIR:?}"
source_dir="${TERN_SOURCE_DIR:?}"
consumers="${TERN_CONSUMERS:?}"
libdir="${TERN_LIBDIR:-lib}"
bindir="${TERN_BINDIR:-bin}"
cmake="${TERN_CMAKE:-cmake}"
pkg_config="${TERN_PKG_CONFIG:-pkg-config}"
export TERN_CC="${TERN_CC:-cc}" TERN_CXX="${TERN_CXX:-c++}"
read -r -a test_ldflags <<<"${TERN_TEST_LDFLAGS:-}"

work="$(mktemp -d /tmp/tern-inst-XXXXXX)"
# cmake --install rewrites the build tree's install_manifest.txt: the one from
# a real installation is put back afterwards.
manifest="$build/install_manifest.txt"
if [[ -f "$manifest" ]]; then
  cp -p "$manifest" "$work/install_manifest.txt"
fi
cleanup() {
  if [[ -f "$work/install_manifest.txt" ]]; then
    cp -p "$work/install_manifest.txt" "$manifest"
  else
    rm -f "$manifest"
  fi
  rm -rf "$work"
}
trap cleanup EXIT

step() { printf '\n== %s\n' "$*"; }
fail() {
  printf 'FAIL: %s\n' "$*" >&2
  exit 1
}
# Runs a command, showing its output only when it fails.
quiet() {
  local log="$work/step.log"
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    fail "$(printf '%q ' "$@")"
  fi
}
# Runs a program that must print `expected` and exit 0.
run_program() {
  local expected="$1"
  shift
  local output
  if ! output="$(timeout 60 "$@" 2>&1)"; then
    printf '%s\n' "$output" >&2
    fail "$* exited non-zero"
  fi
  printf '%s\n' "$output"
  grep -q -- "$expected" <<<"$output" || fail "$* did not print '$expected'"
}

step "cmake --install $build --prefix $work/staged"
quiet "$cmake" --install "$build" --prefix "$work/staged"
# Moved once installed: the CMake package, the pkg-config files and the
# wrappers must all find the prefix from where they lie.
mv "$work/staged" "$work/prefix"
prefix="$work/prefix"
echo "installed, then moved to $prefix"

step "nothing installed points into the build or source tree"
if grep -rIlF -e "$build" -e "$source_dir" "$prefix"; then
  fail "the files above name $build or $source_dir"
fi

generator_args=()
if [[ -n "${TERN_MAKE_PROGRAM:-}" ]]; then
  generator_args+=("-DCMAKE_MAKE_PROGRAM=$TERN_MAKE_PROGRAM")
fi
# find_package(Tern) + the given target, in a fresh build directory.
cmake_consumer() {
  local project="$1" program="$2" expected="$3"
  step "find_package(Tern) in $consumers/$project"
  quiet "$cmake" -S "$consumers/$project" -B "$work/cmake-$project" "${generator_args[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_COMPILER="$TERN_CC" -DCMAKE_CXX_COMPILER="$TERN_CXX" \
    -DCMAKE_EXE_LINKER_FLAGS="${TERN_TEST_LDFLAGS:-}"
  quiet "$cmake" --build "$work/cmake-$project"
  run_program "$expected" "$work/cmake-$project/$program"
}

# The installed wrapper reports the moved prefix, also called through a link.
check_installed_wrapper() {
  local wrapper="$prefix/$bindir/$1" lib="$2"
  step "$1 -show (installed)"
  [[ -x "$wrapper" ]] || fail "$wrapper is missing"
  local shown
  shown="$("$wrapper" -show)"
  echo "$shown"
  [[ "$shown" == *"-I$prefix/include"* ]] || fail "$1 -show lacks -I$prefix/include"
  [[ "$shown" == *"-L$prefix/$libdir"* ]] || fail "$1 -show lacks -L$prefix/$libdir"
  [[ "$shown" == *"-l$lib"* ]] || fail "$1 -show lacks -l$lib"
  ln -s "$wrapper" "$work/link-to-$1"
  [[ "$("$work/link-to-$1" --showme:incdirs)" == "$prefix/include" ]] ||
    fail "$1 called through a symbolic link does not find its prefix"
}

# A front end's program (valid C and C++) built every way from the moved
# prefix: find_package, the C and C++ wrappers, pkg-config; then run by the
# installed launcher with 2 ranks when it was installed.
front_end() {
  local name="$1" hello="$2" cc_wrapper="$3" cxx_wrapper="$4" target="$5" pc="$6" launcher="$7"
  local expected="$8" expected_two="$9"
  cp "$hello" "$work/hello-$name.cpp"
  cmake_consumer "$name" "${name}_consumer" "$expected"

  check_installed_wrapper "$cc_wrapper" "$target"
  step "$cc_wrapper hello.c (installed)"
  quiet "$prefix/$bindir/$cc_wrapper" "$hello" "${test_ldflags[@]}" -o "$work/hello-$cc_wrapper"
  run_program "$expected" "$work/hello-$cc_wrapper"
  check_installed_wrapper "$cxx_wrapper" "$target"
  step "$cxx_wrapper hello.cpp (installed)"
  quiet "$prefix/$bindir/$cxx_wrapper" "$work/hello-$name.cpp" "${test_ldflags[@]}" -o "$work/hello-$cxx_wrapper"
  run_program "$expected" "$work/hello-$cxx_wrapper"

  step "pkg-config --cflags --libs $pc"
  export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
  read -r -a pc_flags <<<"$("$pkg_config" --cflags --libs "$pc")"
  echo "${pc_flags[*]}"
  quiet "$TERN_CC" "$hello" "${pc_flags[@]}" "${test_ldflags[@]}" -o "$work/hello-$name-pkg-config"
  run_program "$expected" "$work/hello-$name-pkg-config"

  if [[ -x "$prefix/$bindir/$launcher" ]]; then
    step "$launcher -n 2 hello (installed)"
    run_program "$expected_two" "$prefix/$bindir/$launcher" -n 2 --timeout 50 "$work/hello-$cc_wrapper"
  fi
}

case "$mode" in
  engine)
    main="$consumers/engine/main.cpp"
    expected="tern engine consumer: ok"
    cmake_consumer engine engine_consumer "$expected"

    check_installed_wrapper ternc++ tern_engine
    step "ternc++ main.cpp (installed)"
    quiet "$prefix/$bindir/ternc++" "$main" "${test_ldflags[@]}" -o "$work/engine-ternc++"
    run_program "$expected" "$work/engine-ternc++"
    step "ternc++ -c, then ternc++ main.o (installed)"
    quiet "$prefix/$bindir/ternc++" -c "$main" -o "$work/main.o"
    quiet "$prefix/$bindir/ternc++" "$work/main.o" "${test_ldflags[@]}" -o "$work/engine-ternc++-2"
    run_program "$expected" "$work/engine-ternc++-2"

    step "pkg-config --cflags --libs tern-engine"
    export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
    read -r -a pc_flags <<<"$("$pkg_config" --cflags --libs tern-engine)"
    echo "${pc_flags[*]}"
    quiet "$TERN_CXX" -std=c++20 "$main" "${pc_flags[@]}" "${test_ldflags[@]}" -o "$work/engine-pkg-config"
    run_program "$expected" "$work/engine-pkg-config"
    ;;

  mpi)
    front_end mpi "$consumers/mpi/hello.c" mpicc mpicxx tern_mpi tern-mpi ternrun \
      "hello from rank 0 of 1" "hello from rank 1 of 2"
    ;;

  shmem)
    front_end shmem "$consumers/shmem/hello.c" oshcc oshcxx tern_shmem tern-shmem oshrun \
      "hello from PE 0 of 1" "hello from PE 1 of 2"
    ;;

  *)
    fail "unknown mode $mode"
    ;;
esac

step "PASS ($mode)"
