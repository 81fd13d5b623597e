// A nonblocking receive into a temporary: MPI would write into freed memory. Rejected.
#include <mpi.hpp>
#include <vector>
void f() {
  mpi::request r = mpi::irecv(std::vector<int>(4), 0, 0, MPI_COMM_WORLD);
  r.wait();
}
