// anympi/kokkos.hpp: views::kokkos over contiguous Views (passed directly), strided ones
// (packed into a staging View and unpacked after the receive) and a rank-1 View resized by
// views::resize, on Kokkos' Serial backend.
#include "common.hpp"

#include <anympi.hpp>
#include <anympi/kokkos.hpp>

#include <Kokkos_Core.hpp>

#include <vector>

using namespace test;
namespace views = anympi::views;

namespace {

// Kokkos lives between MPI_Init and MPI_Finalize, around every test.
class KokkosEnvironment : public ::testing::Environment {
public:
  void SetUp() override { Kokkos::initialize(); }
  void TearDown() override { Kokkos::finalize(); }
};
[[maybe_unused]] auto* const kokkos_environment = ::testing::AddGlobalTestEnvironment(new KokkosEnvironment);

using matrix = Kokkos::View<int**, Kokkos::LayoutRight, Kokkos::HostSpace>;
using vector = Kokkos::View<int*, Kokkos::HostSpace>;

template <class V>
std::vector<int> to_std(V const& v) {
  std::vector<int> out(v.extent(0));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = v(i);
  return out;
}

TEST(LayerKokkos, ContiguousViewIsPassedDirectly) {
  vector v("v", 5);
  auto b = views::kokkos(v);
  EXPECT_EQ(mpi::ptr(b), v.data());  // no staging copy
  EXPECT_EQ(mpi::count(b), 5);
  EXPECT_EQ(mpi::type(b), MPI_INT);
  static_assert(mpi::send_buffer<decltype(b) const&>);
  static_assert(std::is_same_v<decltype(v | views::kokkos), decltype(b)>);
}

TEST(LayerKokkos, ContiguousSendRecvAndAllreduce) {
  vector s("s", 4);
  Kokkos::parallel_for(4, KOKKOS_LAMBDA(int i) { s(i) = rank() * 10 + i; });
  // The send is nonblocking: at one process the message goes to the process itself.
  auto sreq = anympi::isend(views::kokkos(s), next(), 1, world());
  vector r("r", 4);
  auto [got, st] = anympi::recv(views::kokkos(r), prev(), 1, world());
  sreq.wait();
  EXPECT_EQ(got.data(), r.data());  // the caller's View comes back
  EXPECT_EQ(to_std(r), iota(4, prev() * 10));

  vector sum("sum", 4);
  anympi::allreduce(s | views::kokkos, sum | views::kokkos, std::plus<>{}, world());
  int const ranks = size() * (size() - 1) / 2;
  for (int i = 0; i < 4; ++i) EXPECT_EQ(sum(i), ranks * 10 + size() * i) << i;
}

TEST(LayerKokkos, StridedColumnIsPackedAndUnpacked) {
  // Column 1 of a 3x4 LayoutRight matrix: elements 4 ints apart.
  matrix m("m", 3, 4);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) m(i, j) = rank() * 100 + i * 10 + j;
  auto col = Kokkos::subview(m, Kokkos::ALL, 1);
  ASSERT_FALSE(col.span_is_contiguous());
  auto sb = views::kokkos(col);
  int const* staged = mpi::ptr(sb);
  EXPECT_NE(staged, col.data());  // a staging copy, packed in index order
  EXPECT_EQ(std::vector<int>(staged, staged + 3),
            (std::vector<int>{rank() * 100 + 1, rank() * 100 + 11, rank() * 100 + 21}));
  m(0, 1) = -5;  // packed again when the operation asks for the address, into the same staging
  auto sreq = anympi::isend(sb, next(), 2, world());
  EXPECT_EQ(staged[0], -5);
  auto [dropped, st0] = anympi::recv(std::vector<int>(3), prev(), 2, world());
  sreq.wait();
  EXPECT_EQ(dropped[0], -5);
  m(0, 1) = rank() * 100 + 1;  // a new send packs the current values
  auto sreq6 = anympi::isend(sb, next(), 6, world());

  matrix r("r", 3, 4);
  Kokkos::deep_copy(r, -1);
  auto rcol = Kokkos::subview(r, Kokkos::ALL, 2);
  auto [got, st] = anympi::recv(views::kokkos(rcol), prev(), 6, world());
  sreq6.wait();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(r(i, j), j == 2 ? prev() * 100 + i * 10 + 1 : -1) << i << "," << j;
  EXPECT_EQ(got.data(), rcol.data());
}

TEST(LayerKokkos, StridedSubviewThroughTheCoreAndAnExplicitFinish) {
  // Every other element of a rank-1 View.
  vector v("v", 8);
  for (int i = 0; i < 8; ++i) v(i) = rank() * 1000 + i;
  Kokkos::View<int*, Kokkos::LayoutStride, Kokkos::HostSpace> strided(v.data(), Kokkos::LayoutStride(4, 2));
  vector out("out", 8);
  Kokkos::deep_copy(out, -1);
  Kokkos::View<int*, Kokkos::LayoutStride, Kokkos::HostSpace> odd(out.data() + 1, Kokkos::LayoutStride(4, 2));
  auto rb = views::kokkos(odd);
  mpi::sendrecv(views::kokkos(strided), next(), 3, rb, prev(), 3, world());
  EXPECT_EQ(to_std(out), std::vector<int>(8, -1));  // received into the staging copy only ...
  anympi::finish(rb, true);                          // ... until it is unpacked
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out(i), i % 2 ? prev() * 1000 + (i - 1) : -1) << i;
}

// Every wrapper unpacks a strided receive where this process received: the collectives here,
// and a nonblocking receive when it completes.
TEST(LayerKokkos, StridedCollectivesAndNonblockingReceivesAreUnpacked) {
  matrix m("m", 4, 2);
  for (int i = 0; i < 4; ++i) m(i, 0) = rank() + i, m(i, 1) = -7;
  matrix r("r", 4, 2);
  Kokkos::deep_copy(r, -1);
  auto col = anympi::allreduce(views::kokkos(Kokkos::subview(m, Kokkos::ALL, 0)),
                               views::kokkos(Kokkos::subview(r, Kokkos::ALL, 0)), mpi::max<>{}, world());
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(col(i), size() - 1 + i);
    EXPECT_EQ(r(i, 0), size() - 1 + i);
    EXPECT_EQ(r(i, 1), -1);
  }

  // allgather into column 1 of a size() x 2 matrix; gather into column 0 at the last rank only.
  matrix g("g", static_cast<std::size_t>(size()), 2);
  Kokkos::deep_copy(g, -1);
  anympi::allgather(rank() * 3, Kokkos::subview(g, Kokkos::ALL, 1) | views::kokkos, world());
  int const root = size() - 1;
  anympi::gather(rank() * 5, Kokkos::subview(g, Kokkos::ALL, 0) | views::kokkos, root, world());
  for (int p = 0; p < size(); ++p) {
    EXPECT_EQ(g(p, 1), p * 3) << p;
    EXPECT_EQ(g(p, 0), rank() == root ? p * 5 : -1) << p;
  }

  // irecv into column 1 of a 3x2 matrix: unpacked by wait(), into the caller's View.
  matrix n("n", 3, 2);
  Kokkos::deep_copy(n, -1);
  auto req = anympi::irecv(Kokkos::subview(n, Kokkos::ALL, 1) | views::kokkos, prev(), 7, world());
  auto sreq = anympi::isend(iota(3, rank() * 10), next(), 7, world());
  auto got = req.wait();
  sreq.wait();
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(n(i, 1), prev() * 10 + i) << i;
    EXPECT_EQ(got(i), prev() * 10 + i) << i;
    EXPECT_EQ(n(i, 0), -1) << i;
  }
}

TEST(LayerKokkos, RecvResizesTheView) {
  vector s("s", 2 + rank());
  for (int i = 0; i < 2 + rank(); ++i) s(i) = rank() * 10 + i;
  auto sreq = anympi::isend(views::kokkos(s), next(), 4, world());
  vector r("r", 0);
  anympi::recv(views::kokkos(r) | views::resize, prev(), 4, world());
  sreq.wait();
  ASSERT_EQ(r.extent(0), static_cast<std::size_t>(2 + prev()));  // the caller's View, resized
  EXPECT_EQ(to_std(r), iota(2 + prev(), prev() * 10));
  // grow_only keeps a larger View as it is.
  auto sreq5 = anympi::isend(views::kokkos(s), next(), 5, world());
  vector big("big", 10);
  Kokkos::deep_copy(big, -1);
  anympi::recv(views::kokkos(big) | views::grow_only, prev(), 5, world());
  sreq5.wait();
  EXPECT_EQ(big.extent(0), 10u);
  EXPECT_EQ(big(1 + prev()), prev() * 10 + 1 + prev());
  EXPECT_EQ(big(9), -1);
}

}  // namespace
