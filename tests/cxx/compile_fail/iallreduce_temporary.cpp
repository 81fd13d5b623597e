// A nonblocking collective with a temporary send buffer (the receive buffer is fine).
// Rejected.
#include <mpi.hpp>
#include <functional>
#include <vector>
void f() {
  std::vector<int> sum(4);
  mpi::request r = mpi::iallreduce(std::vector<int>(4, 1), sum, std::plus<>{}, MPI_COMM_WORLD);
  r.wait();
}
