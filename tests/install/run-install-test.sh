#!/usr/bin/env bash
# run-install-test.sh BUILD_DIR SOURCE_DIR [CONFIG]
#
# Installs a finished Gannet build into a fresh temporary prefix, moves the installed tree
# elsewhere (a relocatable install must not care), and builds UPC++ programs against it in
# every supported way: the upcxx wrapper in each codemode and threadmode, compile-only and
# link-only steps, CMake projects using find_package(UPCXX) and find_package(Gannet),
# pkg-config, and upcxx-meta; each of them defines UPC++'s backend macros, turns a C++11 or
# C++14 build into C++17, and, when Gannet was built with MPI, builds an MPI hybrid program
# unchanged. Every installed header compiles on its own. Multi-rank programs run under the
# installed upcxx-run.
# Prints one line per check, the time `upcxx -O2 hello.cpp` takes, and exits non-zero at
# the first failure (showing that step's output). The temporary tree is always removed.
#
# CONFIG is the configuration to install for multi-config generators; $CMAKE_COMMAND
# names the cmake to use (default: cmake from PATH).
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 BUILD_DIR SOURCE_DIR [CONFIG]" >&2
  exit 2
fi
build_dir=$(readlink -f -- "$1")
source_dir=$(readlink -f -- "$2")
config=${3:-}
here="$source_dir/tests/install"
cmake=${CMAKE_COMMAND:-cmake}

# The modes under test are chosen explicitly below; the caller's settings must not leak in.
unset UPCXX_CODEMODE UPCXX_THREADMODE UPCXX_NETWORK UPCXX_CXX

work=$(mktemp -d "${TMPDIR:-/tmp}/gannet-install-test.XXXXXX")
cleanup() { rm -rf -- "$work"; }
trap cleanup EXIT
log="$work/step.log"
n_checks=0

section() { printf '\n== %s\n' "$*"; }
pass() { n_checks=$((n_checks + 1)); printf 'ok   %s\n' "$*"; }
fail() {
  printf 'FAIL %s\n' "$*" >&2
  if [[ -s $log ]]; then
    echo "---- output of the failing step:" >&2
    cat -- "$log" >&2
  fi
  exit 1
}
# run WHAT CMD...: runs CMD with its output in $log (stdout only: $log.err has stderr, both
# shown on failure); fails the test if CMD fails.
run() {
  local what=$1 rc=0
  shift
  "$@" >"$log" 2>"$log.err" || rc=$?
  if ((rc != 0)); then
    cat -- "$log.err" >>"$log"
    fail "$what: exit status $rc from: $(printf '%q ' "$@")"
  fi
}
# run_fails WHAT PATTERN CMD...: CMD must fail and say something matching PATTERN.
run_fails() {
  local what=$1 pattern=$2
  shift 2
  if "$@" >"$log" 2>&1; then fail "$what: succeeded, but should have failed"; fi
  grep -q -- "$pattern" "$log" || fail "$what: the error does not mention '$pattern'"
  pass "$what (rejected: $(head -n 1 "$log"))"
}
# Output lines of a multi-rank run come in any order; compare them sorted.
expect_lines() {
  local what=$1 expected=$2 got
  got=$(sort <"$log")
  [[ $got == "$(sort <<<"$expected")" ]] || fail "$what: got:"$'\n'"$got"$'\n'"expected:"$'\n'"$expected"
}
hello_expected() {  # the sorted output of hello on $1 ranks
  local r
  for ((r = 0; r < $1; r++)); do echo "Hello from rank $r of $1"; done
}
# Runs a program on N ranks under the installed launcher; a hung job fails instead of
# blocking the test run.
spmd() { local n=$1; shift; timeout 120 "$prefix/bin/upcxx-run" -n "$n" "$@"; }

# --- Install, then move --------------------------------------------------------------------
section "install $build_dir"
stage="$work/stage"
install_args=(--install "$build_dir" --prefix "$stage")
[[ -n $config ]] && install_args+=(--config "$config")
run "cmake --install" "$cmake" "${install_args[@]}"
pass "cmake --install into a fresh prefix"
prefix="$work/moved/prefix"
mkdir -p -- "$work/moved"
mv -- "$stage" "$prefix"
pass "installed tree moved from $stage to $prefix (all checks below use the moved tree)"

# Install dirs as this build configured them (lib may be lib64 on some systems).
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$build_dir/CMakeCache.txt"; }
libdir="$prefix/$(cache_value CMAKE_INSTALL_LIBDIR)"
[[ $libdir != "$prefix/" ]] || libdir="$prefix/lib"

for f in include/upcxx/upcxx.hpp include/upcxx/version.hpp include/gannet/exchange.hpp \
         include/upcxx/rput.hpp include/upcxx/future/when_all.hpp include/upcxx/backend/gasnet/runtime.hpp \
         bin/gannet-run bin/upcxx-run bin/upcxx bin/upcxx-meta; do
  [[ -e $prefix/$f ]] || fail "installed tree lacks $f"
done
for f in libgannet.a libgannet-smp.a libgannet.so cmake/Gannet/GannetConfig.cmake \
         cmake/Gannet/GannetConfigVersion.cmake cmake/Gannet/GannetTargets.cmake \
         cmake/UPCXX/UPCXXConfig.cmake cmake/UPCXX/UPCXXConfigVersion.cmake \
         pkgconfig/upcxx.pc pkgconfig/gannet.pc pkgconfig/upcxx-par.pc pkgconfig/gannet-par.pc; do
  [[ -e $libdir/$f ]] || fail "installed tree lacks ${libdir#"$prefix/"}/$f"
done
for f in gannet-run upcxx-run upcxx upcxx-meta upcxx-info; do
  [[ -x $prefix/bin/$f ]] || fail "bin/$f is not executable"
done
for f in share/gannet/examples/Makefile share/gannet/examples/demo.cpp share/doc/gannet/README.md \
         share/doc/gannet/docs/guide.md; do
  [[ -e $prefix/$f ]] || fail "installed tree lacks $f"
done
pass "layout: headers (with UPC++'s sub-header names, future/ and backend/), libgannet.a/-smp.a/.so, bin/{gannet-run,upcxx-run,upcxx,upcxx-meta,upcxx-info}, CMake packages, .pc files, examples, documents"

# No text file may name the build, source or original install tree: such a path would
# break once either is gone or the tree moves. (Binaries may carry source paths in debug
# information; that is harmless, so -I skips them.)
for p in "$build_dir" "$source_dir" "$stage"; do
  if grep -rIl -F -- "$p" "$prefix" >"$log"; then
    fail "installed text files name $p"
  fi
done
pass "relocatable: no installed text file names the build, source or staging directory"

upcxx="$prefix/bin/upcxx"
meta="$prefix/bin/upcxx-meta"
cxx=$("$meta" CXX)
mkdir -p -- "$work/run"
cd -- "$work/run"

# --- (a) hello world with the wrapper ------------------------------------------------------
section "upcxx wrapper: hello world"
run "upcxx -O2 hello.cpp" "$upcxx" -O2 "$here/hello.cpp" -o hello
run "upcxx-run -n 2 ./hello" spmd 2 ./hello
expect_lines "hello on 2 ranks" "$(hello_expected 2)"
pass "upcxx -O2 hello.cpp -o hello; upcxx-run -n 2 ./hello prints both ranks' greetings"
run "gannet-run -n 3 ./hello" timeout 120 "$prefix/bin/gannet-run" -n 3 ./hello
expect_lines "hello on 3 ranks" "$(hello_expected 3)"
pass "gannet-run -n 3 ./hello"

# --- (b) codemode and threadmode -----------------------------------------------------------
section "upcxx wrapper: codemode, threadmode, network"
# probe EXPECTED CMD...: builds codemode_probe.cpp with CMD and checks what it reports.
probe() {
  local expected=$1
  shift
  rm -f probe
  run "build the codemode probe with: $*" "$@" "$here/codemode_probe.cpp" -o probe
  run "run the codemode probe" ./probe
  local got
  got=$(cat -- "$log")
  [[ $got == "$expected" ]] || fail "$*: the probe says '$got', expected '$expected'"
  pass "$(printf '%s ' "${@/#"$prefix"\/bin\//}")-> $got"
}
opt="codemode=opt threadmode=seq optimized=yes asserts=0 backend=gasnet_seq"
debug="codemode=debug threadmode=seq optimized=no asserts=1 backend=gasnet_seq"
probe "$opt" "$upcxx" -O2
probe "$opt" "$upcxx"
probe "$debug" env UPCXX_CODEMODE=debug "$upcxx"
probe "$opt" env UPCXX_CODEMODE=debug "$upcxx" -codemode=opt
probe "$opt" env UPCXX_CODEMODE=O3 "$upcxx" -g
probe "$debug" "$upcxx" -g
probe "$opt" "$upcxx" -g -O2
probe "$debug" "$upcxx" -codemode=debug
probe "codemode=debug threadmode=seq optimized=yes asserts=1 backend=gasnet_seq" "$upcxx" -codemode=debug -O2
probe "codemode=opt threadmode=par optimized=yes asserts=0 backend=gasnet_par" "$upcxx" -threadmode=par
probe "codemode=debug threadmode=par optimized=no asserts=1 backend=gasnet_par" env UPCXX_THREADMODE=par UPCXX_CODEMODE=debug "$upcxx"
probe "$opt" env UPCXX_THREADMODE=par "$upcxx" -threadmode=seq
probe "codemode=opt threadmode=par optimized=yes asserts=0 backend=gasnet_par" "$upcxx" -DUPCXX_THREADMODE=1
probe "$opt" "$upcxx" -network=smp
probe "$opt" "$upcxx" -network=mpi
# GASNet's conduits, which UPC++ build scripts name: built as any other, with a note.
probe "$opt" "$upcxx" -network=udp
probe "$opt" env UPCXX_NETWORK=ibv "$upcxx"

# What the wrapper adds, read from -show: debug info in debug mode, -std=c++17 only when the
# user picks no standard, and -Wc, passes an argument the wrapper would otherwise take.
run "upcxx -show -codemode=debug" "$upcxx" -show -codemode=debug x.cpp
grep -q -- ' -g ' "$log" || fail "debug codemode does not add -g: $(cat -- "$log")"
grep -q -- ' -std=c++17 ' "$log" || fail "no -std=c++17 added when the user gives no standard: $(cat -- "$log")"
run "upcxx -show -std=gnu++23" "$upcxx" -show -std=gnu++23 x.cpp
grep -q -- '-std=c++' "$log" && fail "a -std= added despite the user's -std=gnu++23: $(cat -- "$log")"
run "upcxx -show -Wc,-help" "$upcxx" -show -Wc,-help x.cpp
grep -q -- ' -help ' "$log" || fail "-Wc,-help did not reach the compiler: $(cat -- "$log")"
pass "upcxx -show: debug adds -g; -std=c++17 unless the user chose a standard; -Wc,<arg> reaches the compiler"

run_fails "upcxx -network=pigeon" "not a UPC++ network" "$upcxx" -network=pigeon "$here/hello.cpp" -o bad
run_fails "UPCXX_NETWORK=pigeon upcxx" "not a UPC++ network" env UPCXX_NETWORK=pigeon "$upcxx" "$here/hello.cpp" -o bad
run_fails "upcxx -codemode=fast" "unknown codemode" "$upcxx" -codemode=fast "$here/hello.cpp" -o bad
run_fails "upcxx -threadmode=many" "unknown threadmode" "$upcxx" -threadmode=many "$here/hello.cpp" -o bad

run "upcxx -help" "$upcxx" -help
grep -q -- '-codemode=' "$log" || fail "upcxx -help does not describe -codemode"
pass "upcxx -help"
run "upcxx --version" "$upcxx" --version
head -n 1 -- "$log" | grep -q '^upcxx: Gannet [0-9.]*, UPC++ [0-9.]* API' || fail "upcxx --version names no Gannet and UPC++ version"
tail -n +2 -- "$log" >"$work/wrapper-version"
run "$cxx --version" "$cxx" --version
cmp -s -- "$log" "$work/wrapper-version" || fail "upcxx --version does not go on with $cxx --version"
pass "upcxx --version: Gannet's line, then $cxx's"
for tool in gannet-run upcxx-run upcxx-meta; do
  run "$tool --version" "$prefix/bin/$tool" --version
  grep -q "Gannet [0-9.]*, UPC++ [0-9.]* API" "$log" || fail "$tool --version names no Gannet and UPC++ version"
done
pass "gannet-run, upcxx-run and upcxx-meta --version"
for tool in gannet-run upcxx-run upcxx upcxx-meta upcxx-info; do
  run "$tool --help" "$prefix/bin/$tool" --help
  grep -qi "usage" "$log" || fail "$tool --help prints no usage"
done
grep -q "guide.md" <("$prefix/bin/gannet-run" --help) || fail "gannet-run --help does not point to the guide's list of environment variables"
pass "gannet-run, upcxx-run, upcxx, upcxx-meta and upcxx-info --help; gannet-run's names the guide"
run "upcxx -info" "$upcxx" -info
grep -q '^UPCXX_VERSION: *[0-9]\{8\}$' "$log" || fail "upcxx -info prints no UPCXX_VERSION line"
grep -q "^UPCXX_INSTALL: *$prefix\$" "$log" || fail "upcxx -info names another prefix than $prefix"
cp -- "$log" "$work/info"
run "upcxx-info" "$prefix/bin/upcxx-info"
cmp -s -- "$log" "$work/info" || fail "upcxx-info differs from upcxx -info"
pass "upcxx -info and upcxx-info print the installation's versions and paths"

# --- (c) compile-only, preprocess-only, and link-only --------------------------------------
section "upcxx wrapper: separate compile and link"
run "upcxx -c two_tu_main.cpp -o main.o" "$upcxx" -c "$here/two_tu_main.cpp" -o main.o
run "upcxx -c two_tu_part.cpp" "$upcxx" -c "$here/two_tu_part.cpp"
[[ -f main.o && -f two_tu_part.o ]] || fail "upcxx -c did not write the objects"
[[ ! -e a.out ]] || fail "upcxx -c linked a program (a.out)"
pass "upcxx -c a.cpp [-o a.o] compiles without linking"
run "upcxx main.o two_tu_part.o -o two" "$upcxx" main.o two_tu_part.o -o two
run "upcxx-run -n 3 ./two" spmd 3 ./two
expect_lines "two-object program" "two objects: rank sum 3"
pass "upcxx main.o two_tu_part.o -o two links; upcxx-run -n 3 ./two runs"
run "upcxx -E hello.cpp" "$upcxx" -E "$here/hello.cpp"
grep -q 'rank_me' "$log" || fail "upcxx -E output lacks the upcxx declarations"
run "upcxx -MM hello.cpp" "$upcxx" -MM "$here/hello.cpp"
grep -q 'hello.o:' "$log" || fail "upcxx -MM printed no dependency rule"
run "upcxx -S hello.cpp" "$upcxx" -S "$here/hello.cpp" -o hello.s
[[ -s hello.s ]] || fail "upcxx -S wrote no assembly"
pass "upcxx -E, -MM and -S run the compiler without linking"

# --- (c2) the language standard the user chose --------------------------------------------
# The public headers are C++17; UPC++ users commonly pass -std=c++17 (or later) themselves,
# and nothing the installation adds may override it.
section "C++17 and later programs"
for std in c++17 c++20; do
  rm -f two main.o
  run "upcxx -std=$std -c two_tu_main.cpp" "$upcxx" -std=$std -c "$here/two_tu_main.cpp" -o main.o
  run "upcxx -std=$std main.o two_tu_part.cpp -o two" "$upcxx" -std=$std main.o "$here/two_tu_part.cpp" -o two
  run "upcxx-run -n 3 ./two (-std=$std)" spmd 3 ./two
  expect_lines "two-object program, -std=$std" "two objects: rank sum 3"
  run "upcxx -std=$std -codemode=debug hello.cpp" "$upcxx" -std=$std -codemode=debug "$here/hello.cpp" -o hello-$std
  run "upcxx-run -n 2 ./hello-$std" spmd 2 ./hello-$std
  expect_lines "hello, -std=$std" "$(hello_expected 2)"
  run "upcxx -show -std=$std" "$upcxx" -show -std=$std x.cpp
  [[ $(grep -o -- '-std=[a-z+0-9]*' "$log") == "-std=$std" ]] || fail "upcxx -std=$std: the command has $(grep -o -- '-std=[a-z+0-9]*' "$log" | tr '\n' ' ')"
  pass "upcxx -std=$std: compile, link (two objects, debug and opt) and run; -std=$std is the only standard given"
done
# Older modes (UPC++ 2020.10 accepted C++11): built as C++17, with exactly one line on stderr.
rm -f hello-cxx11
run "upcxx -std=c++11 hello.cpp" "$upcxx" -std=c++11 "$here/hello.cpp" -o hello-cxx11
[[ $(wc -l <"$log.err") == 1 ]] && grep -q -- 'building as C++17.*-std=c++17 instead of -std=c++11' "$log.err" ||
  fail "upcxx -std=c++11: stderr is not the one line saying it builds as C++17: $(cat -- "$log.err")"
notice=$(cat -- "$log.err")
run "upcxx-run -n 2 ./hello-cxx11" spmd 2 ./hello-cxx11
expect_lines "hello, -std=c++11" "$(hello_expected 2)"
pass "upcxx -std=c++11 hello.cpp: builds as C++17 and runs; stderr: $notice"
for std in c++0x c++11 c++1y c++14 gnu++11 gnu++14 gnu++1y; do
  want=-std=c++17
  [[ $std == gnu* ]] && want=-std=gnu++17
  run "upcxx -show -std=$std -std=$std" "$upcxx" -show -std=$std -std=$std x.cpp
  [[ $(grep -o -- '-std=[a-z+0-9]*' "$log" | sort -u) == "$want" ]] ||
    fail "upcxx -std=$std: the command has $(grep -o -- '-std=[a-z+0-9]*' "$log" | tr '\n' ' ')"
  [[ $(wc -l <"$log.err") == 1 ]] || fail "upcxx -std=$std (twice): $(wc -l <"$log.err") lines on stderr, expected one"
done
pass "upcxx -std=c++0x|c++11|c++1y|c++14|gnu++11|gnu++14|gnu++1y: replaced by -std=c++17 (gnu: gnu++17), one stderr line"
# upcxx-meta and pkg-config give -std=c++17, so a build that says -std=c++11 first is C++17.
# shellcheck disable=SC2046
run "c++ -std=c++11 \$(upcxx-meta PPFLAGS) \$(upcxx-meta CXXFLAGS)" "$cxx" -std=c++11 $("$meta" PPFLAGS) $("$meta" CXXFLAGS) \
  -dM -E -x c++ "$here/hello.cpp"
grep -q '^#define __cplusplus 201703L' "$log" || fail "-std=c++11 followed by upcxx-meta flags is not C++17"
pass "c++ -std=c++11 \$(upcxx-meta PPFLAGS) \$(upcxx-meta CXXFLAGS): C++17"
run "upcxx-meta CXXFLAGS (for -std)" "$meta" CXXFLAGS
grep -q -- '-std=c++2' "$log" && fail "upcxx-meta CXXFLAGS forces a standard newer than C++17: $(cat -- "$log")"
meta_cxxflags=$(cat -- "$log")
run "upcxx-meta PPFLAGS (for -std)" "$meta" PPFLAGS
meta_ppflags=$(cat -- "$log")
# A user's -std=c++17 given before the meta flags stays in force: nothing in them overrides it.
# shellcheck disable=SC2086
run "compile -std=c++17 with upcxx-meta flags after it" "$("$meta" CXX)" -std=c++17 $meta_ppflags $meta_cxxflags \
  -dM -E -x c++ "$here/hello.cpp"
grep -q '^#define __cplusplus 201703L' "$log" || fail "-std=c++17 followed by upcxx-meta flags is not C++17"
pass "upcxx-meta CXXFLAGS ('$meta_cxxflags') leaves a user's -std=c++17 in force"
if command -v pkg-config >/dev/null; then
  run "pkg-config --cflags upcxx (for -std)" env PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags upcxx
  grep -q -- '-std=c++2' "$log" && fail "pkg-config upcxx Cflags forces a standard newer than C++17: $(cat -- "$log")"
  pc_cflags=$(cat -- "$log")
  # shellcheck disable=SC2086
  run "c++ -std=c++11 \$(pkg-config --cflags upcxx)" "$cxx" -std=c++11 $pc_cflags -dM -E -x c++ "$here/hello.cpp"
  grep -q '^#define __cplusplus 201703L' "$log" || fail "-std=c++11 followed by pkg-config upcxx Cflags is not C++17"
  pass "pkg-config upcxx Cflags ('$pc_cflags'): C++17 after a -std=c++11, no later standard forced"
fi
dir="$work/consumer-cxx17"
run "configure a consumer with CMAKE_CXX_STANDARD=17" \
  "$cmake" -S "$here/cmake-consumer" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 \
  -DCMAKE_CXX_STANDARD_REQUIRED=ON -DCMAKE_CXX_EXTENSIONS=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
run "build the C++17 consumer" "$cmake" --build "$dir" -j2 --target hello
grep -q -- '-std=c++17' "$dir/compile_commands.json" || fail "the C++17 consumer does not compile with -std=c++17"
grep -q -- '-std=c++2' "$dir/compile_commands.json" && fail "find_package(UPCXX) raised the consumer's standard above C++17"
run "run the C++17 consumer's hello" spmd 2 "$dir/hello"
expect_lines "C++17 consumer hello" "$(hello_expected 2)"
pass "find_package(UPCXX) with CMAKE_CXX_STANDARD=17: built as C++17, hello runs"
# A C++11 consumer: the target's cxx_std_17 makes CMake raise the standard itself.
dir="$work/consumer-cxx11"
run "configure a consumer with CMAKE_CXX_STANDARD=11" \
  "$cmake" -S "$here/cmake-consumer" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=11 \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
grep -q 'built as C++17' "$log" || fail "find_package(UPCXX) with CMAKE_CXX_STANDARD=11 does not say it builds as C++17"
run "build the C++11 consumer" "$cmake" --build "$dir" -j2 --target hello
grep -q -- '-std=gnu++17' "$dir/compile_commands.json" ||
  fail "the C++11 consumer does not compile as C++17: $(grep -o -- '-std=[a-z+0-9]*' "$dir/compile_commands.json" | sort -u | tr '\n' ' ')"
grep -q -- '-std=\(c\|gnu\)++11' "$dir/compile_commands.json" && fail "the C++11 consumer still has a C++11 flag"
run "run the C++11 consumer's hello" spmd 2 "$dir/hello"
expect_lines "C++11 consumer hello" "$(hello_expected 2)"
pass "find_package(UPCXX) with CMAKE_CXX_STANDARD=11: CMake raises it to C++17 (-std=gnu++17), says so, hello runs"

# --- (d) CMake consumers -------------------------------------------------------------------
section "CMake: find_package(UPCXX) and find_package(Gannet)"
# consumer PACKAGE BUILD_TYPE EXPECTED_PROBE [cmake -D options]: configures and builds
# cmake-consumer/ against the installed tree, runs its hello on 2 ranks and its probe.
consumer() {
  local package=$1 build_type=$2 expected=$3
  shift 3
  local dir="$work/consumer-$package-$build_type"
  run "configure the $package consumer ($build_type)" \
    "$cmake" -S "$here/cmake-consumer" -B "$dir" -DCMAKE_BUILD_TYPE="$build_type" \
    -DCONSUMER_PACKAGE="$package" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF "$@"
  local found
  found=$(sed -n "s/^${package}_DIR:PATH=//p" "$dir/CMakeCache.txt")
  [[ $(readlink -f -- "$found") == "$libdir/cmake/$package" ]] ||
    fail "find_package($package) found '$found', not the installed tree"
  run "build the $package consumer ($build_type)" "$cmake" --build "$dir" -j2
  run "run the $package consumer's hello" spmd 2 "$dir/hello"
  expect_lines "$package consumer hello" "$(hello_expected 2)"
  run "run the $package consumer's probe" "$dir/codemode_probe"
  [[ $(cat -- "$log") == "$expected" ]] ||
    fail "$package consumer ($build_type): the probe says '$(cat -- "$log")', expected '$expected'"
  pass "find_package($package) in a $build_type build: hello runs on 2 ranks; probe: $expected"
}
consumer UPCXX Release "$opt"
consumer Gannet Debug "$debug"
run "run hello linked with Gannet::gannet_shared" spmd 2 "$work/consumer-Gannet-Debug/hello_shared"
expect_lines "hello_shared" "$(hello_expected 2)"
pass "Gannet::gannet_shared: a program linked with the shared library runs"
# The par threadmode through the package variable: reconfigure, rebuild only the probe.
dir="$work/consumer-UPCXX-Release"
run "reconfigure the UPCXX consumer with UPCXX_THREADMODE=par" "$cmake" -DUPCXX_THREADMODE=par "$dir"
run "rebuild the probe" "$cmake" --build "$dir" --target codemode_probe
run "run the probe" "$dir/codemode_probe"
[[ $(cat -- "$log") == "codemode=opt threadmode=par optimized=yes asserts=0 backend=gasnet_par" ]] ||
  fail "UPCXX_THREADMODE=par: the probe says '$(cat -- "$log")'"
pass "find_package(UPCXX) with -DUPCXX_THREADMODE=par -> threadmode=par"

# --- (e) pkg-config ------------------------------------------------------------------------
section "pkg-config"
if command -v pkg-config >/dev/null; then
  for pc in upcxx gannet; do
    run "pkg-config --cflags --libs $pc" env PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs "$pc"
    flags=$(cat -- "$log")
    # Word splitting of $flags is intended: it is a list of compiler arguments.
    # shellcheck disable=SC2086
    run "$cxx hello.cpp \$(pkg-config --cflags --libs $pc)" "$cxx" "$here/hello.cpp" $flags -o "hello-pc-$pc"
    run "upcxx-run -n 2 ./hello-pc-$pc" spmd 2 "./hello-pc-$pc"
    expect_lines "hello built with pkg-config $pc" "$(hello_expected 2)"
    run "pkg-config --modversion $pc" env PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --modversion "$pc"
    pass "pkg-config $pc (version $(cat -- "$log")): $cxx hello.cpp $flags builds a working program"
  done
  for pc in upcxx upcxx-par gannet-par; do
    run "pkg-config --cflags --libs $pc" env PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs "$pc"
    flags=$(cat -- "$log")
    # shellcheck disable=SC2086
    run "$cxx codemode_probe.cpp \$(pkg-config --cflags --libs $pc)" "$cxx" "$here/codemode_probe.cpp" $flags -o probe-pc
    run "run the $pc probe" ./probe-pc
    want="codemode=opt threadmode=seq optimized=no asserts=0 backend=gasnet_seq"
    [[ $pc == *-par ]] && want="codemode=opt threadmode=par optimized=no asserts=0 backend=gasnet_par"
    [[ $(cat -- "$log") == "$want" ]] || fail "pkg-config $pc: the probe says '$(cat -- "$log")', expected '$want'"
    pass "pkg-config $pc: probe says $want"
  done
else
  echo "skip pkg-config checks: pkg-config is not installed"
fi

# --- (f) upcxx-meta ------------------------------------------------------------------------
section "upcxx-meta"
declare -A m  # query -> what upcxx-meta printed
for q in PPFLAGS CPPFLAGS CXXFLAGS LDFLAGS LIBS CXX CC GASNET_CONDUIT; do
  run "upcxx-meta $q" "$meta" "$q"
  m[$q]=$(cat -- "$log")
done
[[ ${m[CPPFLAGS]} == "${m[PPFLAGS]}" ]] || fail "upcxx-meta CPPFLAGS differs from PPFLAGS"
[[ ${m[GASNET_CONDUIT]} == smp ]] || fail "upcxx-meta GASNET_CONDUIT is '${m[GASNET_CONDUIT]}'"
[[ ${m[PPFLAGS]} == *-DUPCXX_CODEMODE=3* ]] || fail "upcxx-meta PPFLAGS lacks opt codemode: ${m[PPFLAGS]}"
# shellcheck disable=SC2086
run "compile with upcxx-meta flags" "${m[CXX]}" ${m[PPFLAGS]} ${m[CXXFLAGS]} -c "$here/hello.cpp" -o hello-meta.o
# shellcheck disable=SC2086
run "link with upcxx-meta flags" "${m[CXX]}" ${m[LDFLAGS]} hello-meta.o ${m[LIBS]} -o hello-meta
run "upcxx-run -n 2 ./hello-meta" spmd 2 ./hello-meta
expect_lines "hello built with upcxx-meta" "$(hello_expected 2)"
pass "\$(upcxx-meta CXX) \$(upcxx-meta PPFLAGS) \$(upcxx-meta CXXFLAGS) -c, then LDFLAGS/LIBS link: hello runs"
for q in PPFLAGS CXXFLAGS LDFLAGS LIBS; do
  printf '     %-9s %s\n' "$q" "${m[$q]}"
done

# The debug codemode as upcxx-meta sees it, checked with the probe.
run "UPCXX_CODEMODE=debug upcxx-meta PPFLAGS" env UPCXX_CODEMODE=debug "$meta" PPFLAGS
debug_pp=$(cat -- "$log")
run "UPCXX_CODEMODE=debug upcxx-meta CXXFLAGS" env UPCXX_CODEMODE=debug "$meta" CXXFLAGS
debug_cxx=$(cat -- "$log")
# shellcheck disable=SC2086
run "build the probe with debug upcxx-meta flags" "${m[CXX]}" $debug_pp $debug_cxx "$here/codemode_probe.cpp" -o probe-meta
run "run the probe" ./probe-meta
[[ $(cat -- "$log") == "$debug" ]] || fail "UPCXX_CODEMODE=debug upcxx-meta: the probe says '$(cat -- "$log")'"
run "UPCXX_THREADMODE=par upcxx-meta PPFLAGS" env UPCXX_THREADMODE=par "$meta" PPFLAGS
par_pp=$(cat -- "$log")
# shellcheck disable=SC2086
run "build the probe with par upcxx-meta flags" "${m[CXX]}" $par_pp ${m[CXXFLAGS]} "$here/codemode_probe.cpp" -o probe-meta
run "run the probe" ./probe-meta
[[ $(cat -- "$log") == "codemode=opt threadmode=par optimized=yes asserts=0 backend=gasnet_par" ]] ||
  fail "UPCXX_THREADMODE=par upcxx-meta: the probe says '$(cat -- "$log")'"
pass "upcxx-meta follows UPCXX_CODEMODE=debug (probe: debug) and UPCXX_THREADMODE=par (probe: par, backend=gasnet_par)"

# SET must be valid shell that reproduces the single queries.
run "upcxx-meta SET" "$meta" SET
(
  unset CXX CC PPFLAGS CPPFLAGS CXXFLAGS LDFLAGS LIBS GASNET_CONDUIT
  eval "$(cat -- "$log")"
  [[ $CXX == "${m[CXX]}" && $CC == "${m[CC]}" && $PPFLAGS == "${m[PPFLAGS]}" &&
     $CPPFLAGS == "${m[CPPFLAGS]}" && $CXXFLAGS == "${m[CXXFLAGS]}" && $LDFLAGS == "${m[LDFLAGS]}" &&
     $LIBS == "${m[LIBS]}" && $GASNET_CONDUIT == smp ]]
) || fail "eval \"\$(upcxx-meta SET)\" does not reproduce the single queries"
pass "eval \"\$(upcxx-meta SET)\" sets CXX CC PPFLAGS CPPFLAGS CXXFLAGS LDFLAGS LIBS GASNET_CONDUIT"
run_fails "upcxx-meta NONSENSE" "unknown query" "$meta" NONSENSE
run_fails "UPCXX_CODEMODE=fast upcxx-meta CXXFLAGS" "unknown codemode" env UPCXX_CODEMODE=fast "$meta" CXXFLAGS

# --- (f2) MPI hybrid programs ---------------------------------------------------------------
# With MPI built in, a program that includes <mpi.h> and calls MPI itself builds with every
# method unchanged, and runs under upcxx-run --mpi.
section "MPI hybrid program (#include <mpi.h>)"
if grep -q '^UPCXX_NETWORKS:.*mpi' "$work/info"; then
  # Open MPI's own allocations outlive MPI_Finalize: no leak check for these runs (as for
  # the mpi.* tests in a sanitizer build).
  mpi_env=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
           "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0")
  # hybrid_runs WHAT PROGRAM: runs PROGRAM on 3 ranks under MPI and checks its report.
  hybrid_runs() {
    run "upcxx-run --mpi -n 3 $2" "${mpi_env[@]}" timeout 120 "$prefix/bin/upcxx-run" --mpi -n 3 "$2"
    grep -q '^hybrid: 3 ranks, 6 values gathered, ok$' "$log" || fail "$1: the hybrid program reports: $(cat -- "$log")"
    pass "$1: builds with #include <mpi.h>, MPI_Init and MPI_Gatherv; runs on 3 ranks under upcxx-run --mpi"
  }
  run "upcxx mpi_hybrid.cpp" "$upcxx" -O2 "$here/mpi_hybrid.cpp" -o hybrid-wrapper
  hybrid_runs "upcxx wrapper" ./hybrid-wrapper
  # shellcheck disable=SC2086
  run "compile mpi_hybrid.cpp with upcxx-meta flags" "${m[CXX]}" ${m[PPFLAGS]} ${m[CXXFLAGS]} -c "$here/mpi_hybrid.cpp" -o hybrid-meta.o
  # shellcheck disable=SC2086
  run "link mpi_hybrid with upcxx-meta flags" "${m[CXX]}" ${m[LDFLAGS]} hybrid-meta.o ${m[LIBS]} -o hybrid-meta
  hybrid_runs "upcxx-meta" ./hybrid-meta
  if command -v pkg-config >/dev/null; then
    run "pkg-config --cflags --libs upcxx" env PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs upcxx
    flags=$(cat -- "$log")
    # shellcheck disable=SC2086
    run "$cxx mpi_hybrid.cpp \$(pkg-config --cflags --libs upcxx)" "$cxx" "$here/mpi_hybrid.cpp" $flags -o hybrid-pc
    hybrid_runs "pkg-config upcxx" ./hybrid-pc
  fi
  for built in consumer-UPCXX-Release consumer-Gannet-Debug; do
    [[ -x $work/$built/mpi_hybrid ]] || fail "the CMake consumer ($built) did not build mpi_hybrid although GANNET_MPI is set"
    hybrid_runs "CMake ($built)" "$work/$built/mpi_hybrid"
  done
else
  echo "skip: Gannet was built without MPI"
fi

# --- (f4) the installed examples and their Makefile -----------------------------------------
section "installed examples (share/gannet/examples)"
mkdir -p -- "$work/examples"
run "make -f .../share/gannet/examples/Makefile run RANKS=2" \
  make -C "$work/examples" -f "$prefix/share/gannet/examples/Makefile" run RANKS=2
grep -q '^demo: 2 ranks, .*: OK$' "$log" || fail "the installed demo, built with its Makefile, reports: $(cat -- "$log")"
run "make dht" make -C "$work/examples" -f "$prefix/share/gannet/examples/Makefile" dht
[[ -x $work/examples/dht ]] || fail "make dht built no dht"
pass "the installed Makefile builds the demo and dht with the installed wrapper; the demo runs on 2 ranks"

# --- (f5) one machine only: -network=smp links no MPI ---------------------------------------
section "upcxx -network=smp: libgannet-smp.a"
run "upcxx -network=smp hello.cpp" "$upcxx" -network=smp -O2 "$here/hello.cpp" -o hello-smp
run "upcxx-run -n 2 ./hello-smp" spmd 2 ./hello-smp
expect_lines "hello-smp on 2 ranks" "$(hello_expected 2)"
run "UPCXX_NETWORK=smp upcxx-meta LIBS" env UPCXX_NETWORK=smp "$meta" LIBS
grep -q 'libgannet-smp.a' "$log" || fail "UPCXX_NETWORK=smp upcxx-meta LIBS names no libgannet-smp.a: $(cat -- "$log")"
if grep -q '^UPCXX_NETWORKS:.*mpi' "$work/info"; then
  grep -qi 'mpi' "$log" && fail "UPCXX_NETWORK=smp upcxx-meta LIBS names MPI: $(cat -- "$log")"
  ldd ./hello-smp >"$log" 2>&1 || true
  grep -q 'libmpi' "$log" && fail "hello built with -network=smp links MPI: $(cat -- "$log")"
  ldd ./hello >"$log" 2>&1 || true
  grep -q 'libmpi' "$log" || fail "the default build of hello does not link MPI (so the check above proves nothing)"
  run_fails "mpirun -n 2 ./hello-smp" "linked without Gannet's MPI transport" \
    env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    timeout 120 "$prefix/bin/upcxx-run" --mpi -n 2 ./hello-smp
  pass "-network=smp: runs under upcxx-run, links no MPI library (the default build does), and under mpirun says how it was linked"
else
  pass "-network=smp: runs under upcxx-run (this build has no MPI, so both libraries are the same)"
fi

# --- (f3) every installed header on its own -------------------------------------------------
# Each public header, UPC++'s sub-header names included, compiles alone (-fsyntax-only) from
# the installed tree with the wrapper.
section "every installed header compiles on its own"
find "$prefix/include/upcxx" "$prefix/include/gannet" -name '*.hpp' -not -path '*/detail/*' | sort >headers.txt
n_headers=$(wc -l <headers.txt)
((n_headers > 60)) || fail "only $n_headers public headers installed"
# shellcheck disable=SC2016
if ! xargs -P 2 -I{} sh -c 'printf "#include \"%s\"\n" "$2" | "$1" -fsyntax-only -x c++ - 2>&1 || echo "FAILED: $2"' \
     sh "$upcxx" {} <headers.txt >"$log" 2>&1 || grep -q 'FAILED' "$log"; then
  fail "some installed headers do not compile on their own"
fi
pass "$n_headers installed headers (upcxx/, upcxx/future/, upcxx/backend/, gannet/) each compile alone"

# --- (g) programs written for each UPC++ release ------------------------------------------
# tests/compat/*.cpp are written the way users of UPC++ 2020.10 to today write them. Each is
# built with the installed wrapper, as such a user builds it, and run on 1, 2 and 4 ranks;
# rank 0 prints "<name>: OK" when every check passed.
section "programs written for UPC++ releases (tests/compat)"
compat_dir="$source_dir/tests/compat"
for src in "$compat_dir"/*.cpp; do
  [[ -e $src ]] || continue
  name=$(basename "$src" .cpp)
  run "upcxx -O2 $name.cpp" "$upcxx" -O2 -I"$compat_dir" "$src" -o "compat-$name"
  for n in 1 2 4; do
    run "upcxx-run -n $n ./compat-$name" spmd "$n" "./compat-$name"
    [[ $(grep -c -- "^$name: OK\$" "$log") == 1 ]] || fail "compat $name on $n ranks: no '$name: OK' line"
  done
  pass "compat $name: built with upcxx -O2, runs on 1, 2 and 4 ranks"
done

# --- (h) compile time ----------------------------------------------------------------------
section "compile time"
best_ms=
for _ in 1 2 3; do
  t0=$(date +%s%N)
  run "upcxx -O2 hello.cpp (timed)" "$upcxx" -O2 "$here/hello.cpp" -o hello-timed
  t1=$(date +%s%N)
  ms=$(((t1 - t0) / 1000000))
  if [[ -z $best_ms ]] || ((ms < best_ms)); then best_ms=$ms; fi
done
printf 'time upcxx -O2 hello.cpp -o hello (compile + link, best of 3): %d.%03d s\n' \
  $((best_ms / 1000)) $((best_ms % 1000))

printf '\nall %d install checks passed\n' "$n_checks"
