// Neighborhood collectives on communicators with a topology, in blocking, nonblocking and
// persistent form. Buffers are whole messages: neighbor_allgather's receive count per
// neighbor is count(rbuf) / indegree, neighbor_alltoall's send count count(sbuf) / outdegree.
#pragma once

#include <mpi/coll_detail.hpp>
#include <mpi/collectives.hpp>
#include <mpi/topology.hpp>

namespace mpi {

namespace detail {
// The bodies are those of the regular collectives (collectives.hpp); a neighborhood
// collective differs in its bindings and in counting its peers by the topology.
inline constexpr auto neighbor_allgather_forms =
    MPI_CXX_COLL_FORMS_(Neighbor_allgather, neighbor_allgather, split{&neighbor_degrees, false, true});
inline constexpr auto neighbor_alltoall_forms =
    MPI_CXX_COLL_FORMS_(Neighbor_alltoall, neighbor_alltoall, split{&neighbor_degrees, true, true});
inline constexpr auto neighbor_allgatherv_forms = MPI_CXX_COLL_FORMS_(Neighbor_allgatherv, neighbor_allgatherv);
inline constexpr auto neighbor_alltoallv_forms = MPI_CXX_COLL_FORMS_(Neighbor_alltoallv, neighbor_alltoallv);
// MPI_Neighbor_alltoallw takes MPI_Aint byte displacements even in its int-count form.
inline constexpr auto neighbor_alltoallw_forms = MPI_CXX_COLL_FORMS_(Neighbor_alltoallw, neighbor_alltoallw);
}  // namespace detail

MPI_CXX_COLL_VARIANTS_(neighbor_allgather, whole, (send_buffer S, recv_buffer R), (S&& s, R&& r), (s, r), (S, R))
MPI_CXX_COLL_VARIANTS_(neighbor_allgatherv, gatherv, (send_buffer S, recv_buffer_v R), (S&& s, R&& r), (s, r),
                       (S, R))
MPI_CXX_COLL_VARIANTS_(neighbor_alltoall, whole, (send_buffer S, recv_buffer R), (S&& s, R&& r), (s, r), (S, R))
MPI_CXX_COLL_VARIANTS_(neighbor_alltoallv, alltoallv, (send_buffer_v S, recv_buffer_v R), (S&& s, R&& r), (s, r),
                       (S, R))
MPI_CXX_COLL_VARIANTS_(neighbor_alltoallw, alltoallv, (send_buffer_w S, recv_buffer_w R), (S&& s, R&& r), (s, r),
                       (S, R))

}  // namespace mpi
