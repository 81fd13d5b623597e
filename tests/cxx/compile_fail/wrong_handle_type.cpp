// Something that is no MPI handle at all where a communicator is expected.
#include <mpi.hpp>
#include <vector>
void f() {
  std::vector<int> v(4);
  double not_a_comm = 0;
  mpi::send(v, 0, 0, not_a_comm);
}
