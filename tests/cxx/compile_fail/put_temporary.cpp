// Even the put without a request reads its origin until a later synchronization completes
// it (MPICH queues a locked epoch's puts until the unlock): a temporary is rejected.
#include <mpi.hpp>
#include <vector>
void f(mpi::win_view w) {
  w.lock(mpi::lock_type::shared, 1);
  w.put(std::vector<int>(4, 1), {1, 0});
  w.unlock(1);
}
