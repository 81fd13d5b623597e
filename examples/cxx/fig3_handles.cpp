// Paper Fig. 3 (1)-(4): uniform use of communicators across native handles, non-owning
// views, owning RAII objects and user-defined types. The figure's lines are unchanged; the
// includes, main, MyComm, `sdata`'s initializer, dst/dest/tag and the receives are added.
// The figure uses both `dst` and `dest`; both are defined here. In (3) one line, the
// matching receive on the new communicator, is inserted between the figure's two lines.
#include <mpi.hpp>

#include <cstdio>
#include <vector>

// A user's own communicator wrapper, as an application might already have one.
class MyComm {
public:
  MyComm() : c_(MPI_COMM_WORLD) {}
  MPI_Comm mpi_communicator() const { return c_; }

private:
  MPI_Comm c_;
};

// ---- Fig. 3 (4), the specialization (namespace scope) ----
template<>
struct mpi::handle_traits<MyComm> {
static MPI_Comm handle(
MyComm const& comm) {
return comm.mpi_communicator();
}
};
// ---- end ----

int main(int argc, char** argv) {
  mpi::environment env(argc, argv);
  int const rank = mpi::comm_world().rank(), size = mpi::comm_world().size();
  int const dst = (rank + 1) % size, dest = dst, prev = (rank + size - 1) % size;
  int const tag = 3;
  std::vector<int> incoming(4);
  std::vector<mpi::request> pending;
  auto post = [&] { pending.push_back(mpi::irecv(incoming, prev, tag, MPI_COMM_WORLD)); };

  std::vector<int> sdata = {rank, 1, 2, 3};  // "= ...;" in the figure

  post();
  // ---- Fig. 3 (1) ----
  // (1) native MPI handle (baseline)
  mpi::send(sdata, dst,
  tag, MPI_COMM_WORLD);
  // ---- end ----
  pending.back().wait();
  if (incoming[0] != prev) return 1;

  post();
  // ---- Fig. 3 (2) ----
  // (2) non-owning view
  // (no lifetime semantics)
  mpi::comm_view cv {MPI_COMM_WORLD};
  mpi::send(sdata, dest, tag, cv);
  // ---- end ----
  pending.back().wait();
  if (incoming[0] != prev) return 1;

  // ---- Fig. 3 (3) ----
  // (3) owning RAII object
  // (lifetime-managed)
  mpi::comm c = cv.dup();
  mpi::request on_dup = mpi::irecv(incoming, prev, tag, c);  // inserted: the matching receive
  // (a receive on the new communicator can only be posted once it exists; without it every
  // process would block in a standard-mode send to its neighbour)
  mpi::send(sdata, dest, tag, c);
  // ---- end ----
  on_dup.wait();
  if (incoming[0] != prev) return 1;

  post();
  // ---- Fig. 3 (4), the use ----
  MyComm my_comm = MyComm{};  // "= ...;" in the figure
  mpi::send(sdata, dest,
  tag, my_comm);
  // ---- end ----
  pending.back().wait();
  if (incoming[0] != prev) return 1;
  if (rank == 0) std::printf("fig3 (1)-(4): native handle, view, owner, user type\n");
  return 0;
}
