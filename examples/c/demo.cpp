// anympi demo (C++): compiled once with anympi's mpicxx against the standard ABI, run on any MPI.
//
//   mpicxx -std=c++20 -o anympi-demo-cxx demo.cpp
//   ANYMPI_BACKEND=mpich   mpiexec -n 4 ./anympi-demo-cxx
//   ANYMPI_BACKEND=openmpi mpiexec -n 4 ./anympi-demo-cxx
//
// Uses the standard C API from C++ (the C++ bindings have their own examples in examples/cxx).
// Every result is checked: a wrong answer is a non-zero exit (examples.demo_cxx.*).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

namespace {

int failures = 0;

void expect(int rank, bool ok, std::string_view what) {
  if (!ok) {
    std::fprintf(stderr, "demo: rank %d: FAILED: %.*s\n", rank, static_cast<int>(what.size()), what.data());
    ++failures;
  }
}

std::string library_version() {
  std::string s(MPI_MAX_LIBRARY_VERSION_STRING, '\0');
  int len = 0;
  MPI_Get_library_version(s.data(), &len);
  s.resize(static_cast<std::size_t>(len));
  // The first line names anympi and the MPI underneath (native strings go on for pages).
  s.resize(std::min(s.find('\n'), static_cast<std::size_t>(len)));
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    std::printf("library: %s\n", library_version().c_str());
  }

  // Split the world into even and odd ranks; each half sums its ranks.
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int half_rank = -1, half_size = -1, half_sum = -1;
  MPI_Comm_rank(half, &half_rank);
  MPI_Comm_size(half, &half_size);
  MPI_Allreduce(&rank, &half_sum, 1, MPI_INT, MPI_SUM, half);
  int expected_half = 0;
  for (int r = rank % 2; r < size; r += 2) expected_half += r;
  expect(rank, half_rank == rank / 2 && half_sum == expected_half, "MPI_Comm_split + MPI_Allreduce");
  MPI_Comm_free(&half);

  // Every rank contributes rank+1 doubles; all see everything (MPI_Allgatherv).
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  std::iota(counts.begin(), counts.end(), 1);
  std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), 0);
  std::vector<double> mine(static_cast<std::size_t>(rank + 1), rank + 0.5);
  std::vector<double> all(static_cast<std::size_t>(displs.back() + counts.back()));
  MPI_Allgatherv(mine.data(), rank + 1, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE,
                 MPI_COMM_WORLD);
  double total = std::accumulate(all.begin(), all.end(), 0.0), expected_total = 0;
  for (int r = 0; r < size; ++r) expected_total += (r + 1) * (r + 0.5);
  expect(rank, total == expected_total, "MPI_Allgatherv");

  // Nonblocking exchange with both neighbours.
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  int from_left = -1, from_right = -1;
  MPI_Request reqs[4];
  MPI_Irecv(&from_left, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &reqs[0]);
  MPI_Irecv(&from_right, 1, MPI_INT, right, 2, MPI_COMM_WORLD, &reqs[1]);
  MPI_Isend(&rank, 1, MPI_INT, right, 1, MPI_COMM_WORLD, &reqs[2]);
  MPI_Isend(&rank, 1, MPI_INT, left, 2, MPI_COMM_WORLD, &reqs[3]);
  MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
  expect(rank, from_left == left && from_right == right, "MPI_Isend/MPI_Irecv/MPI_Waitall");

  int all_failures = 0;
  MPI_Reduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("comm_split: even/odd halves of %d ranks sum their ranks\n", size);
    std::printf("allgatherv: %zu doubles, total %.1f\n", all.size(), total);
    std::printf("neighbours: nonblocking exchange with left and right done\n");
    std::printf("%s\n", all_failures ? "demo: FAILED" : "demo: all results correct");
  }
  MPI_Finalize();
  return failures ? 1 : 0;
}
