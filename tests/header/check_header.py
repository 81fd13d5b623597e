#!/usr/bin/env python3
"""The header is exactly the generator's output and declares exactly the standard's names.

Fails if regenerating abi/include/mpi.h gives any diff (someone edited it by hand, or the
generator changed without regenerating), or if the header defines a constant or declares a
function that the standard's tables do not have, or lacks one they have.
"""
import difflib
import os
import re
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(root, "abi", "gen"))
import gen_header  # noqa: E402
import spec  # noqa: E402

path = os.path.join(root, "abi", "include", "mpi.h")
committed = open(path).read()
fresh = gen_header.generate()
problems = []
if committed != fresh:
    diff = difflib.unified_diff(committed.splitlines(), fresh.splitlines(), "abi/include/mpi.h", "regenerated", lineterm="")
    problems.append("abi/include/mpi.h differs from the generator's output:\n" + "\n".join(list(diff)[:40]))

defined = set(re.findall(r"^#define (MPIX?_\w+) ", committed, re.M)) - set(spec.ABI_INTEGER_TYPES)
defined |= set(re.findall(r"^\s+(MPI_T_\w+) = ", committed, re.M))  # enum members
declared = set(re.findall(r"^\S+ (P?MPI_\w+)\(", committed, re.M))
want_consts = {c.name for c in spec.constants()}
want_funcs = {p + f.name for f in spec.functions() for p in ("", "P")}
for what, have, want in (("constant", defined, want_consts), ("function", declared, want_funcs)):
    for n in sorted(have - want):
        problems.append(f"the header has {what} {n}, which the standard does not")
    for n in sorted(want - have):
        problems.append(f"the header lacks {what} {n}")

if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"mpi.h: regenerates identically; {len(want_consts)} constants and {len(want_funcs)} functions, no more, no less")
