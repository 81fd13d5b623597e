// anympi::views: each view answers its one accessor and passes the others through, over
// containers, std::views pipelines and other views; used with the core's operations.
#include "common.hpp"

#include <anympi.hpp>

#include <ranges>

using namespace test;
namespace views = anympi::views;

namespace {

TEST(LayerViews, WithTypeOverridesOnlyTheType) {
  std::vector<int> v{1, 2, 3, 4};
  auto b = v | views::with_type(MPI_FLOAT);
  EXPECT_EQ(mpi::type(b), MPI_FLOAT);
  EXPECT_EQ(mpi::ptr(b), v.data());
  EXPECT_EQ(mpi::count(b), 4u);
  // An MPI_2INT over pairs of ints: two elements of the pair type travel.
  std::vector<int> r(4, -1);
  mpi::sendrecv(v | views::with_count(2) | views::with_type(MPI_2INT), rank(), 0,
                r | views::with_type(MPI_2INT) | views::with_count(2), rank(), 0, mpi::comm_world());
  EXPECT_EQ(r, v);
}

TEST(LayerViews, WithCountOverComposedStdViews) {
  std::vector<int> v = iota(10, 0);
  auto b = v | std::views::drop(2) | std::views::take(6) | views::with_count(3);
  EXPECT_EQ(mpi::count(b), 3);
  EXPECT_EQ(mpi::ptr(b), v.data() + 2);
  EXPECT_EQ(mpi::type(b), MPI_INT);
  std::vector<int> r(10, -1);
  mpi::allreduce(b, r | views::with_count(3), mpi::max<>{}, mpi::comm_world());
  EXPECT_EQ(r, (std::vector<int>{2, 3, 4, -1, -1, -1, -1, -1, -1, -1}));
}

TEST(LayerViews, WithCountsAndDispls) {
  std::vector<int> v(6), c{1, 2}, d{4, 0};
  auto b = v | views::with_counts(c) | views::with_displs(d);
  EXPECT_EQ(std::ranges::data(mpi::counts(b)), c.data());
  EXPECT_EQ(std::ranges::data(mpi::displs(b)), d.data());
  EXPECT_EQ(mpi::ptr(b), v.data());
  static_assert(mpi::recv_buffer_v<decltype(b)&>);
  // Owned counts (an rvalue) live in the view.
  auto o = v | views::with_counts(std::vector<int>{3, 3});
  EXPECT_EQ(std::vector<int>(mpi::counts(o).begin(), mpi::counts(o).end()), (std::vector<int>{3, 3}));
}

TEST(LayerViews, AutoDisplsIsTheExclusivePrefixSumComputedOnce) {
  std::vector<int> v(10), c{3, 0, 2, 5};
  auto b = v | views::with_counts(c) | views::auto_displs();
  auto d = mpi::displs(b);
  EXPECT_EQ(std::vector<int>(d.begin(), d.end()), (std::vector<int>{0, 3, 3, 5}));
  c[0] = 100;  // computed already: asking again gives the same array, not a new sum
  auto d2 = mpi::displs(b);
  EXPECT_EQ(d2.data(), d.data());
  EXPECT_EQ(d2[1], 3);
  // Without parentheses, the same view.
  auto b2 = v | views::with_counts(c) | views::auto_displs;
  EXPECT_EQ(mpi::displs(b2)[1], 100);
}

TEST(LayerViews, AutoCountsAreFilledByInferAndRefreshTheDispls) {
  std::vector<int> v;
  auto b = v | views::auto_counts | views::auto_displs | views::resize_v;
  static_assert(anympi::deferred_counts<decltype(b)>);
  EXPECT_TRUE(mpi::counts(b).empty());
  EXPECT_TRUE(mpi::displs(b).empty());  // computed over no counts ...
  auto fill = b.mpi_counts_to_fill(3);
  fill[0] = 2;
  fill[1] = 0;
  fill[2] = 4;
  auto d = mpi::displs(b);  // ... and again once infer() refilled them
  EXPECT_EQ(std::vector<int>(d.begin(), d.end()), (std::vector<int>{0, 2, 2}));
  (void)mpi::ptr(b);
  EXPECT_EQ(v.size(), 6u);
}

// Counts past the in-object room (32 processes) go to the heap; a view keeps its counts when it
// is copied or moved into the next view, whichever storage holds them.
TEST(LayerViews, AutoCountsOfManyProcessesSurviveCopiesAndMoves) {
  for (std::size_t p : {std::size_t{3}, std::size_t{32}, std::size_t{33}, std::size_t{100}}) {
    std::vector<int> v;
    auto a = v | views::auto_counts;
    auto fill = a.mpi_counts_to_fill(p);
    for (std::size_t i = 0; i < p; ++i) fill[i] = static_cast<int>(3 * i + 1);
    auto want = [&](auto const& b) {
      auto c = mpi::counts(b);
      ASSERT_EQ(c.size(), p);
      for (std::size_t i = 0; i < p; ++i) EXPECT_EQ(c[i], static_cast<int>(3 * i + 1)) << p << " processes, " << i;
    };
    auto copy = a;
    want(copy);
    auto moved = std::move(a) | views::auto_displs;  // moved into the next view
    want(moved);
    auto d = mpi::displs(moved);
    ASSERT_EQ(d.size(), p);
    EXPECT_EQ(d[p - 1], static_cast<int>(3 * (p - 1) * (p - 2) / 2 + (p - 1)));
    auto again = moved;  // the displacements copied too
    EXPECT_EQ(mpi::displs(again)[p - 1], d[p - 1]);
    auto last = std::move(again);
    want(last);
    // refilled smaller, then larger: the sizes follow
    last.mpi_counts_to_fill(2)[1] = 7;
    EXPECT_EQ(mpi::counts(last).size(), 2u);
    EXPECT_EQ(mpi::counts(last)[1], 7);
    EXPECT_EQ(mpi::displs(last)[1], 0);  // counts are zero until filled
    last.mpi_counts_to_fill(200)[199] = 5;
    auto big = last;
    ASSERT_EQ(mpi::counts(big).size(), 200u);
    EXPECT_EQ(mpi::counts(big)[199], 5);
  }
}

TEST(LayerViews, ResizeVFitsGivenCountsAndDispls) {
  std::vector<int> v, c{2, 3}, d{5, 0};
  (void)mpi::ptr(v | views::with_counts(c) | views::with_displs(d) | views::resize_v);
  EXPECT_EQ(v.size(), 7u);
  (void)mpi::ptr(v | views::with_counts(c) | views::resize_v);  // no displacements: packed
  EXPECT_EQ(v.size(), 5u);
}

TEST(LayerViews, ResizePolicies) {
  std::vector<int> v(8, 7);
  {
    auto b = v | views::resize;
    static_assert(anympi::deferred_count<decltype(b)>);
    EXPECT_EQ(mpi::count(b), 8);  // the container's until infer() says otherwise
    b.mpi_set_count(3);
    EXPECT_EQ(mpi::count(b), 3);
    EXPECT_EQ(v.size(), 8u);  // resized only when the address is asked for
    (void)mpi::ptr(b);
    EXPECT_EQ(v.size(), 3u);
  }
  {
    auto b = v | views::grow_only;
    b.mpi_set_count(2);
    (void)mpi::ptr(b);
    EXPECT_EQ(v.size(), 3u);
    b.mpi_set_count(5);
    (void)mpi::ptr(b);
    EXPECT_EQ(v.size(), 5u);
  }
  {
    auto b = v | views::no_resize;
    b.mpi_set_count(4);
    EXPECT_EQ(mpi::ptr(b), v.data());
    EXPECT_EQ(v.size(), 5u);
    b.mpi_set_count(6);
    try {
      (void)mpi::ptr(b);
      ADD_FAILURE() << "no_resize must refuse a message larger than the buffer";
    } catch (mpi::mpi_error const& e) {
      EXPECT_EQ(e.error_class(), MPI_ERR_TRUNCATE);
    }
  }
  // A known count is handed to the resizable buffer underneath, and ends the deferral.
  auto k = v | views::resize | views::with_count(2);
  static_assert(!anympi::deferred_count<decltype(k)>);
  (void)mpi::ptr(k);
  EXPECT_EQ(v.size(), 2u);
  // Resizing reaches the container through other views.
  auto t = v | views::with_type(MPI_INT) | views::resize;
  t.mpi_set_count(9);
  (void)mpi::ptr(t);
  EXPECT_EQ(v.size(), 9u);
}

TEST(LayerViews, HoldsRvaluesAndBorrowsLvalues) {
  std::vector<int> v{1, 2, 3};
  auto borrowed = v | views::with_count(2);
  EXPECT_EQ(mpi::ptr(borrowed), v.data());
  static_assert(mpi::enable_borrowed_buffer<decltype(borrowed)>);
  auto owned = std::vector<int>{4, 5, 6} | views::resize | views::with_count(2);
  static_assert(!mpi::enable_borrowed_buffer<decltype(owned)>);
  static_assert(!mpi::enable_borrowed_buffer<decltype(v | views::auto_counts)>);
  (void)mpi::ptr(owned);  // the known count reaches the resizable buffer underneath
  std::vector<int> back = std::move(owned).base().base();
  EXPECT_EQ(back, (std::vector<int>{4, 5}));
  // A const container makes a send buffer only.
  std::vector<int> const cv{1};
  static_assert(mpi::send_buffer<decltype(cv | views::with_type(MPI_INT))>);
  static_assert(!mpi::recv_buffer<decltype(cv | views::with_type(MPI_INT))>);
}

}  // namespace
