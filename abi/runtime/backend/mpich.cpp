// MPICH 4.0: what the shared backend cannot read from mpi.h.
#include "backend.hpp"

namespace anympi::backend {
const char *const backend_name = "mpich";

void native_fixups(uintptr_t *) {}
}  // namespace anympi::backend
