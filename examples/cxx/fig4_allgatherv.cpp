// Paper Fig. 4: the concept-based implementation of allgatherv, compiled unchanged as a
// user-side function (in namespace `fig4`, so it does not collide with mpi::allgatherv)
// and called with an mpi::mpi_span_v receive buffer. The includes, namespace and main are
// added around the figure.
#include <mpi.hpp>

#include <cstdio>
#include <numeric>
#include <vector>

namespace fig4 {
// ---- Fig. 4 ----
template <
mpi::send_buffer SBuf,
mpi::recv_buffer_v RBuf,
mpi::convertible_to_mpi_handle<MPI_Comm> Comm>
void allgatherv(SBuf&& sbuf, RBuf&& rbuf, Comm const& comm) {
int err = MPI_Allgatherv(mpi::ptr(sbuf), mpi::count(sbuf), mpi::type(sbuf),
mpi::ptr(rbuf),
std::ranges::data(mpi::counts(rbuf)),
std::ranges::data(mpi::displs(rbuf)),
mpi::type(rbuf),
mpi::handle(comm)
);
if (err != MPI_SUCCESS) {
throw mpi::mpi_error{err};
}
}
// ---- end ----
}  // namespace fig4

int main(int argc, char** argv) {
  mpi::environment env(argc, argv);
  auto comm = mpi::comm_world();
  int const p = comm.size(), me = comm.rank();
  std::vector<int> counts(p), displs(p);
  for (int i = 0; i < p; ++i) counts[i] = i + 1;  // process i contributes i+1 elements
  std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), 0);
  std::vector<int> mine(me + 1, me), all(displs.back() + counts.back(), -1);
  fig4::allgatherv(mine, mpi::mpi_span_v(all, counts, displs), comm);
  for (int i = 0; i < p; ++i)
    for (int k = 0; k < counts[i]; ++k)
      if (all[displs[i] + k] != i) {
        std::fprintf(stderr, "fig4: wrong data on rank %d\n", me);
        return 1;
      }
  if (me == 0) std::printf("fig4: the paper's allgatherv over mpi_span_v\n");
  return 0;
}
