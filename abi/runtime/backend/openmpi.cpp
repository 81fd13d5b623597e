// Open MPI 4.1: what the shared backend cannot read from mpi.h.
#include "backend.hpp"
#include <cstring>

namespace anympi::backend {
const char *const backend_name = "openmpi";

// Open MPI's status: the public fields, then _cancelled and a size_t _ucount (24 bytes);
// the two private fields take MPI_internal[0..2].
static_assert(sizeof(MPI_Status) == 24);
void save_hidden(const MPI_Status &n, int internal[5])
{
    internal[0] = n._cancelled;
    std::memcpy(&internal[1], &n._ucount, sizeof n._ucount);
}
void load_hidden(const int internal[5], MPI_Status &n)
{
    n._cancelled = internal[0];
    std::memcpy(&n._ucount, &internal[1], sizeof n._ucount);
}
// Open MPI 4.1 predates MPI_ERRORS_ABORT (MPI-4.0); MPI_ERRORS_ARE_FATAL is its nearest
// behaviour (it aborts all of MPI_COMM_WORLD rather than the communicator's group).
void native_fixups(uintptr_t *pre)
{
    pre[ABI_ERRORS_ABORT] = bits(MPI_ERRORS_ARE_FATAL);
}
}  // namespace anympi::backend
