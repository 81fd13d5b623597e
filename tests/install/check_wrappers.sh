#!/usr/bin/env bash
# Behaviour of anympi's build-tree mpicc, mpicxx and mpiexec.
#   check_wrappers.sh <case> <bindir> <libdir> <source-dir> <work-dir>
# Cases: show, override, compile, link, mpiexec-<backend>, mpiexec-errors, mpiexec-version,
# launch-mismatch.
set -uo pipefail
case_name=$1 bindir=$2 libdir=$3 srcdir=$4 work=$5
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
# expect_contains <what> <haystack> <needle>...
expect_contains() {
  local what=$1 hay=$2; shift 2
  for n in "$@"; do [[ $hay == *"$n"* ]] || fail "$what: '$n' missing in: $hay"; done
}
expect_lacks() {
  local what=$1 hay=$2; shift 2
  for n in "$@"; do [[ $hay != *"$n"* ]] || fail "$what: '$n' must not appear in: $hay"; done
}
finish() {
  if ((failures)); then echo "$case_name: $failures failure(s)"; exit 1; fi
  echo "$case_name: ok"; exit 0
}

mpicc=$bindir/mpicc mpicxx=$bindir/mpicxx mpiexec=$bindir/mpiexec
inc=$srcdir/abi/include
cxxinc=$srcdir/cxx/include
rpath="-Wl,-rpath,$libdir"
unset CC CXX MPICH_CC MPICH_CXX OMPI_CC OMPI_CXX ANYMPI_CC ANYMPI_CXX ANYMPI_WRAPPER_ACTIVE

cat >hello.c <<'EOF'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int rank = -1, size = -1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("hello %d of %d (MPI %d.%d)\n", rank, size, MPI_VERSION, MPI_SUBVERSION);
  MPI_Finalize();
  return 0;
}
EOF
cp hello.c hello.cpp

case $case_name in
show)
  out=$("$mpicc" -show hello.c -o hello) || fail "mpicc -show exits non-zero"
  expect_contains "mpicc -show" "$out" "-I$inc" "hello.c -o hello" "-L$libdir" "$rpath" \
    "-Wl,--enable-new-dtags" "-lmpi_abi"
  expect_lacks "mpicc -show" "$out" "$cxxinc" "-lmpich" "-lmpi " "mpi_cxx"
  # The user's arguments come before the libraries (static link order) and after the includes.
  [[ $out =~ -I.*hello\.c.*-lmpi_abi ]] || fail "mpicc -show order: $out"
  [[ $("$mpicc" -showme hello.c) == "$("$mpicc" -show hello.c)" ]] || fail "-showme differs from -show"

  out=$("$mpicxx" -show hello.cpp)
  expect_contains "mpicxx -show" "$out" "-I$inc" "-I$cxxinc" "hello.cpp" "-lmpi_abi" "$rpath"
  [[ $("$bindir/mpic++" -show) == "$("$mpicxx" -show)" ]] || fail "mpic++ differs from mpicxx"

  # Open MPI's queries: flags only, no compiler, no user arguments.
  out=$("$mpicc" -showme:compile hello.c)
  [[ $out == "-I$inc" ]] || fail "-showme:compile gives '$out'"
  out=$("$mpicc" -showme:link)
  [[ $out == "-L$libdir $rpath -Wl,--enable-new-dtags -lmpi_abi" ]] || fail "-showme:link gives '$out'"
  [[ $("$mpicc" --showme:compile) == "-I$inc" ]] || fail "--showme:compile (two dashes)"
  [[ $("$mpicc" -showme:incdirs) == "$inc" ]] || fail "-showme:incdirs"
  [[ $("$mpicxx" -showme:incdirs) == "$inc $cxxinc" ]] || fail "mpicxx -showme:incdirs"
  [[ $("$mpicc" -showme:libdirs) == "$libdir" ]] || fail "-showme:libdirs"
  [[ $("$mpicc" -showme:libs) == "mpi_abi" ]] || fail "-showme:libs"
  expect_contains "-showme:version" "$("$mpicc" -showme:version)" "anympi" "libmpi_abi.so.1"
  expect_contains "-showme:help" "$("$mpicc" -showme:help)" "-showme:compile" "-compile_info"
  # -v alone: MPICH's banner, then the compiler's own version output.
  out=$("$mpicc" -v 2>&1)
  expect_contains "mpicc -v" "$out" "mpicc for anympi" "libmpi_abi.so.1" "version"
  "$mpicc" -showme:nonsense >/dev/null 2>&1 && fail "an unknown -showme: query must fail"

  # MPICH's queries, both spellings (CMake's FindMPI uses the dashed ones).
  for q in -compile_info -compile-info; do
    out=$("$mpicc" $q hello.c)
    expect_contains "mpicc $q" "$out" "-I$inc" "hello.c"
    expect_lacks "mpicc $q" "$out" "-lmpi_abi"
  done
  for q in -link_info -link-info; do
    expect_contains "mpicc $q" "$("$mpicc" $q)" "-lmpi_abi" "$rpath"
  done

  # Compiling without linking gets no link flags (as with Open MPI's wrappers).
  for flag in -c -E -S; do
    out=$("$mpicc" -show $flag hello.c)
    expect_contains "mpicc -show $flag" "$out" "-I$inc"
    expect_lacks "mpicc -show $flag" "$out" "-lmpi_abi" "-rpath"
  done
  # Arguments with spaces are printed so a shell reads them back as one word.
  out=$("$mpicc" -show '-DGREETING="a b"' hello.c)
  eval "words=($out)"
  found=0
  for w in "${words[@]}"; do [[ $w == '-DGREETING="a b"' ]] && found=1; done
  ((found)) || fail "quoting of an argument with spaces: $out"
  ;;

override)
  first() { "$@" | awk '{print $1}'; }
  [[ $(first "$mpicc" -show) == "$(awk -F= '/^compiler=/{print $2; exit}' "$mpicc")" ]] ||
    fail "the default compiler is not the configured one"
  [[ $(CC=clang-16 first "$mpicc" -show) == clang-16 ]] || fail "CC not honoured"
  [[ $(CXX=clang++-16 first "$mpicxx" -show) == clang++-16 ]] || fail "CXX not honoured"
  [[ $(CC=clang-16 MPICH_CC=gcc-12 first "$mpicc" -show) == gcc-12 ]] || fail "MPICH_CC must beat CC"
  [[ $(CC=clang-16 OMPI_CC=gcc-12 first "$mpicc" -show) == gcc-12 ]] || fail "OMPI_CC must beat CC"
  [[ $(MPICH_CC=clang-16 ANYMPI_CC=gcc-12 first "$mpicc" -show) == gcc-12 ]] ||
    fail "ANYMPI_CC must beat MPICH_CC"
  [[ $(ANYMPI_CC=clang-16 first "$mpicc" -cc=gcc-12 -show) == gcc-12 ]] || fail "-cc= must win"
  [[ $(first "$mpicxx" -cxx=clang++-16 -show) == clang++-16 ]] || fail "-cxx= not honoured"
  # mpicc must not take CXX, nor mpicxx CC.
  [[ $(CXX=clang++-16 first "$mpicc" -show) != clang++-16 ]] || fail "mpicc used CXX"
  [[ $(CC=clang-16 first "$mpicxx" -show) != clang-16 ]] || fail "mpicxx used CC"
  # CC naming the wrapper itself (export CC=mpicc) must not recurse.
  out=$(CC=mpicc PATH="$bindir:$PATH" timeout 20 "$mpicc" -show)
  [[ $(awk '{print $1}' <<<"$out") != mpicc ]] || fail "CC=mpicc chose the wrapper itself: $out"
  CC=mpicc PATH="$bindir:$PATH" timeout 60 "$mpicc" -c hello.c -o self.o ||
    fail "CC=mpicc: compiling recursed or failed"
  CC="$mpicc" timeout 60 "$mpicc" -c hello.c -o self2.o || fail "CC=<path of mpicc> failed"
  # Another MPI's wrapper would link its own library next to libmpi_abi: not taken.
  for other in mpicc.mpich /usr/bin/mpicc.openmpi mpicc; do
    out=$(CC=$other "$mpicc" -show)
    [[ $out != "$other "* ]] || fail "CC=$other (another MPI's wrapper) was used: $out"
  done
  [[ $(CXX=mpicxx.openmpi "$mpicxx" -showme:command) != mpicxx.openmpi ]] || fail "CXX=mpicxx.openmpi was used"
  # A compiler given as several words (ccache gcc) is split like make does.
  out=$(CC="env cc" "$mpicc" -show hello.c)
  [[ $out == "env cc -I$inc hello.c "* ]] || fail "multi-word CC: $out"
  CC="env cc" "$mpicc" -c hello.c -o multi.o && [[ -s multi.o ]] || fail "multi-word CC compile"
  # The compiler really runs: clang-16 leaves its name in the object's .comment.
  if CC=clang-16 "$mpicc" -c hello.c -o clang.o; then
    readelf -p .comment clang.o | grep -q clang || fail "CC=clang-16 compiled with something else"
  else
    fail "CC=clang-16 mpicc -c failed"
  fi
  ;;

compile)
  # Against the standard header only; needs no runtime.
  "$mpicc" -Wall -Werror -c hello.c -o hello.o || fail "mpicc -c hello.c"
  [[ -s hello.o ]] || fail "no object"
  nm -u hello.o | grep -q ' MPI_Comm_rank$' || fail "hello.o does not call MPI_Comm_rank"
  "$mpicxx" -Wall -Werror -c hello.cpp -o hellocxx.o || fail "mpicxx -c hello.cpp"
  # C++ sees the C API with C linkage.
  nm -u hellocxx.o | grep -q ' MPI_Comm_rank$' || fail "hello.cpp: MPI_Comm_rank is not extern \"C\""
  ;;

link)
  "$mpicc" hello.c -o hello || fail "mpicc hello.c"
  dyn=$(readelf -d hello)
  expect_contains "NEEDED" "$dyn" "Shared library: [libmpi_abi.so.1]"
  expect_lacks "NEEDED" "$dyn" "libmpich" "libmpi.so"
  grep -q "(RUNPATH).*\[$libdir\]" <<<"$dyn" || fail "RUNPATH is not $libdir: $(grep -i path <<<"$dyn")"
  "$mpicxx" hello.cpp -o hellocxx || fail "mpicxx hello.cpp"
  readelf -d hellocxx | grep -q "(RUNPATH).*\[$libdir\]" || fail "mpicxx: no RUNPATH"
  # Runs without LD_LIBRARY_PATH: a singleton on each backend.
  for b in mpich openmpi; do
    out=$(env -u LD_LIBRARY_PATH ANYMPI_BACKEND=$b OMPI_ALLOW_RUN_AS_ROOT=1 \
          OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ./hello) || fail "singleton on $b exits non-zero"
    [[ $out == "hello 0 of 1 (MPI 5.0)" ]] || fail "singleton on $b prints '$out'"
  done
  ;;

mpiexec-mpich|mpiexec-openmpi)
  b=${case_name#mpiexec-}
  # Which launcher started the ranks: hydra sets PMI_RANK, Open MPI's sets OMPI_COMM_WORLD_RANK.
  probe='echo "backend=$ANYMPI_BACKEND pmi=${PMI_RANK:-} ompi=${OMPI_COMM_WORLD_RANK:-}"'
  out=$(ANYMPI_BACKEND=$b "$mpiexec" -n 4 sh -c "$probe" | sort) || fail "4 ranks on $b"
  n=$(grep -c "^backend=$b " <<<"$out")
  [[ $n == 4 ]] || fail "expected 4 ranks seeing ANYMPI_BACKEND=$b, got: $out"
  for r in 0 1 2 3; do
    if [[ $b == mpich ]]; then
      grep -q "pmi=$r ompi=$" <<<"$out" || fail "rank $r not started by hydra: $out"
    else
      grep -q "pmi= ompi=$r$" <<<"$out" || fail "rank $r not started by Open MPI: $out"
    fi
  done
  # The exit status passes through.
  ANYMPI_BACKEND=$b "$mpiexec" -n 1 sh -c 'exit 7' >/dev/null 2>&1
  rc=$?
  [[ $rc == 7 ]] || fail "exit status on $b: expected 7, got $rc"
  # MPIEXEC_TIMEOUT reaches the launcher: a 30 s job is stopped after about 2 s, non-zero.
  start=$SECONDS
  MPIEXEC_TIMEOUT=2 ANYMPI_BACKEND=$b "$mpiexec" -n 1 sleep 30 >/dev/null 2>&1
  rc=$?
  ((rc != 0)) || fail "a job stopped by MPIEXEC_TIMEOUT on $b exits 0"
  ((SECONDS - start < 20)) || fail "MPIEXEC_TIMEOUT=2 did not stop the job on $b ($((SECONDS - start)) s)"
  # A backend given as a path picks the launcher from its name.
  out=$(ANYMPI_BACKEND=/nowhere/anympi_backend_$b.so "$mpiexec" -n 1 sh -c "$probe")
  if [[ $b == mpich ]]; then
    [[ $out == *"pmi=0 ompi="* ]] || fail "path backend for mpich: $out"
  else
    [[ $out == *"pmi= ompi=0"* ]] || fail "path backend for openmpi: $out"
  fi
  [[ $out == "backend=/nowhere/anympi_backend_$b.so "* ]] || fail "path backend not exported: $out"
  if [[ $b == mpich ]]; then
    # Unset means MPICH, and the ranks are told so.
    out=$(env -u ANYMPI_BACKEND "$mpiexec" -n 1 sh -c "$probe")
    [[ $out == "backend=mpich pmi=0 ompi=" ]] || fail "default backend: $out"
  fi
  ;;

mpiexec-errors)
  err=$(ANYMPI_BACKEND=lam "$mpiexec" -n 1 true 2>&1)
  rc=$?
  ((rc != 0)) || fail "unknown backend must fail"
  expect_contains "unknown backend" "$err" "ANYMPI_BACKEND='lam'" "mpich" "openmpi"
  err=$(ANYMPI_BACKEND=/x/libmystery.so "$mpiexec" -n 1 true 2>&1)
  (($? != 0)) || fail "undecidable backend path must fail"
  expect_contains "undecidable backend" "$err" "ANYMPI_LAUNCHER"
  printf '#!/bin/sh\nprintf "%%s|" "$@"\n' >launcher && chmod +x launcher
  out=$(ANYMPI_BACKEND=/x/libmystery.so ANYMPI_LAUNCHER=$PWD/launcher "$mpiexec" -n 3 prog 'two words')
  [[ $out == "-n|3|prog|two words|" ]] || fail "ANYMPI_LAUNCHER with a custom backend: '$out'"
  # A launcher of unknown kind gets the environment only, whatever the backend.
  out=$(ANYMPI_BACKEND=openmpi ANYMPI_LAUNCHER=$PWD/launcher "$mpiexec" -n 1 prog)
  [[ $out == "-n|1|prog|" ]] || fail "ANYMPI_LAUNCHER of unknown kind: '$out'"
  # ANYMPI_LAUNCHER that cannot start the backend is refused before anything starts: the other
  # MPI's launcher (by name, through a link, or by what its --version says), no program, ourselves.
  printf '#!/bin/sh\n[ "$1" = --version ] && echo "HYDRA build details:" && exit 0\ntouch started\n' >site-launcher
  chmod +x site-launcher && ln -sf /usr/bin/mpiexec.openmpi mylauncher
  # refused <backend> <launcher> <expected words>...
  refused() {
    local b=$1 l=$2 start=$SECONDS; shift 2
    rm -f started
    err=$(ANYMPI_BACKEND=$b ANYMPI_LAUNCHER=$l timeout 30 "$mpiexec" -n 2 ./site-launcher 2>&1)
    rc=$?
    ((rc != 0 && rc != 124)) || fail "ANYMPI_LAUNCHER=$l with ANYMPI_BACKEND=$b: exit $rc"
    ((SECONDS - start < 30)) || fail "ANYMPI_LAUNCHER=$l took $((SECONDS - start)) s"
    [[ ! -e started ]] || fail "ANYMPI_LAUNCHER=$l with ANYMPI_BACKEND=$b started something"
    expect_contains "ANYMPI_LAUNCHER=$l with ANYMPI_BACKEND=$b" "$err" "ANYMPI_LAUNCHER='$l'" "Fix:" "$@"
  }
  refused openmpi mpiexec.mpich "is MPICH's launcher" "ANYMPI_BACKEND=openmpi runs Open MPI" "ANYMPI_BACKEND=mpich"
  refused mpich /usr/bin/mpiexec.openmpi "is Open MPI's launcher" "ANYMPI_BACKEND=mpich runs MPICH"
  refused mpich "$PWD/mylauncher" "is Open MPI's launcher"
  refused openmpi "$PWD/site-launcher" "is MPICH's launcher"
  refused mpich no-such-launcher "is not a program"
  refused mpich "$mpiexec" "is anympi's own mpiexec"
  # The matching launcher, named explicitly, is taken.
  out=$(ANYMPI_BACKEND=openmpi ANYMPI_LAUNCHER=mpiexec.openmpi "$mpiexec" -n 1 sh -c 'echo "$ANYMPI_BACKEND ${OMPI_COMM_WORLD_RANK:-}"' 2>&1)
  [[ $out == "openmpi 0" ]] || fail "ANYMPI_LAUNCHER=mpiexec.openmpi with ANYMPI_BACKEND=openmpi: $out"
  ;;

launch-mismatch)
  # A backend its launcher cannot start must stop every rank with one message naming both and
  # the fix, not run the ranks as separate jobs of one and exit 0 (the runtime checks this).
  "$mpicc" hello.c -o hello || fail "mpicc hello.c"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  # mismatch <backend> <launcher> <MPI of the backend> <MPI of the launcher>
  mismatch() {
    local b=$1 l=$2 mpi=$3 lmpi=$4 start=$SECONDS out rc n
    out=$(ANYMPI_BACKEND=$b timeout 30 "$l" -n 2 ./hello 2>&1)
    rc=$?
    ((rc != 0 && rc != 124)) || fail "ANYMPI_BACKEND=$b under $l: exit $rc (0 = ran silently, 124 = hung)"
    ((SECONDS - start < 30)) || fail "ANYMPI_BACKEND=$b under $l took $((SECONDS - start)) s"
    n=$(grep -c "^anympi: ANYMPI_BACKEND=$b runs $mpi, but $lmpi's launcher started this job" <<<"$out")
    [[ $n == 1 ]] || fail "ANYMPI_BACKEND=$b under $l: the message must appear once, not $n times: $out"
    expect_contains "ANYMPI_BACKEND=$b under $l" "$out" "every rank stops" "fix: start it with anympi's mpiexec"
    expect_lacks "ANYMPI_BACKEND=$b under $l" "$out" "hello 0 of"
  }
  mismatch openmpi mpiexec.mpich "Open MPI" MPICH
  mismatch mpich mpiexec.openmpi MPICH "Open MPI"
  mismatch "$libdir/anympi/anympi_backend_openmpi.so" mpiexec.mpich "Open MPI" MPICH
  mismatch "$libdir/anympi/anympi_backend_mpich.so" mpiexec.openmpi MPICH "Open MPI"
  # Controls: what matches still runs; unset follows the launcher; a singleton is not judged.
  for l in mpiexec.mpich mpiexec.openmpi; do
    out=$(env -u ANYMPI_BACKEND timeout 60 "$l" -n 2 ./hello 2>&1) || fail "ANYMPI_BACKEND unset under $l: $out"
    [[ $(grep -c "of 2 (MPI 5.0)" <<<"$out") == 2 ]] || fail "ANYMPI_BACKEND unset under $l: $out"
  done
  for b in mpich openmpi; do
    out=$(ANYMPI_BACKEND=$b timeout 60 "$mpiexec" -n 2 ./hello 2>&1) || fail "mpiexec on $b: $out"
    [[ $(grep -c "of 2 (MPI 5.0)" <<<"$out") == 2 ]] || fail "mpiexec on $b: $out"
    out=$(ANYMPI_BACKEND=$b timeout 60 ./hello 2>&1) || fail "singleton on $b: $out"
  done
  ;;

mpiexec-version)
  # --version and --help name anympi and the backend first, then the launcher's own text.
  for b in mpich openmpi; do
    [[ $b == mpich ]] && { mpi=MPICH own=HYDRA; } || { mpi="Open MPI" own=OpenRTE; }
    out=$(ANYMPI_BACKEND=$b timeout 30 "$mpiexec" --version 2>&1) || fail "mpiexec --version on $b exits non-zero"
    [[ $(head -1 <<<"$out") == "mpiexec (anympi "*"): the MPI-5.0 standard ABI (libmpi_abi.so.1) over $mpi" ]] ||
      fail "mpiexec --version on $b: first line: $out"
    expect_contains "mpiexec --version on $b" "$out" "backend   $b (set in ANYMPI_BACKEND)" "launcher  /" "$own"
    [[ $out == *"launcher  "*"$own"* ]] || fail "mpiexec --version on $b: the launcher's text must follow: $out"
    out=$(ANYMPI_BACKEND=$b timeout 30 "$mpiexec" --help 2>&1) || fail "mpiexec --help on $b exits non-zero"
    [[ $(head -1 <<<"$out") == "mpiexec (anympi "*") [launcher options] program [args]" ]] || fail "mpiexec --help on $b: $out"
    expect_contains "mpiexec --help on $b" "$out" "Now: $b (set in ANYMPI_BACKEND), that is $mpi" "ANYMPI_LAUNCHER"
    [[ $(wc -l <<<"$out") -gt 15 ]] || fail "mpiexec --help on $b: the launcher's help must follow: $out"
  done
  out=$(env -u ANYMPI_BACKEND "$mpiexec" --version 2>&1)
  expect_contains "mpiexec --version, ANYMPI_BACKEND unset" "$out" "over MPICH" "mpich (ANYMPI_BACKEND unset: the default)"
  ;;

*) echo "unknown case $case_name" >&2; exit 2 ;;
esac
finish
