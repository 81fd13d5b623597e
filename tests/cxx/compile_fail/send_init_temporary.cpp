// A persistent send of a temporary: every later start would read freed memory. Rejected.
#include <mpi.hpp>
#include <vector>
void f() {
  mpi::request r = mpi::send_init(std::vector<int>(4, 1), 1, 0, MPI_COMM_WORLD);
  r.start();
  r.wait();
}
