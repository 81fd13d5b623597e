// anympi:: wrappers: every inference path, with ranks of different counts and rank 0
// contributing none (rank r contributes r elements).
#include "common.hpp"

#include <anympi.hpp>

#include <map>

using namespace test;
namespace views = anympi::views;

namespace {

// Rank r's contribution for peer p: r elements r*100 + p*10 + i.
std::vector<int> block(int r, int p = 0) {
  std::vector<int> v(static_cast<std::size_t>(r));
  for (int i = 0; i < r; ++i) v[static_cast<std::size_t>(i)] = r * 100 + p * 10 + i;
  return v;
}
std::vector<int> concat_blocks(int p = 0) {
  std::vector<int> all;
  for (int r = 0; r < size(); ++r) {
    auto b = block(r, p);
    all.insert(all.end(), b.begin(), b.end());
  }
  return all;
}

TEST(LayerWrappers, RecvInfersTheCountByMatchedProbe) {
  auto s = anympi::isend(block(rank()), next(), 3, world());
  auto [v, st] = anympi::recv(std::vector<int>{} | views::resize, prev(), 3, world());
  EXPECT_EQ(std::move(v).base(), block(prev()));
  EXPECT_EQ(st.source(), prev());
  EXPECT_EQ(st.count<int>(), prev());
  s.wait();
}

TEST(LayerWrappers, RecvAnySourceGrowOnlyAndNoResize) {
  auto s = anympi::isend(block(rank()), next(), 4, world());
  std::vector<int> big(50, -1);
  auto [b, st] = anympi::recv(big | views::no_resize, MPI_ANY_SOURCE, 4, world());
  EXPECT_EQ(st.source(), prev());
  EXPECT_EQ(mpi::count(b), prev());  // the view reports what arrived
  EXPECT_EQ(big.size(), 50u);
  EXPECT_EQ(std::vector<int>(big.begin(), big.begin() + prev()), block(prev()));
  s.wait();
  auto s2 = anympi::isend(block(rank()), next(), 5, world());
  std::vector<int> small;
  anympi::recv(small | views::grow_only, prev(), 5, world());
  EXPECT_EQ(small, block(prev()));
  s2.wait();
}

TEST(LayerWrappers, RecvWithKnownCountReturnsTheLvalue) {
  auto s = anympi::isend(block(rank()), next(), 6, world());
  std::vector<int> v(static_cast<std::size_t>(prev()), -1);
  auto [r, st] = anympi::recv(v, prev(), 6, world());
  static_assert(std::is_same_v<decltype(r), std::vector<int>&>);
  EXPECT_EQ(&r, &v);
  EXPECT_EQ(v, block(prev()));
  s.wait();
}

TEST(LayerWrappers, SendrecvExchangesTheCountFirst) {
  auto [v, st] = anympi::sendrecv(block(rank()), next(), 7, std::vector<int>{} | views::resize, MPI_ANY_SOURCE, 7,
                                  world());
  EXPECT_EQ(std::move(v).base(), block(prev()));
  EXPECT_EQ(st.source(), prev());
  anympi::send(std::vector<int>{}, MPI_PROC_NULL, 0, world());
}

TEST(LayerWrappers, BcastOfUnknownSize) {
  int const root = size() - 1;  // with one process it sends nothing
  std::vector<int> v = rank() == root ? block(root) : std::vector<int>{9, 9, 9, 9, 9, 9, 9};
  anympi::bcast(v | views::resize, root, world());
  EXPECT_EQ(v, block(root));
  std::vector<int> known = rank() == 0 ? std::vector<int>{1, 2} : std::vector<int>(2);
  auto& r = anympi::bcast(known, 0, world());
  EXPECT_EQ(&r, &known);
  EXPECT_EQ(known, (std::vector<int>{1, 2}));
}

TEST(LayerWrappers, GatherAllgatherScatterAlltoall) {
  std::vector<int> two{rank(), rank() * 10};
  auto g = anympi::gather(two, std::vector<int>{} | views::resize, 0, world()).base();
  auto ag = anympi::allgather(two, std::vector<int>{} | views::resize, world()).base();
  std::vector<int> expect;
  for (int r = 0; r < size(); ++r) expect.insert(expect.end(), {r, r * 10});
  if (rank() == 0) {
    EXPECT_EQ(g, expect);
  } else {
    EXPECT_TRUE(g.empty());
  }
  EXPECT_EQ(ag, expect);

  std::vector<int> all = rank() == 0 ? iota(static_cast<std::size_t>(3 * size()), 0) : std::vector<int>{};
  auto sc = anympi::scatter(all, std::vector<int>{} | views::resize, 0, world()).base();
  EXPECT_EQ(sc, iota(3, 3 * rank()));

  auto a = anympi::alltoall(iota(static_cast<std::size_t>(2 * size()), rank() * 1000),
                            std::vector<int>{} | views::resize, world())
               .base();
  ASSERT_EQ(a.size(), static_cast<std::size_t>(2 * size()));
  for (int p = 0; p < size(); ++p) EXPECT_EQ(a[static_cast<std::size_t>(2 * p)], p * 1000 + 2 * rank());
}

TEST(LayerWrappers, GathervCountsExchangedOrGiven) {
  auto mine = block(rank());
  auto g = anympi::gatherv(mine, std::vector<int>{} | views::auto_counts | views::resize_v, 0, world());
  if (rank() == 0) {
    EXPECT_EQ(g.base().base(), concat_blocks());
    auto c = mpi::counts(g);
    EXPECT_EQ(std::vector<int>(c.begin(), c.end()), iota(static_cast<std::size_t>(size()), 0));
  }
  // Counts given at the root: no exchange, displacements packed by the wrapper.
  std::vector<int> counts = iota(static_cast<std::size_t>(size()), 0);
  std::vector<int> out(concat_blocks().size(), -1);
  anympi::gatherv(mine, out | views::with_counts(counts), 0, world());
  if (rank() == 0) {
    EXPECT_EQ(out, concat_blocks());
  }
}

TEST(LayerWrappers, AllgathervFigureOneAndFive) {
  auto mine = block(rank());
  std::vector<int> rbuf{1, 2, 3};
  anympi::allgatherv(mine, rbuf | views::auto_counts | views::auto_displs | views::resize_v, world());
  EXPECT_EQ(rbuf, concat_blocks());
  // Fig. 5 (4): counts known, displacements computed.
  std::vector<int> counts = iota(static_cast<std::size_t>(size()), 0);
  std::vector<int> out(rbuf.size());
  anympi::allgatherv(mine, out | views::with_counts(counts) | views::auto_displs(), world());
  EXPECT_EQ(out, concat_blocks());
}

TEST(LayerWrappers, ScattervOfUnknownReceiveCount) {
  std::vector<int> all = concat_blocks();
  std::vector<int> counts = iota(static_cast<std::size_t>(size()), 0);
  auto r = anympi::scatterv(all | views::with_counts(counts), std::vector<int>{5} | views::resize, 0, world());
  EXPECT_EQ(std::move(r).base(), block(rank()));
}

TEST(LayerWrappers, AlltoallvFigureOne) {
  // Rank r sends r + p elements to rank p (none from rank 0 to itself).
  std::vector<int> local, counts;
  for (int p = 0; p < size(); ++p) {
    auto b = block(rank() + p, p);
    counts.push_back(rank() + p);
    local.insert(local.end(), b.begin(), b.end());
  }
  std::vector<int> rbuf;
  anympi::alltoallv(local | views::with_counts(counts),
                    rbuf | views::auto_counts | views::auto_displs | views::resize_v, world());
  std::vector<int> expect;
  for (int q = 0; q < size(); ++q) {
    auto b = block(q + rank(), rank());
    expect.insert(expect.end(), b.begin(), b.end());
  }
  EXPECT_EQ(rbuf, expect);
}

// views::flatten_v: the blocks per destination of Fig. 1 (2) kept as a vector of vectors, or
// sparse (rank, block) pairs in a std::map, give the same exchange as explicit counts.
TEST(LayerWrappers, AlltoallvOfFlattenedBlocks) {
  std::vector<std::vector<int>> blocks;
  for (int p = 0; p < size(); ++p) blocks.push_back(block(rank() + p, p));
  auto flat = blocks | views::flatten_v;
  EXPECT_EQ(mpi::count(flat), static_cast<MPI_Count>(size() * rank() + size() * (size() - 1) / 2));
  std::vector<int> expect;
  for (int q = 0; q < size(); ++q) {
    auto b = block(q + rank(), rank());
    expect.insert(expect.end(), b.begin(), b.end());
  }
  std::vector<int> rbuf{-1};
  anympi::alltoallv(flat, rbuf | views::auto_counts | views::auto_displs | views::resize_v, world());
  EXPECT_EQ(rbuf, expect);

  // Sparse: only to the next process (twice, appended in order) and to process 0, nothing else.
  std::vector<std::pair<int, std::vector<int>>> pairs{{next(), {rank(), 1}}, {0, {rank() + 100}}, {next(), {rank(), 2}}};
  auto sparse = pairs | views::flatten_v(size());
  std::vector<int> got;
  anympi::alltoallv(sparse, got | views::auto_counts | views::auto_displs | views::resize_v, world());
  // From each source q: q's blocks named for this process, in the order of q's pairs.
  std::vector<int> per_source;
  for (int q = 0; q < size(); ++q) {
    int const q_next = (q + 1) % size();
    std::vector<std::pair<int, std::vector<int>>> q_pairs{{q_next, {q, 1}}, {0, {q + 100}}, {q_next, {q, 2}}};
    for (auto const& [r, b] : q_pairs)
      if (r == rank()) per_source.insert(per_source.end(), b.begin(), b.end());
  }
  EXPECT_EQ(got, per_source);

  std::map<int, std::vector<double>> by_rank{{size(), {1.0}}};
  try {
    (void)(by_rank | views::flatten_v(size()));
    ADD_FAILURE() << "a rank out of range was accepted";
  } catch (mpi::mpi_error const& e) {
    EXPECT_EQ(e.error_class(), MPI_ERR_RANK);
  }
}

TEST(LayerWrappers, ReduceAndAllreduceSizeTheResult) {
  std::vector<int> v{rank(), 1, 2};
  auto all = anympi::allreduce(v, std::vector<int>{} | views::resize, std::plus<>{}, world()).base();
  EXPECT_EQ(all, (std::vector<int>{size() * (size() - 1) / 2, size(), 2 * size()}));
  auto root = anympi::reduce(v, std::vector<int>{} | views::resize, mpi::max<>{}, 0, world()).base();
  if (rank() == 0) {
    EXPECT_EQ(root, (std::vector<int>{size() - 1, 1, 2}));
  } else {
    EXPECT_TRUE(root.empty());
  }
  // A plain buffer: nothing inferred, nothing resized.
  std::vector<int> fixed(3, -1);
  anympi::allreduce(v, fixed, std::plus<>{}, world());
  EXPECT_EQ(fixed, all);
}

}  // namespace
