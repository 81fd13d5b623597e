// A request-based put of a temporary: the vector is destroyed at the end of the statement,
// while MPI still reads it until the request completes. Rejected (the lvalue and view forms
// are in outlives_call_ok.cpp).
#include <mpi.hpp>
#include <vector>
void f(mpi::win_view w) {
  mpi::request r = w.rput(std::vector<int>(4, 1), {1, 0});
  r.wait();
}
