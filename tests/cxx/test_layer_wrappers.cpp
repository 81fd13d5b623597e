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

// The scans: a receive count left open is the send count; exscan leaves process 0's buffer.
TEST(LayerWrappers, ScansBlockingAndNonblocking) {
  std::vector<int> v{rank() + 1, 1};
  int const me = rank();
  auto inclusive = anympi::scan(v, std::vector<int>{} | views::resize, std::plus<>{}, world()).base();
  EXPECT_EQ(inclusive, (std::vector<int>{(me + 1) * (me + 2) / 2, me + 1}));
  auto exclusive = anympi::exscan(v, std::vector<int>{-7} | views::grow_only, std::plus<>{}, world()).base();
  if (me > 0) {
    EXPECT_EQ(exclusive, (std::vector<int>{me * (me + 1) / 2, me}));
  } else {
    EXPECT_EQ(exclusive.size(), 2u);  // grown to the count, not written by MPI
    EXPECT_EQ(exclusive[0], -7);
  }
  auto is = anympi::iscan(v, std::vector<int>{} | views::resize, std::plus<>{}, world());
  auto ie = anympi::iexscan(std::vector<int>{me + 1}, std::vector<int>(1, -1), std::plus<>{}, world());
  EXPECT_EQ(std::move(is.wait()).base(), inclusive);
  EXPECT_EQ(ie.wait(), std::vector<int>{me == 0 ? -1 : me * (me + 1) / 2});
}

// reduce_scatter_block: a size()-th of the send count each; reduce_scatter: the counts every
// process passes, process 0's zero (a zero-count rank), process q's q + 1 otherwise.
TEST(LayerWrappers, ReduceScatterSizesTheBlock) {
  int const p = size(), me = rank();
  std::vector<int> s(static_cast<std::size_t>(2 * p));
  std::iota(s.begin(), s.end(), me);  // element i is me + i
  auto block = anympi::reduce_scatter_block(s, std::vector<int>{} | views::resize, std::plus<>{}, world()).base();
  int const ranks = p * (p - 1) / 2;
  EXPECT_EQ(block, (std::vector<int>{ranks + p * 2 * me, ranks + p * (2 * me + 1)}));

  std::vector<int> counts(static_cast<std::size_t>(p));
  for (int q = 0; q < p; ++q) counts[static_cast<std::size_t>(q)] = q == 0 ? 0 : q + 1;
  int const total = std::accumulate(counts.begin(), counts.end(), 0);
  std::vector<int> all(static_cast<std::size_t>(total));
  std::iota(all.begin(), all.end(), me);
  auto mine = anympi::reduce_scatter(all, std::vector<int>{} | views::resize, counts, std::plus<>{}, world()).base();
  int const first = std::accumulate(counts.begin(), counts.begin() + me, 0);
  std::vector<int> expect;
  for (int i = 0; i < counts[static_cast<std::size_t>(me)]; ++i) expect.push_back(ranks + p * (first + i));
  EXPECT_EQ(mine, expect);

  auto ib = anympi::ireduce_scatter_block(s, std::vector<int>{} | views::resize, std::plus<>{}, world());
  auto ir = anympi::ireduce_scatter(all, std::vector<int>{} | views::resize, std::vector<int>(counts), std::plus<>{},
                                    world());
  EXPECT_EQ(std::move(ib.wait()).base(), block);
  EXPECT_EQ(std::move(ir.wait()).base(), expect);

  // A count left open is read from recvcounts: one entry short is an error, not a read past it.
  try {
    std::vector<int> const short_counts(counts.begin(), counts.end() - 1);
    (void)anympi::reduce_scatter(all, std::vector<int>{} | views::resize, short_counts, std::plus<>{}, world());
    ADD_FAILURE() << "recvcounts of size() - 1 entries was accepted";
  } catch (mpi::mpi_error const& e) {
    EXPECT_EQ(e.error_class(), MPI_ERR_COUNT);
  }
}

// The send modes, blocking and nonblocking (wait() hands the sent buffer back); sendrecv_replace
// and the MPI-4.0 isendrecv (its receive count exchanged first) and isendrecv_replace.
TEST(LayerWrappers, SendModesAndSendrecvForms) {
  int const me = rank();
  auto r1 = anympi::irecv(std::vector<int>(2, -1), prev(), 50, world());
  auto r2 = anympi::irecv(std::vector<int>(2, -1), prev(), 51, world());
  mpi::barrier(world());  // every rsend below finds its receive posted
  anympi::rsend(std::vector<int>{me, 50}, next(), 50, world());
  auto ss = anympi::issend(std::vector<int>{me, 51}, next(), 51, world());
  EXPECT_EQ(r1.wait(), (std::vector<int>{prev(), 50}));
  EXPECT_EQ(r2.wait(), (std::vector<int>{prev(), 51}));
  EXPECT_EQ(ss.wait(), (std::vector<int>{me, 51}));

  std::vector<std::byte> attached(1024);
  mpi::buffer_attach(attached);
  anympi::bsend(std::vector<int>{me, 52}, next(), 52, world());
  auto bs = anympi::ibsend(std::vector<int>{me, 53}, next(), 53, world());
  auto rs = anympi::irecv(std::vector<int>(2), prev(), 54, world());
  mpi::barrier(world());
  auto irs = anympi::irsend(std::vector<int>{me, 54}, next(), 54, world());
  auto [b52, st52] = anympi::recv(std::vector<int>{} | views::resize, prev(), 52, world());
  auto [b53, st53] = anympi::recv(std::vector<int>(2), prev(), 53, world());
  EXPECT_EQ(b52.base(), (std::vector<int>{prev(), 52}));
  EXPECT_EQ(b53, (std::vector<int>{prev(), 53}));
  EXPECT_EQ(bs.wait(), (std::vector<int>{me, 53}));
  EXPECT_EQ(rs.wait(), (std::vector<int>{prev(), 54}));
  irs.wait();
  (void)mpi::buffer_detach();
  // ssend to a receive posted by a nonblocking iresult of this very process, at one rank.
  auto r55 = anympi::irecv(std::vector<int>(1), prev(), 55, world());
  auto s55 = anympi::issend(std::vector<int>{me}, next(), 55, world());
  EXPECT_EQ(r55.wait(), std::vector<int>{prev()});
  s55.wait();

  auto [rep, st] = anympi::sendrecv_replace(std::vector<int>{me, -me}, next(), 56, prev(), 56, world());
  EXPECT_EQ(rep, (std::vector<int>{prev(), -prev()}));
  EXPECT_EQ(st.source(), prev());
  if (!mpi4_anywhere_at_run_time()) {  // native Open MPI 4.1
    expect_unsupported("MPI_Isendrecv", [&] {
      (void)anympi::isendrecv(std::vector<int>{me}, next(), 57, std::vector<int>(1), prev(), 57, world());
    });
    return;
  }
  auto sr = anympi::isendrecv(iota(static_cast<std::size_t>(me + 1), me), next(), 57, std::vector<int>{} | views::resize,
                              prev(), 57, world());
  EXPECT_EQ(std::move(sr.wait()).base(), iota(static_cast<std::size_t>(prev() + 1), prev()));
  auto srr = anympi::isendrecv_replace(std::vector<int>{me, 1}, next(), 58, prev(), 58, world());
  EXPECT_EQ(srr.wait(), (std::vector<int>{prev(), 1}));
}

// alltoallw (buffers that carry their counts, displacements and datatypes), barrier, ibarrier.
TEST(LayerWrappers, AlltoallwAndBarriers) {
  int const p = size(), me = rank();
  std::vector<int> s(static_cast<std::size_t>(p)), r(static_cast<std::size_t>(p), -1), counts(static_cast<std::size_t>(p), 1),
      bdispl(static_cast<std::size_t>(p));
  for (int j = 0; j < p; ++j) {
    s[static_cast<std::size_t>(j)] = 100 * me + j;
    bdispl[static_cast<std::size_t>(j)] = j * static_cast<int>(sizeof(int));
  }
  std::vector<MPI_Datatype> types(static_cast<std::size_t>(p), MPI_INT);
  anympi::alltoallw(mpi::mpi_span_w<int const>(s.data(), counts, bdispl, types),
                    mpi::mpi_span_w<int>(r.data(), counts, bdispl, types), world());
  for (int j = 0; j < p; ++j) EXPECT_EQ(r[static_cast<std::size_t>(j)], 100 * j + me);
  std::fill(r.begin(), r.end(), -1);
  auto w = anympi::ialltoallw(mpi::mpi_span_w<int const>(s.data(), counts, bdispl, types),
                              mpi::mpi_span_w<int>(r.data(), counts, bdispl, types), world());
  (void)w.wait();
  for (int j = 0; j < p; ++j) EXPECT_EQ(r[static_cast<std::size_t>(j)], 100 * j + me);
  anympi::barrier(world());
  anympi::ibarrier(world()).wait();
}

// The neighbourhood collectives on a non-periodic line (a 2-process periodic ring would have
// one process as both neighbours, where MPICH 4.0 and MPI-4.1 disagree on the block order):
// counts left open found from the degrees, or exchanged with the neighbours.
TEST(LayerWrappers, NeighborhoodCountsFromTheTopology) {
  int const p = size(), me = rank();
  int const left = me > 0 ? me - 1 : MPI_PROC_NULL, right = me + 1 < p ? me + 1 : MPI_PROC_NULL;
  std::array<int, 1> dims{p};
  std::array<bool, 1> periods{false};
  mpi::comm line = mpi::cart_create(mpi::comm_world(), dims, periods);
  auto from = [](int n, int value) { return n == MPI_PROC_NULL ? -1 : value; };

  // The in-degree of a line is 2 everywhere (MPI_PROC_NULL neighbours count, receive nothing).
  auto ag = anympi::neighbor_allgather(std::vector<int>{me}, std::vector<int>{} | views::resize, line);
  ASSERT_EQ(ag.base().size(), 2u);
  std::vector<int> untouched(2, -1);
  auto& ag2 = anympi::neighbor_allgather(me, untouched, line);
  EXPECT_EQ(&ag2, &untouched);
  EXPECT_EQ(untouched, (std::vector<int>{from(left, left), from(right, right)}));
  if (left != MPI_PROC_NULL) {
    EXPECT_EQ(ag.base()[0], left);
  }
  if (right != MPI_PROC_NULL) {
    EXPECT_EQ(ag.base()[1], right);
  }
  auto a2a = anympi::neighbor_alltoall(std::vector<int>{100 * me, 100 * me + 1}, std::vector<int>(2, -1), line);
  EXPECT_EQ(a2a, (std::vector<int>{from(left, 100 * left + 1), from(right, 100 * right)}));
  auto a2a_open = anympi::neighbor_alltoall(std::vector<int>{1, 2}, std::vector<int>{} | views::resize, line);
  EXPECT_EQ(a2a_open.base().size(), 2u);

  // v-forms: process q sends q + 1 copies of q (allgatherv) / q + 1 to the left and q + 2 to
  // the right (alltoallv); the counts are exchanged with the neighbours.
  std::vector<int> mine(static_cast<std::size_t>(me + 1), me);
  auto agv = anympi::neighbor_allgatherv(mine, std::vector<int>{} | views::auto_counts | views::resize_v, line);
  std::vector<int> expect_agv;
  if (left != MPI_PROC_NULL) expect_agv.insert(expect_agv.end(), static_cast<std::size_t>(left + 1), left);
  if (right != MPI_PROC_NULL) expect_agv.insert(expect_agv.end(), static_cast<std::size_t>(right + 1), right);
  EXPECT_EQ(agv.base().base(), expect_agv);
  std::vector<std::vector<int>> blocks{std::vector<int>(static_cast<std::size_t>(me + 1), 10 * me),
                                       std::vector<int>(static_cast<std::size_t>(me + 2), 10 * me + 1)};
  auto a2av = anympi::neighbor_alltoallv(blocks | views::flatten_v,
                                         std::vector<int>{} | views::auto_counts | views::resize_v, line);
  std::vector<int> expect_a2av;  // from the left its block for the right, and the converse
  if (left != MPI_PROC_NULL) expect_a2av.insert(expect_a2av.end(), static_cast<std::size_t>(left + 2), 10 * left + 1);
  if (right != MPI_PROC_NULL) expect_a2av.insert(expect_a2av.end(), static_cast<std::size_t>(right + 1), 10 * right);
  EXPECT_EQ(a2av.base().base(), expect_a2av);

  // Nonblocking forms.
  auto iag = anympi::ineighbor_allgather(me, std::vector<int>(2, -1), line);
  auto ia2a = anympi::ineighbor_alltoall(std::vector<int>{100 * me, 100 * me + 1}, std::vector<int>{} | views::resize,
                                         line);
  auto iagv = anympi::ineighbor_allgatherv(mine, std::vector<int>{} | views::auto_counts | views::resize_v, line);
  auto ia2av = anympi::ineighbor_alltoallv(blocks | views::flatten_v,
                                           std::vector<int>{} | views::auto_counts | views::resize_v, line);
  EXPECT_EQ(iag.wait(), (std::vector<int>{from(left, left), from(right, right)}));
  auto ia2a_got = std::move(ia2a.wait()).base();
  ASSERT_EQ(ia2a_got.size(), 2u);
  if (left != MPI_PROC_NULL) {
    EXPECT_EQ(ia2a_got[0], 100 * left + 1);
  }
  if (right != MPI_PROC_NULL) {
    EXPECT_EQ(ia2a_got[1], 100 * right);
  }
  EXPECT_EQ(std::move(iagv.wait()).base().base(), expect_agv);
  EXPECT_EQ(std::move(ia2av.wait()).base().base(), expect_a2av);
}

}  // namespace
