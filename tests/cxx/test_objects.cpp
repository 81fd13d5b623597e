// mpi:: core: communicators, groups, topologies, info, sessions, datatypes, environment.
#include "common.hpp"

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
  if (!mpi4_at_run_time()) {
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
    EXPECT_EQ(ge.rank(), MPI_UNDEFINED);
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
  if (!mpi4_at_run_time()) {
    expect_unsupported("MPI_Session_init", [] { (void)mpi::session::init(); });
    return;
  }
  mpi::session s = mpi::session::init();
  int n = s.num_psets();
  ASSERT_GE(n, 2);  // mpi://WORLD and mpi://SELF at least
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(s.nth_pset(i));
  EXPECT_NE(std::find(names.begin(), names.end(), "mpi://WORLD"), names.end());
  mpi::group g = s.group_from_pset("mpi://WORLD");
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
