// The headers every call needs bring no <string> (std_parts.hpp, docs/cxx-core.md: it was a
// seventh of what bench/compile_tu.cpp cost to compile); libstdc++'s <string> defines
// _GLIBCXX_STRING. A program that reads a communicator's name includes <string> itself, and
// the names it sets are views.
#include <mpi/collectives.hpp>
#include <mpi/point_to_point.hpp>
#if defined(__GLIBCXX__) && defined(_GLIBCXX_STRING)
#error "<mpi/point_to_point.hpp> or <mpi/collectives.hpp> includes <string>"
#endif

#include <string>

void names() {
  mpi::comm_view const world = mpi::comm_world();
  world.set_name(std::string_view("abc"));
  std::string const n = world.name();
  (void)n;
}
