// gtest main for the mpi:: core tests: MPI is initialized through mpi::environment (with
// errors returned, so failures surface as exceptions the test sees), only rank 0 prints,
// and the exit code is non-zero if any test failed on any rank.
#include <gtest/gtest.h>
#include <mpi.hpp>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // The tests that call MPI from several threads are built with ANYMPI_CXX_TEST_THREAD_MULTIPLE.
#ifdef ANYMPI_CXX_TEST_THREAD_MULTIPLE
  mpi::environment env(argc, argv, mpi::thread_level::multiple, mpi::errors_return);
#else
  mpi::environment env(argc, argv, mpi::errors_return);
#endif
  int const rank = mpi::comm_world().rank();
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int const local_failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  // Plain C here: the verdict must not depend on the code under test.
  int any_failed = 0;
  MPI_Allreduce(&local_failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (local_failed) std::fprintf(stderr, "rank %d: tests FAILED\n", rank);
  return any_failed;
}
