// The cost of the mpi:: core: each loop twice, as the C call and as the mpi:: call that does the
// same, built natively against each MPI (bench/run's "C++ core" table). Instructions per call
// are the core's whole cost (callgrind is deterministic); times are reported but noisy.
//
//   cxx_core_bench time [scale]    per-call times
//   cxx_core_bench count [scale]   the same loops, one collected pass each, for callgrind
//
// Loop names are "<what>.c" and "<what>.cxx"; bench/run pairs them. Every loop works on
// MPI_PROC_NULL or MPI_COMM_SELF, so the MPI's own part is short and the core's share shows.
#include <mpi.hpp>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "measure.h"

namespace {

void loops(double scale) {
  long const n = counting ? 1000 : iterations(1000000, scale);
  std::vector<int> v(4, 1);
  int const vn = static_cast<int>(v.size());
  int x = 1, y = 0;
  MPI_Status st;
  MPI_Request r;
  mpi::comm_view const world = mpi::comm_world(), self = mpi::comm_self();

  MEASURE("send_vector.c", n, { MPI_Send(v.data(), vn, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD); });
  MEASURE("send_vector.cxx", n, { mpi::send(v, mpi::proc_null, 0, world); });

  MEASURE("recv_vector.c", n, {
    MPI_Recv(v.data(), vn, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    sink = st.MPI_SOURCE;
  });
  MEASURE("recv_vector.cxx", n, { sink = mpi::recv(v, mpi::proc_null, 0, world).source(); });

  MEASURE("isend_wait.c", n, {
    MPI_Isend(v.data(), vn, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  });
  MEASURE("isend_wait.cxx", n, { mpi::isend(v, mpi::proc_null, 0, world).wait(mpi::status_ignore); });

  MEASURE("allreduce_int.c", n, {
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
    sink = y;
  });
  MEASURE("allreduce_int.cxx", n, {
    mpi::allreduce(x, y, std::plus<>{}, self);
    sink = y;
  });

  // Whole-message collectives: the core divides the buffer's count by the peer count.
  MEASURE("allgather_int.c", n, {
    MPI_Allgather(&x, 1, MPI_INT, &y, 1, MPI_INT, MPI_COMM_SELF);
    sink = y;
  });
  MEASURE("allgather_int.cxx", n, {
    mpi::allgather(x, y, self);
    sink = y;
  });
  MEASURE("gather_int.c", n, {
    MPI_Gather(&x, 1, MPI_INT, &y, 1, MPI_INT, 0, MPI_COMM_SELF);
    sink = y;
  });
  MEASURE("gather_int.cxx", n, {
    mpi::gather(x, y, 0, self);
    sink = y;
  });
}

}  // namespace

int main(int argc, char** argv) {
  char const* mode = argc > 1 ? argv[1] : "time";
  double scale = argc > 2 ? std::atof(argv[2]) : 1.0;
  if (!(scale > 0)) scale = 1.0;
  check(MPI_Init(&argc, &argv), "MPI_Init");
  if (std::strcmp(mode, "count") == 0) counting = 1;
  else if (std::strcmp(mode, "time") != 0) {
    std::fprintf(stderr, "cxx_core_bench: unknown mode '%s' (time | count)\n", mode);
    MPI_Finalize();
    return 2;
  }
  loops(scale);
  std::fflush(stdout);
  MPI_Finalize();
  return 0;
}
