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

// The C bindings of each collective (the neighborhood ones are in neighborhood.hpp).
inline constexpr auto barrier_forms = forms{MPI_CXX_UNCOUNTED_FN(MPI_Barrier), MPI_CXX_UNCOUNTED_FN(MPI_Ibarrier),
                                            MPI_CXX_PERSISTENT_UNCOUNTED_FN_(MPI_Barrier_init)};
inline constexpr auto bcast_forms = MPI_CXX_COLL_FORMS_(Bcast, bcast);
inline constexpr auto gather_forms = MPI_CXX_COLL_FORMS_(Gather, gather, by_group(false, true));
inline constexpr auto scatter_forms = MPI_CXX_COLL_FORMS_(Scatter, scatter, by_group(true, false));
inline constexpr auto allgather_forms = MPI_CXX_COLL_FORMS_(Allgather, allgather, by_group(false, true));
inline constexpr auto alltoall_forms = MPI_CXX_COLL_FORMS_(Alltoall, alltoall, by_group(true, true));
inline constexpr auto gatherv_forms = MPI_CXX_COLL_FORMS_(Gatherv, gatherv);
inline constexpr auto scatterv_forms = MPI_CXX_COLL_FORMS_(Scatterv, scatterv);
inline constexpr auto allgatherv_forms = MPI_CXX_COLL_FORMS_(Allgatherv, allgatherv);
inline constexpr auto alltoallv_forms = MPI_CXX_COLL_FORMS_(Alltoallv, alltoallv);
inline constexpr auto alltoallw_forms = MPI_CXX_COLL_FORMS_(Alltoallw, alltoallw);
inline constexpr auto reduce_forms = MPI_CXX_COLL_FORMS_(Reduce, reduce);
inline constexpr auto allreduce_forms = MPI_CXX_COLL_FORMS_(Allreduce, allreduce);
inline constexpr auto scan_forms = MPI_CXX_COLL_FORMS_(Scan, scan);
inline constexpr auto exscan_forms = MPI_CXX_COLL_FORMS_(Exscan, exscan);
inline constexpr auto reduce_scatter_block_forms = MPI_CXX_COLL_FORMS_(Reduce_scatter_block, reduce_scatter_block);
inline constexpr auto reduce_scatter_forms = MPI_CXX_COLL_FORMS_(Reduce_scatter, reduce_scatter);

// One body per argument shape; `f` says which collective and form.

template <mode M, class F>
MPI_CXX_ALWAYS_INLINE auto barrier_impl(F const& f, MPI_Info info, MPI_Comm comm) {
  return invoke<M>(f, coll_tail{.info = info}, comm);
}

template <mode M, class F, class B, class R>
MPI_CXX_ALWAYS_INLINE auto bcast_impl(F const& f, MPI_Info info, MPI_Comm comm, B& b, R const& root) {
  return invoke<M>(f, coll_tail{.info = info}, mpi::ptr(b), count_arg(b, f.template name<M>()), type_of(b),
                   mpi::to_rank(root), comm);
}

// Whole-message buffers (gather, scatter, allgather, alltoall and neighbor_allgather,
// neighbor_alltoall), divided as f.split says. The peers are asked of MPI (f.split.peers) only
// when a divided buffer has elements, and once for both buffers; root-ness only when a count
// does not divide, to tell an error (the buffer is significant) from a buffer MPI ignores (a
// rooted collective's divided buffer at a non-root, whose count is then passed as 0).
template <mode M, class F, class S, class B, class... R>
MPI_CXX_ALWAYS_INLINE auto whole_impl(F const& f, MPI_Info info, comm_arg c, S& s, B& r, R const&... root) {
  char const* fn = f.template name<M>();
  MPI_Comm const comm = c.handle;
  comm_kind::peers peers;
  auto count = [&]<class X>(X& x, bool divided, bool recv) MPI_CXX_ALWAYS_INLINE_LAMBDA -> MPI_Count {
    if constexpr (is_in_place<X>) return 0;
    else {
      MPI_Count const total = count_of(x, fn);
      // MPI_COMM_SELF has one peer: nothing divides, nothing is asked (neither of MPI nor of
      // what the communicator argument remembers), and the common case folds to the count.
      if (!divided || total == 0 || comm == MPI_COMM_SELF) return total;
      if (peers.from < 0) peers = peers_of(f.split, c);
      int const n = recv ? peers.from : peers.to;
      if (n > 0 && total % n == 0) [[likely]]
        return total / n;
      if (!(is_root(comm, mpi::to_rank(root)) && ...)) return 0;  // true without a root
      indivisible(total, n, fn, recv ? "receive buffer" : "send buffer", comm);
    }
  };
  return invoke<M>(f, coll_tail{.info = info}, mpi::ptr(s), counted{count(s, f.split.send, false)}, type_of(s),
                   mpi::ptr(r), counted{count(r, f.split.recv, true)}, type_of(r), mpi::to_rank(root)..., comm);
}

// A whole send buffer and a varying receive buffer (gatherv, allgatherv, neighbor_allgatherv).
template <mode M, class F, class S, class B, class... R>
auto gatherv_impl(F const& f, MPI_Info info, MPI_Comm comm, S& s, B& r, R const&... root) {
  char const* fn = f.template name<M>();
  varying<B> rv(r, fn, M != mode::blocking);
  return invoke<M>(f, coll_tail{.info = info}, mpi::ptr(s), counted{count_unless_in_place(s, fn)}, type_of(s),
                   rv.ptr(), rv.counts(), rv.displs(), rv.types(), mpi::to_rank(root)..., comm);
}

template <mode M, class F, class S, class B, class R>
auto scatterv_impl(F const& f, MPI_Info info, MPI_Comm comm, S& s, B& r, R const& root) {
  char const* fn = f.template name<M>();
  varying<S> sv(s, fn, M != mode::blocking);
  return invoke<M>(f, coll_tail{.info = info}, sv.ptr(), sv.counts(), sv.displs(), sv.types(), mpi::ptr(r),
                   counted{count_unless_in_place(r, fn)}, type_of(r), mpi::to_rank(root), comm);
}

// Varying send and receive buffers (alltoallv, alltoallw and their neighborhood forms). The
// int binding's prototype says whether it takes per-process datatypes (the w forms) and the
// type of its displacements.
template <mode M, class F, class S, class B>
auto alltoallv_impl(F const& f, MPI_Info info, MPI_Comm comm, S& s, B& r) {
  constexpr auto int_fn = decltype(F::blocking)::int_fn;
  constexpr bool types = !std::is_same_v<param_decl_t<int_fn, 3>, MPI_Datatype>;
  using displ = param_t<int_fn, 2>;
  char const* fn = f.template name<M>();
  std::conditional_t<is_in_place<S>, in_place_varying, varying<S, displ, types>> sv(s, fn, M != mode::blocking);
  varying<B, displ, types> rv(r, fn, M != mode::blocking);
  return invoke<M>(f, coll_tail{.info = info}, sv.ptr(), sv.counts(), sv.displs(), sv.types(), rv.ptr(), rv.counts(),
                   rv.displs(), rv.types(), comm);
}

// Count and datatype of a reduction: from the send buffer, or the receive buffer in place.
// A struct of its own, not std::pair, whose class and tuple protocol a structured binding
// would instantiate in every translation unit that reduces.
struct shape {
  MPI_Count n;
  MPI_Datatype t;
};
template <class S, class B>
MPI_CXX_ALWAYS_INLINE shape reduction_shape(S const& s, B const& r, char const* fn) {
  if constexpr (is_in_place<S>) return {count_of(r, fn), type_of(r)};
  else return {count_of(s, fn), type_of(s)};
}

// reduce, allreduce, scan, exscan.
template <mode M, class F, class S, class B, class O, class... R>
MPI_CXX_ALWAYS_INLINE auto reduce_impl(F const& f, MPI_Info info, MPI_Comm comm, S& s, B& r, O const& op,
                                       R const&... root) {
  op_arg<element_type_t<B>, O> o(op);
  auto const [n, t] = reduction_shape(s, r, f.template name<M>());
  return invoke<M>(f, coll_tail{.info = info}, mpi::ptr(s), mpi::ptr(r), counted{n}, t, o.h, mpi::to_rank(root)...,
                   comm);
}

// reduce_scatter_block (each process's block is its receive buffer) and reduce_scatter
// (per-process counts).
template <mode M, class F, class S, class B, class O, class... K>
auto reduce_scatter_impl(F const& f, MPI_Info info, MPI_Comm comm, S& s, B& r, O const& op, K const&... recvcounts) {
  op_arg<element_type_t<B>, O> o(op);
  char const* fn = f.template name<M>();
  auto counts = [&] {
    if constexpr (sizeof...(K) == 0) return counted{count_of(r, fn)};
    else return int_array(recvcounts..., fn, M != mode::blocking);
  }();
  return invoke<M>(f, coll_tail{.info = info}, mpi::ptr(s), mpi::ptr(r), counts,
                   is_in_place<S> ? type_of(r) : type_of(s), o.h, comm);
}

}  // namespace detail

// Each collective in its three forms: blocking `x`, nonblocking `ix` and persistent `x_init`,
// each a one-line forward to the body of its argument shape (detail::*_impl above) with its C
// bindings (detail::x_forms). The nonblocking and persistent forms take no temporary buffer
// (buffers_outlive_call, buffer.hpp); the persistent ones take an info (MPI_INFO_NULL when none).

template <comm_handle C>
MPI_CXX_ALWAYS_INLINE void barrier(C const& comm) {
  detail::barrier_impl<detail::mode::blocking>(detail::barrier_forms, MPI_INFO_NULL, mpi::handle(comm));
}
template <comm_handle C>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request ibarrier(C const& comm) {
  return detail::barrier_impl<detail::mode::nonblocking>(detail::barrier_forms, MPI_INFO_NULL, mpi::handle(comm));
}
template <comm_handle C, info_handle I = info_null_t>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request barrier_init(C const& comm, I const& info = I{}) {
  return detail::barrier_impl<detail::mode::persistent>(detail::barrier_forms, mpi::handle(info), mpi::handle(comm));
}

template <data_buffer B, rank_like Rt, comm_handle C>
MPI_CXX_ALWAYS_INLINE void bcast(B&& buf, Rt const& root, C const& comm) {
  detail::bcast_impl<detail::mode::blocking>(detail::bcast_forms, MPI_INFO_NULL, mpi::handle(comm), buf, root);
}
template <data_buffer B, rank_like Rt, comm_handle C>
  requires buffers_outlive_call<B>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request ibcast(B&& buf, Rt const& root, C const& comm) {
  return detail::bcast_impl<detail::mode::nonblocking>(detail::bcast_forms, MPI_INFO_NULL, mpi::handle(comm), buf,
                                                       root);
}
template <data_buffer B, rank_like Rt, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<B>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request bcast_init(B&& buf, Rt const& root, C const& comm, I const& info = I{}) {
  return detail::bcast_impl<detail::mode::persistent>(detail::bcast_forms, mpi::handle(info), mpi::handle(comm), buf,
                                                      root);
}

template <send_buffer S, recv_buffer R, rank_like Rt, comm_handle C>
MPI_CXX_ALWAYS_INLINE void gather(S&& s, R&& r, Rt const& root, C const& comm) {
  detail::whole_impl<detail::mode::blocking>(detail::gather_forms, MPI_INFO_NULL, detail::comm_arg_of(comm), s, r, root);
}
template <send_buffer S, recv_buffer R, rank_like Rt, comm_handle C>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request igather(S&& s, R&& r, Rt const& root, C const& comm) {
  return detail::whole_impl<detail::mode::nonblocking>(detail::gather_forms, MPI_INFO_NULL, detail::comm_arg_of(comm), s, r,
                                                       root);
}
template <send_buffer S, recv_buffer R, rank_like Rt, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request gather_init(S&& s, R&& r, Rt const& root, C const& comm,
                                                        I const& info = I{}) {
  return detail::whole_impl<detail::mode::persistent>(detail::gather_forms, mpi::handle(info), detail::comm_arg_of(comm), s,
                                                      r, root);
}

template <send_buffer S, recv_buffer_v R, rank_like Rt, comm_handle C>
MPI_CXX_ALWAYS_INLINE void gatherv(S&& s, R&& r, Rt const& root, C const& comm) {
  detail::gatherv_impl<detail::mode::blocking>(detail::gatherv_forms, MPI_INFO_NULL, mpi::handle(comm), s, r, root);
}
template <send_buffer S, recv_buffer_v R, rank_like Rt, comm_handle C>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request igatherv(S&& s, R&& r, Rt const& root, C const& comm) {
  return detail::gatherv_impl<detail::mode::nonblocking>(detail::gatherv_forms, MPI_INFO_NULL, mpi::handle(comm), s,
                                                         r, root);
}
template <send_buffer S, recv_buffer_v R, rank_like Rt, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request gatherv_init(S&& s, R&& r, Rt const& root, C const& comm,
                                                         I const& info = I{}) {
  return detail::gatherv_impl<detail::mode::persistent>(detail::gatherv_forms, mpi::handle(info), mpi::handle(comm),
                                                        s, r, root);
}

template <send_buffer S, recv_buffer R, rank_like Rt, comm_handle C>
MPI_CXX_ALWAYS_INLINE void scatter(S&& s, R&& r, Rt const& root, C const& comm) {
  detail::whole_impl<detail::mode::blocking>(detail::scatter_forms, MPI_INFO_NULL, detail::comm_arg_of(comm), s, r, root);
}
template <send_buffer S, recv_buffer R, rank_like Rt, comm_handle C>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request iscatter(S&& s, R&& r, Rt const& root, C const& comm) {
  return detail::whole_impl<detail::mode::nonblocking>(detail::scatter_forms, MPI_INFO_NULL, detail::comm_arg_of(comm), s, r,
                                                       root);
}
template <send_buffer S, recv_buffer R, rank_like Rt, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request scatter_init(S&& s, R&& r, Rt const& root, C const& comm,
                                                         I const& info = I{}) {
  return detail::whole_impl<detail::mode::persistent>(detail::scatter_forms, mpi::handle(info), detail::comm_arg_of(comm), s,
                                                      r, root);
}

template <send_buffer_v S, recv_buffer R, rank_like Rt, comm_handle C>
MPI_CXX_ALWAYS_INLINE void scatterv(S&& s, R&& r, Rt const& root, C const& comm) {
  detail::scatterv_impl<detail::mode::blocking>(detail::scatterv_forms, MPI_INFO_NULL, mpi::handle(comm), s, r, root);
}
template <send_buffer_v S, recv_buffer R, rank_like Rt, comm_handle C>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request iscatterv(S&& s, R&& r, Rt const& root, C const& comm) {
  return detail::scatterv_impl<detail::mode::nonblocking>(detail::scatterv_forms, MPI_INFO_NULL, mpi::handle(comm), s,
                                                          r, root);
}
template <send_buffer_v S, recv_buffer R, rank_like Rt, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request scatterv_init(S&& s, R&& r, Rt const& root, C const& comm,
                                                          I const& info = I{}) {
  return detail::scatterv_impl<detail::mode::persistent>(detail::scatterv_forms, mpi::handle(info), mpi::handle(comm),
                                                         s, r, root);
}

template <send_buffer S, recv_buffer R, comm_handle C>
MPI_CXX_ALWAYS_INLINE void allgather(S&& s, R&& r, C const& comm) {
  detail::whole_impl<detail::mode::blocking>(detail::allgather_forms, MPI_INFO_NULL, detail::comm_arg_of(comm), s, r);
}
template <send_buffer S, recv_buffer R, comm_handle C>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request iallgather(S&& s, R&& r, C const& comm) {
  return detail::whole_impl<detail::mode::nonblocking>(detail::allgather_forms, MPI_INFO_NULL, detail::comm_arg_of(comm), s, r);
}
template <send_buffer S, recv_buffer R, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request allgather_init(S&& s, R&& r, C const& comm, I const& info = I{}) {
  return detail::whole_impl<detail::mode::persistent>(detail::allgather_forms, mpi::handle(info), detail::comm_arg_of(comm),
                                                      s, r);
}

template <send_buffer S, recv_buffer_v R, comm_handle C>
MPI_CXX_ALWAYS_INLINE void allgatherv(S&& s, R&& r, C const& comm) {
  detail::gatherv_impl<detail::mode::blocking>(detail::allgatherv_forms, MPI_INFO_NULL, mpi::handle(comm), s, r);
}
template <send_buffer S, recv_buffer_v R, comm_handle C>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request iallgatherv(S&& s, R&& r, C const& comm) {
  return detail::gatherv_impl<detail::mode::nonblocking>(detail::allgatherv_forms, MPI_INFO_NULL, mpi::handle(comm),
                                                         s, r);
}
template <send_buffer S, recv_buffer_v R, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request allgatherv_init(S&& s, R&& r, C const& comm, I const& info = I{}) {
  return detail::gatherv_impl<detail::mode::persistent>(detail::allgatherv_forms, mpi::handle(info),
                                                        mpi::handle(comm), s, r);
}

template <send_buffer S, recv_buffer R, comm_handle C>
MPI_CXX_ALWAYS_INLINE void alltoall(S&& s, R&& r, C const& comm) {
  detail::whole_impl<detail::mode::blocking>(detail::alltoall_forms, MPI_INFO_NULL, detail::comm_arg_of(comm), s, r);
}
template <send_buffer S, recv_buffer R, comm_handle C>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request ialltoall(S&& s, R&& r, C const& comm) {
  return detail::whole_impl<detail::mode::nonblocking>(detail::alltoall_forms, MPI_INFO_NULL, detail::comm_arg_of(comm), s, r);
}
template <send_buffer S, recv_buffer R, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request alltoall_init(S&& s, R&& r, C const& comm, I const& info = I{}) {
  return detail::whole_impl<detail::mode::persistent>(detail::alltoall_forms, mpi::handle(info), detail::comm_arg_of(comm), s,
                                                      r);
}

// alltoallv: the send buffer is a varying buffer, or mpi::in_place.
template <detail::send_buffer_v_or_in_place S, recv_buffer_v R, comm_handle C>
MPI_CXX_ALWAYS_INLINE void alltoallv(S&& s, R&& r, C const& comm) {
  detail::alltoallv_impl<detail::mode::blocking>(detail::alltoallv_forms, MPI_INFO_NULL, mpi::handle(comm), s, r);
}
template <detail::send_buffer_v_or_in_place S, recv_buffer_v R, comm_handle C>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request ialltoallv(S&& s, R&& r, C const& comm) {
  return detail::alltoallv_impl<detail::mode::nonblocking>(detail::alltoallv_forms, MPI_INFO_NULL, mpi::handle(comm),
                                                           s, r);
}
template <detail::send_buffer_v_or_in_place S, recv_buffer_v R, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request alltoallv_init(S&& s, R&& r, C const& comm, I const& info = I{}) {
  return detail::alltoallv_impl<detail::mode::persistent>(detail::alltoallv_forms, mpi::handle(info),
                                                          mpi::handle(comm), s, r);
}

template <send_buffer_w S, recv_buffer_w R, comm_handle C>
MPI_CXX_ALWAYS_INLINE void alltoallw(S&& s, R&& r, C const& comm) {
  detail::alltoallv_impl<detail::mode::blocking>(detail::alltoallw_forms, MPI_INFO_NULL, mpi::handle(comm), s, r);
}
template <send_buffer_w S, recv_buffer_w R, comm_handle C>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request ialltoallw(S&& s, R&& r, C const& comm) {
  return detail::alltoallv_impl<detail::mode::nonblocking>(detail::alltoallw_forms, MPI_INFO_NULL, mpi::handle(comm),
                                                           s, r);
}
template <send_buffer_w S, recv_buffer_w R, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request alltoallw_init(S&& s, R&& r, C const& comm, I const& info = I{}) {
  return detail::alltoallv_impl<detail::mode::persistent>(detail::alltoallw_forms, mpi::handle(info),
                                                          mpi::handle(comm), s, r);
}

// Reductions: an op handle or a standard function object (std::plus<> ...); the blocking form
// also takes any callable on the element type (detail::reduction_for).
template <send_buffer S, recv_buffer R, class Op, rank_like Rt, comm_handle C>
  requires detail::reduction_for<Op, detail::element_type_t<R>>
MPI_CXX_ALWAYS_INLINE void reduce(S&& s, R&& r, Op const& op, Rt const& root, C const& comm) {
  detail::reduce_impl<detail::mode::blocking>(detail::reduce_forms, MPI_INFO_NULL, mpi::handle(comm), s, r, op, root);
}
template <send_buffer S, recv_buffer R, op_handle Op, rank_like Rt, comm_handle C>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request ireduce(S&& s, R&& r, Op const& op, Rt const& root, C const& comm) {
  return detail::reduce_impl<detail::mode::nonblocking>(detail::reduce_forms, MPI_INFO_NULL, mpi::handle(comm), s, r,
                                                        op, root);
}
template <send_buffer S, recv_buffer R, op_handle Op, rank_like Rt, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request reduce_init(S&& s, R&& r, Op const& op, Rt const& root, C const& comm,
                                                        I const& info = I{}) {
  return detail::reduce_impl<detail::mode::persistent>(detail::reduce_forms, mpi::handle(info), mpi::handle(comm), s,
                                                       r, op, root);
}

template <send_buffer S, recv_buffer R, class Op, comm_handle C>
  requires detail::reduction_for<Op, detail::element_type_t<R>>
MPI_CXX_ALWAYS_INLINE void allreduce(S&& s, R&& r, Op const& op, C const& comm) {
  detail::reduce_impl<detail::mode::blocking>(detail::allreduce_forms, MPI_INFO_NULL, mpi::handle(comm), s, r, op);
}
template <send_buffer S, recv_buffer R, op_handle Op, comm_handle C>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request iallreduce(S&& s, R&& r, Op const& op, C const& comm) {
  return detail::reduce_impl<detail::mode::nonblocking>(detail::allreduce_forms, MPI_INFO_NULL, mpi::handle(comm), s,
                                                        r, op);
}
template <send_buffer S, recv_buffer R, op_handle Op, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request allreduce_init(S&& s, R&& r, Op const& op, C const& comm,
                                                           I const& info = I{}) {
  return detail::reduce_impl<detail::mode::persistent>(detail::allreduce_forms, mpi::handle(info), mpi::handle(comm),
                                                       s, r, op);
}

template <send_buffer S, recv_buffer R, class Op, comm_handle C>
  requires detail::reduction_for<Op, detail::element_type_t<R>>
MPI_CXX_ALWAYS_INLINE void scan(S&& s, R&& r, Op const& op, C const& comm) {
  detail::reduce_impl<detail::mode::blocking>(detail::scan_forms, MPI_INFO_NULL, mpi::handle(comm), s, r, op);
}
template <send_buffer S, recv_buffer R, op_handle Op, comm_handle C>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request iscan(S&& s, R&& r, Op const& op, C const& comm) {
  return detail::reduce_impl<detail::mode::nonblocking>(detail::scan_forms, MPI_INFO_NULL, mpi::handle(comm), s, r, op);
}
template <send_buffer S, recv_buffer R, op_handle Op, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request scan_init(S&& s, R&& r, Op const& op, C const& comm, I const& info = I{}) {
  return detail::reduce_impl<detail::mode::persistent>(detail::scan_forms, mpi::handle(info), mpi::handle(comm), s, r,
                                                       op);
}

template <send_buffer S, recv_buffer R, class Op, comm_handle C>
  requires detail::reduction_for<Op, detail::element_type_t<R>>
MPI_CXX_ALWAYS_INLINE void exscan(S&& s, R&& r, Op const& op, C const& comm) {
  detail::reduce_impl<detail::mode::blocking>(detail::exscan_forms, MPI_INFO_NULL, mpi::handle(comm), s, r, op);
}
template <send_buffer S, recv_buffer R, op_handle Op, comm_handle C>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request iexscan(S&& s, R&& r, Op const& op, C const& comm) {
  return detail::reduce_impl<detail::mode::nonblocking>(detail::exscan_forms, MPI_INFO_NULL, mpi::handle(comm), s, r,
                                                        op);
}
template <send_buffer S, recv_buffer R, op_handle Op, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request exscan_init(S&& s, R&& r, Op const& op, C const& comm,
                                                        I const& info = I{}) {
  return detail::reduce_impl<detail::mode::persistent>(detail::exscan_forms, mpi::handle(info), mpi::handle(comm), s,
                                                       r, op);
}

template <send_buffer S, recv_buffer R, class Op, comm_handle C>
  requires detail::reduction_for<Op, detail::element_type_t<R>>
MPI_CXX_ALWAYS_INLINE void reduce_scatter_block(S&& s, R&& r, Op const& op, C const& comm) {
  detail::reduce_scatter_impl<detail::mode::blocking>(detail::reduce_scatter_block_forms, MPI_INFO_NULL,
                                                      mpi::handle(comm), s, r, op);
}
template <send_buffer S, recv_buffer R, op_handle Op, comm_handle C>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request ireduce_scatter_block(S&& s, R&& r, Op const& op, C const& comm) {
  return detail::reduce_scatter_impl<detail::mode::nonblocking>(detail::reduce_scatter_block_forms, MPI_INFO_NULL,
                                                                mpi::handle(comm), s, r, op);
}
template <send_buffer S, recv_buffer R, op_handle Op, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<S, R>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request reduce_scatter_block_init(S&& s, R&& r, Op const& op, C const& comm,
                                                                      I const& info = I{}) {
  return detail::reduce_scatter_impl<detail::mode::persistent>(detail::reduce_scatter_block_forms, mpi::handle(info),
                                                               mpi::handle(comm), s, r, op);
}

// MPI reads recvcounts until a nonblocking or persistent reduce_scatter completes: it is held
// to the buffers' rule.
template <send_buffer S, recv_buffer R, cnt_range K, class Op, comm_handle C>
  requires detail::reduction_for<Op, detail::element_type_t<R>>
MPI_CXX_ALWAYS_INLINE void reduce_scatter(S&& s, R&& r, K&& recvcounts, Op const& op, C const& comm) {
  detail::reduce_scatter_impl<detail::mode::blocking>(detail::reduce_scatter_forms, MPI_INFO_NULL, mpi::handle(comm),
                                                      s, r, op, recvcounts);
}
template <send_buffer S, recv_buffer R, cnt_range K, op_handle Op, comm_handle C>
  requires buffers_outlive_call<S, R, K>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request ireduce_scatter(S&& s, R&& r, K&& recvcounts, Op const& op, C const& comm) {
  return detail::reduce_scatter_impl<detail::mode::nonblocking>(detail::reduce_scatter_forms, MPI_INFO_NULL,
                                                                mpi::handle(comm), s, r, op, recvcounts);
}
template <send_buffer S, recv_buffer R, cnt_range K, op_handle Op, comm_handle C, info_handle I = info_null_t>
  requires buffers_outlive_call<S, R, K>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request reduce_scatter_init(S&& s, R&& r, K&& recvcounts, Op const& op,
                                                                C const& comm, I const& info = I{}) {
  return detail::reduce_scatter_impl<detail::mode::persistent>(detail::reduce_scatter_forms, mpi::handle(info),
                                                               mpi::handle(comm), s, r, op, recvcounts);
}

// The paper's defaults: MPI_COMM_WORLD, and root 0 for bcast.
inline void barrier() { mpi::barrier(comm_world()); }
template <data_buffer B>
void bcast(B&& buf) {
  mpi::bcast(std::forward<B>(buf), 0, comm_world());
}
template <send_buffer S, recv_buffer R, class Op>
  requires detail::reduction_for<Op, detail::element_type_t<R>>
void allreduce(S&& s, R&& r, Op const& op) {
  mpi::allreduce(std::forward<S>(s), std::forward<R>(r), op, comm_world());
}

// MPI_Reduce_local: inout[i] = op(in[i], inout[i]).
template <send_buffer S, recv_buffer R, class Op>
  requires detail::reduction_for<Op, detail::element_type_t<R>>
void reduce_local(S&& in, R&& inout, Op const& op) {
  detail::op_arg<detail::element_type_t<R>, Op> o(op);
  detail::call_with(MPI_CXX_COUNTED_FN(MPI_Reduce_local), mpi::ptr(in), mpi::ptr(inout),
                    detail::counted{detail::count_of(in, "MPI_Reduce_local")}, detail::type_of(in), o.h);
}

}  // namespace mpi
