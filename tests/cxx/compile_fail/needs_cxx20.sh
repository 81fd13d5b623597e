#!/usr/bin/env bash
# <mpi.hpp> below C++20 stops with one #error that names the flag, whatever the compiler and
# however old the standard asked for; at C++20 the same file compiles.
#   needs_cxx20.sh <mpicxx> <source>
set -uo pipefail
mpicxx=$1 src=$2
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
for cxx in g++ clang++-16; do
  for std in "" -std=c++17 -std=gnu++14 -std=c++11; do
    what="$cxx ${std:-(its default)}"
    out=$(ANYMPI_CXX=$cxx "$mpicxx" $std -fsyntax-only "$src" 2>&1) && { fail "$what: compiled"; continue; }
    errors=$(grep -E "(error|fatal error):" <<<"$out")
    [[ $(grep -c "error: .*<mpi.hpp> needs C++20: compile with -std=c++20" <<<"$errors") == 1 ]] ||
      fail "$what: no single #error naming -std=c++20: $out"
    # the #error, then the stop; nothing from inside the headers or from the program
    [[ $(wc -l <<<"$errors") == 2 && $(tail -1 <<<"$errors") == *"fatal error:"*"see the #error above"* ]] ||
      fail "$what: more than the #error and the stop: $out"
  done
  ANYMPI_CXX=$cxx "$mpicxx" -std=c++20 -fsyntax-only "$src" || fail "$cxx -std=c++20 does not compile it"
done
((failures)) && { echo "needs_cxx20: $failures failure(s)"; exit 1; }
echo "needs_cxx20: ok"
