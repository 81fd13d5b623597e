// Control for the layer's failure cases: the same calls, written as the layer allows them.
#include <anympi.hpp>
#include <vector>
void f() {
  std::vector<int> v(4);
  auto r = anympi::irecv(v | anympi::views::with_count(2), 0, 0, MPI_COMM_WORLD);
  auto moved = std::move(r);
  moved.wait();
  auto [w, st] = anympi::recv(std::vector<int>{} | anympi::views::resize, 0, 0, MPI_COMM_WORLD);
  (void)st;
  auto deferred = anympi::irecv(std::vector<int>{} | anympi::views::resize, 0, 0, MPI_COMM_WORLD);
  (void)deferred.wait();
}
