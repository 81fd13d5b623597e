// MPICH 4.0: what the shared backend cannot read from mpi.h.
#include "backend.hpp"
#include <cstring>

namespace anympi::backend {
const char *const backend_name = "mpich";

// MPICH's status: count_lo, count_hi_and_cancelled, then the public fields.
static_assert(sizeof(MPI_Status) == 20);
void save_hidden(const MPI_Status &n, int internal[5])
{
    internal[0] = n.count_lo;
    internal[1] = n.count_hi_and_cancelled;
}
void load_hidden(const int internal[5], MPI_Status &n)
{
    n.count_lo = internal[0];
    n.count_hi_and_cancelled = internal[1];
}
void native_fixups(uintptr_t *) {}
}  // namespace anympi::backend
