// Compiled against anympi's standard mpi.h (handles are pointers to incomplete structs
// there): the datatype library must build over it as it does over MPICH and Open MPI.
// Built, not run: running needs libmpi_abi, which the ABI tests exercise.
#include <mpi.h>

#include <type_traits>

#include <anympi/types.hpp>

namespace at = anympi::types;

[[maybe_unused]] static at::layout explain_over_the_standard_abi(MPI_Datatype t, int count) {
  static_assert(!std::is_integral_v<MPI_Datatype>, "the standard ABI's handles are pointers");
  auto built = at::build("resized(struct(double@0, double@16), lb=0, extent=32) * 3");
  (void)at::check(built.count, built.type.get(), 6, MPI_DOUBLE);
  return at::describe(t, count);
}
