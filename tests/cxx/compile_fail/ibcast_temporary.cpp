// std::array holds its elements inside itself: a temporary one is no view, and a
// nonblocking broadcast of it is rejected like a temporary vector.
#include <mpi.hpp>
#include <array>
void f() {
  mpi::request r = mpi::ibcast(std::array<int, 4>{}, 0, MPI_COMM_WORLD);
  r.wait();
}
