// The C++ consumer: the installed C++20 bindings (anympi::cxx) over the installed runtime.
// Prints what hello.c prints, so the same checks apply.
#include <mpi.hpp>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  mpi::environment env(argc, argv);
  int rank = -1, size = -1, sum = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    std::string v = mpi::library_version();
    std::printf("library: %s\n", v.substr(0, v.find('\n')).c_str());
  }
  std::printf("hello %d of %d, sum %d\n", rank, size, sum);
  return sum == size * (size - 1) / 2 ? 0 : 1;
}
