#!/usr/bin/env python3
"""The exported symbols of libmpi_abi.so.1 are exactly the MPI_/PMPI_ functions of mpi.h."""
import re
import subprocess
import sys

lib, header = sys.argv[1], sys.argv[2]
text = open(header).read()
declared = set(re.findall(r"^\s*(?:int|double|MPI_\w+)\s+(P?MPI_\w+)\s*\(", text, flags=re.M))
out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
exported = set()
for line in out.splitlines():
    parts = line.split()
    if len(parts) >= 3 and parts[1] in "TtWwiDdBbRrVv" and not parts[2].startswith("MPI_ABI_1.0"):
        exported.add(parts[2].split("@")[0])
exported.discard("MPI_ABI_1.0")
missing = sorted(declared - exported)
extra = sorted(exported - declared)
print(f"header declares {len(declared)} functions, library exports {len(exported)} symbols")
if missing:
    print("declared but not exported:", " ".join(missing[:50]), "..." if len(missing) > 50 else "")
if extra:
    print("exported but not in the header:", " ".join(extra[:50]), "..." if len(extra) > 50 else "")
if len(declared) != 2 * 664:
    print(f"expected 1328 MPI_/PMPI_ functions in the header, found {len(declared)}")
    sys.exit(1)
sys.exit(1 if missing or extra else 0)
