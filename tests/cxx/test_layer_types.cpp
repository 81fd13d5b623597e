// anympi/types.hpp and anympi/op.hpp: datatypes derived from aggregates (Boost.PFR), pairs,
// tuples, arrays and listed fields, checked against types/'s decoder and through messages;
// type_pool from several threads; user reductions from lambdas on struct types.
// This test's main initializes MPI with MPI_THREAD_MULTIPLE (tests/cxx/CMakeLists.txt).
#include "common.hpp"

#include <anympi.hpp>
#include <anympi/types/decode.hpp>

#include <barrier>
#include <cstddef>
#include <thread>
#include <tuple>
#include <utility>

using namespace test;
namespace views = anympi::views;

namespace {


// 7 bytes of padding after c, 4 after i.
struct padded {
  char c;
  double d;
  int i;
  friend bool operator==(padded const&, padded const&) = default;
};
struct inner {
  short s;
  float f;
  friend bool operator==(inner const&, inner const&) = default;
};
struct outer {
  inner in;
  std::array<double, 3> a;
  char tag;
  long n;
  friend bool operator==(outer const&, outer const&) = default;
};
// Not an aggregate: its fields are listed once (below, at namespace scope of anympi).
class particle {
public:
  particle() = default;
  particle(double x, int id) : x(x), id(id) {}
  double x = 0;
  int id = 0;
  friend bool operator==(particle const&, particle const&) = default;
};

}  // namespace

template <>
inline constexpr auto anympi::fields<particle> = std::tuple{&particle::id, &particle::x};

namespace {
// The paper's Fig. 5 (5) spelling: the trait says what anympi derives without it.
struct my_struct {
  int x;
  double y;
  friend bool operator==(my_struct const&, my_struct const&) = default;
};
}  // namespace
template <>
struct anympi::types::mpi_type_traits<my_struct> : public anympi::types::struct_type<my_struct> {};

namespace {

static_assert(anympi::derivable_type<padded> && anympi::derivable_type<outer> && anympi::derivable_type<particle>);
static_assert(anympi::derivable_type<std::pair<int, double>> && anympi::derivable_type<std::tuple<char, long, float>>);
static_assert(anympi::derivable_type<std::array<padded, 2>>);
static_assert(mpi::mapped_type<padded> && mpi::data_buffer<std::vector<outer>&>);
// Not derivable: builtins keep their predefined type; members without a datatype; not byte-copyable.
static_assert(!anympi::derivable_type<int> && !anympi::derivable_type<mpi::value_index<double>>);
struct has_string {
  int a;
  std::string s;
};
struct has_pointer_only {
  int* p;
};
static_assert(!anympi::derivable_type<has_string> && !mpi::mapped_type<has_string>);
static_assert(!anympi::derivable_type<has_pointer_only>);
static_assert(!anympi::derivable_type<std::pair<int, std::string>>);

// The decoded type map of t as (basic type name, displacement) pairs.
using entries = std::vector<std::pair<std::string, std::int64_t>>;
entries decoded(MPI_Datatype t) {
  auto const m = anympi::types::decode_map(t);
  entries out;
  for (auto const& e : m.entries) out.emplace_back(m.type_of(e).name, e.disp);
  return out;
}
// The decoder's name of a predefined datatype, as it names it inside a derived one.
std::string name_of(MPI_Datatype t) { return anympi::types::decode_map(t).types.at(0).name; }
template <class T>
std::int64_t offset(T const& obj, auto const& field) {
  return reinterpret_cast<std::byte const*>(&field) - reinterpret_cast<std::byte const*>(&obj);
}
std::int64_t extent_of(MPI_Datatype t) { return anympi::types::decode_map(t).b.extent; }

TEST(LayerTypes, PaddedStructMatchesTheDecoder) {
  MPI_Datatype const t = mpi::datatype_of<padded>();
  padded const p{};
  entries const want{{name_of(MPI_CHAR), offset(p, p.c)}, {name_of(MPI_DOUBLE), offset(p, p.d)},
                     {name_of(MPI_INT), offset(p, p.i)}};
  EXPECT_EQ(decoded(t), want);
  EXPECT_EQ(want[1].second, 8);  // the padding is there
  EXPECT_EQ(extent_of(t), static_cast<std::int64_t>(sizeof(padded)));
  EXPECT_EQ(mpi::datatype_view(t).size(), 13);
  EXPECT_EQ(mpi::datatype_of<padded>(), t);  // pooled: created once
}

TEST(LayerTypes, NestedStructAndArrayMemberMatchTheDecoder) {
  MPI_Datatype const t = mpi::datatype_of<outer>();
  outer const o{};
  std::string const dbl = name_of(MPI_DOUBLE);
  entries const want{{name_of(MPI_SHORT), offset(o, o.in.s)}, {name_of(MPI_FLOAT), offset(o, o.in.f)},
                     {dbl, offset(o, o.a[0])},  {dbl, offset(o, o.a[1])},
                     {dbl, offset(o, o.a[2])},  {name_of(MPI_CHAR), offset(o, o.tag)},
                     {name_of(MPI_LONG), offset(o, o.n)}};
  EXPECT_EQ(decoded(t), want);
  EXPECT_EQ(extent_of(t), static_cast<std::int64_t>(sizeof(outer)));
  // The nested aggregate is its own pooled datatype, resized to its size.
  EXPECT_EQ(extent_of(mpi::datatype_of<inner>()), static_cast<std::int64_t>(sizeof(inner)));
}

TEST(LayerTypes, PairTupleArrayAndListedFieldsMatchTheDecoder) {
  std::pair<int, double> const p{};
  EXPECT_EQ(decoded(mpi::datatype_of<std::pair<int, double>>()),
            (entries{{name_of(MPI_INT), offset(p, p.first)}, {name_of(MPI_DOUBLE), offset(p, p.second)}}));
  std::tuple<char, long, float> const t{};
  // Whatever order the library lays a tuple out in: the type map follows the elements.
  EXPECT_EQ(decoded(mpi::datatype_of<std::tuple<char, long, float>>()),
            (entries{{name_of(MPI_CHAR), offset(t, std::get<0>(t))},
                     {name_of(MPI_LONG), offset(t, std::get<1>(t))},
                     {name_of(MPI_FLOAT), offset(t, std::get<2>(t))}}));
  EXPECT_EQ(extent_of(mpi::datatype_of<std::tuple<char, long, float>>()),
            static_cast<std::int64_t>(sizeof(std::tuple<char, long, float>)));
  auto const arr = decoded(mpi::datatype_of<std::array<padded, 2>>());
  ASSERT_EQ(arr.size(), 6u);
  EXPECT_EQ(arr[3], (std::pair{name_of(MPI_CHAR), static_cast<std::int64_t>(sizeof(padded))}));
  particle const q{};
  EXPECT_EQ(decoded(mpi::datatype_of<particle>()),
            (entries{{name_of(MPI_INT), offset(q, q.id)}, {name_of(MPI_DOUBLE), offset(q, q.x)}}));
}

padded padded_for(int r, int k) { return {static_cast<char>('a' + r), r * 1.5 + k, r * 100 + k}; }
outer outer_for(int r, int k) {
  return {{static_cast<short>(r), r + 0.25f * static_cast<float>(k)},
          {r * 1.0, k * 2.0, r * 10.0 + k},
          static_cast<char>('A' + k),
          r * 1000L + k};
}
template <class F>
auto make_n(int r, int n, F make) {
  std::vector<decltype(make(r, 0))> v;
  for (int k = 0; k < n; ++k) v.push_back(make(r, k));
  return v;
}

TEST(LayerTypes, StructsThroughSendAndRecv) {
  // Rank r sends r + 1 elements of r-dependent values; the receive learns the count.
  auto s1 = anympi::isend(make_n(rank(), rank() + 1, padded_for), next(), 11, world());
  auto [p, st] = anympi::recv(std::vector<padded>{} | views::resize, prev(), 11, world());
  EXPECT_EQ(std::move(p).base(), make_n(prev(), prev() + 1, padded_for));
  EXPECT_EQ(st.count(mpi::datatype_of<padded>()), prev() + 1);
  s1.wait();

  auto s2 = anympi::isend(make_n(rank(), rank() + 2, outer_for), next(), 12, world());
  auto [o, st2] = anympi::recv(std::vector<outer>{} | views::resize, prev(), 12, world());
  EXPECT_EQ(std::move(o).base(), make_n(prev(), prev() + 2, outer_for));
  s2.wait();

  using pt = std::tuple<char, long, float>;
  auto s3 = anympi::isend(std::vector<pt>{{'x', rank(), 0.5f}, {'y', -rank(), 1.5f}}, next(), 13, world());
  auto s4 = anympi::isend(std::vector<std::pair<int, double>>{{rank(), rank() * 0.5}}, next(), 14, world());
  auto s5 = anympi::isend(std::vector<particle>{{rank() * 2.0, rank()}}, next(), 15, world());
  auto [t, st3] = anympi::recv(std::vector<pt>{} | views::resize, prev(), 13, world());
  EXPECT_EQ(std::move(t).base(), (std::vector<pt>{{'x', prev(), 0.5f}, {'y', -prev(), 1.5f}}));
  std::vector<std::pair<int, double>> pr(1);
  anympi::recv(pr, prev(), 14, world());
  EXPECT_EQ(pr[0], (std::pair<int, double>{prev(), prev() * 0.5}));
  particle q;
  anympi::recv(q, prev(), 15, world());  // a single object is a buffer of one
  EXPECT_EQ(q, (particle{prev() * 2.0, prev()}));
  s3.wait();
  s4.wait();
  s5.wait();
}

TEST(LayerTypes, StructTypeThroughWithType) {
  // The explicit route: an owned datatype attached to a buffer of bytes-compatible storage.
  auto const dt = anympi::struct_type<padded>();
  std::vector<padded> out{padded_for(rank(), 7)}, in(1);
  anympi::sendrecv(out | views::with_type(dt), next(), 16, in | views::with_type(dt), prev(), 16, world());
  EXPECT_EQ(in[0], padded_for(prev(), 7));
}

// Non-commutative: 2x2 integer matrices, multiplied in rank order.
struct mat {
  long a, b, c, d;
  friend bool operator==(mat const&, mat const&) = default;
};
mat mul(mat const& x, mat const& y) {
  return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
}
mat mat_for(int r) { return {1, r + 1, r, 1}; }

struct stats {
  char max_c;
  double sum;
  int count;
  std::array<int, 2> min_max;
  friend bool operator==(stats const&, stats const&) = default;
};
stats stats_for(int r, int k) { return {static_cast<char>('a' + r), r + 0.5 * k, 1, {r * 10 + k, r * 10 + k}}; }
stats combine(stats x, stats y) {
  return {std::max(x.max_c, y.max_c), x.sum + y.sum, x.count + y.count,
          {std::min(x.min_max[0], y.min_max[0]), std::max(x.min_max[1], y.min_max[1])}};
}
stats stats_expected(int k) {
  stats e = stats_for(0, k);
  for (int r = 1; r < size(); ++r) e = combine(e, stats_for(r, k));
  return e;
}

TEST(LayerTypes, AllreduceOfAStructWithALambdaOp) {
  auto const op = anympi::make_op([](stats const& x, stats const& y) { return combine(x, y); }, anympi::commutative);
  auto const r = anympi::allreduce(make_n(rank(), 3, stats_for), std::vector<stats>{} | views::resize, op, world());
  ASSERT_EQ(mpi::count(r), 3);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(r.base()[static_cast<std::size_t>(k)], stats_expected(k)) << k;
  EXPECT_TRUE(op.commutative());
}

TEST(LayerTypes, StatefulOpReduceAndIallreduce) {
  int calls = 0;  // state: the op takes a slot of the core's table
  auto const op = anympi::make_op(
      [&calls](stats const& x, stats const& y) {
        ++calls;
        return combine(x, y);
      },
      anympi::commutative);
  std::vector<stats> const local = make_n(rank(), 2, stats_for);
  auto const red = anympi::reduce(local, std::vector<stats>(2), op, 0, world());
  if (rank() == 0) {
    EXPECT_EQ(red[0], stats_expected(0));
    EXPECT_EQ(red[1], stats_expected(1));
  }
  auto pending = anympi::iallreduce(local, std::vector<stats>(2), op, world());
  auto const all = pending.wait();
  EXPECT_EQ(all, (std::vector<stats>{stats_expected(0), stats_expected(1)}));
  if (size() > 1) {
    int total = 0;
    MPI_Allreduce(&calls, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_GT(total, 0);  // the lambda, not some predefined op, did the work
  }
}

TEST(LayerTypes, NonCommutativeOpKeepsRankOrder) {
  auto const op = anympi::make_op<mat>([](mat const& x, mat const& y) { return mul(x, y); }, anympi::non_commutative);
  EXPECT_FALSE(op.commutative());
  mat want = mat_for(0);
  for (int r = 1; r < size(); ++r) want = mul(want, mat_for(r));
  mat got{};
  anympi::allreduce(mat_for(rank()), got, op, world());
  EXPECT_EQ(got, want);
}

TEST(LayerTypes, TypePoolFromManyThreads) {
  if (mpi::query_thread() != mpi::thread_level::multiple) GTEST_SKIP() << "MPI_THREAD_MULTIPLE not provided";
  constexpr int threads = 8, rounds = 50;
  anympi::type_pool pool;
  struct seen {
    MPI_Datatype p, o, pr, i;
  };
  std::vector<std::vector<seen>> got(threads);
  std::barrier start(threads);
  std::vector<std::thread> pool_users;
  for (int t = 0; t < threads; ++t)
    pool_users.emplace_back([&, t] {
      start.arrive_and_wait();  // all at once, for the race on the first creation
      for (int k = 0; k < rounds; ++k) {
        // Different threads ask in different orders.
        seen s{};
        if ((t + k) % 2 == 0) {
          s.p = pool.get<padded>().native();
          s.o = pool.get<outer>().native();
        } else {
          s.o = pool.get<outer>().native();
          s.p = pool.get<padded>().native();
        }
        s.pr = pool.get<std::pair<int, double>>().native();
        s.i = pool.get<int>().native();
        got[static_cast<std::size_t>(t)].push_back(s);
      }
    });
  for (auto& th : pool_users) th.join();
  seen const first = got[0][0];
  for (auto const& v : got)
    for (auto const& s : v) {
      EXPECT_EQ(s.p, first.p);
      EXPECT_EQ(s.o, first.o);
      EXPECT_EQ(s.pr, first.pr);
      EXPECT_EQ(s.i, first.i);
    }
  EXPECT_EQ(pool.size(), 3u);  // int is predefined, not pooled
  EXPECT_EQ(first.i, MPI_INT);
  EXPECT_EQ(extent_of(first.o), static_cast<std::int64_t>(sizeof(outer)));
  // A pool's types are usable and distinct from the default pool's.
  EXPECT_NE(first.p, mpi::datatype_of<padded>());
  padded out = padded_for(rank(), 1), in{};
  anympi::sendrecv(out | views::with_type(pool.get<padded>()), next(), 17, in | views::with_type(first.p), prev(), 17,
                   world());
  EXPECT_EQ(in, padded_for(prev(), 1));
  // Moved, the pool keeps its types.
  anympi::type_pool moved = std::move(pool);
  EXPECT_EQ(moved.get<padded>().native(), first.p);
  EXPECT_EQ(moved.size(), 3u);
}

TEST(LayerTypes, PoolWithAnExplicitMaker) {
  anympi::type_pool pool;
  int made = 0;
  auto make = [&] {
    ++made;
    return mpi::datatype::contiguous(2, mpi::datatype_view(MPI_INT)).commit();
  };
  auto const a = pool.get<std::pair<long, long>>(make);
  auto const b = pool.get<std::pair<long, long>>(make);
  EXPECT_EQ(a, b);
  EXPECT_EQ(made, 1);
  EXPECT_EQ(a.size(), static_cast<MPI_Count>(2 * sizeof(int)));
}

// views::with_auto_pool / with_pool: the element type's datatype from the caller's pool, created
// there on first use or required to be there already; the paper's trait spelling goes through
// the same pool.
TEST(LayerTypes, PoolViewsAndThePapersTrait) {
  anympi::type_pool pool;
  std::vector<padded> v{padded_for(rank(), 0), padded_for(rank(), 1)}, in(2);
  try {
    (void)(v | views::with_pool(pool));
    ADD_FAILURE() << "with_pool accepted a pool without the type";
  } catch (mpi::mpi_error const& e) {
    EXPECT_EQ(e.error_class(), MPI_ERR_TYPE);
  }
  auto b = v | views::with_auto_pool(pool);
  EXPECT_EQ(pool.size(), 1u);
  EXPECT_EQ(mpi::type(b), pool.get<padded>().native());
  EXPECT_NE(mpi::type(b), mpi::datatype_of<padded>());  // not default_type_pool()'s
  EXPECT_EQ(mpi::ptr(b), v.data());
  EXPECT_EQ(mpi::type(v | views::with_pool(pool)), mpi::type(b));
  anympi::sendrecv(v | views::with_auto_pool(pool), next(), 18, in | views::with_pool(pool), prev(), 18, world());
  EXPECT_EQ(in, (std::vector<padded>{padded_for(prev(), 0), padded_for(prev(), 1)}));
  // A predefined element type needs no entry.
  std::vector<int> ints{1, 2};
  EXPECT_EQ(mpi::type(ints | views::with_pool(pool)), MPI_INT);
  EXPECT_EQ(pool.size(), 1u);

  static_assert(anympi::types::traits_make<my_struct>);
  EXPECT_FALSE(pool.find<my_struct>().has_value());
  std::vector<my_struct> m{{rank(), 0.5 * rank()}, {-rank(), 2.0}}, got(2);
  auto send = m | views::with_auto_pool(pool);  // first: the order of a call's arguments is unspecified
  anympi::sendrecv(send, next(), 19, got | views::with_pool(pool), prev(), 19, world());
  EXPECT_EQ(got, (std::vector<my_struct>{{prev(), 0.5 * prev()}, {-prev(), 2.0}}));
  EXPECT_EQ(pool.size(), 2u);
  my_struct const probe{};
  EXPECT_EQ(decoded(pool.get<my_struct>().native()),
            (entries{{name_of(MPI_INT), offset(probe, probe.x)}, {name_of(MPI_DOUBLE), offset(probe, probe.y)}}));
  EXPECT_EQ(extent_of(pool.get<my_struct>().native()), static_cast<std::int64_t>(sizeof(my_struct)));
}

}  // namespace
