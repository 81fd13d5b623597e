// A std::list is not contiguous: it is not a data buffer.
#include <mpi.hpp>
#include <list>
void f() {
  std::list<int> l(4);
  mpi::send(l, 0, 0, MPI_COMM_WORLD);
}
