// A nonblocking receive of unknown size: finding the count would block on a probe, so the
// layer's irecv refuses a deferred_count buffer (views::resize) instead of blocking.
#include <anympi.hpp>
#include <vector>
void f() {
  auto r = anympi::irecv(std::vector<int>{} | anympi::views::resize, 0, 0, MPI_COMM_WORLD);
  (void)r.wait();
}
