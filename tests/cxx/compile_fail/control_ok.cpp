// The valid counterpart of the failure snippets.
#include <mpi.hpp>
#include <vector>
void f() {
  std::vector<int> v(4);
  mpi::send(v, 0, 0, MPI_COMM_WORLD);
  mpi::recv(v, 0, 0, mpi::comm_world());
}
