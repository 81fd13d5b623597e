// Virtual topologies: Cartesian, graph and distributed graph communicators and queries.
#pragma once

#include <mpi/communicator.hpp>
#include <mpi/info.hpp>
#include <mpi/large_count.hpp>
#include <mpi/rank_tag.hpp>

#include <span>
#include <utility>
#include <vector>

namespace mpi {

enum class topology { none, cart, graph, dist_graph };

struct shift_result {
  int source;
  int dest;
};
struct cart_topology {
  std::vector<int> dims;
  std::vector<bool> periods;
  std::vector<int> coords;
};
struct graph_topology {
  std::vector<int> index;
  std::vector<int> edges;
};
struct dist_graph_degrees {
  int indegree;
  int outdegree;
  bool weighted;
};
struct dist_graph_adjacency {
  std::vector<int> sources, source_weights, destinations, destination_weights;
};

namespace detail {
inline std::vector<int> to_ints(std::span<bool const> b) { return std::vector<int>(b.begin(), b.end()); }
// MPI_UNWEIGHTED is a sentinel pointer; an empty span means "unweighted".
inline int const* weights_or_unweighted(std::span<int const> w) { return w.empty() ? MPI_UNWEIGHTED : w.data(); }
}  // namespace detail

template <comm_handle C>
topology topo_test(C const& comm) {
  int t = 0;
  MPI_CXX_CALL(MPI_Topo_test, mpi::handle(comm), &t);
  if (t == MPI_CART) return topology::cart;
  if (t == MPI_GRAPH) return topology::graph;
  if (t == MPI_DIST_GRAPH) return topology::dist_graph;
  return topology::none;
}

// dims: in/out, zeros are filled in (MPI_Dims_create).
inline void dims_create(int nnodes, std::span<int> dims) {
  MPI_CXX_CALL(MPI_Dims_create, nnodes, detail::range_size(dims, "MPI_Dims_create"), dims.data());
}
inline std::vector<int> dims_create(int nnodes, int ndims) {
  std::vector<int> d(static_cast<std::size_t>(ndims), 0);
  dims_create(nnodes, std::span<int>(d.data(), d.size()));
  return d;
}

template <comm_handle C>
comm cart_create(C const& old, std::span<int const> dims, std::span<bool const> periods, bool reorder = false) {
  if (dims.size() != periods.size()) detail::fail(MPI_ERR_ARG, "MPI_Cart_create", "dims and periods differ in length");
  auto p = detail::to_ints(periods);
  MPI_Comm c;
  MPI_CXX_CALL(MPI_Cart_create, mpi::handle(old), detail::range_size(dims, "MPI_Cart_create"), dims.data(), p.data(),
               reorder ? 1 : 0, &c);
  return comm::from_native(c);
}
template <comm_handle C>
int cartdim(C const& comm) {
  int n = 0;
  MPI_CXX_CALL(MPI_Cartdim_get, mpi::handle(comm), &n);
  return n;
}
template <comm_handle C>
cart_topology cart_get(C const& comm) {
  int n = cartdim(comm);
  std::vector<int> dims(static_cast<std::size_t>(n)), per(static_cast<std::size_t>(n)), coords(static_cast<std::size_t>(n));
  MPI_CXX_CALL(MPI_Cart_get, mpi::handle(comm), n, dims.data(), per.data(), coords.data());
  return {dims, std::vector<bool>(per.begin(), per.end()), coords};
}
template <comm_handle C>
int cart_rank(C const& comm, std::span<int const> coords) {
  int r = 0;
  MPI_CXX_CALL(MPI_Cart_rank, mpi::handle(comm), coords.data(), &r);
  return r;
}
template <comm_handle C, rank_like R>
std::vector<int> cart_coords(C const& comm, R const& rank) {
  int n = cartdim(comm);
  std::vector<int> c(static_cast<std::size_t>(n));
  MPI_CXX_CALL(MPI_Cart_coords, mpi::handle(comm), mpi::to_rank(rank), n, c.data());
  return c;
}
template <comm_handle C>
shift_result cart_shift(C const& comm, int direction, int disp) {
  shift_result s{};
  MPI_CXX_CALL(MPI_Cart_shift, mpi::handle(comm), direction, disp, &s.source, &s.dest);
  return s;
}
template <comm_handle C>
comm cart_sub(C const& comm, std::span<bool const> remain_dims) {
  auto r = detail::to_ints(remain_dims);
  MPI_Comm c;
  MPI_CXX_CALL(MPI_Cart_sub, mpi::handle(comm), r.data(), &c);
  return comm::from_native(c);
}

template <comm_handle C>
comm graph_create(C const& old, std::span<int const> index, std::span<int const> edges, bool reorder = false) {
  MPI_Comm c;
  MPI_CXX_CALL(MPI_Graph_create, mpi::handle(old), detail::range_size(index, "MPI_Graph_create"), index.data(), edges.data(),
               reorder ? 1 : 0, &c);
  return comm::from_native(c);
}
template <comm_handle C>
graph_topology graph_get(C const& comm) {
  int nn = 0, ne = 0;
  MPI_CXX_CALL(MPI_Graphdims_get, mpi::handle(comm), &nn, &ne);
  graph_topology g{std::vector<int>(static_cast<std::size_t>(nn)), std::vector<int>(static_cast<std::size_t>(ne))};
  MPI_CXX_CALL(MPI_Graph_get, mpi::handle(comm), nn, ne, g.index.data(), g.edges.data());
  return g;
}
template <comm_handle C, rank_like R>
int graph_neighbors_count(C const& comm, R const& rank) {
  int n = 0;
  MPI_CXX_CALL(MPI_Graph_neighbors_count, mpi::handle(comm), mpi::to_rank(rank), &n);
  return n;
}
template <comm_handle C, rank_like R>
std::vector<int> graph_neighbors(C const& comm, R const& rank) {
  int n = graph_neighbors_count(comm, rank);
  std::vector<int> v(static_cast<std::size_t>(n));
  MPI_CXX_CALL(MPI_Graph_neighbors, mpi::handle(comm), mpi::to_rank(rank), n, v.data());
  return v;
}

// Weights: empty spans mean MPI_UNWEIGHTED.
template <comm_handle C, info_handle I = info_null_t>
comm dist_graph_create_adjacent(C const& old, std::span<int const> sources, std::span<int const> source_weights,
                                std::span<int const> destinations, std::span<int const> destination_weights,
                                I const& info = I{}, bool reorder = false) {
  MPI_Comm c;
  MPI_CXX_CALL(MPI_Dist_graph_create_adjacent, mpi::handle(old), detail::range_size(sources, "MPI_Dist_graph_create_adjacent"),
               sources.data(), detail::weights_or_unweighted(source_weights),
               detail::range_size(destinations, "MPI_Dist_graph_create_adjacent"), destinations.data(),
               detail::weights_or_unweighted(destination_weights), mpi::handle(info), reorder ? 1 : 0, &c);
  return comm::from_native(c);
}
template <comm_handle C, info_handle I = info_null_t>
comm dist_graph_create(C const& old, std::span<int const> sources, std::span<int const> degrees,
                       std::span<int const> destinations, std::span<int const> weights, I const& info = I{},
                       bool reorder = false) {
  MPI_Comm c;
  MPI_CXX_CALL(MPI_Dist_graph_create, mpi::handle(old), detail::range_size(sources, "MPI_Dist_graph_create"), sources.data(),
               degrees.data(), destinations.data(), detail::weights_or_unweighted(weights), mpi::handle(info),
               reorder ? 1 : 0, &c);
  return comm::from_native(c);
}
template <comm_handle C>
dist_graph_degrees dist_graph_neighbors_count(C const& comm) {
  int in = 0, out = 0, w = 0;
  MPI_CXX_CALL(MPI_Dist_graph_neighbors_count, mpi::handle(comm), &in, &out, &w);
  return {in, out, w != 0};
}
template <comm_handle C>
dist_graph_adjacency dist_graph_neighbors(C const& comm) {
  auto d = dist_graph_neighbors_count(comm);
  auto sz = [](int n) { return static_cast<std::size_t>(n); };
  dist_graph_adjacency a{std::vector<int>(sz(d.indegree)), std::vector<int>(sz(d.indegree)),
                         std::vector<int>(sz(d.outdegree)), std::vector<int>(sz(d.outdegree))};
  MPI_CXX_CALL(MPI_Dist_graph_neighbors, mpi::handle(comm), d.indegree, a.sources.data(),
               d.weighted ? a.source_weights.data() : MPI_UNWEIGHTED, d.outdegree, a.destinations.data(),
               d.weighted ? a.destination_weights.data() : MPI_UNWEIGHTED);
  if (!d.weighted) {
    a.source_weights.clear();
    a.destination_weights.clear();
  }
  return a;
}

namespace detail {
// In- and out-degree of the calling process in the communicator's topology.
inline comm_kind::peers neighbor_degrees(MPI_Comm c) {
  int t = 0;
  MPI_CXX_CALL(MPI_Topo_test, c, &t);
  if (t == MPI_CART) {
    int n = 0;
    MPI_CXX_CALL(MPI_Cartdim_get, c, &n);
    return {2 * n, 2 * n};
  }
  if (t == MPI_GRAPH) {
    int r = 0, n = 0;
    MPI_CXX_CALL(MPI_Comm_rank, c, &r);
    MPI_CXX_CALL(MPI_Graph_neighbors_count, c, r, &n);
    return {n, n};
  }
  if (t == MPI_DIST_GRAPH) {
    int in = 0, out = 0, w = 0;
    MPI_CXX_CALL(MPI_Dist_graph_neighbors_count, c, &in, &out, &w);
    return {in, out};
  }
  fail(MPI_ERR_TOPOLOGY, "neighborhood collective", "the communicator has no topology", c);
}
}  // namespace detail

}  // namespace mpi
