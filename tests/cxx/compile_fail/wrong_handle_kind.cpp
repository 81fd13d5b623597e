// A group where a communicator is expected: rejected even under MPICH, where MPI_Group and
// MPI_Comm are both int.
#include <mpi.hpp>
#include <vector>
void f() {
  std::vector<int> v(4);
  mpi::group_view g{MPI_GROUP_EMPTY};
  mpi::send(v, 0, 0, g);
}
