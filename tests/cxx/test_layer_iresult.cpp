// anympi::iresult: owned and borrowed buffers, moves, completion of many out of order, and
// destruction of a pending one (it waits).
#include "common.hpp"

#include <anympi.hpp>

#include <algorithm>
#include <array>
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

}  // namespace
