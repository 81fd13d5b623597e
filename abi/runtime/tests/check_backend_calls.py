#!/usr/bin/env python3
"""No backend names an MPI function of the standard: it calls the native MPI only through the
pointers it resolves among its own dependencies at load (backend.hpp: native_call).  A name
left undefined in a backend would be bound in the global scope -- to anympi's own exports, or
to a PMPI tool's -- since the backend is loaded without RTLD_DEEPBIND."""
import re
import subprocess
import sys

header, backends = sys.argv[1], sys.argv[2:]
declared = set(re.findall(r"^\s*(?:int|double|MPI_\w+)\s+(P?MPI_\w+)\s*\(", open(header).read(), flags=re.M))
if len(declared) != 2 * 664:
    sys.exit(f"expected 1328 MPI_/PMPI_ functions in {header}, found {len(declared)}")
bad = 0
for so in backends:
    out = subprocess.run(["nm", "-D", "--undefined-only", so], check=True, capture_output=True, text=True).stdout
    named = sorted({line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()} & declared)
    print(f"{so}: {len(named)} standard MPI functions named")
    if named:
        print("  " + " ".join(named))
        bad += 1
sys.exit(1 if bad else 0)
