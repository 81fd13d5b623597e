#!/bin/sh
# A backend that cannot be loaded: one clear message naming what was tried, a non-zero exit
# (not a signal), and nothing else.  $1 = a program linked against libmpi_abi.
prog=$1
fail=0
check() { # $1 = ANYMPI_BACKEND value, $2 = text the message must contain
    out=$(ANYMPI_BACKEND="$1" "$prog" 2>&1)
    rc=$?
    if [ $rc -eq 0 ] || [ $rc -ge 128 ]; then echo "ANYMPI_BACKEND=$1: exit status $rc, want a plain failure"; fail=1; fi
    case "$out" in *"$2"*) ;; *) echo "ANYMPI_BACKEND=$1: message lacks '$2': $out"; fail=1 ;; esac
    case "$out" in *"ANYMPI_BACKEND=mpich|openmpi"*|*"ANYMPI_BACKEND=mpich, "*) ;; *) echo "ANYMPI_BACKEND=$1: message does not say how to fix it: $out"; fail=1 ;; esac
    lines=$(printf '%s\n' "$out" | grep -c '^anympi:')
    [ "$lines" -ge 1 ] || { echo "ANYMPI_BACKEND=$1: no anympi: message"; fail=1; }
}
check /nonexistent/anympi_backend_x.so "/nonexistent/anympi_backend_x.so"
check /etc/hostname "/etc/hostname"
check nosuchmpi "nosuchmpi"
[ $fail -eq 0 ] && echo "missing backend: clear message and non-zero exit in all cases"
exit $fail
