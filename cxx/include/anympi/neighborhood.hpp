// Neighbourhood collectives of the layer, in the shape of anympi/collectives.hpp, on a
// communicator with a topology: a receive count left open is the send count times the
// in-degree (neighbor_allgather) or per neighbour the same (neighbor_alltoall), found without
// communication; views::auto_counts of the v-forms by one exchange of counts with the
// neighbours.
//
//   auto halo = anympi::neighbor_allgather(mine, std::vector<double>{} | views::resize, cart);
#pragma once

#include <anympi/buffer.hpp>
#include <anympi/collectives.hpp>
#include <anympi/infer.hpp>
#include <anympi/iresult.hpp>

#include <type_traits>
#include <utility>

namespace anympi {

template <mpi::send_buffer S, class R, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
result_t<R> neighbor_allgather(S&& s, R&& recv, C const& comm) {
  return detail::receive_into(std::forward<R>(recv), [&](auto& r) {
    infer(neighbor_allgather_op{}, detail::view_of(comm), s, r);
    mpi::neighbor_allgather(s, r, comm);
  }, detail::everywhere);
}

template <mpi::send_buffer S, class R, mpi::comm_handle C>
result_t<R> neighbor_allgatherv(S&& s, R&& recv, C const& comm) {
  return detail::receive_into(std::forward<R>(recv), [&](auto& r) {
    infer(neighbor_allgatherv_op{}, detail::view_of(comm), s, r);
    mpi::neighbor_allgatherv(s, detail::packed(r), comm);
  }, detail::everywhere);
}

template <mpi::send_buffer S, class R, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
result_t<R> neighbor_alltoall(S&& s, R&& recv, C const& comm) {
  return detail::receive_into(std::forward<R>(recv), [&](auto& r) {
    infer(neighbor_alltoall_op{}, detail::view_of(comm), s, r);
    mpi::neighbor_alltoall(s, r, comm);
  }, detail::everywhere);
}

template <class S, class R, mpi::comm_handle C>
result_t<R> neighbor_alltoallv(S&& s, R&& recv, C const& comm) {
  return detail::receive_into(std::forward<R>(recv), [&](auto& r) {
    infer(neighbor_alltoallv_op{}, detail::view_of(comm), s, r);
    mpi::neighbor_alltoallv(detail::packed(s), detail::packed(r), comm);
  }, detail::everywhere);
}

// The buffers carry their counts, displacements and datatypes per neighbour: nothing to infer.
template <mpi::send_buffer_w S, class R, mpi::comm_handle C>
  requires mpi::recv_buffer_w<held_t<R>&>
held_t<R> neighbor_alltoallw(S&& s, R&& recv, C const& comm) {
  held_t<R> r(std::forward<R>(recv));
  mpi::neighbor_alltoallw(s, r, comm);
  return r;
}

// Nonblocking, as anympi/collectives.hpp's: counts left open of the v-forms are exchanged
// (blocking) before the data moves; packed displacements stay with the iresult.
template <mpi::send_buffer S, class R, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
[[nodiscard]] iresult<R, S> ineighbor_allgather(S&& s, R&& recv, C const& comm) {
  return iresult<R, S>(
      std::in_place,
      [&](auto& r, auto& sb) {
        infer(neighbor_allgather_op{}, detail::view_of(comm), sb, r);
        return mpi::ineighbor_allgather(sb, r, comm);
      },
      std::forward<R>(recv), std::forward<S>(s));
}

template <mpi::send_buffer S, class R, mpi::comm_handle C>
[[nodiscard]] iresult<R, S, detail::kept_displs_t<R>> ineighbor_allgatherv(S&& s, R&& recv, C const& comm) {
  using D = detail::kept_displs_t<R>;
  return iresult<R, S, D>(
      std::in_place,
      [&](auto& r, auto& sb, D& d) {
        infer(neighbor_allgatherv_op{}, detail::view_of(comm), sb, r);
        return mpi::ineighbor_allgatherv(sb, detail::with_kept_displs(r, d), comm);
      },
      std::forward<R>(recv), std::forward<S>(s), D{});
}

template <mpi::send_buffer S, class R, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
[[nodiscard]] iresult<R, S> ineighbor_alltoall(S&& s, R&& recv, C const& comm) {
  return iresult<R, S>(
      std::in_place,
      [&](auto& r, auto& sb) {
        infer(neighbor_alltoall_op{}, detail::view_of(comm), sb, r);
        return mpi::ineighbor_alltoall(sb, r, comm);
      },
      std::forward<R>(recv), std::forward<S>(s));
}

template <class S, class R, mpi::comm_handle C>
[[nodiscard]] iresult<R, S, detail::kept_displs_t<R>, detail::kept_displs_t<S>> ineighbor_alltoallv(S&& s, R&& recv,
                                                                                                   C const& comm) {
  using DR = detail::kept_displs_t<R>;
  using DS = detail::kept_displs_t<S>;
  return iresult<R, S, DR, DS>(
      std::in_place,
      [&](auto& r, auto& sb, DR& dr, DS& ds) {
        infer(neighbor_alltoallv_op{}, detail::view_of(comm), sb, r);
        return mpi::ineighbor_alltoallv(detail::with_kept_displs(sb, ds), detail::with_kept_displs(r, dr), comm);
      },
      std::forward<R>(recv), std::forward<S>(s), DR{}, DS{});
}

template <mpi::send_buffer_w S, class R, mpi::comm_handle C>
  requires mpi::recv_buffer_w<held_t<R>&>
[[nodiscard]] iresult<R, S> ineighbor_alltoallw(S&& s, R&& recv, C const& comm) {
  return iresult<R, S>(
      std::in_place, [&](auto& r, auto& sb) { return mpi::ineighbor_alltoallw(sb, r, comm); }, std::forward<R>(recv),
      std::forward<S>(s));
}

}  // namespace anympi
