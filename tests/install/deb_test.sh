#!/usr/bin/env bash
# The Debian package, end to end (root: it installs into /usr and removes again):
#   scripts/package builds it; dpkg -i installs it; plain mpicc, mpiexec and <mpi.h>'s folder keep
#   their meaning; mpicc.anympi / mpicxx.anympi, pkg-config and a CMake project (FindMPI, and
#   find_package(anympi) with no hint) build
#   programs that need no run path and run on both backends with mpiexec.anympi; anympi-info and
#   the man pages answer from /usr; chosen with update-alternatives, plain mpicc is anympi's;
#   dpkg -r removes every file it listed and every alternative, and plain mpicc is as before.
#   deb_test.sh <source-dir> <package-build-dir> <work-dir>
set -uo pipefail
src=$1 pkgbuild=$2 work=$3
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
step() { echo "== $*"; }

[[ $(id -u) -eq 0 ]] || { echo "FAIL: deb_test.sh installs a package: it must run as root"; exit 1; }
if dpkg-query -W -f='${Status}' anympi 2>/dev/null | grep -q installed; then
  echo "FAIL: a package anympi is installed already; remove it first (dpkg -r anympi)"; exit 1
fi
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
unset LD_LIBRARY_PATH CMAKE_PREFIX_PATH PKG_CONFIG_PATH MPI_HOME CC CXX ANYMPI_BACKEND ANYMPI_LAUNCHER ANYMPI_CHECK

# What plain mpicc, mpiexec and the mpi.h folder mean now, and the groups' modes.
meaning() {
  local l
  for l in /usr/bin/mpicc /usr/bin/mpicxx /usr/bin/mpiexec /usr/bin/mpirun "/usr/include/$multiarch/mpi" \
           "/usr/lib/$multiarch/pkgconfig/mpi.pc"; do
    echo "$l -> $(readlink -f "$l" 2>/dev/null)"
  done
  for g in mpi mpirun "mpi-$multiarch"; do
    update-alternatives --query "$g" 2>/dev/null | grep -E '^(Status|Value):' | sed "s/^/$g /"
  done
}
before=$(meaning)
plain_show_before=$(mpicc -show 2>&1)

step "scripts/package"
deb=$(ANYMPI_PACKAGE_BUILD_DIR=$pkgbuild "$src/scripts/package" "$work" | tail -1)
[[ -f $deb ]] || { echo "FAIL: scripts/package made no package ($deb)"; exit 1; }
fields=$(dpkg-deb -f "$deb" Depends Recommends)
[[ $fields == *"libmpich12 | libopenmpi3"* ]] || fail "Depends on one of the MPIs' runtimes: $fields"
[[ $fields == *"Recommends: libmpich12, libopenmpi3"* ]] || fail "Recommends both runtimes: $fields"

removed=no
cleanup() { [[ $removed == yes ]] || dpkg -r anympi >/dev/null 2>&1; }
trap cleanup EXIT

step "dpkg -i $(basename "$deb")"
dpkg -i "$deb" >"$work/dpkg-i.log" 2>&1 || { cat "$work/dpkg-i.log"; fail "dpkg -i"; exit 1; }
dpkg -L anympi >"$work/files"
for f in "/usr/lib/$multiarch/libmpi_abi.so.1" "/usr/lib/$multiarch/anympi/anympi_backend_mpich.so" \
         "/usr/lib/$multiarch/anympi/anympi_backend_openmpi.so" "/usr/include/$multiarch/anympi/mpi.h" \
         /usr/bin/mpicc.anympi /usr/bin/mpicxx.anympi /usr/bin/mpic++.anympi /usr/bin/mpiexec.anympi \
         /usr/bin/mpirun.anympi /usr/bin/anympi-info /usr/share/man/man1/mpicc.anympi.1.gz \
         /usr/share/man/man7/anympi.7.gz /usr/share/doc/anympi/README.md; do
  grep -qx "$f" "$work/files" || fail "the package lacks $f"
done
[[ -z $(grep -E '^/usr/bin/(mpicc|mpicxx|mpiexec|mpirun|mpic\+\+)$|^/usr/include/mpi' "$work/files") ]] ||
  fail "the package ships a plain MPI name"
# The cache is read whole before grep looks at it: grep -q stops at the first match, and under
# pipefail the SIGPIPE that ldconfig then gets (its listing is ~60 KiB) would fail the pipeline.
grep -q "libmpi_abi.so.1 .*=> .*/$multiarch/libmpi_abi.so.1" <<<"$(ldconfig -p)" || fail "the loader does not know libmpi_abi.so.1"
for g in mpi mpirun "mpi-$multiarch"; do
  q=$(update-alternatives --query "$g")
  [[ $q == *"Priority: 30"* && $q == *anympi* ]] || fail "alternatives group $g lacks anympi at priority 30: $q"
done
[[ $(meaning) == "$before" ]] || fail "installing changed plain mpicc/mpiexec: before
$before
after
$(meaning)"
[[ $(mpicc -show 2>&1) == "$plain_show_before" ]] || fail "plain mpicc -show changed"

cat >hello.c <<'EOF'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int rank, size, len, sum = 0;
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Get_library_version(lib, &len);
  printf("hello %d of %d, sum %d\n", rank, size, sum);
  if (rank == 0) printf("library: %s\n", lib);
  return MPI_Finalize();
}
EOF
cat >hello.cpp <<'EOF'
#include <mpi.hpp>
#include <cstdio>
#include <vector>
int main(int argc, char** argv) {
  mpi::environment env(argc, argv);
  auto comm = mpi::comm_world();
  std::vector<int> v{comm.rank()}, sum(1);
  mpi::allreduce(v, sum, std::plus<>{}, comm);
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len;
  MPI_Get_library_version(lib, &len);
  std::printf("hello %d of %d, sum %d\n", comm.rank(), comm.size(), sum[0]);
  if (comm.rank() == 0) std::printf("library: %s\n", lib);
}
EOF
mkdir -p cmake-project && cp hello.c hello.cpp cmake-project/
cat >cmake-project/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(findmpi C CXX)
find_package(MPI REQUIRED COMPONENTS C)
if(NOT MPI_C_VERSION VERSION_EQUAL 5.0 OR NOT MPIEXEC_EXECUTABLE STREQUAL "/usr/bin/mpiexec.anympi")
  message(FATAL_ERROR "FindMPI found MPI ${MPI_C_VERSION} and ${MPIEXEC_EXECUTABLE}")
endif()
add_executable(hello hello.c)
target_link_libraries(hello PRIVATE MPI::MPI_C)
# anympi's own package, found with no hint in the multiarch folder.
find_package(anympi REQUIRED COMPONENTS cxx)
if(NOT anympi_MPIEXEC STREQUAL "/usr/bin/mpiexec.anympi" OR NOT anympi_MPICC STREQUAL "/usr/bin/mpicc.anympi")
  message(FATAL_ERROR "find_package(anympi): ${anympi_MPIEXEC}, ${anympi_MPICC}")
endif()
add_executable(hello-cxx hello.cpp)
target_link_libraries(hello-cxx PRIVATE anympi::cxx)
EOF

# run_both <label> <binary>: needs libmpi_abi.so.1 and no run path; 2 ranks on each backend.
run_both() {
  local label=$1 exe=$2 b want out dyn
  dyn=$(readelf -d "$exe")
  [[ $dyn == *"Shared library: [libmpi_abi.so.1]"* ]] || fail "$label: does not need libmpi_abi.so.1"
  [[ $dyn != *RUNPATH* && $dyn != *RPATH* ]] || fail "$label: has a run path, the multiarch folder needs none"
  for b in mpich openmpi; do
    want=MPICH
    [[ $b == openmpi ]] && want="Open MPI"
    out=$(ANYMPI_BACKEND=$b timeout 60 mpiexec.anympi -n 2 "$(readlink -f "$exe")" 2>&1) || fail "$label on $b exits non-zero: $out"
    [[ $out == *"hello 0 of 2, sum 1"* && $out == *"hello 1 of 2, sum 1"* && $out == *"library: "*"$want"* ]] ||
      fail "$label on $b printed: $out"
  done
  echo "   $label: ran on mpich and openmpi"
}

step "mpicc.anympi, mpicxx.anympi, pkg-config, FindMPI"
mpicc.anympi -o hello-c hello.c && run_both mpicc.anympi hello-c || fail "mpicc.anympi"
mpicxx.anympi -std=c++20 -o hello-cxx hello.cpp && run_both mpicxx.anympi hello-cxx || fail "mpicxx.anympi"
[[ $(mpic++.anympi -show) == "$(mpicxx.anympi -show)" ]] || fail "mpic++.anympi is not mpicxx.anympi"
pc=$(pkg-config --cflags --libs anympi) || fail "pkg-config anympi"
pc=$(echo $pc)  # pkg-config ends with a space
[[ $pc == "-I/usr/include/$multiarch/anympi -lmpi_abi" ]] || fail "pkg-config anympi gives: $pc"
# shellcheck disable=SC2086
gcc -o hello-pc hello.c $pc && run_both pkg-config hello-pc || fail "pkg-config build"
if cmake -S cmake-project -B cmake-build -DMPI_C_COMPILER=/usr/bin/mpicc.anympi \
     -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.anympi >cmake.log 2>&1 && cmake --build cmake-build >>cmake.log 2>&1; then
  run_both FindMPI cmake-build/hello
  run_both "find_package(anympi)" cmake-build/hello-cxx
else
  cat cmake.log; fail "the CMake project with FindMPI"
fi

step "anympi-info and the man pages from /usr"
info=$(anympi-info --json) || fail "anympi-info"
python3 - "$info" <<'EOF' || fail "anympi-info --json from /usr"
import json, sys
d = json.loads(sys.argv[1])
a = d["anympi"]
assert a["prefix"] == "/usr" and a["mpiexec"] == "/usr/bin/mpiexec.anympi", a
assert [b["name"] for b in d["backends"] if b["usable"]] == ["mpich", "openmpi"], d["backends"]
assert d["launch"]["mpiexec"]["backend"] == "mpich", d["launch"]
EOF
for p in mpicc.anympi mpicxx.anympi mpiexec.anympi anympi-info anympi-typeinfo; do
  [[ $(man -w "$p" 2>/dev/null) == "/usr/share/man/man1/$p.1.gz" ]] || fail "man -w $p"
done
[[ $(man -w 7 anympi 2>/dev/null) == /usr/share/man/man7/anympi.7.gz ]] || fail "man -w 7 anympi"

step "chosen with update-alternatives, plain mpicc and mpiexec are anympi's"
update-alternatives --set mpi /usr/bin/mpicc.anympi >/dev/null && update-alternatives --set mpirun /usr/bin/mpirun.anympi >/dev/null ||
  fail "update-alternatives --set"
[[ $(mpicc -show hello.c) == *"-lmpi_abi"* && $(mpicxx -show) == *"-lmpi_abi"* ]] || fail "mpicc/mpicxx chosen: $(mpicc -show)"
[[ $(mpiexec --version 2>&1 | head -1) == "mpiexec (anympi "* ]] || fail "mpiexec chosen: $(mpiexec --version 2>&1 | head -1)"
[[ $(readlink -f /usr/share/man/man1/mpicc.1.gz) == /usr/share/man/man1/mpicc.anympi.1.gz ]] || fail "mpicc.1.gz chosen"
# Back to what it was (auto, or the user's own choice).
for g in mpi mpirun; do
  if grep -qx "$g Status: manual" <<<"$before"; then
    update-alternatives --set "$g" "$(sed -n "s/^$g Value: //p" <<<"$before")" >/dev/null
  else
    update-alternatives --auto "$g" >/dev/null
  fi
done
[[ $(meaning) == "$before" ]] || fail "back to the earlier choice: $(meaning)"

step "dpkg -r anympi"
dpkg -r anympi >"$work/dpkg-r.log" 2>&1 || { cat "$work/dpkg-r.log"; fail "dpkg -r"; }
removed=yes
while read -r f; do
  # Folders stay when other packages use them; every file and link must go.
  [[ -d $f && ! -L $f ]] && continue
  [[ -e $f || -L $f ]] && fail "left behind: $f"
done <"$work/files"
left=$(find /usr /etc/alternatives /var/lib/dpkg/alternatives -name '*anympi*' 2>/dev/null)
[[ -z $left ]] || fail "left behind: $left"
grep -l anympi /var/lib/dpkg/alternatives/* 2>/dev/null && fail "an alternatives group still names anympi"
grep -q libmpi_abi <<<"$(ldconfig -p)" && fail "the loader still knows libmpi_abi.so.1"
[[ $(meaning) == "$before" ]] || fail "after dpkg -r: $(meaning)"
[[ $(mpicc -show 2>&1) == "$plain_show_before" ]] || fail "plain mpicc -show after dpkg -r"

if ((failures)); then echo "deb: $failures failure(s)"; exit 1; fi
echo "deb: ok"
