// mpi:: core objects made and freed by several threads at once (this program's main asks for
// MPI_THREAD_MULTIPLE).
#include "common.hpp"

#include <barrier>
#include <thread>

using namespace test;

namespace {
int reduce_local(mpi::op const& o, int in, int inout) {
  EXPECT_EQ(MPI_Reduce_local(&in, &inout, 1, MPI_INT, o.native()), MPI_SUCCESS);
  return inout;
}
}  // namespace

// Every thread keeps its share of the slots full, round after round, so the table is full
// most of the time: two threads claiming one slot would give one op the other's state, and a
// slot not released on free (or released for another op) would make a later create throw.
TEST(Op, StatefulOpsFromSeveralThreads) {
  ASSERT_EQ(mpi::query_thread(), mpi::thread_level::multiple);
  constexpr int threads = 4;
  constexpr int per_thread = mpi::op::max_stateful / threads;
  static_assert(per_thread > 0);
  constexpr int rounds = 200;
  std::vector<int> wrong(threads, 0), refused(threads, 0);
  std::barrier start(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int round = 0; round < rounds; ++round) {
        std::vector<mpi::op> mine;
        try {
          for (int j = 0; j < per_thread; ++j) {
            int const state = 1'000'000 * (t + 1) + 1000 * round + j;
            mine.push_back(mpi::op::create<int>([state](int a, int b) { return a + b + state; }));
          }
        } catch (mpi::mpi_error const&) {
          ++refused[t];
        }
        for (int j = 0; j < static_cast<int>(mine.size()); ++j)
          if (reduce_local(mine[j], 1, 2) != 3 + 1'000'000 * (t + 1) + 1000 * round + j) ++wrong[t];
        // Freed in a different order each round, so slots come back out of order.
        if (round % 2)
          for (auto o = mine.rbegin(); o != mine.rend(); ++o) o->free();
        else
          for (auto& o : mine) o.free();
      }
    });
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) {
    EXPECT_EQ(wrong[t], 0) << "thread " << t << ": ops that did not reach their own state";
    EXPECT_EQ(refused[t], 0) << "thread " << t << ": rounds where a create was refused with slots free";
  }
  // Every slot is free again: the whole table can be taken at once.
  std::vector<mpi::op> all;
  for (int k = 0; k < mpi::op::max_stateful; ++k)
    all.push_back(mpi::op::create<int>([k](int a, int b) { return a * b + k; }));
  EXPECT_EQ(reduce_local(all.back(), 3, 4), 12 + mpi::op::max_stateful - 1);
}
