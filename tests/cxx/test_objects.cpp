// mpi:: core: communicators, groups, topologies, info, sessions, datatypes, environment.
#include "common.hpp"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

using namespace test;

TEST(Environment, VersionTimeThreads) {
  EXPECT_TRUE(mpi::initialized());
  EXPECT_FALSE(mpi::finalized());
  auto [v, sv] = mpi::version();
  EXPECT_GE(v, 3);
  EXPECT_GE(sv, 0);
  EXPECT_FALSE(mpi::library_version().empty());
  EXPECT_FALSE(mpi::processor_name().empty());
  double t0 = mpi::wtime();
  EXPECT_GE(mpi::wtime(), t0);
  EXPECT_GT(mpi::wtick(), 0.0);
  EXPECT_EQ(mpi::query_thread(), mpi::thread_level::single);
  EXPECT_TRUE(mpi::is_thread_main());
  EXPECT_GE(mpi::comm_world().tag_ub(), 32767);
  // A second environment does not re-initialize and does not finalize.
  { mpi::environment inner; }
  EXPECT_FALSE(mpi::finalized());
}

TEST(Comm, DupSplitCreateCompare) {
  auto world = mpi::comm_world();
  int const p = size(), me = rank();
  mpi::comm d = world.dup();
  EXPECT_EQ(d.size(), p);
  EXPECT_EQ(d.compare(world), mpi::comparison::congruent);
  EXPECT_EQ(world.compare(MPI_COMM_WORLD), mpi::comparison::ident);
  // split: even and odd ranks, reversed order by key
  mpi::comm half = world.split(me % 2, p - me);
  EXPECT_EQ(half.size(), (p + 1 - me % 2) / 2);
  int expected_rank = 0;
  for (int r = me + 2; r < p; r += 2) ++expected_rank;
  EXPECT_EQ(half.rank(), expected_rank);
  mpi::comm none = world.split(mpi::undefined, 0);
  EXPECT_TRUE(none.is_null());
  mpi::comm node = world.split_type(mpi::split_kind::shared);
  EXPECT_GE(node.size(), 1);
  // odd processes take part in no shared-memory communicator
  mpi::comm even_node = world.split_type(me % 2 ? mpi::split_kind::undefined : mpi::split_kind::shared);
  EXPECT_EQ(even_node.is_null(), me % 2 == 1);
  if (!even_node.is_null()) {
    EXPECT_EQ(even_node.size(), (p + 1) / 2);  // one node here
  }
  // create / create_group from the group of the first half
  mpi::group wg = world.group();
  std::vector<int> first(static_cast<std::size_t>((p + 1) / 2));
  std::iota(first.begin(), first.end(), 0);
  mpi::group g = wg.incl(first);
  mpi::comm c1 = world.create(g);
  mpi::comm c2;
  if (me < int(first.size())) c2 = world.create_group(g, 5);
  EXPECT_EQ(c1.is_null(), me >= int(first.size()));
  if (!c1.is_null()) {
    EXPECT_EQ(c1.size(), int(first.size()));
    EXPECT_EQ(c2.compare(c1), mpi::comparison::congruent);
  }
  // idup
  mpi::comm late;
  mpi::request r = world.idup(late);
  r.wait();
  EXPECT_EQ(late.size(), p);
  mpi::comm wi = world.dup_with_info(mpi::info_null());
  EXPECT_EQ(wi.compare(world), mpi::comparison::congruent);
  d.free();
  EXPECT_TRUE(d.is_null());
}

TEST(Comm, IdupWithInfoAndCreateFromGroup) {
  auto world = mpi::comm_world();
  mpi::comm out;
  if (!mpi4_anywhere_at_run_time()) {
    expect_unsupported("MPI_Comm_idup_with_info", [&] { (void)world.idup_with_info(mpi::info_null(), out); });
    expect_unsupported("MPI_Comm_create_from_group",
                       [&] { (void)mpi::comm_create_from_group(world.group(), "anympi.test"); });
    return;
  }
  mpi::request r = world.idup_with_info(mpi::info_null(), out);
  r.wait();
  EXPECT_EQ(out.compare(world), mpi::comparison::congruent);
  mpi::comm c = mpi::comm_create_from_group(world.group(), "anympi.test");
  EXPECT_EQ(c.size(), size());
}

// Names are taken as std::string_view and copied with their terminator: a view into a longer
// text names only its own characters, and a name longer than the copy's stack buffer (256)
// reaches MPI whole, which truncates it exactly as it does the C call's.
TEST(Comm, NamesFromViews) {
  mpi::comm c = mpi::comm_world().dup();
  std::string_view const text = "abcdef";
  c.set_name(text.substr(0, 3));
  EXPECT_EQ(c.name(), "abc");
  std::string long_name;
  for (int i = 0; i < 300; ++i) long_name += static_cast<char>('a' + i % 26);
  ASSERT_EQ(MPI_Comm_set_name(c.native(), long_name.c_str()), MPI_SUCCESS);
  char buf[MPI_MAX_OBJECT_NAME + 1] = {};
  int len = 0;
  ASSERT_EQ(MPI_Comm_get_name(c.native(), buf, &len), MPI_SUCCESS);
  std::string const by_c(buf, static_cast<std::size_t>(len));
  ASSERT_FALSE(by_c.empty());
  c.set_name("reset");
  c.set_name(long_name);
  EXPECT_EQ(c.name(), by_c);
  mpi::datatype t = mpi::datatype::contiguous(3, MPI_INT);
  t.set_name(std::string_view("three-ints-and-more").substr(0, 10));
  EXPECT_EQ(t.name(), "three-ints");
}

TEST(Comm, NamesAttributesErrhandlerInfo) {
  mpi::comm c = mpi::comm_world().dup();
  c.set_name("anympi-test");
  EXPECT_EQ(c.name(), "anympi-test");
  mpi::attribute_key<std::string> key;
  EXPECT_EQ(c.get_attr(key), nullptr);
  c.set_attr(key, std::string("hello"));
  ASSERT_NE(c.get_attr(key), nullptr);
  EXPECT_EQ(*c.get_attr(key), "hello");
  mpi::comm copy = c.dup();  // the attribute is copied with the communicator
  ASSERT_NE(copy.get_attr(key), nullptr);
  EXPECT_EQ(*copy.get_attr(key), "hello");
  EXPECT_NE(copy.get_attr(key), c.get_attr(key));
  c.delete_attr(key);
  EXPECT_EQ(c.get_attr(key), nullptr);
  // error handlers: the dup inherits errors-return; fatal can be set back
  mpi::errhandler eh = c.get_errhandler();
  EXPECT_TRUE(eh.native() == MPI_ERRORS_RETURN);
  c.set_errhandler(mpi::errors_are_fatal);
  EXPECT_TRUE(c.get_errhandler().native() == MPI_ERRORS_ARE_FATAL);
  c.set_errhandler(mpi::errors_return);
  mpi::info i = c.get_info();
  EXPECT_FALSE(i.is_null());
}

TEST(Comm, Intercommunicator) {
  int const p = size(), me = rank();
  if (p < 2) {
    // With one process there is no second group; an intercommunicator needs two.
    EXPECT_EQ(p, 1);
    return;
  }
  auto world = mpi::comm_world();
  int const color = me % 2;
  mpi::comm local = world.split(color, me);
  int const remote_leader = color == 0 ? 1 : 0;  // world rank of the other group's leader
  mpi::comm inter = mpi::intercomm_create(local, 0, world, remote_leader, 77);
  EXPECT_TRUE(inter.is_inter());
  EXPECT_EQ(inter.remote_size(), p / 2 + (color == 1 ? p % 2 : 0));
  EXPECT_EQ(inter.remote_group().size(), inter.remote_size());
  // An intercomm bcast from group 0's leader to group 1.
  std::vector<int> v(2, -1);
  if (color == 0) {
    if (local.rank() == 0) v = {5, 6};
    mpi::bcast(v, local.rank() == 0 ? mpi::root : mpi::proc_null, inter);
  } else {
    mpi::bcast(v, 0, inter);
    EXPECT_EQ(v, (std::vector<int>{5, 6}));
  }
  // Rooted-free collectives on an intercommunicator exchange with the remote group: the
  // receive buffer is split by the remote size.
  std::vector<int> mine{me}, theirs(static_cast<std::size_t>(inter.remote_size()), -1);
  mpi::allgather(mine, theirs, inter);
  for (std::size_t k = 0; k < theirs.size(); ++k) EXPECT_EQ(theirs[k], int(2 * k) + (1 - color));
  mpi::comm merged = inter.merge(color == 1);
  EXPECT_EQ(merged.size(), p);
  EXPECT_FALSE(merged.is_inter());
}

namespace {
int handler_calls = 0;
void counting_handler(MPI_Comm*, int*, ...) { ++handler_calls; }
}  // namespace

TEST(Comm, UserErrhandler) {
  mpi::comm c = mpi::comm_world().dup();
  mpi::errhandler eh = mpi::errhandler::create_for_comm(&counting_handler);
  c.set_errhandler(eh);
  eh.free();  // the communicator keeps its own reference
  std::vector<int> v(1);
  handler_calls = 0;
  // The handler returns, so MPI returns the error code, which the core throws.
  EXPECT_THROW(mpi::send(v, size() + 3, 0, c), mpi::mpi_error);
  EXPECT_EQ(handler_calls, 1);
}

TEST(Group, SetOperationsAndTranslate) {
  int const p = size(), me = rank();
  mpi::group w = mpi::comm_world().group();
  EXPECT_EQ(w.size(), p);
  EXPECT_EQ(w.rank(), me);
  EXPECT_TRUE(w.contains_self());
  std::vector<int> evens, odds;
  for (int i = 0; i < p; ++i) (i % 2 ? odds : evens).push_back(i);
  mpi::group ge = w.incl(evens), go = w.excl(evens);
  EXPECT_EQ(ge.size(), int(evens.size()));
  EXPECT_EQ(go.size(), int(odds.size()));
  EXPECT_EQ(mpi::group_union(ge, go).compare(w), p > 2 ? mpi::comparison::similar : mpi::comparison::ident);
  EXPECT_EQ(mpi::group_intersection(ge, go).size(), 0);
  EXPECT_EQ(mpi::group_difference(w, go).compare(ge), mpi::comparison::ident);
  std::vector<int> in{0}, out = ge.translate_ranks(in, w);
  EXPECT_EQ(out[0], 0);
  if (me % 2 == 1) {
    EXPECT_EQ(ge.rank(), std::nullopt);
    EXPECT_FALSE(ge.contains_self());
  }
  std::array<std::array<int, 3>, 1> all{{{0, p - 1, 1}}};
  EXPECT_EQ(w.range_incl(all).compare(w), mpi::comparison::ident);
  EXPECT_EQ(w.range_excl(all).size(), 0);
  EXPECT_EQ(mpi::group_empty().size(), 0);
}

TEST(Topology, CartGraphDistGraph) {
  int const p = size(), me = rank();
  auto dims = mpi::dims_create(p, 2);
  EXPECT_EQ(dims[0] * dims[1], p);
  std::array<bool, 2> periods{true, false};
  mpi::comm cart = mpi::cart_create(mpi::comm_world(), dims, periods);
  EXPECT_EQ(mpi::topo_test(cart), mpi::topology::cart);
  EXPECT_EQ(mpi::cartdim(cart), 2);
  auto topo = mpi::cart_get(cart);
  EXPECT_EQ(topo.dims, dims);
  EXPECT_TRUE(topo.periods[0]);
  EXPECT_EQ(mpi::cart_rank(cart, topo.coords), cart.rank());
  EXPECT_EQ(mpi::cart_coords(cart, cart.rank()), topo.coords);
  auto sh = mpi::cart_shift(cart, 0, 1);
  EXPECT_EQ(sh.dest, mpi::cart_rank(cart, std::array<int, 2>{(topo.coords[0] + 1) % dims[0], topo.coords[1]}));
  auto sh1 = mpi::cart_shift(cart, 1, 1);
  if (topo.coords[1] == dims[1] - 1) {
    EXPECT_EQ(sh1.dest, MPI_PROC_NULL);
  }
  std::array<bool, 2> keep{true, false};
  mpi::comm row = mpi::cart_sub(cart, keep);
  EXPECT_EQ(row.size(), dims[0]);
  EXPECT_EQ(mpi::topo_test(mpi::comm_world()), mpi::topology::none);
  // graph: a ring
  std::vector<int> index(p), edges;
  for (int i = 0; i < p; ++i) {
    edges.push_back((i + 1) % p);
    index[i] = i + 1;
  }
  mpi::comm g = mpi::graph_create(mpi::comm_world(), index, edges);
  EXPECT_EQ(mpi::topo_test(g), mpi::topology::graph);
  EXPECT_EQ(mpi::graph_neighbors_count(g, me), 1);
  EXPECT_EQ(mpi::graph_neighbors(g, me), std::vector<int>{(me + 1) % p});
  auto gt = mpi::graph_get(g);
  EXPECT_EQ(gt.edges, edges);
  // dist graph: receive from the left, send to the right, weighted
  std::array<int, 1> src{(me + p - 1) % p}, dst{(me + 1) % p}, w{3};
  mpi::comm dg = mpi::dist_graph_create_adjacent(mpi::comm_world(), src, w, dst, w);
  EXPECT_EQ(mpi::topo_test(dg), mpi::topology::dist_graph);
  auto deg = mpi::dist_graph_neighbors_count(dg);
  EXPECT_EQ(deg.indegree, 1);
  EXPECT_EQ(deg.outdegree, 1);
  EXPECT_TRUE(deg.weighted);
  auto adj = mpi::dist_graph_neighbors(dg);
  EXPECT_EQ(adj.sources[0], src[0]);
  EXPECT_EQ(adj.destinations[0], dst[0]);
  EXPECT_EQ(adj.source_weights[0], 3);
  // dist_graph_create: every process names its own out-edge, unweighted
  std::array<int, 1> me_arr{me}, one{1};
  mpi::comm dg2 = mpi::dist_graph_create(mpi::comm_world(), me_arr, one, dst, {});
  EXPECT_FALSE(mpi::dist_graph_neighbors_count(dg2).weighted);
  // neighbourhood collective on the dist graph
  std::vector<int> s{me}, r(1, -1);
  mpi::neighbor_allgather(s, r, dg);
  EXPECT_EQ(r[0], src[0]);
}

TEST(Info, MapLike) {
  mpi::info i = mpi::info::create({{"a", "1"}, {"bee", "two"}});
  EXPECT_EQ(i.size(), 2);
  EXPECT_EQ(i.get("a").value_or(""), "1");
  EXPECT_EQ(i.get("bee").value_or(""), "two");
  EXPECT_FALSE(i.get("missing").has_value());
  i.set("a", "changed");
  EXPECT_EQ(*i.get("a"), "changed");
  mpi::info d = i.dup();
  i.erase("a");
  EXPECT_FALSE(i.contains("a"));
  EXPECT_TRUE(d.contains("a"));
  auto items = d.items();
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(d.nth_key(0), items[0].first);
  try {
    i.erase("never-set");
    FAIL();
  } catch (mpi::mpi_error const& e) {
    EXPECT_EQ(e.error_class(), MPI_ERR_INFO_NOKEY);
    EXPECT_EQ(e.function(), "MPI_Info_delete");
  }
  mpi::info_view env = mpi::info_env();
  EXPECT_GE(env.size(), 0);
}

TEST(Session, ProcessSets) {
  if (!mpi4_anywhere_at_run_time()) {
    expect_unsupported("MPI_Session_init", [] { (void)mpi::session::init(); });
    return;
  }
  mpi::session s = mpi::session::init();
  int n = s.num_psets();
  ASSERT_GE(n, 2);  // mpi://WORLD and mpi://SELF at least
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(s.nth_pset(i));
  EXPECT_NE(std::find(names.begin(), names.end(), "mpi://WORLD"), names.end());
  mpi::group g = s.group_from_pset("mpi://WORLD").value();
  EXPECT_EQ(g.size(), size());
  mpi::comm c = mpi::comm_create_from_group(g, "anympi.session.test");
  EXPECT_EQ(c.size(), size());
  mpi::info pi = s.pset_info("mpi://WORLD");
  EXPECT_EQ(pi.get("mpi_size").value_or(""), std::to_string(size()));
  c.free();
  s.finalize();
  EXPECT_TRUE(s.is_null());
}

// ---------------------------------------------------------------- datatypes
TEST(Datatype, ConstructorsAndQueries) {
  mpi::datatype c = mpi::datatype::contiguous(3, MPI_INT).commit();
  EXPECT_EQ(c.size(), 3 * MPI_Count(sizeof(int)));
  EXPECT_EQ(c.extent().extent, MPI_Aint(3 * sizeof(int)));
  mpi::datatype v = mpi::datatype::vector(2, 1, 3, MPI_INT).commit();
  EXPECT_EQ(v.size(), 2 * MPI_Count(sizeof(int)));
  EXPECT_EQ(v.extent().extent, MPI_Aint(4 * sizeof(int)));
  mpi::datatype hv = mpi::datatype::hvector(2, 1, 16, MPI_INT);
  EXPECT_EQ(hv.extent().extent, MPI_Aint(16 + sizeof(int)));
  std::array<int, 2> bl{1, 2}, di{0, 3};
  mpi::datatype ix = mpi::datatype::indexed(bl, di, MPI_INT);
  EXPECT_EQ(ix.size(), 3 * MPI_Count(sizeof(int)));
  std::array<MPI_Aint, 2> bd{0, 12};
  EXPECT_EQ(mpi::datatype::hindexed(bl, bd, MPI_INT).size(), 3 * MPI_Count(sizeof(int)));
  EXPECT_EQ(mpi::datatype::indexed_block(2, di, MPI_INT).size(), 4 * MPI_Count(sizeof(int)));
  EXPECT_EQ(mpi::datatype::hindexed_block(2, bd, MPI_INT).size(), 4 * MPI_Count(sizeof(int)));
  struct pod {
    int i;
    double d;
  };
  std::array<int, 2> sbl{1, 1};
  std::array<MPI_Aint, 2> sd{offsetof(pod, i), offsetof(pod, d)};
  std::array<MPI_Datatype, 2> st{MPI_INT, MPI_DOUBLE};
  mpi::datatype s = mpi::datatype::struct_(sbl, sd, st);
  EXPECT_EQ(s.size(), MPI_Count(sizeof(int) + sizeof(double)));
  mpi::datatype rs = mpi::datatype::resized(s, 0, sizeof(pod)).commit();
  EXPECT_EQ(rs.extent().extent, MPI_Aint(sizeof(pod)));
  std::array<int, 2> sizes{4, 4}, sub{2, 2}, start{1, 1};
  mpi::datatype sa = mpi::datatype::subarray(sizes, sub, start, mpi::array_order::c, MPI_INT);
  EXPECT_EQ(sa.size(), 4 * MPI_Count(sizeof(int)));
  EXPECT_EQ(sa.extent().extent, MPI_Aint(16 * sizeof(int)));
  std::array<int, 1> gs{8}, dist{MPI_DISTRIBUTE_BLOCK}, darg{MPI_DISTRIBUTE_DFLT_DARG}, ps{1};
  mpi::datatype da = mpi::datatype::darray(1, 0, gs, dist, darg, ps, mpi::array_order::c, MPI_INT);
  EXPECT_EQ(da.size(), 8 * MPI_Count(sizeof(int)));
  mpi::datatype dup = c.dup();
  EXPECT_EQ(dup.size(), c.size());
  dup.set_name("three-ints");
  EXPECT_EQ(dup.name(), "three-ints");
  mpi::datatype_view iv{MPI_INT};
  EXPECT_EQ(iv.size(), MPI_Count(sizeof(int)));
  // Mismatched array lengths are an argument error naming the procedure.
  std::array<int, 1> one{1};
  try {
    (void)mpi::datatype::indexed(bl, one, MPI_INT);
    FAIL();
  } catch (mpi::mpi_error const& e) {
    EXPECT_EQ(e.error_class(), MPI_ERR_ARG);
    EXPECT_EQ(e.function(), "MPI_Type_indexed");
  }
}

TEST(Datatype, CommunicateWithDerivedTypes) {
  int const p = size(), me = rank();
  int const next = (me + 1) % p, prev = (me + p - 1) % p;
  // Every other element of a 6-int array, through an mpi_span with a vector type.
  mpi::datatype every_other = mpi::datatype::vector(3, 1, 2, MPI_INT).commit();
  std::vector<int> s = iota(6, 10 * me), r(6, -1);
  mpi::mpi_span<int const> sb(s.data(), 1, every_other);
  mpi::mpi_span<int> rb(r.data(), 1, every_other);
  mpi::sendrecv(sb, next, 0, rb, prev, 0, mpi::comm_world());
  EXPECT_EQ(r, (std::vector<int>{10 * prev, -1, 10 * prev + 2, -1, 10 * prev + 4, -1}));
  // MPI_BOTTOM with absolute addresses.
  int x = me * 7, y = -1;
  MPI_Aint ax, ay;
  MPI_Get_address(&x, &ax);
  MPI_Get_address(&y, &ay);
  std::array<int, 1> bl{1};
  std::array<MPI_Aint, 1> dx{ax}, dy{ay};
  mpi::datatype tx = mpi::datatype::hindexed(bl, dx, MPI_INT).commit();
  mpi::datatype ty = mpi::datatype::hindexed(bl, dy, MPI_INT).commit();
  mpi::sendrecv(mpi::bottom(1, tx), next, 1, mpi::bottom(1, ty), prev, 1, mpi::comm_world());
  EXPECT_EQ(y, prev * 7);
  // status counts in units of a derived type
  mpi::request q = mpi::isend(sb, me, 2, mpi::comm_world());
  mpi::status st = mpi::recv(rb, me, 2, mpi::comm_world());
  q.wait();
  EXPECT_EQ(st.count(every_other), 1);
  EXPECT_EQ(st.count<int>(), 3);
  EXPECT_EQ(st.elements<int>(), 3);
}

// ---------------------------------------------------------------- wide datatype arguments
namespace {

// One element of `t` packed from an array holding 0, 1, 2, ...: the packed values are the
// element offsets of the type map, in type-map order.
std::vector<int> packed_offsets(mpi::datatype const& t, std::size_t array_length) {
  std::vector<int> src = iota(array_length, 0);
  int bytes = 0;
  MPI_Pack_size(1, t.native(), MPI_COMM_SELF, &bytes);
  std::vector<int> out(static_cast<std::size_t>(bytes) / sizeof(int), -1);
  int pos = 0;
  int const err = MPI_Pack(src.data(), 1, t.native(), out.data(), bytes, &pos, MPI_COMM_SELF);
  EXPECT_EQ(err, MPI_SUCCESS);
  EXPECT_EQ(pos, bytes);
  return out;
}

struct wide_extent {
  MPI_Count size, lb, extent;
  friend bool operator==(wide_extent const&, wide_extent const&) = default;
};
std::ostream& operator<<(std::ostream& os, wide_extent const& w) {
  return os << "{size " << w.size << ", lb " << w.lb << ", extent " << w.extent << "}";
}
// Through the _x queries, which every MPI here has natively and which the runtime forwards
// on both backends, so the answer does not depend on the code under test.
wide_extent wide_of(MPI_Datatype t) {
  wide_extent w{};
  EXPECT_EQ(MPI_Type_size_x(t, &w.size), MPI_SUCCESS);
  EXPECT_EQ(MPI_Type_get_extent_x(t, &w.lb, &w.extent), MPI_SUCCESS);
  return w;
}

constexpr MPI_Count big = MPI_Count{1} << 31;  // INT_MAX + 1

// A constructor called with a value that does not fit in int: the "_c" binding builds the
// type where the MPI has it; otherwise the call is refused with an error, never narrowed.
// Natively without "_c" bindings (Open MPI 4.1's mpi.h) the core refuses it itself. Over
// the standard ABI on Open MPI the runtime builds the same type from int-sized pieces.
template <class Make>
void expect_large(char const* function, wide_extent expected, Make&& make) {
  SCOPED_TRACE(function);
  if (mpi4_at_run_time() || over_abi) {
    mpi::datatype t = make();
    EXPECT_EQ(wide_of(t.native()), expected);
    return;
  }
  try {
    (void)make();
    ADD_FAILURE() << function << " must refuse a value that does not fit in int";
  } catch (mpi::mpi_error const& e) {
#ifdef ANYMPI_CXX_TEST_OVER_ABI
    EXPECT_EQ(e.error_class(), MPI_ERR_COUNT) << e.what();
    EXPECT_EQ(e.function(), std::string(function) + "_c");
#else
    EXPECT_EQ(e.error_class(), MPI_ERR_COUNT) << e.what();
    EXPECT_EQ(e.function(), function);
#endif
  }
}

}  // namespace

TEST(Datatype, WideArraysThatFitInt) {
  int const i = sizeof(int);
  // indexed: MPI_Count and std::size_t arrays
  mpi::datatype ix = mpi::datatype::indexed(std::vector<MPI_Count>{1, 2}, std::vector<MPI_Count>{0, 3}, MPI_INT).commit();
  EXPECT_EQ(ix.size(), 3 * i);
  EXPECT_EQ(ix.extent().extent, 5 * i);
  EXPECT_EQ(packed_offsets(ix, 5), (std::vector<int>{0, 3, 4}));
  mpi::datatype ixu = mpi::datatype::indexed(std::array<std::size_t, 2>{2, 1}, std::array<std::size_t, 2>{4, 0}, MPI_INT).commit();
  EXPECT_EQ(ixu.extent().lb, 0);
  EXPECT_EQ(ixu.extent().extent, 6 * i);
  EXPECT_EQ(packed_offsets(ixu, 6), (std::vector<int>{4, 5, 0}));
  // hindexed: byte displacements as MPI_Count
  mpi::datatype hx =
      mpi::datatype::hindexed(std::array<MPI_Count, 2>{1, 2}, std::array<MPI_Count, 2>{2 * i, 0}, MPI_INT).commit();
  EXPECT_EQ(hx.size(), 3 * i);
  EXPECT_EQ(hx.extent().extent, 3 * i);
  EXPECT_EQ(packed_offsets(hx, 3), (std::vector<int>{2, 0, 1}));
  // indexed_block: long long displacements, lb moves to the lowest block
  mpi::datatype ib = mpi::datatype::indexed_block(2, std::vector<long long>{5, 1}, MPI_INT).commit();
  EXPECT_EQ(ib.size(), 4 * i);
  EXPECT_EQ(ib.extent().lb, 1 * i);
  EXPECT_EQ(ib.extent().extent, 6 * i);
  EXPECT_EQ(packed_offsets(ib, 7), (std::vector<int>{5, 6, 1, 2}));
  // hindexed_block
  mpi::datatype hb = mpi::datatype::hindexed_block(1, std::array<MPI_Count, 3>{3 * i, 0, i}, MPI_INT).commit();
  EXPECT_EQ(hb.size(), 3 * i);
  EXPECT_EQ(hb.extent().extent, 4 * i);
  EXPECT_EQ(packed_offsets(hb, 4), (std::vector<int>{3, 0, 1}));
  // struct: MPI_Count block lengths and displacements
  std::array<MPI_Datatype, 2> ints{MPI_INT, MPI_INT};
  mpi::datatype st = mpi::datatype::struct_(std::array<MPI_Count, 2>{2, 1}, std::array<MPI_Count, 2>{0, 3 * i}, ints).commit();
  EXPECT_EQ(st.size(), 3 * i);
  EXPECT_EQ(st.extent().extent, 4 * i);
  EXPECT_EQ(packed_offsets(st, 4), (std::vector<int>{0, 1, 3}));
  // subarray of a 3x4 array, both orders
  std::array<MPI_Count, 2> sizes{3, 4}, sub{2, 2}, start{1, 1};
  mpi::datatype sc = mpi::datatype::subarray(sizes, sub, start, mpi::array_order::c, MPI_INT).commit();
  EXPECT_EQ(sc.size(), 4 * i);
  EXPECT_EQ(sc.extent().lb, 0);
  EXPECT_EQ(sc.extent().extent, 12 * i);
  EXPECT_EQ(packed_offsets(sc, 12), (std::vector<int>{5, 6, 9, 10}));
  mpi::datatype sf = mpi::datatype::subarray(sizes, sub, start, mpi::array_order::fortran, MPI_INT).commit();
  EXPECT_EQ(packed_offsets(sf, 12), (std::vector<int>{4, 5, 7, 8}));
  // darray: the part of an 8-element array that process 1 of 2 owns, block and cyclic
  std::array<int, 1> block{MPI_DISTRIBUTE_BLOCK}, cyclic{MPI_DISTRIBUTE_CYCLIC}, dflt{MPI_DISTRIBUTE_DFLT_DARG},
      one{1}, two{2};
  std::vector<MPI_Count> gs{8};
  mpi::datatype db = mpi::datatype::darray(2, 1, gs, block, dflt, two, mpi::array_order::c, MPI_INT).commit();
  EXPECT_EQ(db.size(), 4 * i);
  EXPECT_EQ(db.extent().extent, 8 * i);
  EXPECT_EQ(packed_offsets(db, 8), (std::vector<int>{4, 5, 6, 7}));
  mpi::datatype dc = mpi::datatype::darray(2, 0, gs, cyclic, one, two, mpi::array_order::c, MPI_INT).commit();
  EXPECT_EQ(packed_offsets(dc, 8), (std::vector<int>{0, 2, 4, 6}));
  // A byte displacement beyond 4 GiB fits the classic binding (MPI_Aint): every MPI takes it.
  mpi::datatype far = mpi::datatype::hindexed_block(1, std::array<MPI_Aint, 2>{0, MPI_Aint{1} << 33}, MPI_INT);
  EXPECT_EQ(wide_of(far.native()), (wide_extent{2 * i, 0, (MPI_Count{1} << 33) + i}));
  EXPECT_EQ(far.extent().extent, (MPI_Aint{1} << 33) + i);
  // A type of 3 GiB built through the classic binding: size() reports it exactly.
  mpi::datatype three_gib = mpi::datatype::hindexed_block(big / 2, std::array<MPI_Aint, 3>{0, big / 2, big}, MPI_BYTE);
  EXPECT_EQ(wide_of(three_gib.native()), (wide_extent{3 * (big / 2), 0, 3 * (big / 2)}));
  EXPECT_EQ(three_gib.size(), 3 * (big / 2));
}

TEST(Datatype, ValuesBeyondIntUseLargeCountBindings) {
  expect_large("MPI_Type_contiguous", {big, 0, big}, [] { return mpi::datatype::contiguous(big, MPI_BYTE); });
  expect_large("MPI_Type_vector", {2 * big, 0, 2 * big + 8},
               [] { return mpi::datatype::vector(2, big, big + 8, MPI_BYTE); });
  expect_large("MPI_Type_create_hvector", {2 * big, 0, 5 * big},
               [] { return mpi::datatype::hvector(2, big, MPI_Aint{4 * big}, MPI_BYTE); });
  expect_large("MPI_Type_indexed", {big + 1, 0, 2 * big + 4}, [] {
    return mpi::datatype::indexed(std::array<MPI_Count, 2>{1, big}, std::array<MPI_Count, 2>{0, big + 4}, MPI_BYTE);
  });
  expect_large("MPI_Type_create_hindexed", {big + 1, 0, big + 16}, [] {
    return mpi::datatype::hindexed(std::array<MPI_Count, 2>{1, big}, std::array<MPI_Aint, 2>{0, 16}, MPI_BYTE);
  });
  // Only a displacement is too large here; the classic binding takes int displacements.
  expect_large("MPI_Type_create_indexed_block", {2, 0, 4 * big + 1}, [] {
    return mpi::datatype::indexed_block(1, std::array<MPI_Count, 2>{0, 4 * big}, MPI_BYTE);
  });
  expect_large("MPI_Type_create_hindexed_block", {2 * big, 0, 3 * big}, [] {
    return mpi::datatype::hindexed_block(big, std::array<MPI_Aint, 2>{0, MPI_Aint{2 * big}}, MPI_BYTE);
  });
  expect_large("MPI_Type_create_struct", {big + 1, 0, big + 9}, [] {
    std::array<MPI_Datatype, 2> bytes{MPI_BYTE, MPI_BYTE};
    return mpi::datatype::struct_(std::array<MPI_Count, 2>{big, 1}, std::array<MPI_Count, 2>{0, big + 8}, bytes);
  });
  expect_large("MPI_Type_create_subarray", {2 * big, 0, 4 * big}, [] {
    return mpi::datatype::subarray(std::array<MPI_Count, 2>{4, big}, std::array<MPI_Count, 2>{2, big},
                                   std::array<MPI_Count, 2>{1, 0}, mpi::array_order::c, MPI_BYTE);
  });
  expect_large("MPI_Type_create_darray", {2 * big, 0, 2 * big}, [] {
    std::array<int, 1> block{MPI_DISTRIBUTE_BLOCK}, dflt{MPI_DISTRIBUTE_DFLT_DARG}, one{1};
    return mpi::datatype::darray(1, 0, std::array<MPI_Count, 1>{2 * big}, block, dflt, one, mpi::array_order::c,
                                 MPI_BYTE);
  });
}

TEST(Datatype, ValuesBeyondMpiCountAreRefusedEverywhere) {
  // Checked before any binding is chosen, so every MPI reports it the same way.
  std::array<std::uint64_t, 1> huge{std::numeric_limits<std::uint64_t>::max()}, zero{0};
  try {
    (void)mpi::datatype::indexed(huge, zero, MPI_INT);
    FAIL() << "a block length of 2^64-1 must be refused";
  } catch (mpi::mpi_error const& e) {
    EXPECT_EQ(e.error_class(), MPI_ERR_COUNT) << e.what();
    EXPECT_EQ(e.function(), "MPI_Type_indexed");
  }
  try {
    (void)mpi::datatype::hindexed_block(1, huge, MPI_INT);
    FAIL() << "a displacement of 2^64-1 must be refused";
  } catch (mpi::mpi_error const& e) {
    EXPECT_EQ(e.error_class(), MPI_ERR_COUNT) << e.what();
    EXPECT_EQ(e.function(), "MPI_Type_create_hindexed_block");
  }
}

// ---------------------------------------------------------------- user ops
namespace {
struct stateless_add {
  int operator()(int a, int b) const { return a + b; }
};
int apply(mpi::op const& o, int in, int inout) {
  EXPECT_EQ(MPI_Reduce_local(&in, &inout, 1, MPI_INT, o.native()), MPI_SUCCESS);
  return inout;
}
}  // namespace

TEST(Op, StatefulOpsAreBoundedStatelessOpsAreNot) {
  constexpr int limit = mpi::op::max_stateful;
  static_assert(limit == MPI_CXX_STATEFUL_OP_LIMIT);
  std::vector<mpi::op> stateful;
  for (int k = 0; k < limit; ++k)
    stateful.push_back(mpi::op::create<int>([k](int a, int b) { return a + b + 1000 * k; }));
  // Each op reaches its own state.
  for (int k = 0; k < limit; ++k) EXPECT_EQ(apply(stateful[k], 1, 2), 3 + 1000 * k) << "op " << k;
  try {
    int offset = 7;  // a capture, so the callable has state
    (void)mpi::op::create<int>([offset](int a, int b) { return a + b + offset; });
    FAIL() << "op " << limit + 1 << " with state must be refused";
  } catch (mpi::mpi_error const& e) {
    EXPECT_EQ(e.error_class(), MPI_ERR_OTHER);
    EXPECT_EQ(e.function(), "MPI_Op_create");
    EXPECT_NE(std::string(e.what()).find("max_stateful = " + std::to_string(limit)), std::string::npos) << e.what();
  }
  // With every slot taken, stateless callables still make ops.
  mpi::op lambda_op = mpi::op::create<int>([](int a, int b) { return a * b; });
  mpi::op object_op = mpi::op::create<int>(stateless_add{}, false);
  EXPECT_EQ(apply(lambda_op, 3, 4), 12);
  EXPECT_EQ(apply(object_op, 3, 4), 7);
  EXPECT_FALSE(object_op.commutative());
  // Freeing a stateful op frees its slot for the next one; the others keep their state.
  stateful[3].free();
  mpi::op again = mpi::op::create<int>([s = std::string("xy")](int a, int b) { return a + b + int(s.size()); });
  EXPECT_EQ(apply(again, 1, 2), 5);
  EXPECT_EQ(apply(stateful[4], 1, 2), 4003);
  stateful.clear();
  again.free();
  // A callable that can only be moved (it owns its state) is kept as well.
  mpi::op owning = mpi::op::create<int>([p = std::make_unique<int>(9)](int a, int b) { return a + b + *p; });
  EXPECT_EQ(apply(owning, 1, 2), 12);
  // More stateless ops alive at once than the stateful bound.
  std::vector<mpi::op> stateless;
  for (int k = 0; k < limit + 8; ++k) stateless.push_back(mpi::op::create<int>([](int a, int b) { return a - b; }));
  EXPECT_EQ(apply(stateless.back(), 10, 3), 7);
}

// MPI-4.1's value-index pair types: a named pair comes back as the predefined type; another
// pair is a type MPI_MAXLOC reduces. Natively (MPICH 4.0, Open MPI 4.1) the function is
// missing and must say so; over the standard ABI anympi provides it on both backends.
TEST(Datatype, ValueIndexPairs) {
#ifdef ANYMPI_CXX_TEST_OVER_ABI
  EXPECT_EQ(mpi::handle(mpi::value_index_type(mpi::datatype_view(MPI_DOUBLE), mpi::datatype_view(MPI_INT))), MPI_DOUBLE_INT);
  EXPECT_EQ(mpi::handle(mpi::value_index_type(MPI_FLOAT, MPI_INT)), MPI_FLOAT_INT);
  struct float_long {
    float value;
    long index;
  };
  mpi::datatype_view const pair = mpi::value_index_type(MPI_FLOAT, MPI_LONG);
  ASSERT_NE(mpi::handle(pair), MPI_DATATYPE_NULL);
  EXPECT_EQ(pair.size(), static_cast<MPI_Count>(sizeof(float) + sizeof(long)));
  EXPECT_EQ(pair.extent().extent, static_cast<MPI_Aint>(sizeof(float_long)));
  float_long const mine{static_cast<float>((rank() * 7) % size()), 100L + rank()};
  float_long best{-1.0f, -1};
  ASSERT_EQ(MPI_Allreduce(&mine, &best, 1, mpi::handle(pair), MPI_MAXLOC, MPI_COMM_WORLD), MPI_SUCCESS);
  // the largest value (size - 1) and, among the ranks holding it, the smallest index
  float expect_value = -1.0f;
  long expect_index = -1;
  for (int r = 0; r < size(); ++r) {
    float const v = static_cast<float>((r * 7) % size());
    if (v > expect_value) expect_value = v, expect_index = 100L + r;
  }
  EXPECT_EQ(best.value, expect_value);
  EXPECT_EQ(best.index, expect_index);
#else
  expect_unsupported("MPI_Type_get_value_index", [] { (void)mpi::value_index_type(MPI_DOUBLE, MPI_INT); });
#endif
}
