// Collective operations, each in three forms: blocking (mpi::allgather), nonblocking
// (mpi::iallgather -> request) and persistent (mpi::allgather_init -> inactive request,
// MPI-4.0). A buffer describes this process's whole message: for gather/scatter/allgather/
// alltoall the per-process count is the buffer's count divided by the number of peer
// processes (it must divide evenly, else MPI_ERR_COUNT). mpi::in_place is accepted as the
// send buffer wherever MPI accepts MPI_IN_PLACE. Reductions take an op handle or a standard
// function object (std::plus<> ...); blocking reductions also take any callable on the
// element type.
#pragma once

#include <mpi/coll_detail.hpp>
#include <mpi/rank_tag.hpp>

namespace mpi {

namespace detail {

using enum coll_mode;

template <coll_mode M, class C>
auto barrier_impl(C const& c, [[maybe_unused]] MPI_Info info) {
  [[maybe_unused]] request req;
  MPI_CXX_COLL_NOCOUNT_(M, Barrier, barrier, mpi::handle(c));
  if constexpr (M != blocking) return req;
}

template <coll_mode M, class B, class R, class C>
auto bcast_impl(B& b, R const& root, C const& c, [[maybe_unused]] MPI_Info info) {
  MPI_Count const n = count_of(b, "MPI_Bcast");
  [[maybe_unused]] request req;
  MPI_CXX_COLL_(M, fits_int(n), Bcast, bcast, mpi::ptr(b), cnt_t(n), type_of(b), mpi::to_rank(root),
                mpi::handle(c));
  if constexpr (M != blocking) return req;
}

template <coll_mode M, class S, class B, class R, class C>
auto gather_impl(S& s, B& r, R const& root, C const& c, [[maybe_unused]] MPI_Info info) {
  MPI_Comm const comm = mpi::handle(c);
  int const rt = mpi::to_rank(root);
  MPI_Count const ns = count_unless_in_place(s, "MPI_Gather");
  MPI_Count const nr =
      is_root(comm, rt) ? per_process(count_of(r, "MPI_Gather"), peer_count(comm), "MPI_Gather", "receive buffer") : 0;
  [[maybe_unused]] request req;
  MPI_CXX_COLL_(M, all_fit_int(ns, nr), Gather, gather, mpi::ptr(s), cnt_t(ns), type_of(s), mpi::ptr(r), cnt_t(nr),
                type_of(r), rt, comm);
  if constexpr (M != blocking) return req;
}

template <coll_mode M, class S, class B, class R, class C>
auto scatter_impl(S& s, B& r, R const& root, C const& c, [[maybe_unused]] MPI_Info info) {
  MPI_Comm const comm = mpi::handle(c);
  int const rt = mpi::to_rank(root);
  MPI_Count const ns =
      is_root(comm, rt) ? per_process(count_of(s, "MPI_Scatter"), peer_count(comm), "MPI_Scatter", "send buffer") : 0;
  MPI_Count const nr = count_unless_in_place(r, "MPI_Scatter");
  [[maybe_unused]] request req;
  MPI_CXX_COLL_(M, all_fit_int(ns, nr), Scatter, scatter, mpi::ptr(s), cnt_t(ns), type_of(s), mpi::ptr(r),
                cnt_t(nr), type_of(r), rt, comm);
  if constexpr (M != blocking) return req;
}

template <coll_mode M, class S, class B, class C>
auto allgather_impl(S& s, B& r, C const& c, [[maybe_unused]] MPI_Info info) {
  MPI_Comm const comm = mpi::handle(c);
  MPI_Count const ns = count_unless_in_place(s, "MPI_Allgather");
  MPI_Count const nr = per_process(count_of(r, "MPI_Allgather"), peer_count(comm), "MPI_Allgather", "receive buffer");
  [[maybe_unused]] request req;
  MPI_CXX_COLL_(M, all_fit_int(ns, nr), Allgather, allgather, mpi::ptr(s), cnt_t(ns), type_of(s), mpi::ptr(r),
                cnt_t(nr), type_of(r), comm);
  if constexpr (M != blocking) return req;
}

template <coll_mode M, class S, class B, class C>
auto alltoall_impl(S& s, B& r, C const& c, [[maybe_unused]] MPI_Info info) {
  MPI_Comm const comm = mpi::handle(c);
  int const n = peer_count(comm);
  MPI_Count const ns = is_in_place<S> ? 0 : per_process(count_unless_in_place(s, "MPI_Alltoall"), n, "MPI_Alltoall", "send buffer");
  MPI_Count const nr = per_process(count_of(r, "MPI_Alltoall"), n, "MPI_Alltoall", "receive buffer");
  [[maybe_unused]] request req;
  MPI_CXX_COLL_(M, all_fit_int(ns, nr), Alltoall, alltoall, mpi::ptr(s), cnt_t(ns), type_of(s), mpi::ptr(r),
                cnt_t(nr), type_of(r), comm);
  if constexpr (M != blocking) return req;
}

template <coll_mode M, class S, class B, class R, class C>
auto gatherv_impl(S& s, B& r, R const& root, C const& c, [[maybe_unused]] MPI_Info info) {
  MPI_Comm const comm = mpi::handle(c);
  constexpr bool keep = M != blocking;
  MPI_Count const ns = count_unless_in_place(s, "MPI_Gatherv");
  auto&& rc_range = mpi::counts(r);
  auto&& rd_range = mpi::displs(r);
  int_array rc(rc_range, "MPI_Gatherv");
  int_array rd(rd_range, "MPI_Gatherv");
  bool const fits = fits_int(ns) && rc.fits_int() && rd.fits_int() &&
                    !(keep && !rc.template exact<int> && rc.template exact<MPI_Count>);
  [[maybe_unused]] request req;
  MPI_CXX_COLL_(M, fits, Gatherv, gatherv, mpi::ptr(s), cnt_t(ns), type_of(s), mpi::ptr(r),
                rc.template get<cnt_t>(keep), rd.template get<disp_t>(keep), type_of(r), mpi::to_rank(root), comm);
  if constexpr (M != blocking) return req;
}

template <coll_mode M, class S, class B, class R, class C>
auto scatterv_impl(S& s, B& r, R const& root, C const& c, [[maybe_unused]] MPI_Info info) {
  MPI_Comm const comm = mpi::handle(c);
  constexpr bool keep = M != blocking;
  MPI_Count const nr = count_unless_in_place(r, "MPI_Scatterv");
  auto&& sc_range = mpi::counts(s);
  auto&& sd_range = mpi::displs(s);
  int_array sc(sc_range, "MPI_Scatterv");
  int_array sd(sd_range, "MPI_Scatterv");
  bool const fits = fits_int(nr) && sc.fits_int() && sd.fits_int() &&
                    !(keep && !sc.template exact<int> && sc.template exact<MPI_Count>);
  [[maybe_unused]] request req;
  MPI_CXX_COLL_(M, fits, Scatterv, scatterv, mpi::ptr(s), sc.template get<cnt_t>(keep), sd.template get<disp_t>(keep),
                type_of(s), mpi::ptr(r), cnt_t(nr), type_of(r), mpi::to_rank(root), comm);
  if constexpr (M != blocking) return req;
}

template <coll_mode M, class S, class B, class C>
auto allgatherv_impl(S& s, B& r, C const& c, [[maybe_unused]] MPI_Info info) {
  MPI_Comm const comm = mpi::handle(c);
  constexpr bool keep = M != blocking;
  MPI_Count const ns = count_unless_in_place(s, "MPI_Allgatherv");
  auto&& rc_range = mpi::counts(r);
  auto&& rd_range = mpi::displs(r);
  int_array rc(rc_range, "MPI_Allgatherv");
  int_array rd(rd_range, "MPI_Allgatherv");
  bool const fits = fits_int(ns) && rc.fits_int() && rd.fits_int() &&
                    !(keep && !rc.template exact<int> && rc.template exact<MPI_Count>);
  [[maybe_unused]] request req;
  MPI_CXX_COLL_(M, fits, Allgatherv, allgatherv, mpi::ptr(s), cnt_t(ns), type_of(s), mpi::ptr(r),
                rc.template get<cnt_t>(keep), rd.template get<disp_t>(keep), type_of(r), comm);
  if constexpr (M != blocking) return req;
}

template <coll_mode M, class S, class B, class C>
auto alltoallv_impl(S& s, B& r, C const& c, [[maybe_unused]] MPI_Info info) {
  MPI_Comm const comm = mpi::handle(c);
  constexpr bool keep = M != blocking;
  auto&& rc_range = mpi::counts(r);
  auto&& rd_range = mpi::displs(r);
  int_array rc(rc_range, "MPI_Alltoallv");
  int_array rd(rd_range, "MPI_Alltoallv");
  if constexpr (is_in_place<S>) {
    [[maybe_unused]] request req;
    bool const fits = rc.fits_int() && rd.fits_int() && !(keep && !rc.template exact<int> && rc.template exact<MPI_Count>);
    MPI_CXX_COLL_(M, fits, Alltoallv, alltoallv, MPI_IN_PLACE, nullptr, nullptr, MPI_DATATYPE_NULL, mpi::ptr(r),
                  rc.template get<cnt_t>(keep), rd.template get<disp_t>(keep), type_of(r), comm);
    if constexpr (M != blocking) return req;
  } else {
    auto&& sc_range = mpi::counts(s);
    auto&& sd_range = mpi::displs(s);
    int_array sc(sc_range, "MPI_Alltoallv");
    int_array sd(sd_range, "MPI_Alltoallv");
    bool const fits = sc.fits_int() && sd.fits_int() && rc.fits_int() && rd.fits_int() &&
                      !(keep && !rc.template exact<int> && rc.template exact<MPI_Count>);
    [[maybe_unused]] request req;
    MPI_CXX_COLL_(M, fits, Alltoallv, alltoallv, mpi::ptr(s), sc.template get<cnt_t>(keep),
                  sd.template get<disp_t>(keep), type_of(s), mpi::ptr(r), rc.template get<cnt_t>(keep),
                  rd.template get<disp_t>(keep), type_of(r), comm);
    if constexpr (M != blocking) return req;
  }
}

template <coll_mode M, class S, class B, class C>
auto alltoallw_impl(S& s, B& r, C const& c, [[maybe_unused]] MPI_Info info) {
  MPI_Comm const comm = mpi::handle(c);
  constexpr bool keep = M != blocking;
  auto&& sc_range = mpi::counts(s);
  auto&& sd_range = mpi::displs(s);
  auto&& rc_range = mpi::counts(r);
  auto&& rd_range = mpi::displs(r);
  int_array sc(sc_range, "MPI_Alltoallw");
  int_array sd(sd_range, "MPI_Alltoallw");
  int_array rc(rc_range, "MPI_Alltoallw");
  int_array rd(rd_range, "MPI_Alltoallw");
  auto&& st = mpi::datatypes(s);
  auto&& rt = mpi::datatypes(r);
  bool const fits = sc.fits_int() && sd.fits_int() && rc.fits_int() && rd.fits_int() &&
                    !(keep && !rc.template exact<int> && rc.template exact<MPI_Count>);
  [[maybe_unused]] request req;
  MPI_CXX_COLL_(M, fits, Alltoallw, alltoallw, mpi::ptr(s), sc.template get<cnt_t>(keep),
                sd.template get<disp_t>(keep), std::ranges::data(st), mpi::ptr(r), rc.template get<cnt_t>(keep),
                rd.template get<disp_t>(keep), std::ranges::data(rt), comm);
  if constexpr (M != blocking) return req;
}

// Count and datatype of a reduction: from the send buffer, or the receive buffer in place.
template <class S, class B>
std::pair<MPI_Count, MPI_Datatype> reduction_shape(S const& s, B const& r, char const* fn) {
  if constexpr (is_in_place<S>) return {count_of(r, fn), type_of(r)};
  else return {count_of(s, fn), type_of(s)};
}

template <coll_mode M, class S, class B, class O, class R, class C>
auto reduce_impl(S& s, B& r, O const& op, R const& root, C const& c, [[maybe_unused]] MPI_Info info) {
  op_arg<element_type_t<B>, O> o(op);
  auto [n, t] = reduction_shape(s, r, "MPI_Reduce");
  [[maybe_unused]] request req;
  MPI_CXX_COLL_(M, fits_int(n), Reduce, reduce, mpi::ptr(s), mpi::ptr(r), cnt_t(n), t, o.h, mpi::to_rank(root),
                mpi::handle(c));
  if constexpr (M != blocking) return req;
}

template <coll_mode M, class S, class B, class O, class C>
auto allreduce_impl(S& s, B& r, O const& op, C const& c, [[maybe_unused]] MPI_Info info) {
  op_arg<element_type_t<B>, O> o(op);
  auto [n, t] = reduction_shape(s, r, "MPI_Allreduce");
  [[maybe_unused]] request req;
  MPI_CXX_COLL_(M, fits_int(n), Allreduce, allreduce, mpi::ptr(s), mpi::ptr(r), cnt_t(n), t, o.h, mpi::handle(c));
  if constexpr (M != blocking) return req;
}

template <coll_mode M, class S, class B, class O, class C>
auto scan_impl(S& s, B& r, O const& op, C const& c, [[maybe_unused]] MPI_Info info) {
  op_arg<element_type_t<B>, O> o(op);
  auto [n, t] = reduction_shape(s, r, "MPI_Scan");
  [[maybe_unused]] request req;
  MPI_CXX_COLL_(M, fits_int(n), Scan, scan, mpi::ptr(s), mpi::ptr(r), cnt_t(n), t, o.h, mpi::handle(c));
  if constexpr (M != blocking) return req;
}

template <coll_mode M, class S, class B, class O, class C>
auto exscan_impl(S& s, B& r, O const& op, C const& c, [[maybe_unused]] MPI_Info info) {
  op_arg<element_type_t<B>, O> o(op);
  auto [n, t] = reduction_shape(s, r, "MPI_Exscan");
  [[maybe_unused]] request req;
  MPI_CXX_COLL_(M, fits_int(n), Exscan, exscan, mpi::ptr(s), mpi::ptr(r), cnt_t(n), t, o.h, mpi::handle(c));
  if constexpr (M != blocking) return req;
}

template <coll_mode M, class S, class B, class O, class C>
auto reduce_scatter_block_impl(S& s, B& r, O const& op, C const& c, [[maybe_unused]] MPI_Info info) {
  op_arg<element_type_t<B>, O> o(op);
  MPI_Count const n = count_of(r, "MPI_Reduce_scatter_block");
  MPI_Datatype const t = is_in_place<S> ? type_of(r) : type_of(s);
  [[maybe_unused]] request req;
  MPI_CXX_COLL_(M, fits_int(n), Reduce_scatter_block, reduce_scatter_block, mpi::ptr(s), mpi::ptr(r), cnt_t(n), t,
                o.h, mpi::handle(c));
  if constexpr (M != blocking) return req;
}

template <coll_mode M, class S, class B, class K, class O, class C>
auto reduce_scatter_impl(S& s, B& r, K const& recvcounts, O const& op, C const& c, [[maybe_unused]] MPI_Info info) {
  op_arg<element_type_t<B>, O> o(op);
  constexpr bool keep = M != blocking;
  int_array rc(recvcounts, "MPI_Reduce_scatter");
  MPI_Datatype const t = is_in_place<S> ? type_of(r) : type_of(s);
  bool const fits = rc.fits_int() && !(keep && !rc.template exact<int> && rc.template exact<MPI_Count>);
  [[maybe_unused]] request req;
  MPI_CXX_COLL_(M, fits, Reduce_scatter, reduce_scatter, mpi::ptr(s), mpi::ptr(r), rc.template get<cnt_t>(keep), t,
                o.h, mpi::handle(c));
  if constexpr (M != blocking) return req;
}

}  // namespace detail

#define MPI_CXX_UNPAREN_(...) __VA_ARGS__

// The three public forms of one collective.
#define MPI_CXX_COLL_VARIANTS_(name, TPL, PARAMS, ARGS)                                                 \
  template <MPI_CXX_UNPAREN_ TPL, comm_handle C>                                                        \
  void name(MPI_CXX_UNPAREN_ PARAMS, C const& comm) {                                                   \
    detail::name##_impl<detail::coll_mode::blocking>(MPI_CXX_UNPAREN_ ARGS, comm, MPI_INFO_NULL);      \
  }                                                                                                     \
  template <MPI_CXX_UNPAREN_ TPL, comm_handle C>                                                        \
  [[nodiscard]] request i##name(MPI_CXX_UNPAREN_ PARAMS, C const& comm) {                               \
    return detail::name##_impl<detail::coll_mode::nonblocking>(MPI_CXX_UNPAREN_ ARGS, comm, MPI_INFO_NULL); \
  }                                                                                                     \
  template <MPI_CXX_UNPAREN_ TPL, comm_handle C, info_handle I = info_view>                             \
  [[nodiscard]] request name##_init(MPI_CXX_UNPAREN_ PARAMS, C const& comm, I const& info = I{}) {      \
    return detail::name##_impl<detail::coll_mode::persistent>(MPI_CXX_UNPAREN_ ARGS, comm,              \
                                                              mpi::handle(info));                       \
  }

// Reductions: the blocking form also accepts a callable on the element type.
#define MPI_CXX_REDUCTION_VARIANTS_(name, TPL, PARAMS, ARGS)                                            \
  template <MPI_CXX_UNPAREN_ TPL, class Op, comm_handle C>                                              \
    requires detail::reduction_for<Op, detail::element_type_t<R>>                                       \
  void name(MPI_CXX_UNPAREN_ PARAMS, Op const& op, C const& comm) {                                     \
    detail::name##_impl<detail::coll_mode::blocking>(MPI_CXX_UNPAREN_ ARGS, op, comm, MPI_INFO_NULL);  \
  }                                                                                                     \
  template <MPI_CXX_UNPAREN_ TPL, op_handle Op, comm_handle C>                                          \
  [[nodiscard]] request i##name(MPI_CXX_UNPAREN_ PARAMS, Op const& op, C const& comm) {                 \
    return detail::name##_impl<detail::coll_mode::nonblocking>(MPI_CXX_UNPAREN_ ARGS, op, comm,         \
                                                               MPI_INFO_NULL);                          \
  }                                                                                                     \
  template <MPI_CXX_UNPAREN_ TPL, op_handle Op, comm_handle C, info_handle I = info_view>               \
  [[nodiscard]] request name##_init(MPI_CXX_UNPAREN_ PARAMS, Op const& op, C const& comm,               \
                                    I const& info = I{}) {                                              \
    return detail::name##_impl<detail::coll_mode::persistent>(MPI_CXX_UNPAREN_ ARGS, op, comm,          \
                                                              mpi::handle(info));                       \
  }

template <comm_handle C>
void barrier(C const& comm) {
  detail::barrier_impl<detail::coll_mode::blocking>(comm, MPI_INFO_NULL);
}
template <comm_handle C>
[[nodiscard]] request ibarrier(C const& comm) {
  return detail::barrier_impl<detail::coll_mode::nonblocking>(comm, MPI_INFO_NULL);
}
template <comm_handle C, info_handle I = info_view>
[[nodiscard]] request barrier_init(C const& comm, I const& info = I{}) {
  return detail::barrier_impl<detail::coll_mode::persistent>(comm, mpi::handle(info));
}

MPI_CXX_COLL_VARIANTS_(bcast, (data_buffer B, rank_like Rt), (B&& buf, Rt const& root), (buf, root))
MPI_CXX_COLL_VARIANTS_(gather, (send_buffer S, recv_buffer R, rank_like Rt), (S&& s, R&& r, Rt const& root),
                       (s, r, root))
MPI_CXX_COLL_VARIANTS_(gatherv, (send_buffer S, recv_buffer_v R, rank_like Rt), (S&& s, R&& r, Rt const& root),
                       (s, r, root))
MPI_CXX_COLL_VARIANTS_(scatter, (send_buffer S, recv_buffer R, rank_like Rt), (S&& s, R&& r, Rt const& root),
                       (s, r, root))
MPI_CXX_COLL_VARIANTS_(scatterv, (send_buffer_v S, recv_buffer R, rank_like Rt), (S&& s, R&& r, Rt const& root),
                       (s, r, root))
MPI_CXX_COLL_VARIANTS_(allgather, (send_buffer S, recv_buffer R), (S&& s, R&& r), (s, r))
MPI_CXX_COLL_VARIANTS_(allgatherv, (send_buffer S, recv_buffer_v R), (S&& s, R&& r), (s, r))
MPI_CXX_COLL_VARIANTS_(alltoall, (send_buffer S, recv_buffer R), (S&& s, R&& r), (s, r))
MPI_CXX_COLL_VARIANTS_(alltoallw, (send_buffer_w S, recv_buffer_w R), (S&& s, R&& r), (s, r))

// alltoallv: the send buffer is a varying buffer, or mpi::in_place.
MPI_CXX_COLL_VARIANTS_(alltoallv, (detail::send_buffer_v_or_in_place S, recv_buffer_v R), (S&& s, R&& r), (s, r))

template <send_buffer S, recv_buffer R, class Op, rank_like Rt, comm_handle C>
  requires detail::reduction_for<Op, detail::element_type_t<R>>
void reduce(S&& s, R&& r, Op const& op, Rt const& root, C const& comm) {
  detail::reduce_impl<detail::coll_mode::blocking>(s, r, op, root, comm, MPI_INFO_NULL);
}
template <send_buffer S, recv_buffer R, op_handle Op, rank_like Rt, comm_handle C>
[[nodiscard]] request ireduce(S&& s, R&& r, Op const& op, Rt const& root, C const& comm) {
  return detail::reduce_impl<detail::coll_mode::nonblocking>(s, r, op, root, comm, MPI_INFO_NULL);
}
template <send_buffer S, recv_buffer R, op_handle Op, rank_like Rt, comm_handle C, info_handle I = info_view>
[[nodiscard]] request reduce_init(S&& s, R&& r, Op const& op, Rt const& root, C const& comm, I const& info = I{}) {
  return detail::reduce_impl<detail::coll_mode::persistent>(s, r, op, root, comm, mpi::handle(info));
}
MPI_CXX_REDUCTION_VARIANTS_(allreduce, (send_buffer S, recv_buffer R), (S&& s, R&& r), (s, r))
MPI_CXX_REDUCTION_VARIANTS_(scan, (send_buffer S, recv_buffer R), (S&& s, R&& r), (s, r))
MPI_CXX_REDUCTION_VARIANTS_(exscan, (send_buffer S, recv_buffer R), (S&& s, R&& r), (s, r))
MPI_CXX_REDUCTION_VARIANTS_(reduce_scatter_block, (send_buffer S, recv_buffer R), (S&& s, R&& r), (s, r))
MPI_CXX_REDUCTION_VARIANTS_(reduce_scatter, (send_buffer S, recv_buffer R, cnt_range K),
                            (S&& s, R&& r, K const& recvcounts), (s, r, recvcounts))

// MPI_Reduce_local: inout[i] = op(in[i], inout[i]).
template <send_buffer S, recv_buffer R, class Op>
  requires detail::reduction_for<Op, detail::element_type_t<R>>
void reduce_local(S&& in, R&& inout, Op const& op) {
  detail::op_arg<detail::element_type_t<R>, Op> o(op);
  MPI_Count const n = detail::count_of(in, "MPI_Reduce_local");
  MPI_CXX_CALL_COUNTED(detail::fits_int(n), MPI_Reduce_local, mpi::ptr(in), mpi::ptr(inout), cnt_t(n),
                       detail::type_of(in), o.h);
}

}  // namespace mpi
