// An error the bindings detect under the default MPI_ERRORS_ARE_FATAL ends the program, as
// MPI ends it for an error it detects (the paper's rule), after printing the message that
// names the argument; it is never thrown past the handler. With the argument "return",
// MPI_COMM_WORLD returns errors and the same error is thrown (the control that proves the
// program reaches the error). First, an error described before MPI_Init.
#include <mpi.hpp>

#include <cstddef>
#include <cstdio>
#include <string_view>

int main(int argc, char** argv) {
  {
    // Before MPI starts an error is still described: an MPI-4 is asked for its class and text
    // (allowed at any time), an MPI-3.1 (Open MPI 4.1, which aborts if asked) is not.
    mpi::mpi_error const before(MPI_ERR_ARG, "MPI_Send");
    if (before.error_class() != MPI_ERR_ARG || std::string_view(before.what()).find("MPI_Send: ") != 0) {
      std::printf("BAD error before MPI_Init: class %d, %s\n", before.error_class(), before.what());
      return 1;
    }
  }
  mpi::environment env(argc, argv);
  bool const returns = argc > 1 && std::string_view(argv[1]) == "return";
  if (returns) mpi::comm_world().set_errhandler(mpi::errors_return);
  try {
    (void)mpi::to_rank(std::size_t(1) << 40);
  } catch (mpi::mpi_error const& e) {
    std::printf("CAUGHT %s\n", e.error_class() == MPI_ERR_RANK ? "MPI_ERR_RANK" : "another class");
    return returns ? 0 : 1;
  }
  std::printf("NOT RAISED\n");
  return 1;
}
