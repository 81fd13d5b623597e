// MPI writes into a receive buffer: a const one is rejected.
#include <mpi.hpp>
#include <vector>
void f() {
  std::vector<int> const v(4);
  mpi::recv(v, 0, 0, MPI_COMM_WORLD);
}
