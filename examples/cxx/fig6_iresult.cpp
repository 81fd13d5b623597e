// Paper Fig. 6: a receive buffer moved into the iresult of a nonblocking irecv, out of reach
// until wait() hands it back. The figure's lines are unchanged but for the namespace
// (kamping::v2 -> anympi); the includes, main, rcount/source/tag and the matching send are added.
#include <anympi.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  mpi::environment env(argc, argv);
  auto comm = mpi::comm_world();
  int const me = comm.rank(), p = comm.size();
  int const source = (me + p - 1) % p, dest = (me + 1) % p, tag = 9;
  std::size_t const rcount = 3;

  // ---- Fig. 6 ----
  // rvalue receive buffer is moved to the returned iresult ...
  std::vector<int> rbuf(rcount);
  auto req = anympi::irecv(std::move(rbuf), source, tag, comm);
  // ... and is only moved back to caller after calling .wait()
  // ---- end ----
  mpi::send(std::vector<int>{me, me * 2, me * 3}, dest, tag, comm);
  // ---- Fig. 6 ----
  rbuf = req.wait();
  // ---- end ----

  if (rbuf != std::vector<int>{source, source * 2, source * 3}) {
    std::fprintf(stderr, "fig6: wrong data on rank %d\n", me);
    return 1;
  }
  if (me == 0) std::printf("fig6: irecv into a moved buffer, handed back by wait()\n");
  return 0;
}
