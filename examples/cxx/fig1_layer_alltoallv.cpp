// Paper Fig. 1 (2): the convenience layer's alltoallv with automatic count exchange and buffer
// resizing. The figure's lines are unchanged but for the namespace (kamping::v2 -> anympi);
// the includes, main, the "= ..." initializers and the check are added around them.
#include <anympi.hpp>

#include <cstdio>
#include <vector>

namespace views = anympi::views;

int main(int argc, char** argv) {
  mpi::environment env(argc, argv);
  auto comm = mpi::comm_world();
  int const me = comm.rank(), p = comm.size();
  // Process me sends me + q + 1 copies of 100 * me + q to process q.
  std::vector<int> local_init, counts_init;
  for (int q = 0; q < p; ++q) {
    counts_init.push_back(me + q + 1);
    local_init.insert(local_init.end(), me + q + 1, 100 * me + q);
  }

  // ---- Fig. 1 (2) ----
  std::vector<int> local = local_init, counts = counts_init, rbuf;
  anympi::alltoallv(local | views::with_counts(counts),
  rbuf | views::auto_counts | views::auto_displs | views::resize_v, comm);
  // ---- end ----

  std::vector<int> expect;
  for (int q = 0; q < p; ++q) expect.insert(expect.end(), q + me + 1, 100 * q + me);
  if (rbuf != expect) {
    std::fprintf(stderr, "fig1 (2): wrong data on rank %d\n", me);
    return 1;
  }
  if (me == 0) std::printf("fig1 (2): alltoallv with count exchange and resizing, %zu elements at rank 0\n", rbuf.size());
  return 0;
}
