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
// collective differs in its bindings and in counting its peers by the topology (remembered
// apart from the group's).
constexpr split by_topology(bool send, bool recv) {
  return {&neighbor_degrees, &comm_kind::facts::neighbors, send, recv};
}
inline constexpr auto neighbor_allgather_forms =
    MPI_CXX_COLL_FORMS_(Neighbor_allgather, neighbor_allgather, by_topology(false, true));
inline constexpr auto neighbor_alltoall_forms =
    MPI_CXX_COLL_FORMS_(Neighbor_alltoall, neighbor_alltoall, by_topology(true, true));
inline constexpr auto neighbor_allgatherv_forms = MPI_CXX_COLL_FORMS_(Neighbor_allgatherv, neighbor_allgatherv);
inline constexpr auto neighbor_alltoallv_forms = MPI_CXX_COLL_FORMS_(Neighbor_alltoallv, neighbor_alltoallv);
// MPI_Neighbor_alltoallw takes MPI_Aint byte displacements even in its int-count form.
inline constexpr auto neighbor_alltoallw_forms = MPI_CXX_COLL_FORMS_(Neighbor_alltoallw, neighbor_alltoallw);
}  // namespace detail

// Each in its three forms (blocking, nonblocking, persistent), as in collectives.hpp.

template <send_buffer S, recv_buffer R, comm_handle C>
MPI_CXX_ALWAYS_INLINE void neighbor_allgather(S&& s, R&& r, C const& comm) {
  detail::whole_impl<detail::mode::blocking>(detail::neighbor_allgather_forms, MPI_INFO_NULL, detail::comm_arg_of(comm), s, r);
}
template <send_buffer S, recv_buffer R, comm_handle C>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request ineighbor_allgather(S&& s, R&& r, C const& comm) {
  return detail::whole_impl<detail::mode::nonblocking>(detail::neighbor_allgather_forms, MPI_INFO_NULL,
                                                       detail::comm_arg_of(comm), s, r);
}
template <send_buffer S, recv_buffer R, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request neighbor_allgather_init(S&& s, R&& r, C const& comm, I const& info = I{}) {
  return detail::whole_impl<detail::mode::persistent>(detail::neighbor_allgather_forms, mpi::handle(info),
                                                      detail::comm_arg_of(comm), s, r);
}

template <send_buffer S, recv_buffer_v R, comm_handle C>
MPI_CXX_ALWAYS_INLINE void neighbor_allgatherv(S&& s, R&& r, C const& comm) {
  detail::gatherv_impl<detail::mode::blocking>(detail::neighbor_allgatherv_forms, MPI_INFO_NULL, mpi::handle(comm), s,
                                               r);
}
template <send_buffer S, recv_buffer_v R, comm_handle C>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request ineighbor_allgatherv(S&& s, R&& r, C const& comm) {
  return detail::gatherv_impl<detail::mode::nonblocking>(detail::neighbor_allgatherv_forms, MPI_INFO_NULL,
                                                         mpi::handle(comm), s, r);
}
template <send_buffer S, recv_buffer_v R, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request neighbor_allgatherv_init(S&& s, R&& r, C const& comm, I const& info = I{}) {
  return detail::gatherv_impl<detail::mode::persistent>(detail::neighbor_allgatherv_forms, mpi::handle(info),
                                                        mpi::handle(comm), s, r);
}

template <send_buffer S, recv_buffer R, comm_handle C>
MPI_CXX_ALWAYS_INLINE void neighbor_alltoall(S&& s, R&& r, C const& comm) {
  detail::whole_impl<detail::mode::blocking>(detail::neighbor_alltoall_forms, MPI_INFO_NULL, detail::comm_arg_of(comm), s, r);
}
template <send_buffer S, recv_buffer R, comm_handle C>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request ineighbor_alltoall(S&& s, R&& r, C const& comm) {
  return detail::whole_impl<detail::mode::nonblocking>(detail::neighbor_alltoall_forms, MPI_INFO_NULL,
                                                       detail::comm_arg_of(comm), s, r);
}
template <send_buffer S, recv_buffer R, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request neighbor_alltoall_init(S&& s, R&& r, C const& comm, I const& info = I{}) {
  return detail::whole_impl<detail::mode::persistent>(detail::neighbor_alltoall_forms, mpi::handle(info),
                                                      detail::comm_arg_of(comm), s, r);
}

template <send_buffer_v S, recv_buffer_v R, comm_handle C>
MPI_CXX_ALWAYS_INLINE void neighbor_alltoallv(S&& s, R&& r, C const& comm) {
  detail::alltoallv_impl<detail::mode::blocking>(detail::neighbor_alltoallv_forms, MPI_INFO_NULL, mpi::handle(comm),
                                                 s, r);
}
template <send_buffer_v S, recv_buffer_v R, comm_handle C>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request ineighbor_alltoallv(S&& s, R&& r, C const& comm) {
  return detail::alltoallv_impl<detail::mode::nonblocking>(detail::neighbor_alltoallv_forms, MPI_INFO_NULL,
                                                           mpi::handle(comm), s, r);
}
template <send_buffer_v S, recv_buffer_v R, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request neighbor_alltoallv_init(S&& s, R&& r, C const& comm, I const& info = I{}) {
  return detail::alltoallv_impl<detail::mode::persistent>(detail::neighbor_alltoallv_forms, mpi::handle(info),
                                                          mpi::handle(comm), s, r);
}

template <send_buffer_w S, recv_buffer_w R, comm_handle C>
MPI_CXX_ALWAYS_INLINE void neighbor_alltoallw(S&& s, R&& r, C const& comm) {
  detail::alltoallv_impl<detail::mode::blocking>(detail::neighbor_alltoallw_forms, MPI_INFO_NULL, mpi::handle(comm),
                                                 s, r);
}
template <send_buffer_w S, recv_buffer_w R, comm_handle C>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request ineighbor_alltoallw(S&& s, R&& r, C const& comm) {
  return detail::alltoallv_impl<detail::mode::nonblocking>(detail::neighbor_alltoallw_forms, MPI_INFO_NULL,
                                                           mpi::handle(comm), s, r);
}
template <send_buffer_w S, recv_buffer_w R, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request neighbor_alltoallw_init(S&& s, R&& r, C const& comm, I const& info = I{}) {
  return detail::alltoallv_impl<detail::mode::persistent>(detail::neighbor_alltoallw_forms, mpi::handle(info),
                                                          mpi::handle(comm), s, r);
}

}  // namespace mpi
