// The paper's API (issue C3, item 2): the calls of the reference implementation's core-layer
// tests (group, info, session, request_view), written against anympi's mpi:: core. Test
// names follow the reference's where the test means the same; where anympi departs from it
// (docs/cxx-core.md), the test says so and checks anympi's behaviour.
#include "common.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <iterator>
#include <optional>
#include <ranges>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using namespace test;

// ---------------------------------------------------------------- handles and views

static_assert(mpi::convertible_to_mpi_handle<mpi::group_view, MPI_Group>);
static_assert(mpi::convertible_to_mpi_handle<mpi::group, MPI_Group>);
static_assert(mpi::convertible_to_mpi_handle<mpi::comm_view, MPI_Comm>);
static_assert(mpi::convertible_to_mpi_handle<mpi::comm, MPI_Comm>);
static_assert(mpi::convertible_to_mpi_handle<mpi::info_view, MPI_Info>);
static_assert(mpi::convertible_to_mpi_handle<mpi::info, MPI_Info>);
static_assert(mpi::convertible_to_mpi_handle_ptr<mpi::request_view, MPI_Request>);
static_assert(mpi::request_handle_ptr<mpi::request_view>);

// Only comm_view is implicit from its native handle: under MPICH every handle type is int,
// and an int must not pick a group or datatype view, nor make overloads ambiguous.
static_assert(std::is_convertible_v<MPI_Comm, mpi::comm_view>);
static_assert(!std::is_convertible_v<MPI_Group, mpi::group_view>);
static_assert(!std::is_convertible_v<MPI_Datatype, mpi::datatype_view>);
static_assert(!std::is_convertible_v<MPI_Info, mpi::info_view>);
static_assert(!mpi::comm_handle<mpi::group_view>);
static_assert(!mpi::comm_handle<mpi::group>);
static_assert(!mpi::group_handle<mpi::comm_view>);

namespace {
int which_view(mpi::comm_view) { return 1; }
int which_view(mpi::group_view) { return 2; }
int which_view(mpi::datatype_view) { return 3; }
int size_of(mpi::comm_view c) { return c.size(); }
}  // namespace

TEST(CommViewTest, ImplicitFromNativeComm) {
  mpi::comm_view v = MPI_COMM_WORLD;
  EXPECT_EQ(v.native(), MPI_COMM_WORLD);
  EXPECT_EQ(size_of(MPI_COMM_WORLD), size());
  EXPECT_EQ(which_view(MPI_COMM_WORLD), 1);
  EXPECT_EQ(which_view(mpi::group_view{MPI_GROUP_EMPTY}), 2);
  EXPECT_EQ(which_view(mpi::datatype_view{MPI_INT}), 3);
  mpi::comm_view null_view;
  EXPECT_TRUE(null_view.is_null());
}

// Moving transfers the handle and leaves the source null: is_null() is the kind's null
// handle, for a group MPI_GROUP_NULL (the reference: MPI_GROUP_EMPTY). Assigning frees what
// the target held.
template <class Owner>
void expect_move_construct_transfers(Owner a) {
  auto const raw = a.mpi_handle();
  Owner b = std::move(a);
  EXPECT_TRUE(a.is_null());
  EXPECT_EQ(b.mpi_handle(), raw);
}
template <class Owner>
void expect_move_assign_transfers(Owner a, Owner b) {
  auto const raw = a.mpi_handle();
  b = std::move(a);
  EXPECT_TRUE(a.is_null());
  EXPECT_EQ(b.mpi_handle(), raw);
}

// release() hands the handle to the caller, who frees it, and leaves the owner null (the
// reference's disown()).
template <class Owner>
void expect_release_hands_back(Owner owner, int (*free_fn)(typename Owner::native_type*)) {
  auto const raw = owner.mpi_handle();
  auto released = owner.release();
  EXPECT_EQ(released, raw);
  EXPECT_TRUE(owner.is_null());
  EXPECT_EQ(free_fn(&released), MPI_SUCCESS);
}

// ---------------------------------------------------------------- group

TEST(GroupViewTest, WrapsHandle) {
  MPI_Group raw = MPI_GROUP_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &raw);
  mpi::group_view gv(raw);
  EXPECT_EQ(gv.mpi_handle(), raw);
  EXPECT_EQ(gv.native(), raw);
  MPI_Group_free(&raw);
}

TEST(GroupTest, EmptyGroup) {
  for (int i = 0; i < 3; ++i) {  // destroyed each time: MPI_GROUP_EMPTY is never freed
    mpi::group g = mpi::group::empty();
    EXPECT_EQ(g.mpi_handle(), MPI_GROUP_EMPTY);
    EXPECT_EQ(g.size(), 0);
    EXPECT_EQ(g.rank(), std::nullopt);
    EXPECT_FALSE(g.contains_self());
    EXPECT_FALSE(g.is_null());
  }
  mpi::group g = mpi::group::empty();
  g.free();  // predefined: not passed to MPI_Group_free, the owner is left null
  EXPECT_EQ(g.mpi_handle(), MPI_GROUP_NULL);
  int n = -1;
  ASSERT_EQ(MPI_Group_size(MPI_GROUP_EMPTY, &n), MPI_SUCCESS);
  EXPECT_EQ(n, 0);
  EXPECT_EQ(mpi::group::empty().compare(mpi::group_empty()), mpi::comparison::ident);
}

TEST(GroupTest, FromNative) {
  MPI_Group raw = MPI_GROUP_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &raw);
  EXPECT_NE(raw, MPI_GROUP_EMPTY);
  mpi::group g = mpi::group::from_native(raw);
  EXPECT_EQ(g.mpi_handle(), raw);
}

// anympi: a moved-from group is MPI_GROUP_NULL (the reference: MPI_GROUP_EMPTY).
TEST(GroupTest, MoveConstructTransfersOwnership) {
  expect_move_construct_transfers(mpi::comm_world().group());
  mpi::group a = mpi::comm_world().group();
  mpi::group b = std::move(a);
  EXPECT_EQ(a.mpi_handle(), MPI_GROUP_NULL);
}

TEST(GroupTest, MoveAssignTransfersOwnership) {
  expect_move_assign_transfers(mpi::comm_world().group(), mpi::comm_world().group());
  expect_move_assign_transfers(mpi::group::empty(), mpi::comm_world().group());
  expect_move_assign_transfers(mpi::comm_world().group(), mpi::group::empty());
}

TEST(GroupTest, ImplicitConversionToView) {
  mpi::group g = mpi::comm_world().group();
  mpi::group_view gv = g;
  EXPECT_EQ(gv.mpi_handle(), g.mpi_handle());
}

TEST(GroupTest, ReleaseRelinquishesOwnership) {
  expect_release_hands_back(mpi::comm_world().group(), &MPI_Group_free);
}

TEST(GroupAccessorsTest, SizeMatchesCommSize) {
  mpi::comm_view world(MPI_COMM_WORLD);
  EXPECT_EQ(world.group().size(), world.size());
}

TEST(GroupAccessorsTest, RankMatchesCommRank) {
  mpi::comm_view world(MPI_COMM_WORLD);
  std::optional<int> const r = world.group().rank();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, world.rank());
}

TEST(GroupAccessorsTest, ContainsSelfTrue) {
  EXPECT_TRUE(mpi::comm_world().group().contains_self());
  EXPECT_TRUE(mpi::group_view(mpi::comm_self().group()).contains_self());
}

TEST(GroupAccessorsTest, RankIsNulloptOutsideTheGroup) {
  int const me = rank();
  std::vector<int> const only_me{me};
  mpi::group const others = mpi::comm_world().group().excl(only_me);
  EXPECT_EQ(others.size(), size() - 1);
  EXPECT_EQ(others.rank(), std::nullopt);
  EXPECT_FALSE(others.contains_self());
}

TEST(GroupAccessorsTest, CompareWorldWithItself) {
  mpi::group a = mpi::comm_world().group();
  mpi::group b = mpi::comm_world().group();
  EXPECT_EQ(a.compare(b), mpi::comparison::ident);
}

// ---------------------------------------------------------------- comm: free dup / split

TEST(CommTest, DupPreservesRankAndSize) {
  mpi::comm_view world(MPI_COMM_WORLD);
  mpi::comm d;
  mpi::dup(world, d);
  EXPECT_EQ(d.rank(), world.rank());
  EXPECT_EQ(d.size(), world.size());
  EXPECT_NE(d.mpi_handle(), MPI_COMM_NULL);
  EXPECT_NE(d.mpi_handle(), MPI_COMM_WORLD);
  EXPECT_EQ(d.compare(world), mpi::comparison::congruent);
  mpi::comm d2 = d.dup();
  EXPECT_EQ(d2.size(), world.size());
  // Into a communicator that holds one: that one is freed, the new one replaces it.
  mpi::dup(MPI_COMM_WORLD, d);
  EXPECT_FALSE(d.is_null());
  EXPECT_EQ(d.compare(world), mpi::comparison::congruent);
}

TEST(CommTest, MoveConstructTransfersOwnership) {
  mpi::comm a;
  mpi::dup(mpi::comm_world(), a);
  expect_move_construct_transfers(std::move(a));
}

TEST(CommTest, SplitEvenOdd) {
  mpi::comm_view world(MPI_COMM_WORLD);
  int const me = world.rank(), p = world.size(), color = me % 2;
  mpi::comm sub;
  mpi::split(world, color, me, sub);
  EXPECT_EQ(sub.size(), color == 0 ? (p + 1) / 2 : p / 2);
  EXPECT_EQ(sub.rank(), me / 2);
  EXPECT_NE(sub.mpi_handle(), MPI_COMM_NULL);
  // mpi::undefined: out becomes null (and its communicator is freed).
  mpi::split(world, mpi::undefined, 0, sub);
  EXPECT_TRUE(sub.is_null());
}

TEST(CommTest, DisownRelinquishesOwnership) {
  mpi::comm a;
  mpi::dup(mpi::comm_world(), a);
  expect_release_hands_back(std::move(a), &MPI_Comm_free);
}

// ---------------------------------------------------------------- info

TEST(InfoViewTest, NullInfo) {
  mpi::info_view iv(MPI_INFO_NULL);
  EXPECT_EQ(iv.mpi_handle(), MPI_INFO_NULL);
  EXPECT_TRUE(mpi::info_view{}.is_null());  // a default view stays MPI_INFO_NULL
  EXPECT_TRUE(mpi::info_null().is_null());
}

TEST(InfoTest, DefaultConstructCreatesHandle) {
  mpi::info i;
  EXPECT_NE(i.mpi_handle(), MPI_INFO_NULL);
  EXPECT_EQ(i.size(), 0);
  mpi::info none{mpi::null_handle};
  EXPECT_EQ(none.mpi_handle(), MPI_INFO_NULL);
  // Adopting a handle creates nothing first (and cannot throw).
  static_assert(noexcept(mpi::info::from_native(MPI_INFO_NULL)));
  EXPECT_TRUE(mpi::info::from_native(MPI_INFO_NULL).is_null());
}

TEST(InfoTest, MoveConstructTransfersOwnership) { expect_move_construct_transfers(mpi::info{}); }

TEST(InfoTest, MoveAssignTransfersOwnership) { expect_move_assign_transfers(mpi::info{}, mpi::info{}); }

TEST(InfoTest, DupCreatesIndependentCopy) {
  mpi::info a;
  a.set("k", "v");
  mpi::info b = a.dup();
  EXPECT_NE(b.mpi_handle(), a.mpi_handle());
  EXPECT_EQ(b.get("k"), std::optional<std::string>{"v"});
  b.set("k", "other");
  EXPECT_EQ(a.get("k"), std::optional<std::string>{"v"});
}

TEST(InfoTest, SetAndGetString) {
  mpi::info i;
  i.set("hello", "world");
  EXPECT_EQ(i.get("hello"), std::optional<std::string>{"world"});
  EXPECT_EQ(i.get<std::string>("hello"), std::optional<std::string>{"world"});
}

TEST(InfoTest, GetAbsentKeyReturnsNullopt) {
  mpi::info i;
  EXPECT_EQ(i.get("missing"), std::nullopt);
}

TEST(InfoTest, Contains) {
  mpi::info i;
  EXPECT_FALSE(i.contains("k"));
  i.set("k", "v");
  EXPECT_TRUE(i.contains("k"));
}

TEST(InfoTest, OverwriteExistingKey) {
  mpi::info i;
  i.set("k", "first");
  i.set("k", "second");
  EXPECT_EQ(i.get("k"), std::optional<std::string>{"second"});
  EXPECT_EQ(i.size(), 1);
}

TEST(InfoTest, EraseKey) {
  mpi::info i;
  i.set("k", "v");
  EXPECT_EQ(i.size(), 1);
  i.erase("k");
  EXPECT_EQ(i.size(), 0);
  EXPECT_EQ(i.get("k"), std::nullopt);
}

TEST(InfoTest, SetGetBool) {
  mpi::info i;
  i.set("flag", true);
  EXPECT_EQ(i.get("flag"), std::optional<std::string>{"true"});  // the standard's spelling
  EXPECT_EQ(i.get<bool>("flag"), std::optional<bool>{true});
  i.set("flag", false);
  EXPECT_EQ(i.get("flag"), std::optional<std::string>{"false"});
  EXPECT_EQ(i.get<bool>("flag"), std::optional<bool>{false});
}

TEST(InfoTest, SetGetInt) {
  mpi::info i;
  i.set("n", 42);
  EXPECT_EQ(i.get("n"), std::optional<std::string>{"42"});
  EXPECT_EQ(i.get<int>("n"), std::optional<int>{42});
  i.set("big", std::uint64_t{1} << 40);
  EXPECT_EQ(i.get<std::int64_t>("big"), std::optional<std::int64_t>{std::int64_t{1} << 40});
}

TEST(InfoTest, SetGetNegativeInt) {
  mpi::info i;
  i.set("n", -7);
  EXPECT_EQ(i.get<int>("n"), std::optional<int>{-7});
  EXPECT_EQ(i.get<long long>("n"), std::optional<long long>{-7});
}

TEST(InfoTest, GetTypedAbsentKeyReturnsNullopt) {
  mpi::info i;
  EXPECT_EQ(i.get<int>("missing"), std::nullopt);
  EXPECT_EQ(i.get<bool>("missing"), std::nullopt);
  EXPECT_EQ(i.get<mpi::thread_level>("missing"), std::nullopt);
}

// A value that does not read as the type asked for is an mpi_error naming the key, never
// a wrong number or undefined behaviour. (An empty value cannot be set: Open MPI refuses it
// with MPI_ERR_INFO_VALUE.)
TEST(InfoTest, MalformedTypedValueIsInfoValueError) {
  mpi::info i = mpi::info::create({{"b", "yes"},
                                   {"n", "12x"},
                                   {"spaced", " 3"},
                                   {"wide", "99999999999"},
                                   {"neg", "-1"},
                                   {"plus", "+5"},
                                   {"minus", "-"},
                                   {"min", "-9223372036854775808"},
                                   {"over", "18446744073709551616"},
                                   {"t", "MPI_THREAD_MANY"}});
  auto expect_bad = [&](char const* key, auto get) {
    try {
      get();
      ADD_FAILURE() << key << " must not read";
    } catch (mpi::mpi_error const& e) {
      EXPECT_EQ(e.error_class(), MPI_ERR_INFO_VALUE) << e.what();
      EXPECT_NE(std::string(e.what()).find(std::string("\"") + key + "\""), std::string::npos) << e.what();
    }
  };
  expect_bad("b", [&] { (void)i.get<bool>("b"); });
  expect_bad("n", [&] { (void)i.get<int>("n"); });
  expect_bad("spaced", [&] { (void)i.get<int>("spaced"); });
  expect_bad("wide", [&] { (void)i.get<int>("wide"); });  // beyond int
  expect_bad("neg", [&] { (void)i.get<unsigned>("neg"); });
  expect_bad("t", [&] { (void)i.get<mpi::thread_level>("t"); });
  expect_bad("plus", [&] { (void)i.get<int>("plus"); });  // as std::from_chars: no '+'
  expect_bad("minus", [&] { (void)i.get<long>("minus"); });
  expect_bad("min", [&] { (void)i.get<int>("min"); });
  expect_bad("over", [&] { (void)i.get<unsigned long long>("over"); });
  expect_bad("over", [&] { (void)i.get<long long>("over"); });
  EXPECT_EQ(i.get<long long>("wide"), std::optional<long long>{99999999999LL});
  EXPECT_EQ(i.get<int>("neg"), std::optional<int>{-1});
  EXPECT_EQ(i.get<long long>("min"), std::optional<long long>{LLONG_MIN});
  EXPECT_EQ(i.get<std::int8_t>("neg"), std::optional<std::int8_t>{-1});
  i.set("n", "18446744073709551615");
  EXPECT_EQ(i.get<unsigned long long>("n"), std::optional<unsigned long long>{ULLONG_MAX});
  i.set("n", "-128");
  EXPECT_EQ(i.get<signed char>("n"), std::optional<signed char>{-128});
  i.set("n", "-0");
  EXPECT_EQ(i.get<short>("n"), std::optional<short>{0});
}

// Characters are not integers for info values: '1' would be stored as "49".
template <class I>
concept sets_a_char = requires(I& i) { i.set("k", 'x'); };
template <class I>
concept gets_a_char = requires(I& i) { i.template get<char>("k"); };
static_assert(!sets_a_char<mpi::info> && !gets_a_char<mpi::info>);
static_assert(requires(mpi::info& i) { i.set("k", 1); i.set("k", true); i.set("k", "v"); });

TEST(InfoTest, NthKey) {
  mpi::info i;
  i.set("alpha", "1");
  i.set("beta", "2");
  EXPECT_EQ(i.size(), 2);
  std::vector<std::string> keys = {i.nth_key(0), i.nth_key(1)};
  EXPECT_NE(std::find(keys.begin(), keys.end(), "alpha"), keys.end());
  EXPECT_NE(std::find(keys.begin(), keys.end(), "beta"), keys.end());
}

static_assert(std::sentinel_for<mpi::info_sentinel, mpi::info_iterator>);
static_assert(std::input_iterator<mpi::info_iterator>);
static_assert(std::ranges::input_range<mpi::info>);
static_assert(std::ranges::input_range<mpi::info_view>);
static_assert(std::ranges::input_range<mpi::info const>);

TEST(InfoTest, SentinelConcept) {
  EXPECT_TRUE((std::sentinel_for<mpi::info_sentinel, mpi::info_iterator>));
  EXPECT_TRUE(std::ranges::range<mpi::info>);
}

TEST(InfoTest, EmptyInfoIteratesZeroTimes) {
  mpi::info i;
  int count = 0;
  for (auto [k, v] : i) {
    (void)k;
    (void)v;
    ++count;
  }
  EXPECT_EQ(count, 0);
}

TEST(InfoTest, IteratesAllEntries) {
  mpi::info i;
  i.set("x", "1");
  i.set("y", "2");
  i.set("z", "3");
  std::vector<std::pair<std::string, std::string>> collected;
  for (auto kv : i) collected.push_back(kv);
  ASSERT_EQ(collected.size(), 3u);
  for (auto const& [k, v] : collected) EXPECT_EQ(i.get(k), std::optional<std::string>{v});
  EXPECT_EQ(collected, i.items());
  // Through a view as well.
  mpi::info_view const iv = i;
  EXPECT_EQ(std::ranges::distance(iv), 3);
}

TEST(InfoTest, EntriesRangeCompatibleWithAlgorithms) {
  mpi::info i;
  i.set("a", "1");
  i.set("b", "2");
  EXPECT_EQ(std::ranges::distance(i), 2);
  EXPECT_EQ(std::ranges::count_if(i, [](auto const& kv) { return kv.second == "2"; }), 1);
}

TEST(InfoTest, SetGetThreadLevel) {
  mpi::info i;
  i.set("thread_level", mpi::thread_level::multiple);
  EXPECT_EQ(i.get("thread_level"), std::optional<std::string>{"MPI_THREAD_MULTIPLE"});
  EXPECT_EQ(i.get<mpi::thread_level>("thread_level"), std::optional{mpi::thread_level::multiple});
  i.set("thread_level", mpi::thread_level::single);
  EXPECT_EQ(i.get<mpi::thread_level>("thread_level"), std::optional{mpi::thread_level::single});
  i.set("thread_level", mpi::thread_level::funneled);
  EXPECT_EQ(i.get("thread_level"), std::optional<std::string>{"MPI_THREAD_FUNNELED"});
  i.set("thread_level", mpi::thread_level::serialized);
  EXPECT_EQ(i.get<mpi::thread_level>("thread_level"), std::optional{mpi::thread_level::serialized});
}

TEST(InfoTest, StructuredBindingsRangeFor) {
  mpi::info i;
  i.set("hello", "world");
  int n = 0;
  for (auto [k, v] : i) {
    EXPECT_EQ(k, "hello");
    EXPECT_EQ(v, "world");
    ++n;
  }
  EXPECT_EQ(n, 1);
}

// ---------------------------------------------------------------- request_view

TEST(RequestViewTest, ConceptSatisfied) {
  EXPECT_TRUE((mpi::convertible_to_mpi_handle_ptr<mpi::request_view, MPI_Request>));
}

namespace {
// A message to the next process, received from the previous one (itself at one process).
struct ring_exchange {
  int out = rank();
  int in = -1;
  mpi::request recv = mpi::irecv(in, prev(), 7, world());
  MPI_Request send = mpi::isend(out, next(), 7, world()).release();
  ~ring_exchange() {
    if (send != MPI_REQUEST_NULL) MPI_Wait(&send, MPI_STATUS_IGNORE);
  }
};
}  // namespace

// The view refers to the caller's handle: an MPI call through it (mpi::wait) completes
// the caller's request and nulls the caller's handle.
TEST(RequestViewTest, IsendWithRequestView) {
  ring_exchange x;
  mpi::request_view rv{x.send};
  EXPECT_EQ(rv.native(), x.send);
  EXPECT_FALSE(rv.is_null());
  mpi::wait(rv);
  EXPECT_EQ(x.send, MPI_REQUEST_NULL);
  EXPECT_TRUE(rv.is_null());
  x.recv.wait();
  EXPECT_EQ(x.in, prev());
}

TEST(RequestViewTest, WaitViaRequestView) {
  ring_exchange x;
  mpi::request_view{x.send}.wait();
  EXPECT_EQ(x.send, MPI_REQUEST_NULL);  // a copy of the handle would leave it active
  mpi::status const st = mpi::request_view{x.recv}.wait();
  EXPECT_TRUE(x.recv.is_null());  // the owner's handle: nothing left to free
  EXPECT_EQ(st.source(), prev());
  EXPECT_EQ(x.in, prev());
}

TEST(RequestViewTest, TestViaRequestView) {
  ring_exchange x;
  mpi::request_view const rv = x.recv;  // implicit from the owner, as other views
  while (!rv.test()) {
  }
  EXPECT_TRUE(x.recv.is_null());
  EXPECT_EQ(x.in, prev());
  while (!mpi::request_view{x.send}.test(mpi::status_ignore)) {
  }
  EXPECT_EQ(x.send, MPI_REQUEST_NULL);
}

// ---------------------------------------------------------------- session

// Where the header declares sessions, the MPI running the test has them: natively an MPI-4.0
// library, over the standard ABI anympi's runtime on either backend.
#if MPI_CXX_HAS_SESSIONS

TEST(SessionTest, DefaultConstructCreatesValidSession) {
  mpi::session s;
  EXPECT_NE(s.mpi_handle(), MPI_SESSION_NULL);
  mpi::session none{mpi::null_handle};
  EXPECT_TRUE(none.is_null());
  static_assert(noexcept(mpi::session::from_native(MPI_SESSION_NULL)));
}

TEST(SessionTest, MoveConstructTransfersOwnership) { expect_move_construct_transfers(mpi::session{}); }

TEST(SessionTest, MoveAssignTransfersOwnership) {
  expect_move_assign_transfers(mpi::session{}, mpi::session{});  // finalizes the second
}

TEST(SessionTest, ExplicitFinalizeIdempotent) {
  mpi::session s;
  s.finalize();
  EXPECT_EQ(s.mpi_handle(), MPI_SESSION_NULL);
  s.finalize();
}

TEST(SessionTest, ReleaseRelinquishesOwnership) {
  expect_release_hands_back(mpi::session{}, &MPI_Session_finalize);
}

TEST(SessionTest, FromNativeAdoptsHandle) {
  MPI_Session raw = MPI_SESSION_NULL;
  ASSERT_EQ(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &raw), MPI_SUCCESS);
  mpi::session s = mpi::session::from_native(raw);
  EXPECT_EQ(s.mpi_handle(), raw);
}

TEST(SessionTest, ImplicitConversionToView) {
  mpi::session s;
  mpi::session_view sv = s;
  EXPECT_EQ(sv.mpi_handle(), s.mpi_handle());
  EXPECT_EQ(sv.psets(), s.psets());
}

TEST(SessionTest, ThreadLevelConstructorAndGetInfo) {
  mpi::session s(mpi::thread_level::single);
  EXPECT_FALSE(s.is_null());
  mpi::info const i = s.get_info();
  // The level provided: at least the one asked for (MPICH 4.0.2 reports MPI_THREAD_MULTIPLE).
  if (i.contains("thread_level")) {
    EXPECT_TRUE(i.get<mpi::thread_level>("thread_level").has_value());
  }
}

TEST(SessionTest, GroupFromPsetWorldReturnsNonEmpty) {
  mpi::session s;
  auto g = s.group_from_pset("mpi://WORLD");
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->size(), size());
}

TEST(SessionTest, GroupFromPsetWorldContainsSelf) {
  mpi::session s;
  auto g = s.group_from_pset("mpi://WORLD");
  ASSERT_TRUE(g.has_value());
  EXPECT_TRUE(g->contains_self());
}

TEST(SessionTest, GroupFromPsetSelfHasSizeOne) {
  mpi::session s;
  auto g = s.group_from_pset("mpi://SELF");
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->size(), 1);
  EXPECT_EQ(g->rank(), std::optional<int>{0});
}

// anympi: no such process set is nullopt (the reference throws); other errors still throw.
TEST(SessionTest, GroupFromPsetUnknownIsNullopt) {
  mpi::session s;
  EXPECT_EQ(s.group_from_pset("mpi://DOES_NOT_EXIST"), std::nullopt);
  EXPECT_EQ(s.group_from_pset(""), std::nullopt);
  EXPECT_EQ(s.comm_from_pset("mpi://DOES_NOT_EXIST"), std::nullopt);
  mpi::session_view const finalized{};  // MPI_SESSION_NULL: an error, not "no such set"
  EXPECT_THROW((void)finalized.group_from_pset("mpi://WORLD"), mpi::mpi_error);
}

TEST(SessionTest, CommFromPsetWorldReturnsValidComm) {
  mpi::session s;
  auto c = s.comm_from_pset("mpi://WORLD");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->size(), size());
  EXPECT_EQ(c->rank(), rank());
  int sum = 0;
  mpi::allreduce(1, sum, std::plus<>{}, *c);
  EXPECT_EQ(sum, size());
}

TEST(SessionTest, CommFromPsetSelfHasSizeOne) {
  mpi::session s;
  auto c = s.comm_from_pset("mpi://SELF", "anympi.test.self");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->size(), 1);
  EXPECT_EQ(c->rank(), 0);
}

TEST(SessionTest, PsetsRangeIsNonEmpty) {
  mpi::session s;
  int count = 0;
  for ([[maybe_unused]] auto const& name : s.psets()) ++count;
  EXPECT_GE(count, 2);
  EXPECT_EQ(count, s.num_psets());
}

TEST(SessionTest, PsetsRangeContainsWorld) {
  mpi::session s;
  auto const names = s.psets();
  EXPECT_NE(std::find(names.begin(), names.end(), "mpi://WORLD"), names.end());
}

TEST(SessionTest, PsetsRangeContainsSelf) {
  mpi::session s;
  auto const names = s.psets();
  EXPECT_NE(std::find(names.begin(), names.end(), "mpi://SELF"), names.end());
}
#else
// Without MPI-4.0 sessions (native Open MPI 4.1) no session can be made.
TEST(SessionTest, UnsupportedWithoutSessions) {
  expect_unsupported("MPI_Session_init", [] { mpi::session s; });
  expect_unsupported("MPI_Session_init", [] { mpi::session s(mpi::thread_level::single); });
  expect_unsupported("MPI_Session_init", [] { (void)mpi::session::init(); });
  mpi::session none{mpi::null_handle};
  EXPECT_TRUE(none.is_null());
  none.finalize();
  expect_unsupported("MPI_Group_from_session_pset", [&] { (void)none.group_from_pset("mpi://WORLD"); });
}
#endif
