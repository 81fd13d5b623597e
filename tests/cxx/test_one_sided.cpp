// mpi:: core: one-sided communication (one_sided.hpp). Every test runs at 1, 2 and 4
// processes; neighbours are (rank -/+ 1) mod size, the process itself at 1. Windows get
// mpi::errors_return so that an MPI error fails the test instead of aborting the job.
#include "common.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <span>
#include <vector>

using namespace test;

namespace {

int left() { return (rank() + size() - 1) % size(); }
int right() { return (rank() + 1) % size(); }

mpi::win returning(mpi::win w) {
  w.set_errhandler(mpi::errors_return);
  return w;
}

// All processes' values of x, in rank order.
std::vector<long> all_values(long x) {
  std::vector<long> out(static_cast<std::size_t>(size()));
  mpi::allgather(x, out, mpi::comm_world());
  return out;
}

}  // namespace

TEST(OneSided, AttributesNameInfoGroupErrhandler) {
  auto world = mpi::comm_world();
  std::vector<int> mem(4, 0);
  mpi::win w = returning(mpi::win::create(mem, world));
  EXPECT_EQ(w.base(), static_cast<void*>(mem.data()));
  EXPECT_EQ(w.size(), MPI_Aint(4 * sizeof(int)));
  EXPECT_EQ(w.disp_unit(), int(sizeof(int)));  // the datatype's extent: displacements in elements
  EXPECT_EQ(w.create_flavor(), mpi::win_flavor::create);
  auto const m = w.model();
  EXPECT_TRUE(m == mpi::win_model::unified || m == mpi::win_model::separate);
  w.set_name("ring");
  EXPECT_EQ(w.name(), "ring");
  EXPECT_EQ(w.group().compare(world.group()), mpi::comparison::ident);
  mpi::info i = w.get_info();
  EXPECT_GE(i.size(), 0);
  w.set_info(mpi::info::create({{"no_locks", "false"}}));
  EXPECT_EQ(w.get_errhandler().native(), MPI_ERRORS_RETURN);

  // An explicit disp_unit, and a view of the owner.
  std::vector<double> d(3);
  mpi::win w2 = mpi::win::create(d, 1, mpi::info_null(), world);
  mpi::win_view v = w2;
  EXPECT_EQ(v.disp_unit(), 1);
  EXPECT_EQ(v.size(), MPI_Aint(3 * sizeof(double)));

  // allocate: MPI's memory, disp_unit = sizeof(T), a span of n elements. Sizes that are
  // multiples of 16 bytes: MPICH 4.0.2 returns a base that is not the window's otherwise
  // (docs/cxx-core.md, reproduced in plain C).
  long const n = 2 * (rank() + 1);
  auto [wa, ma] = mpi::win::allocate<std::int64_t>(n, world);
  EXPECT_EQ(ma.size(), std::size_t(n));
  EXPECT_EQ(wa.base(), static_cast<void*>(ma.data()));
  EXPECT_EQ(wa.size(), MPI_Aint(n * 8));
  EXPECT_EQ(wa.disp_unit(), 8);
  EXPECT_EQ(wa.create_flavor(), mpi::win_flavor::allocate);

  mpi::win wd = mpi::win::create_dynamic(world);
  EXPECT_EQ(wd.create_flavor(), mpi::win_flavor::dynamic);

  // Errors the bindings detect are thrown like MPI's: one element for fetch_and_op.
  std::vector<int> two(2), res(2);
  try {
    w.fetch_and_op(two, res, {0, 0}, std::plus<>{});
    ADD_FAILURE() << "fetch_and_op of two elements must throw";
  } catch (mpi::mpi_error const& e) {
    EXPECT_EQ(e.error_class(), MPI_ERR_COUNT);
    EXPECT_EQ(e.function(), "MPI_Fetch_and_op");
  }
  // Freeing is collective: the destructors free every window here, together.
}

TEST(OneSided, FencePutGetRing) {
  std::vector<int> mem(3, -1);
  mpi::win w = returning(mpi::win::create(mem, mpi::comm_world()));
  int const me = rank();
  std::vector<int> mine{me, 100 + me};

  w.fence(mpi::mode_noprecede);
  w.put(mine, {right(), 0});  // mem[0..1] of the right neighbour
  w.fence();
  EXPECT_EQ(mem[0], left());
  EXPECT_EQ(mem[1], 100 + left());
  EXPECT_EQ(mem[2], -1);

  // get from the right neighbour: its mem[0..1] holds my values now.
  std::vector<int> got(2, -7);
  w.get(got, {right(), 0});
  w.fence();
  EXPECT_EQ(got, mine);

  // An explicit target layout: one int into slot 2 of the left neighbour (a scalar origin).
  int one = 1000 + me;
  w.put(one, {left(), 2, 1, MPI_INT});
  w.fence(mpi::mode_nosucceed);
  EXPECT_EQ(mem[2], 1000 + right());
}

TEST(OneSided, PutWithDerivedTargetType) {
  // The target's datatype differs from the origin's: 2 contiguous ints into every other slot.
  std::vector<int> mem(4, -1);
  mpi::win w = returning(mpi::win::create(mem, mpi::comm_world()));
  auto strided = mpi::datatype::vector(2, 1, 2, MPI_INT);
  strided.commit();
  std::vector<int> mine{rank(), rank() + 50};
  w.fence();
  w.put(mine, {right(), 0, 1, strided});
  w.fence();
  EXPECT_EQ(mem, (std::vector<int>{left(), -1, left() + 50, -1}));
}

TEST(OneSided, AccumulateSumToRankZero) {
  std::vector<long> mem(2, 0);
  mpi::win w = returning(mpi::win::create(mem, mpi::comm_world()));
  std::vector<long> mine{rank() + 1L, 10L * (rank() + 1)};
  w.fence();
  w.accumulate(mine, {0, 0}, std::plus<>{});
  w.fence();
  long const n = size();
  if (rank() == 0) {
    EXPECT_EQ(mem[0], n * (n + 1) / 2);
    EXPECT_EQ(mem[1], 10 * n * (n + 1) / 2);
  } else {
    EXPECT_EQ(mem[0], 0);
  }
  // The max below may reach rank 0's mem[1] as soon as its origin leaves the fence, and a load
  // overlapping it is erroneous: rank 0 reads first.
  mpi::barrier(mpi::comm_world());
  // replace is an atomic put; max keeps the largest.
  long big = 1000 + rank();
  w.accumulate(big, {0, 1}, mpi::max<>{});
  w.fence();
  if (rank() == 0) {
    EXPECT_EQ(mem[1], std::max(1000L + n - 1, 10 * n * (n + 1) / 2));
  }
  if (rank() == size() - 1) w.accumulate(big, {0, 0}, mpi::replace);
  w.fence();
  if (rank() == 0) {
    EXPECT_EQ(mem[0], 1000 + n - 1);
  }
}

TEST(OneSided, FetchAndOpSharedCounter) {
  // A counter at rank 0, incremented once by every process under contention: each sees a
  // distinct old value, and the final value is the number of processes.
  auto [w, counter] = mpi::win::allocate<long>(rank() == 0 ? 2 : 0, mpi::comm_world());
  w.set_errhandler(mpi::errors_return);
  if (rank() == 0) {  // a local store to window memory, in an epoch of its own
    w.lock(mpi::lock_type::exclusive, 0);
    counter[0] = 0;
    w.unlock(0);
  }
  mpi::barrier(mpi::comm_world());
  long const one = 1;
  long old = -1;
  w.lock_all();
  w.fetch_and_op(one, old, {0, 0}, std::plus<>{});
  w.flush(0);
  w.unlock_all();
  auto olds = all_values(old);
  std::sort(olds.begin(), olds.end());
  std::vector<long> expect(static_cast<std::size_t>(size()));
  std::iota(expect.begin(), expect.end(), 0L);
  EXPECT_EQ(olds, expect);
  mpi::barrier(mpi::comm_world());
  // An atomic read through no_op: the final count.
  long now = -1;
  w.lock(mpi::lock_type::shared, 0);
  w.fetch_and_op(one, now, {0, 0}, mpi::no_op);
  w.unlock(0);
  EXPECT_EQ(now, size());
}

TEST(OneSided, GetAccumulateCounterAndPair) {
  std::vector<int> mem(2, 0);
  mpi::win w = returning(mpi::win::create(mem, mpi::comm_world()));
  mpi::barrier(mpi::comm_world());
  std::vector<int> add{1, 2}, before(2, -1);
  {
    auto epoch = w.lock_guard(0, mpi::lock_type::exclusive);
    w.get_accumulate(add, before, {0, 0}, std::plus<>{});
  }  // unlocked: `before` is valid
  // The pair is updated atomically: each process sees (k, 2k) for a distinct k.
  EXPECT_EQ(before[1], 2 * before[0]);
  auto ks = all_values(before[0]);
  std::sort(ks.begin(), ks.end());
  std::vector<long> expect(static_cast<std::size_t>(size()));
  std::iota(expect.begin(), expect.end(), 0L);
  EXPECT_EQ(ks, expect);
  mpi::barrier(mpi::comm_world());
  std::vector<int> final_(2, -1), ignored(2);
  auto epoch = w.lock_all_guard();
  w.get_accumulate(ignored, final_, {0, 0}, mpi::no_op);
  epoch.unlock();
  EXPECT_EQ(final_, (std::vector<int>{size(), 2 * size()}));
  mpi::barrier(mpi::comm_world());
}

// A lock guard on MPI_PROC_NULL does what the C calls do (Open MPI refuses the rank, MPICH takes
// it), and its unlock is MPI_Win_unlock(MPI_PROC_NULL): the guard once marked lock_all with -1,
// MPICH's MPI_PROC_NULL, and ended this epoch with MPI_Win_unlock_all.
TEST(OneSided, LockGuardOnProcNull) {
  std::vector<int> mem(1, 0);
  mpi::win w = returning(mpi::win::create(mem, mpi::comm_world()));
  int const c_lock = MPI_Win_lock(MPI_LOCK_SHARED, MPI_PROC_NULL, 0, mpi::handle(w));
  if (c_lock == MPI_SUCCESS) {
    ASSERT_EQ(MPI_Win_unlock(MPI_PROC_NULL, mpi::handle(w)), MPI_SUCCESS);
    auto epoch = w.lock_guard(mpi::proc_null, mpi::lock_type::shared);
    EXPECT_NO_THROW(epoch.unlock());
  } else {
    EXPECT_THROW(w.lock_guard(mpi::proc_null, mpi::lock_type::shared), mpi::mpi_error);
  }
  mpi::barrier(mpi::comm_world());
}

TEST(OneSided, CompareAndSwapOneWinner) {
  std::vector<int> mem(1, 0);
  mpi::win w = returning(mpi::win::create(mem, mpi::comm_world()));
  mpi::barrier(mpi::comm_world());
  int const mine = rank() + 1, expected = 0;
  int result = -1;
  w.lock(mpi::lock_type::shared, 0);
  w.compare_and_swap(mine, expected, result, {0, 0});
  w.unlock(0);
  // Exactly one process found 0 and swapped; the others found the winner's value.
  auto results = all_values(result);
  long const winners = std::count(results.begin(), results.end(), 0L);
  EXPECT_EQ(winners, 1);
  long const winner = std::find(results.begin(), results.end(), 0L) - results.begin();
  for (long r : results) EXPECT_TRUE(r == 0 || r == winner + 1) << r;
  mpi::barrier(mpi::comm_world());
  if (rank() == 0) {
    EXPECT_EQ(mem[0], winner + 1);
  }
  // A failing compare changes nothing.
  int const other = -5, wrong = 12345;
  w.lock(mpi::lock_type::exclusive, 0);
  w.compare_and_swap(other, wrong, result, {0, 0});
  w.unlock(0);
  EXPECT_EQ(result, winner + 1);
  mpi::barrier(mpi::comm_world());
  if (rank() == 0) {
    EXPECT_EQ(mem[0], winner + 1);
  }
}

TEST(OneSided, RequestBasedInLockAll) {
  auto [w, mem] = mpi::win::allocate<int>(4, mpi::comm_world());
  w.set_errhandler(mpi::errors_return);
  std::fill(mem.begin(), mem.end(), 0);
  mpi::barrier(mpi::comm_world());
  int const me = rank();
  std::vector<int> mine{me, me * 3};

  w.lock_all();
  mpi::request r = w.rput(mine, {right(), 0});
  r.wait();  // local completion: `mine` may change now; flush completes it at the target
  mine.assign({-1, -1});
  w.flush(right());
  int inc = 5;
  mpi::request ra = w.raccumulate(inc, {right(), 2}, std::plus<>{});
  ra.wait();
  w.flush_all();
  w.unlock_all();
  mpi::barrier(mpi::comm_world());

  w.lock_all();
  std::vector<int> from_right(2, -1), own(3, -1);
  mpi::request g1 = w.rget(from_right, {right(), 0});  // written by me
  mpi::request g2 = w.rget(own, {me, 0});              // written by my left neighbour
  std::vector<mpi::request> reqs;
  reqs.push_back(std::move(g1));
  reqs.push_back(std::move(g2));
  mpi::wait_all(reqs);
  int add = 1, before = -1;
  mpi::request ga = w.rget_accumulate(add, before, {me, 3}, std::plus<>{});
  ga.wait();
  w.flush_local_all();
  w.flush_local(me);
  w.sync();
  w.unlock_all();
  EXPECT_EQ(from_right, (std::vector<int>{me, me * 3}));
  EXPECT_EQ(own, (std::vector<int>{left(), left() * 3, 5}));
  EXPECT_EQ(before, 0);
  mpi::barrier(mpi::comm_world());
}

TEST(OneSided, PostStartCompleteWaitNeighbours) {
  std::vector<int> mem(2, -1);
  mpi::win w = returning(mpi::win::create(mem, mpi::comm_world()));
  mpi::group const world_group = mpi::comm_world().group();
  int const l[] = {left()}, r[] = {right()};
  mpi::group const from_left = world_group.incl(l);  // who accesses my window
  mpi::group const to_right = world_group.incl(r);   // whose window I access
  int const me = rank();

  w.post(from_left);
  w.start(to_right);
  w.put(me, {right(), 0});
  w.complete();
  w.wait();
  EXPECT_EQ(mem[0], left());

  // The same with test() polling for the end of the exposure epoch, and a get.
  int got = -1;
  w.post(from_left, mpi::mode_nostore);
  w.start(to_right);
  w.get(got, {right(), 0});
  w.complete();
  while (!w.test()) {
  }
  EXPECT_EQ(got, me);
}

TEST(OneSided, SharedWindowNeighbourMemory) {
  // Processes on one node (all of them, in these tests) share their memory directly.
  mpi::comm node = mpi::comm_world().split_type(mpi::split_kind::shared);
  int const nr = node.rank(), np = node.size();
  int const nright = (nr + 1) % np;
  auto [w, mine] = mpi::win::allocate_shared<int>(nr + 1, node);  // sizes differ per process
  w.set_errhandler(mpi::errors_return);
  EXPECT_EQ(w.create_flavor(), mpi::win_flavor::allocate_shared);
  ASSERT_EQ(mine.size(), std::size_t(nr + 1));
  std::span<int> self = w.shared_query<int>(nr);
  EXPECT_EQ(self.data(), mine.data());
  EXPECT_EQ(self.size(), mine.size());

  w.lock_all();
  for (int i = 0; i <= nr; ++i) mine[static_cast<std::size_t>(i)] = 100 * nr + i;
  w.sync();
  mpi::barrier(node);
  w.sync();
  std::span<int> theirs = w.shared_query<int>(nright);
  ASSERT_EQ(theirs.size(), std::size_t(nright + 1));
  for (int i = 0; i <= nright; ++i) EXPECT_EQ(theirs[static_cast<std::size_t>(i)], 100 * nright + i);
  // Stores go both ways: write into the neighbour's last element.
  mpi::barrier(node);
  theirs[static_cast<std::size_t>(nright)] = -nr;
  w.sync();
  mpi::barrier(node);
  w.sync();
  EXPECT_EQ(mine[static_cast<std::size_t>(nr)], -((nr + np - 1) % np));
  w.unlock_all();
}

TEST(OneSided, DynamicAttachAddressExchange) {
  auto world = mpi::comm_world();
  mpi::win w = returning(mpi::win::create_dynamic(world));
  std::vector<int> region(3, -1);
  w.attach(region);
  // Peers address attached memory absolutely: exchange the address.
  std::vector<long> addrs = all_values(static_cast<long>(mpi::get_address(region)));
  MPI_Aint const right_addr = static_cast<MPI_Aint>(addrs[static_cast<std::size_t>(right())]);
  mpi::barrier(world);

  std::vector<int> mine{rank(), rank() + 7};
  w.lock(mpi::lock_type::exclusive, right());
  w.put(mine, {right(), right_addr});
  w.unlock(right());
  mpi::barrier(world);
  w.lock(mpi::lock_type::shared, rank());
  w.sync();
  EXPECT_EQ(region, (std::vector<int>{left(), left() + 7, -1}));
  w.unlock(rank());

  // One element further on: the address arithmetic is in bytes (disp_unit 1).
  std::vector<int> got(1, -1);
  w.lock(mpi::lock_type::shared, right());
  w.get(got, {right(), right_addr + MPI_Aint(sizeof(int))});
  w.unlock(right());
  EXPECT_EQ(got[0], rank() + 7);
  mpi::barrier(world);
  w.detach(region);
}
