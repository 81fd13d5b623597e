// Paper Fig. 1 (1): "Core: STL containers work directly, no pointer extraction required".
// The figure is a fragment; the includes, main, the `...` initializer, dest/tag/comm and the
// matching receive are added around it. The figure's lines are unchanged.
#include <mpi.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  mpi::environment env(argc, argv);
  auto comm = mpi::comm_world();
  int const dest = (comm.rank() + 1) % comm.size();
  int const tag = 0;
  std::vector<double> incoming(3);
  mpi::request r = mpi::irecv(incoming, (comm.rank() + comm.size() - 1) % comm.size(), tag, comm);

  // ---- Fig. 1 (1) ----
  std::vector<double> v = {1.0 * comm.rank(), 2.0, 3.0};  // "= ...;" in the figure
  mpi::send(v, dest, tag, comm);
  // ---- end ----

  r.wait();
  int const prev = (comm.rank() + comm.size() - 1) % comm.size();
  if (incoming[0] != 1.0 * prev || incoming[2] != 3.0) {
    std::fprintf(stderr, "fig1: wrong data on rank %d\n", comm.rank());
    return 1;
  }
  if (comm.rank() == 0) std::printf("fig1 (1): sent std::vector<double> directly\n");
  return 0;
}
