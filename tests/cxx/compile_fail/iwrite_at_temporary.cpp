// A nonblocking file write of a temporary: the vector is destroyed at the end of the
// statement, while MPI still reads it until the request completes. Rejected (the lvalue and
// view forms are in outlives_call_ok.cpp).
#include <mpi.hpp>
#include <vector>
void f(mpi::file_view fh) {
  mpi::request r = fh.iwrite_at(0, std::vector<int>(4, 1));
  r.wait();
}
