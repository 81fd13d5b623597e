// Open MPI 4.1: what the shared backend cannot read from mpi.h.
#include "backend.hpp"

#include <cstdlib>

namespace anympi::backend {
const char *const backend_name = "openmpi";

// Open MPI 4.1 predates MPI_ERRORS_ABORT (MPI-4.0); MPI_ERRORS_ARE_FATAL is its nearest
// behaviour (it aborts all of MPI_COMM_WORLD rather than the communicator's group).
void native_fixups(uintptr_t *pre)
{
    pre[ABI_ERRORS_ABORT] = bits(MPI_ERRORS_ARE_FATAL);
}

void past_direct_handles(void (*make)()) { make(); }

// Open MPI 4.1.4's treematch topology component hangs now and then in MPI_Dist_graph_create
// (every process spinning in ompi_comm_nextcid) once a few communicators exist -- natively too,
// and anympi's own (its MPI_COMM_SELF, its MPI_COMM_WORLD duplicate) make it likely.  Left out
// unless the program's environment chose the topology components: before the MPI reads its
// parameters, which may be the program's first MPI_T call.
[[gnu::constructor]] static void leave_out_treematch() { setenv("OMPI_MCA_topo", "^treematch", 0); }
}  // namespace anympi::backend
