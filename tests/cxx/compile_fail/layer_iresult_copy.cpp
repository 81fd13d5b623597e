// An iresult is move-only: a copy would wait on (or free) the same request twice.
#include <anympi.hpp>
#include <vector>
void f() {
  auto r = anympi::irecv(std::vector<int>(4), 0, 0, MPI_COMM_WORLD);
  auto copy = r;
}
