// anympi/thrust.hpp: thrust::host_vector and thrust::device_vector (built with the CPP device
// system, whose device memory is host memory) as buffers of the core and of the layer.
#include "common.hpp"

#include <anympi.hpp>
#include <anympi/thrust.hpp>

#include <thrust/sequence.h>

#include <vector>

using namespace test;
namespace views = anympi::views;

namespace {

static_assert(anympi::device_memory_is_host_memory, "this test is built with THRUST_DEVICE_SYSTEM_CPP");
static_assert(mpi::send_buffer<thrust::host_vector<int> const&>);
static_assert(mpi::recv_buffer<thrust::device_vector<double>&>);
static_assert(!mpi::recv_buffer<thrust::device_vector<int> const&>);

template <class V>
std::vector<typename V::value_type> to_std(V const& v) {
  thrust::host_vector<typename V::value_type> h = v;  // a device_vector is copied to the host
  return std::vector<typename V::value_type>(h.begin(), h.end());
}

template <class V>
class LayerThrust : public ::testing::Test {};
using vector_types = ::testing::Types<thrust::host_vector<int>, thrust::device_vector<int>>;
TYPED_TEST_SUITE(LayerThrust, vector_types);

TYPED_TEST(LayerThrust, IsPassedByTheAddressOfItsElements) {
  TypeParam v(5);
  EXPECT_EQ(mpi::ptr(v), thrust::raw_pointer_cast(v.data()));
  EXPECT_EQ(mpi::count(v), 5u);
  EXPECT_EQ(mpi::type(v), MPI_INT);
}

TYPED_TEST(LayerThrust, SendAndRecvAroundTheRing) {
  TypeParam s(6);
  thrust::sequence(s.begin(), s.end(), rank() * 100);
  // The receive is posted first: at one process the message goes to the process itself.
  TypeParam r(6, -1);
  auto req = anympi::irecv(r, prev(), 1, world());
  anympi::send(s, next(), 1, world());
  req.wait();
  EXPECT_EQ(to_std(r), iota(6, prev() * 100));
  // A blocking receive, after a nonblocking send.
  TypeParam r1(6, -1);
  auto sreq = anympi::isend(s, next(), 7, world());
  auto [got, st] = anympi::recv(r1, prev(), 7, world());
  sreq.wait();
  EXPECT_EQ(&got, &r1);  // an lvalue comes back as a reference
  EXPECT_EQ(st.source(), prev());
  EXPECT_EQ(to_std(r1), iota(6, prev() * 100));
  // The core takes it as well, as a const send buffer and a receive buffer.
  TypeParam const cs = s;
  mpi::request creq = mpi::isend(cs, next(), 2, world());
  TypeParam r2(6, -1);
  mpi::recv(r2, prev(), 2, world());
  creq.wait();
  EXPECT_EQ(to_std(r2), iota(6, prev() * 100));
}

TYPED_TEST(LayerThrust, AllgatherAndAllreduce) {
  TypeParam mine(2);
  mine[0] = rank();
  mine[1] = 10 * rank();
  // The receive vector starts empty: views::resize sizes it to size() * 2.
  auto all = anympi::allgather(mine, TypeParam{} | views::resize, world());
  std::vector<int> expect;
  for (int p = 0; p < size(); ++p) expect.insert(expect.end(), {p, 10 * p});
  EXPECT_EQ(to_std(all.base()), expect);

  TypeParam sum(2, -1);
  anympi::allreduce(mine, sum, std::plus<>{}, world());
  int const ranks = size() * (size() - 1) / 2;
  EXPECT_EQ(to_std(sum), (std::vector<int>{ranks, 10 * ranks}));
}

TYPED_TEST(LayerThrust, RecvIntoAnEmptyVectorResizedToTheMessage) {
  TypeParam s(3 + rank());
  thrust::sequence(s.begin(), s.end(), rank());
  auto sreq = anympi::isend(s, next(), 3, world());
  TypeParam r;
  anympi::recv(r | views::resize, prev(), 3, world());
  sreq.wait();
  EXPECT_EQ(r.size(), static_cast<std::size_t>(3 + prev()));  // the caller's vector, resized
  EXPECT_EQ(to_std(r), iota(3 + prev(), prev()));
  // An owned one comes back in the view.
  auto sreq4 = anympi::isend(s, next(), 4, world());
  auto [owned, st] = anympi::recv(TypeParam(100, -1) | views::resize, prev(), 4, world());
  sreq4.wait();
  EXPECT_EQ(to_std(owned.base()), iota(3 + prev(), prev()));
}

TYPED_TEST(LayerThrust, NonblockingRecvHandsTheVectorBack) {
  auto req = anympi::irecv(TypeParam(4, -1), prev(), 5, world());
  static_assert(std::is_same_v<decltype(req.wait()), TypeParam>);
  TypeParam s(4);
  thrust::sequence(s.begin(), s.end(), rank() * 7);
  auto sent = anympi::isend(std::move(s), next(), 5, world());
  TypeParam r = req.wait();
  EXPECT_EQ(to_std(r), iota(4, prev() * 7));
  EXPECT_EQ(to_std(sent.wait()), iota(4, rank() * 7));
  // Borrowed: received into the caller's vector.
  TypeParam b(2, -1);
  auto breq = anympi::irecv(b, prev(), 6, world());
  anympi::send(TypeParam(2, rank()), next(), 6, world());
  breq.wait();
  EXPECT_EQ(to_std(b), (std::vector<int>{prev(), prev()}));
}

}  // namespace
