// Paper Fig. 5 (1): "std::views::take - send first n elements" -- a standard library view
// that stays contiguous is a data buffer as is. The includes, main, `data`'s initializer,
// n/dest/tag/comm and the receive are added around the figure line, which is unchanged.
#include <mpi.hpp>

#include <cstdio>
#include <ranges>
#include <vector>

int main(int argc, char** argv) {
  mpi::environment env(argc, argv);
  auto comm = mpi::comm_world();
  int const me = comm.rank(), p = comm.size();
  int const dest = (me + 1) % p, prev = (me + p - 1) % p, tag = 5;
  std::size_t const n = 2;
  std::vector<double> data = {10.0 * me, 1.0, 2.0, 3.0};  // "= ...;" in the figure
  std::vector<double> got(n, -1.0);
  mpi::request r = mpi::irecv(got, prev, tag, comm);

  // ---- Fig. 5 (1) ----
  mpi::send(data | std::views::take(n), dest, tag, comm);
  // ---- end ----

  mpi::status st = r.wait();
  if (st.count<double>() != MPI_Count(n) || got[0] != 10.0 * prev || got[1] != 1.0) {
    std::fprintf(stderr, "fig5: wrong data on rank %d\n", me);
    return 1;
  }
  if (me == 0) std::printf("fig5 (1): std::views::take as a send buffer\n");
  return 0;
}
