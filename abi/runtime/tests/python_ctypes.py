"""A Python interpreter (Debian's python3 names environ, as most executables do) loads
libmpi_abi.so.1 with ctypes -- the way mpi4py and other bindings built over the standard ABI
are loaded -- and runs MPI: init, rank/size, an allreduce, finalize."""
import ctypes
import os
import re
import sys

lib = ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
# The standard ABI's handle values, the same on every MPI, as the header defines them.
header = open(sys.argv[2]).read()
MPI_COMM_WORLD, MPI_INT, MPI_SUM = (
    ctypes.c_void_p(int(re.search(rf"#define {name} \(\(MPI_\w+\)(0x[0-9a-fA-F]+)\)", header).group(1), 16))
    for name in ("MPI_COMM_WORLD", "MPI_INT", "MPI_SUM"))
assert lib.MPI_Init(None, None) == 0, "MPI_Init"
rank, size, total = ctypes.c_int(-1), ctypes.c_int(-1), ctypes.c_int(-1)
assert lib.MPI_Comm_rank(MPI_COMM_WORLD, ctypes.byref(rank)) == 0
assert lib.MPI_Comm_size(MPI_COMM_WORLD, ctypes.byref(size)) == 0
mine = ctypes.c_int(rank.value + 1)
assert lib.MPI_Allreduce(ctypes.byref(mine), ctypes.byref(total), 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == 0
expected = size.value * (size.value + 1) // 2
os.environ["ANYMPI_PYTHON_TEST"] = "set after MPI_Init"  # the one environment still works
assert os.environ.get("ANYMPI_PYTHON_TEST") == "set after MPI_Init"
assert lib.MPI_Finalize() == 0, "MPI_Finalize"
if total.value != expected:
    sys.exit(f"rank {rank.value}: allreduce gave {total.value}, expected {expected}")
print(f"rank {rank.value} of {size.value}: ok")
