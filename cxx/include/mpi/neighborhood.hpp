// Neighborhood collectives on communicators with a topology, in blocking, nonblocking and
// persistent form. Buffers are whole messages: neighbor_allgather's receive count per
// neighbor is count(rbuf) / indegree, neighbor_alltoall's send count count(sbuf) / outdegree.
#pragma once

#include <mpi/coll_detail.hpp>
#include <mpi/collectives.hpp>
#include <mpi/topology.hpp>

namespace mpi {

namespace detail {

template <coll_mode M, class S, class B, class C>
auto neighbor_allgather_impl(S& s, B& r, C const& c, [[maybe_unused]] MPI_Info info) {
  MPI_Comm const comm = mpi::handle(c);
  auto const [in, out] = neighbor_degrees(comm);
  MPI_Count const ns = count_of(s, "MPI_Neighbor_allgather");
  MPI_Count const nr = per_process(count_of(r, "MPI_Neighbor_allgather"), in, "MPI_Neighbor_allgather", "receive buffer");
  [[maybe_unused]] request req;
  MPI_CXX_COLL_(M, all_fit_int(ns, nr), Neighbor_allgather, neighbor_allgather, mpi::ptr(s), cnt_t(ns), type_of(s),
                mpi::ptr(r), cnt_t(nr), type_of(r), comm);
  if constexpr (M != blocking) return req;
}

template <coll_mode M, class S, class B, class C>
auto neighbor_alltoall_impl(S& s, B& r, C const& c, [[maybe_unused]] MPI_Info info) {
  MPI_Comm const comm = mpi::handle(c);
  auto const [in, out] = neighbor_degrees(comm);
  MPI_Count const ns = per_process(count_of(s, "MPI_Neighbor_alltoall"), out, "MPI_Neighbor_alltoall", "send buffer");
  MPI_Count const nr = per_process(count_of(r, "MPI_Neighbor_alltoall"), in, "MPI_Neighbor_alltoall", "receive buffer");
  [[maybe_unused]] request req;
  MPI_CXX_COLL_(M, all_fit_int(ns, nr), Neighbor_alltoall, neighbor_alltoall, mpi::ptr(s), cnt_t(ns), type_of(s),
                mpi::ptr(r), cnt_t(nr), type_of(r), comm);
  if constexpr (M != blocking) return req;
}

template <coll_mode M, class S, class B, class C>
auto neighbor_allgatherv_impl(S& s, B& r, C const& c, [[maybe_unused]] MPI_Info info) {
  MPI_Comm const comm = mpi::handle(c);
  constexpr bool keep = M != blocking;
  MPI_Count const ns = count_of(s, "MPI_Neighbor_allgatherv");
  auto&& rc_range = mpi::counts(r);
  auto&& rd_range = mpi::displs(r);
  int_array rc(rc_range, "MPI_Neighbor_allgatherv");
  int_array rd(rd_range, "MPI_Neighbor_allgatherv");
  bool const fits = fits_int(ns) && rc.fits_int() && rd.fits_int() &&
                    !(keep && !rc.template exact<int> && rc.template exact<MPI_Count>);
  [[maybe_unused]] request req;
  MPI_CXX_COLL_(M, fits, Neighbor_allgatherv, neighbor_allgatherv, mpi::ptr(s), cnt_t(ns), type_of(s), mpi::ptr(r),
                rc.template get<cnt_t>(keep), rd.template get<disp_t>(keep), type_of(r), comm);
  if constexpr (M != blocking) return req;
}

template <coll_mode M, class S, class B, class C>
auto neighbor_alltoallv_impl(S& s, B& r, C const& c, [[maybe_unused]] MPI_Info info) {
  MPI_Comm const comm = mpi::handle(c);
  constexpr bool keep = M != blocking;
  auto&& sc_range = mpi::counts(s);
  auto&& sd_range = mpi::displs(s);
  auto&& rc_range = mpi::counts(r);
  auto&& rd_range = mpi::displs(r);
  int_array sc(sc_range, "MPI_Neighbor_alltoallv");
  int_array sd(sd_range, "MPI_Neighbor_alltoallv");
  int_array rc(rc_range, "MPI_Neighbor_alltoallv");
  int_array rd(rd_range, "MPI_Neighbor_alltoallv");
  bool const fits = sc.fits_int() && sd.fits_int() && rc.fits_int() && rd.fits_int() &&
                    !(keep && !rc.template exact<int> && rc.template exact<MPI_Count>);
  [[maybe_unused]] request req;
  MPI_CXX_COLL_(M, fits, Neighbor_alltoallv, neighbor_alltoallv, mpi::ptr(s), sc.template get<cnt_t>(keep),
                sd.template get<disp_t>(keep), type_of(s), mpi::ptr(r), rc.template get<cnt_t>(keep),
                rd.template get<disp_t>(keep), type_of(r), comm);
  if constexpr (M != blocking) return req;
}

// MPI_Neighbor_alltoallw takes MPI_Aint byte displacements even in its int-count form.
template <coll_mode M, class S, class B, class C>
auto neighbor_alltoallw_impl(S& s, B& r, C const& c, [[maybe_unused]] MPI_Info info) {
  MPI_Comm const comm = mpi::handle(c);
  constexpr bool keep = M != blocking;
  auto&& sc_range = mpi::counts(s);
  auto&& sd_range = mpi::displs(s);
  auto&& rc_range = mpi::counts(r);
  auto&& rd_range = mpi::displs(r);
  int_array sc(sc_range, "MPI_Neighbor_alltoallw");
  int_array sd(sd_range, "MPI_Neighbor_alltoallw");
  int_array rc(rc_range, "MPI_Neighbor_alltoallw");
  int_array rd(rd_range, "MPI_Neighbor_alltoallw");
  auto&& st = mpi::datatypes(s);
  auto&& rt = mpi::datatypes(r);
  bool const fits = sc.fits_int() && rc.fits_int() && !(keep && !rc.template exact<int> && rc.template exact<MPI_Count>);
  [[maybe_unused]] request req;
  MPI_CXX_COLL_(M, fits, Neighbor_alltoallw, neighbor_alltoallw, mpi::ptr(s), sc.template get<cnt_t>(keep),
                sd.template get<MPI_Aint>(keep), std::ranges::data(st), mpi::ptr(r), rc.template get<cnt_t>(keep),
                rd.template get<MPI_Aint>(keep), std::ranges::data(rt), comm);
  if constexpr (M != blocking) return req;
}

}  // namespace detail

MPI_CXX_COLL_VARIANTS_(neighbor_allgather, (send_buffer S, recv_buffer R), (S&& s, R&& r), (s, r))
MPI_CXX_COLL_VARIANTS_(neighbor_allgatherv, (send_buffer S, recv_buffer_v R), (S&& s, R&& r), (s, r))
MPI_CXX_COLL_VARIANTS_(neighbor_alltoall, (send_buffer S, recv_buffer R), (S&& s, R&& r), (s, r))
MPI_CXX_COLL_VARIANTS_(neighbor_alltoallv, (send_buffer_v S, recv_buffer_v R), (S&& s, R&& r), (s, r))
MPI_CXX_COLL_VARIANTS_(neighbor_alltoallw, (send_buffer_w S, recv_buffer_w R), (S&& s, R&& r), (s, r))

}  // namespace mpi
