// anympi/serialization.hpp: non-trivial objects through send/recv, sendrecv and bcast as
// cereal binary archives; the receive learns the byte count by matched probe or count exchange.
#include "common.hpp"

#include <anympi.hpp>

#include <map>
#include <string>
#include <vector>

using namespace test;
namespace views = anympi::views;

namespace {


using table = std::map<std::string, std::vector<int>>;
// Rank r's table: r + 2 keys of different lengths, vectors of different sizes (one empty).
table table_for(int r) {
  table t;
  for (int k = 0; k < r + 2; ++k) {
    std::vector<int> v(static_cast<std::size_t>(k * 3));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = r * 1000 + k * 10 + static_cast<int>(i);
    t["rank" + std::to_string(r) + std::string(static_cast<std::size_t>(k), '+')] = std::move(v);
  }
  return t;
}

TEST(LayerSerialize, MapThroughSendAndRecv) {
  auto s = anympi::isend(table_for(rank()) | views::serialize, next(), 21, world());
  auto [got, st] = anympi::recv(views::deserialize<table>(), prev(), 21, world());
  static_assert(std::is_same_v<decltype(got), table>);
  EXPECT_EQ(got, table_for(prev()));
  EXPECT_EQ(st.source(), prev());
  s.wait();
  // The count came from the probe: all of prev's encoding.
  EXPECT_EQ(st.count<char>(), static_cast<int>((table_for(prev()) | views::serialize).bytes().size()));
}

TEST(LayerSerialize, BlockingSendOfAnLvalueAndAnySource) {
  table const mine = table_for(rank());
  if (size() == 1) {
    auto [got, st] = anympi::sendrecv(mine | views::serialize, 0, 22, views::deserialize<table>(), 0, 22, world());
    EXPECT_EQ(got, mine);
    return;
  }
  // Even ranks send first, odd ranks receive first: blocking sends in a ring without deadlock.
  auto recv_one = [] {
    auto [got, st] = anympi::recv(views::deserialize<table>(), MPI_ANY_SOURCE, 22, world());
    EXPECT_EQ(st.source(), prev());
    EXPECT_EQ(got, table_for(prev()));
  };
  if (rank() % 2 == 0) {
    anympi::send(mine | views::serialize, next(), 22, world());
    recv_one();
  } else {
    recv_one();
    anympi::send(mine | views::serialize, next(), 22, world());
  }
}

TEST(LayerSerialize, SendrecvInARing) {
  auto [got, st] = anympi::sendrecv(table_for(rank()) | views::serialize, next(), 23, views::deserialize<table>(),
                                    prev(), 23, world());
  EXPECT_EQ(got, table_for(prev()));
}

TEST(LayerSerialize, BcastFromEveryRoot) {
  for (int root = 0; root < size(); ++root) {
    // An lvalue: decoded into in place, and a reference to it comes back.
    table t = rank() == root ? table_for(root) : table{{"stale", {1, 2, 3}}};
    auto& r = anympi::bcast(t | views::serialize, root, world());
    EXPECT_EQ(&r, &t);
    EXPECT_EQ(t, table_for(root)) << "root " << root;
    // An rvalue: the object comes back by value.
    table const v = anympi::bcast((rank() == root ? table_for(root + 7) : table{}) | views::serialize, root, world());
    EXPECT_EQ(v, table_for(root + 7)) << "root " << root;
  }
}

// The nonblocking receive of a serialized object: the byte count from the matched message,
// the object decoded when the iresult completes; the send's wait() hands its object back.
TEST(LayerSerialize, MapThroughIrecvAndIsend) {
  auto r = anympi::irecv(views::deserialize<table>(), prev(), 25, world());
  static_assert(std::is_same_v<decltype(r.wait()), table>);
  auto s = anympi::isend(table_for(rank()) | views::serialize, next(), 25, world());
  EXPECT_EQ(r.wait(), table_for(prev()));
  EXPECT_EQ(s.wait(), table_for(rank()));
  // Tested until complete, and into the caller's object (decoded there; wait returns nothing).
  table into{{"stale", {1}}};
  auto r2 = anympi::irecv(into | views::serialize, prev(), 26, world());
  static_assert(std::is_void_v<decltype(r2.wait())>);
  auto s2 = anympi::isend(table_for(rank() + 3) | views::serialize, next(), 26, world());
  while (!r2.test()) {
  }
  EXPECT_EQ(into, table_for(prev() + 3));
  s2.wait();
}

// ibcast of a serialized object: the byte count by one blocking bcast, the bytes nonblocking;
// the root's object comes back as it was, the others' decoded.
TEST(LayerSerialize, IbcastFromEveryRoot) {
  for (int root = 0; root < size(); ++root) {
    auto b = anympi::ibcast((rank() == root ? table_for(root + 1) : table{{"stale", {}}}) | views::serialize, root,
                            world());
    EXPECT_EQ(b.wait(), table_for(root + 1)) << "root " << root;
  }
}

TEST(LayerSerialize, StringsAndNestedVectors) {
  std::vector<std::vector<std::string>> const mine{{"a", std::string(static_cast<std::size_t>(rank()) * 50, 'x')},
                                                    {},
                                                    {"rank", std::to_string(rank())}};
  auto [got, st] = anympi::sendrecv(mine | views::serialize, next(), 24,
                                    views::deserialize<std::vector<std::vector<std::string>>>(), prev(), 24, world());
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0][1].size(), static_cast<std::size_t>(prev()) * 50);
  EXPECT_EQ(got[2][1], std::to_string(prev()));
  EXPECT_TRUE(got[1].empty());
}

}  // namespace
