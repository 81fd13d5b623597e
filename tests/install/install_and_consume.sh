#!/usr/bin/env bash
# Install-and-consume: installs the build into a fresh prefix, then builds tests/install/consumer
# against it through find_package(anympi) (C, and C++ with the bindings), find_package(MPI) with
# MPI_C_COMPILER (alone, and with MPIEXEC_EXECUTABLE) or MPI_HOME, pkg-config (CMake's module, and
# the flags of `pkg-config --cflags --libs anympi` alone) and the installed mpicc, and runs every binary as a singleton and with 2 ranks on each backend
# through the installed mpiexec. Last, the prefix is moved and used again (relocatable), also
# through a link to its library from another folder.
#   install_and_consume.sh <build-dir> <consumer-source> <work-dir> <cmake-generator> <c-compiler>
#                          <c++-compiler>
set -uo pipefail
build=$1 consumer=$2 work=$3 generator=$4 cc=$5 cxx=$6
backends=(mpich openmpi)

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
step() { echo "== $*"; }

rm -rf "$work" && mkdir -p "$work" || exit 1
prefix=$work/prefix
# Nothing from the build tree or the caller may leak in: the consumer sees only the prefix.
unset LD_LIBRARY_PATH CMAKE_PREFIX_PATH PKG_CONFIG_PATH MPI_HOME CC CXX ANYMPI_BACKEND

step "cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || {
  cat "$work/install.log"; echo "FAIL: cmake --install"; exit 1; }
for f in bin/mpicc bin/mpicxx bin/mpiexec bin/anympi-typeinfo bin/anympi-info include/mpi.h include/mpi.hpp lib/libmpi_abi.so.1 lib/libmpi_abi.so \
         lib/anympi/anympi_backend_mpich.so lib/anympi/anympi_backend_openmpi.so \
         lib/cmake/anympi/anympiConfig.cmake lib/cmake/anympi/anympiConfigVersion.cmake \
         lib/pkgconfig/anympi.pc; do
  [[ -e $prefix/$f ]] || fail "the install lacks $f"
done
((failures)) && { echo "install incomplete"; exit 1; }

# run_checks <label> <binary>: singleton on each backend, then 2 ranks on each backend.
run_checks() {
  local label=$1 exe=$2 b out dyn
  dyn=$(readelf -d "$exe")
  [[ $dyn == *"Shared library: [libmpi_abi.so.1]"* ]] || fail "$label: does not need libmpi_abi.so.1"
  [[ $dyn != *libmpich* && $dyn != *"libmpi.so"* ]] || fail "$label: linked to a native MPI"
  for b in "${backends[@]}"; do
    local want=MPICH
    [[ $b == openmpi ]] && want="Open MPI"
    out=$(ANYMPI_BACKEND=$b OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
          timeout 60 "$exe" 2>&1) || fail "$label: singleton on $b exits non-zero: $out"
    [[ $out == *"hello 0 of 1, sum 0"* ]] || fail "$label: singleton on $b printed: $out"
    [[ $out == *"library: "*"$want"* ]] || fail "$label: singleton on $b does not report $want: $out"
    out=$(ANYMPI_BACKEND=$b timeout 90 "$prefix/bin/mpiexec" -n 2 "$exe" 2>&1) ||
      fail "$label: mpiexec -n 2 on $b exits non-zero: $out"
    [[ $out == *"hello 0 of 2, sum 1"* && $out == *"hello 1 of 2, sum 1"* ]] ||
      fail "$label: 2 ranks on $b printed: $out"
    [[ $out == *"library: "*"$want"* ]] || fail "$label: 2 ranks on $b do not report $want: $out"
  done
  echo "   $label: ran on ${backends[*]} (1 and 2 ranks)"
}

# consume <label> <way> <extra cmake args...>
consume() {
  local label=$1 way=$2; shift 2
  local dir=$work/consumer-$label
  step "consumer through $label"
  if ! cmake -S "$consumer" -B "$dir" -G "$generator" -DCMAKE_C_COMPILER="$cc" \
        -DCONSUME="$way" -DEXPECT_PREFIX="$prefix" "$@" >"$dir.log" 2>&1 ||
     ! cmake --build "$dir" >>"$dir.log" 2>&1; then
    cat "$dir.log"; fail "consumer through $label does not configure and build"; return
  fi
  run_checks "$label" "$dir/hello"
}

consume find_package-anympi anympi -DCMAKE_PREFIX_PATH="$prefix"
consume find_package-anympi-cxx anympi-cxx -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx"
consume find_package-MPI-compiler MPI -DMPI_C_COMPILER="$prefix/bin/mpicc" -DEXPECT_MPIEXEC=OFF
consume find_package-MPI-home MPI -DMPI_HOME="$prefix"
# README's way with only the compiler wrapper given: name the launcher too.
consume find_package-MPI-compiler-mpiexec MPI -DMPI_C_COMPILER="$prefix/bin/mpicc" \
  -DMPIEXEC_EXECUTABLE="$prefix/bin/mpiexec"
PKG_CONFIG_PATH=$prefix/lib/pkgconfig consume pkg-config pkgconfig

step "pkg-config --cflags --libs anympi, nothing else"
pcflags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs anympi) || fail "pkg-config"
# shellcheck disable=SC2086
"$cc" -o "$work/hello-pkg-config" "$consumer/hello.c" $pcflags || fail "a build with pkg-config's flags alone"
readelf -d "$work/hello-pkg-config" | grep -q "(RUNPATH).*\[$prefix/lib/pkgconfig/../../lib\]" ||
  fail "pkg-config's flags give no RUNPATH to $prefix/lib: $(readelf -d "$work/hello-pkg-config" | grep PATH)"
run_checks pkg-config-flags "$work/hello-pkg-config"

step "the installed mpicc"
"$prefix/bin/mpicc" -o "$work/hello-mpicc" "$consumer/hello.c" || fail "installed mpicc"
readelf -d "$work/hello-mpicc" | grep -q "(RUNPATH).*\[$prefix/lib\]" || fail "installed mpicc: RUNPATH"
run_checks mpicc "$work/hello-mpicc"

step "the installed mpicxx (C++ bindings)"
"$prefix/bin/mpicxx" -std=c++20 -o "$work/hello-mpicxx" "$consumer/hello.cpp" || fail "installed mpicxx"
run_checks mpicxx "$work/hello-mpicxx"

step "relocated: the prefix moved to $work/moved"
mv "$prefix" "$work/moved" && prefix=$work/moved
"$prefix/bin/mpicc" -o "$work/hello-moved" "$consumer/hello.c" || fail "relocated mpicc"
readelf -d "$work/hello-moved" | grep -q "(RUNPATH).*\[$prefix/lib\]" || fail "relocated mpicc: RUNPATH"
run_checks "relocated mpicc" "$work/hello-moved"
# anympi-typeinfo runs over the installed runtime, on each backend, from the moved prefix.
for b in "${backends[@]}"; do
  out=$(ANYMPI_BACKEND=$b OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 60 \
        "$prefix/bin/anympi-typeinfo" 'resized(struct(double@0, double@16), lb=0, extent=32) * 3' --recv 'double * 6' 2>&1) ||
    fail "relocated anympi-typeinfo on $b exits non-zero: $out"
  [[ $out == *"6 × MPI_DOUBLE"* && $out == *compatible* ]] || fail "relocated anympi-typeinfo on $b printed: $out"
done
flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs anympi) || fail "relocated pkg-config"
# shellcheck disable=SC2086
"$cc" -o "$work/hello-pc" "$consumer/hello.c" $flags || fail "relocated pkg-config build"
run_checks "relocated pkg-config" "$work/hello-pc"
consume relocated-find_package-anympi anympi -DCMAKE_PREFIX_PATH="$prefix"

step "linked from elsewhere: the library reached through a symbolic link in another folder"
# as an alternatives-style install does: the backends are found beside the file, not the link
mkdir -p "$work/linked" && ln -sf "$prefix/lib/libmpi_abi.so.1" "$work/linked/libmpi_abi.so.1" &&
  ln -sf libmpi_abi.so.1 "$work/linked/libmpi_abi.so" || fail "links in $work/linked"
"$cc" -o "$work/hello-linked" "$consumer/hello.c" -I"$prefix/include" -L"$work/linked" -Wl,-rpath,"$work/linked" -lmpi_abi ||
  fail "a build against the linked library"
run_checks "linked library" "$work/hello-linked"

if ((failures)); then echo "install-and-consume: $failures failure(s)"; exit 1; fi
echo "install-and-consume: ok"
