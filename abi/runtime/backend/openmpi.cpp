// Open MPI 4.1: what the shared backend cannot read from mpi.h.
#include "backend.hpp"

namespace anympi::backend {
const char *const backend_name = "openmpi";

// Open MPI 4.1 predates MPI_ERRORS_ABORT (MPI-4.0); MPI_ERRORS_ARE_FATAL is its nearest
// behaviour (it aborts all of MPI_COMM_WORLD rather than the communicator's group).
void native_fixups(uintptr_t *pre)
{
    pre[ABI_ERRORS_ABORT] = bits(MPI_ERRORS_ARE_FATAL);
}

void past_direct_handles(void (*make)()) { make(); }
}  // namespace anympi::backend
