// anympi::iresult: owned and borrowed buffers, moves, completion of many out of order, and
// destruction of a pending one (it waits).
#include "common.hpp"

#include <anympi.hpp>

#include <algorithm>
#include <array>
#include <numeric>
#include <optional>

using namespace test;
namespace views = anympi::views;

namespace {


TEST(LayerIresult, OwnedRvalueComesBackFromWaitWithTheData) {
  std::vector<int> rbuf(4, -1);
  auto req = anympi::irecv(std::move(rbuf), prev(), 1, world());
  static_assert(std::is_same_v<decltype(req.wait()), std::vector<int>>);
  auto s = anympi::isend(iota(4, rank() * 10), next(), 1, world());
  rbuf = req.wait();
  EXPECT_EQ(rbuf, iota(4, prev() * 10));
  EXPECT_EQ(s.wait(), iota(4, rank() * 10));  // the sent buffer, handed back too
  EXPECT_FALSE(req.valid());
  EXPECT_TRUE(req.wait().empty());  // nothing left: returns at once, never waits twice
}

TEST(LayerIresult, MovedIntoAnOptionalAndWaitedThere) {
  // std::array lives inside the iresult's buffer storage: moving the iresult must not move it.
  auto req = anympi::irecv(std::array<int, 3>{-1, -1, -1}, prev(), 2, world());
  std::optional<decltype(req)> held;
  held.emplace(std::move(req));
  EXPECT_FALSE(req.valid());
  EXPECT_TRUE(held->valid());
  auto moved_again = std::move(*held);
  anympi::send(std::array<int, 3>{rank(), 1, 2}, next(), 2, world());
  EXPECT_EQ(req.wait(), (std::array<int, 3>{}));  // empty: no request to wait on
  EXPECT_EQ(held->wait(), (std::array<int, 3>{}));
  EXPECT_EQ(moved_again.wait(), (std::array<int, 3>{prev(), 1, 2}));
}

TEST(LayerIresult, BorrowedLvalueAndTest) {
  std::vector<int> v(2, -1);
  auto req = anympi::irecv(v, prev(), 3, world());
  static_assert(std::is_void_v<decltype(req.wait())>);
  anympi::send(std::vector<int>{rank(), 5}, next(), 3, world());
  while (!req.test()) {
  }
  EXPECT_EQ(v, (std::vector<int>{prev(), 5}));
  EXPECT_FALSE(req.valid());
  EXPECT_TRUE(req.test());
}

TEST(LayerIresult, TestHandsBackAnOwnedBuffer) {
  auto req = anympi::irecv(std::vector<int>(1), prev(), 4, world());
  anympi::send(rank(), next(), 4, world());
  std::optional<std::vector<int>> got;
  while (!(got = req.test())) {
  }
  EXPECT_EQ(*got, std::vector<int>{prev()});
}

TEST(LayerIresult, ThousandPendingReceivesCompletedOutOfOrder) {
  constexpr int n = 1000;
  using recv_result = decltype(anympi::irecv(std::vector<int>(2), 0, 0, world()));
  std::vector<recv_result> recvs;
  for (int i = 0; i < n; ++i) recvs.push_back(anympi::irecv(std::vector<int>(2, -1), prev(), i, world()));
  mpi::barrier(world());
  // Sent in reverse order.
  std::vector<decltype(anympi::isend(std::vector<int>{}, 0, 0, world()))> sends;
  for (int i = n - 1; i >= 0; --i) sends.push_back(anympi::isend(std::vector<int>{i, rank()}, next(), i, world()));
  std::vector<bool> seen(n, false);
  int completed = 0;
  while (auto i = anympi::wait_any(recvs)) {
    auto v = recvs[*i].wait();
    EXPECT_EQ(v, (std::vector<int>{static_cast<int>(*i), prev()}));
    EXPECT_FALSE(seen[*i]);
    seen[*i] = true;
    ++completed;
  }
  EXPECT_EQ(completed, n);
  auto sent = anympi::wait_all(sends);
  ASSERT_EQ(sent.size(), static_cast<std::size_t>(n));
  EXPECT_EQ(sent.front(), (std::vector<int>{n - 1, rank()}));
  for (auto& s : sends) EXPECT_FALSE(s.valid());
}

TEST(LayerIresult, WaitAllReturnsTheOwnedBuffersInOrder) {
  std::vector<decltype(anympi::irecv(std::vector<int>(1), 0, 0, world()))> recvs;
  for (int i = 0; i < 10; ++i) recvs.push_back(anympi::irecv(std::vector<int>(1), prev(), 100 + i, world()));
  for (int i = 9; i >= 0; --i) anympi::send(i, next(), 100 + i, world());
  auto got = anympi::wait_all(recvs);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(got[static_cast<std::size_t>(i)], std::vector<int>{i});
}

TEST(LayerIresult, DestroyingAPendingOneWaits) {
  std::vector<int> v(3, -1);
  {
    auto s = anympi::isend(std::vector<int>{rank(), 2, 3}, next(), 5, world());
    auto r = anympi::irecv(v, prev(), 5, world());
    // No wait: the destructors complete both (r first; s's send was posted before).
  }
  EXPECT_EQ(v, (std::vector<int>{prev(), 2, 3}));
  // Assigning over a pending iresult completes it too.
  std::vector<int> w(1, -1);
  auto r = anympi::irecv(w, prev(), 6, world());
  anympi::send(rank(), next(), 6, world());
  r = decltype(r){};
  EXPECT_EQ(w, std::vector<int>{prev()});
}

TEST(LayerIresult, NonblockingCollectives) {
  auto b = anympi::ibcast(rank() == 0 ? std::vector<int>{7, 8} : std::vector<int>(2), 0, world());
  auto a = anympi::iallreduce(std::vector<int>{1, rank()}, std::vector<int>{} | views::resize, std::plus<>{}, world());
  auto t = anympi::ialltoall(iota(static_cast<std::size_t>(size()), rank() * 100), std::vector<int>(size()), world());
  EXPECT_EQ(b.wait(), (std::vector<int>{7, 8}));
  EXPECT_EQ(a.wait().base(), (std::vector<int>{size(), size() * (size() - 1) / 2}));
  auto got = t.wait();
  for (int p = 0; p < size(); ++p) EXPECT_EQ(got[static_cast<std::size_t>(p)], p * 100 + rank());
}

// A receive whose count comes from the message: irecv returns at once, and the message is
// matched (and its size taken) when the iresult is first tested or waited for. Each rank sends
// prev-dependent sizes, so a count taken from anything but the matched message is wrong.
TEST(LayerIresult, DeferredCountReceiveMatchesWhenTestedOrWaited) {
  auto waited = anympi::irecv(std::vector<int>{} | views::resize, prev(), 40, world());
  auto tested = anympi::irecv(std::vector<int>{-1, -1, -1, -1, -1, -1, -1, -1} | views::no_resize, prev(), 41, world());
  std::vector<int> mine(static_cast<std::size_t>(rank() + 1));
  auto borrowed = anympi::irecv(mine | views::resize, prev(), 42, world());
  EXPECT_TRUE(waited.valid());
  // Nothing is sent before the barrier: a test finds no message and reports the receive pending.
  EXPECT_FALSE(tested.test().has_value());
  mpi::barrier(world());
  // Nonblocking sends: no receive is posted before the test or wait (a blocking send to this
  // process, at one rank, would wait for good).
  auto s40 = anympi::isend(iota(static_cast<std::size_t>(rank() + 3), rank() * 10), next(), 40, world());
  auto s41 = anympi::isend(iota(static_cast<std::size_t>(rank() + 2), rank() * 20), next(), 41, world());
  auto s42 = anympi::isend(iota(static_cast<std::size_t>(2 * rank() + 5), rank() * 30), next(), 42, world());
  EXPECT_EQ(std::move(waited.wait()).base(), iota(static_cast<std::size_t>(prev() + 3), prev() * 10));
  std::optional<decltype(tested)::value_type> got;
  while (!(got = tested.test())) {
  }
  // no_resize: the first count elements are the message, the rest as they were.
  std::vector<int> expect_tested = iota(static_cast<std::size_t>(prev() + 2), prev() * 20);
  expect_tested.resize(8, -1);
  EXPECT_EQ(got->base(), expect_tested);
  (void)borrowed.wait();
  EXPECT_EQ(mine, iota(static_cast<std::size_t>(2 * prev() + 5), prev() * 30));
  s40.wait(), s41.wait(), s42.wait();
}

// Many deferred receives completed by wait_any (which polls them) and by wait_all, the
// messages sent in reverse order of the tags.
TEST(LayerIresult, DeferredCountReceivesThroughWaitAnyAndWaitAll) {
  constexpr int n = 50;
  using deferred = decltype(anympi::irecv(std::vector<int>{} | views::resize, 0, 0, world()));
  std::vector<deferred> any, all;
  for (int i = 0; i < n; ++i) any.push_back(anympi::irecv(std::vector<int>{} | views::resize, prev(), 200 + i, world()));
  for (int i = 0; i < n; ++i) all.push_back(anympi::irecv(std::vector<int>{} | views::resize, prev(), 300 + i, world()));
  std::vector<decltype(anympi::isend(std::vector<int>{}, 0, 0, world()))> sends;
  for (int i = n - 1; i >= 0; --i) {
    sends.push_back(anympi::isend(iota(static_cast<std::size_t>(i % 7), rank() + i), next(), 200 + i, world()));
    sends.push_back(anympi::isend(iota(static_cast<std::size_t>(i % 5 + 1), rank() - i), next(), 300 + i, world()));
  }
  std::vector<bool> seen(n, false);
  int completed = 0;
  while (auto i = anympi::wait_any(any)) {
    EXPECT_FALSE(seen[*i]);
    seen[*i] = true;
    ++completed;
    int const k = static_cast<int>(*i);
    EXPECT_EQ(std::move(any[*i].wait()).base(), iota(static_cast<std::size_t>(k % 7), prev() + k));
  }
  EXPECT_EQ(completed, n);
  auto got = anympi::wait_all(all);
  for (int i = 0; i < n; ++i)
    EXPECT_EQ(std::move(got[static_cast<std::size_t>(i)]).base(), iota(static_cast<std::size_t>(i % 5 + 1), prev() - i));
  anympi::wait_all(sends);
}

// Destroying a deferred receive that has not matched yet waits for its message, as any pending
// iresult waits; moving it before that moves the pending match.
TEST(LayerIresult, DeferredCountReceiveMovedAndDestroyed) {
  std::vector<int> into;
  {
    // Made first, destroyed last: the send cannot complete before its receive has matched.
    auto s = anympi::isend(iota(4, rank()), next(), 43, world());
    auto r = anympi::irecv(into | views::resize, prev(), 43, world());
    std::optional<decltype(r)> moved{std::move(r)};
    EXPECT_FALSE(r.valid());
  }
  EXPECT_EQ(into, iota(4, prev()));
}

// Move-assigning over an iresult that borrows rebinds it: neither borrowed buffer is written
// (a tuple of references assigned would have copied b into a).
TEST(LayerIresult, MoveAssignOverABorrowingOneWritesNoBuffer) {
  std::vector<int> a{1, 2}, b{7, 8};
  auto r = anympi::irecv(a, MPI_PROC_NULL, 0, world());
  r = anympi::irecv(b, MPI_PROC_NULL, 0, world());
  r.wait();
  EXPECT_EQ(a, (std::vector<int>{1, 2}));
  EXPECT_EQ(b, (std::vector<int>{7, 8}));
  EXPECT_FALSE(r.valid());
}

// The nonblocking v-collectives, with counts given and with counts found (a blocking count
// exchange first): the displacements they compute stay with the iresult until it completes,
// so the call may return and the iresult move before the data arrives.
TEST(LayerIresult, NonblockingRootedAndVCollectives) {
  int const p = size(), me = rank(), root = p - 1;
  auto g = anympi::igather(std::vector<int>{me, -me}, std::vector<int>{} | views::resize, root, world());
  auto ag = anympi::iallgather(me, std::vector<int>(static_cast<std::size_t>(p)), world());
  auto sc = anympi::iscatter(me == root ? iota(static_cast<std::size_t>(2 * p), 0) : std::vector<int>{},
                             std::vector<int>(2), root, world());
  auto rd = anympi::ireduce(std::vector<int>{me, 1}, std::vector<int>{} | views::resize, std::plus<>{}, root, world());
  // Process q contributes q + 1 copies of q.
  std::vector<int> mine(static_cast<std::size_t>(me + 1), me), counts(static_cast<std::size_t>(p));
  std::iota(counts.begin(), counts.end(), 1);
  auto agv = anympi::iallgatherv(mine, std::vector<int>{-1} | views::auto_counts | views::resize_v, world());
  auto agv_known = anympi::iallgatherv(mine, std::vector<int>(static_cast<std::size_t>(p * (p + 1) / 2)) | views::with_counts(counts), world());
  auto gv = anympi::igatherv(mine, std::vector<int>{} | views::auto_counts | views::resize_v, 0, world());
  std::optional moved_gv{std::move(gv)};
  // scatterv from the root: q + 1 elements of value 10 q to process q.
  std::vector<int> all;
  for (int q = 0; q < p; ++q) all.insert(all.end(), static_cast<std::size_t>(q + 1), 10 * q);
  auto scv = anympi::iscatterv((me == root ? all : std::vector<int>{}) | views::with_counts(counts),
                               std::vector<int>{} | views::resize, root, world());
  // alltoallv: me + q + 1 elements of 100 me + q to process q, the counts exchanged.
  std::vector<std::vector<int>> blocks;
  for (int q = 0; q < p; ++q) blocks.emplace_back(static_cast<std::size_t>(me + q + 1), 100 * me + q);
  auto a2a = anympi::ialltoallv(blocks | views::flatten_v, std::vector<int>{} | views::auto_counts | views::resize_v,
                                world());

  std::vector<int> gathered = std::move(g.wait()).base(), expect_g;
  for (int q = 0; q < p; ++q) expect_g.insert(expect_g.end(), {q, -q});
  EXPECT_EQ(gathered, me == root ? expect_g : std::vector<int>{});
  EXPECT_EQ(ag.wait(), iota(static_cast<std::size_t>(p), 0));
  EXPECT_EQ(sc.wait(), (std::vector<int>{2 * me, 2 * me + 1}));
  std::vector<int> reduced = std::move(rd.wait()).base();
  if (me == root) {
    EXPECT_EQ(reduced, (std::vector<int>{p * (p - 1) / 2, p}));
  }
  std::vector<int> expect_v;
  for (int q = 0; q < p; ++q) expect_v.insert(expect_v.end(), static_cast<std::size_t>(q + 1), q);
  EXPECT_EQ(std::move(agv.wait()).base().base(), expect_v);
  EXPECT_EQ(std::move(agv_known.wait()).base(), expect_v);
  std::vector<int> at_root = std::move(moved_gv->wait()).base().base();
  if (me == 0) {
    EXPECT_EQ(at_root, expect_v);
  }
  EXPECT_EQ(std::move(scv.wait()).base(), std::vector<int>(static_cast<std::size_t>(me + 1), 10 * me));
  std::vector<int> expect_a2a;
  for (int q = 0; q < p; ++q) expect_a2a.insert(expect_a2a.end(), static_cast<std::size_t>(q + me + 1), 100 * q + me);
  EXPECT_EQ(std::move(a2a.wait()).base().base(), expect_a2a);
}

}  // namespace
