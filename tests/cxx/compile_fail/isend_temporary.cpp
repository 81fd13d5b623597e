// A nonblocking send of a temporary: the vector is destroyed at the end of the statement,
// while MPI still reads it. Rejected (the lvalue form is in outlives_call_ok.cpp).
#include <mpi.hpp>
#include <vector>
void f() {
  mpi::request r = mpi::isend(std::vector<int>(4, 1), 1, 0, MPI_COMM_WORLD);
  r.wait();
}
