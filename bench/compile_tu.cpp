// One typical translation unit, for bench/run's compile-time figures: a vector sent and received,
// an allreduce and an alltoallv, written four ways and compiled alone (g++ -std=c++20 -O2 -c):
//   -DTU_C         the C API called from C++ (the baseline)
//   -DTU_CORE      the mpi:: core through <mpi.hpp>
//   -DTU_NARROW    the mpi:: core through the headers of just these operations
//   -DTU_LAYER     the anympi:: layer through <anympi.hpp>
#include <vector>

#if defined(TU_C)
#include <mpi.h>
#elif defined(TU_CORE)
#include <mpi.hpp>
#elif defined(TU_NARROW)
#include <mpi/collectives.hpp>
#include <mpi/point_to_point.hpp>
#elif defined(TU_LAYER)
#include <anympi.hpp>
#else
#error "define TU_C, TU_CORE, TU_NARROW or TU_LAYER"
#endif

int exchange(std::vector<double>& v, std::vector<int> const& counts, std::vector<int> const& displs) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> out(v.size());
#if defined(TU_C)
  MPI_Send(v.data(), static_cast<int>(v.size()), MPI_DOUBLE, (rank + 1) % size, 0, MPI_COMM_WORLD);
  MPI_Recv(v.data(), static_cast<int>(v.size()), MPI_DOUBLE, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  int local = static_cast<int>(v.size()), total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Alltoallv(v.data(), counts.data(), displs.data(), MPI_DOUBLE, out.data(), counts.data(), displs.data(),
                MPI_DOUBLE, MPI_COMM_WORLD);
#elif defined(TU_LAYER)
  auto const world = mpi::comm_world();
  anympi::send(v, (rank + 1) % size, 0, world);
  anympi::recv(v, (rank + size - 1) % size, 0, world);
  int const total = anympi::allreduce(static_cast<int>(v.size()), 0, std::plus<>{}, world);
  anympi::alltoallv(v | anympi::views::with_counts(counts) | anympi::views::with_displs(displs),
                    out | anympi::views::with_counts(counts) | anympi::views::with_displs(displs), world);
#else
  auto const world = mpi::comm_world();
  mpi::send(v, (rank + 1) % size, 0, world);
  mpi::recv(v, (rank + size - 1) % size, 0, world);
  int local = static_cast<int>(v.size()), total = 0;
  mpi::allreduce(local, total, std::plus<>{}, world);
  mpi::alltoallv(mpi::mpi_span_v(v, counts, displs), mpi::mpi_span_v(out, counts, displs), world);
#endif
  return total;
}
