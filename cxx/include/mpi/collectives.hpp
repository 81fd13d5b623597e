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
inline constexpr auto gather_forms = MPI_CXX_COLL_FORMS_(Gather, gather, split{&group_peers, false, true});
inline constexpr auto scatter_forms = MPI_CXX_COLL_FORMS_(Scatter, scatter, split{&group_peers, true, false});
inline constexpr auto allgather_forms = MPI_CXX_COLL_FORMS_(Allgather, allgather, split{&group_peers, false, true});
inline constexpr auto alltoall_forms = MPI_CXX_COLL_FORMS_(Alltoall, alltoall, split{&group_peers, true, true});
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
auto barrier_impl(F const& f, MPI_Info info, MPI_Comm comm) {
  return invoke<M>(f, coll_tail{.info = info}, comm);
}

template <mode M, class F, class B, class R>
auto bcast_impl(F const& f, MPI_Info info, MPI_Comm comm, B& b, R const& root) {
  return invoke<M>(f, coll_tail{.info = info}, buf(b, f.template name<M>()), mpi::to_rank(root), comm);
}

// Whole-message buffers (gather, scatter, allgather, alltoall and neighbor_allgather,
// neighbor_alltoall), divided as f.split says.
template <mode M, class F, class S, class B, class... R>
auto whole_impl(F const& f, MPI_Info info, MPI_Comm comm, S& s, B& r, R const&... root) {
  char const* fn = f.template name<M>();
  bool const at_root = (is_root(comm, mpi::to_rank(root)) && ...);  // true without a root
  auto count = [&]<class X>(X& x, bool divided, bool recv) -> MPI_Count {
    if constexpr (is_in_place<X>) return 0;
    else if (!divided) return count_of(x, fn);
    else if (!at_root) return 0;
    else {
      auto const [in, out] = f.split.peers(comm);
      return per_process(count_of(x, fn), recv ? in : out, fn, recv ? "receive buffer" : "send buffer");
    }
  };
  return invoke<M>(f, coll_tail{.info = info}, buf_count(s, count(s, f.split.send, false)),
                   buf_count(r, count(r, f.split.recv, true)), mpi::to_rank(root)..., comm);
}

// A whole send buffer and a varying receive buffer (gatherv, allgatherv, neighbor_allgatherv).
template <mode M, class F, class S, class B, class... R>
auto gatherv_impl(F const& f, MPI_Info info, MPI_Comm comm, S& s, B& r, R const&... root) {
  char const* fn = f.template name<M>();
  varying<B> rv(r, fn, M != mode::blocking);
  return invoke<M>(f, coll_tail{.info = info}, buf_count(s, count_unless_in_place(s, fn)), rv,
                   mpi::to_rank(root)..., comm);
}

template <mode M, class F, class S, class B, class R>
auto scatterv_impl(F const& f, MPI_Info info, MPI_Comm comm, S& s, B& r, R const& root) {
  char const* fn = f.template name<M>();
  varying<S> sv(s, fn, M != mode::blocking);
  return invoke<M>(f, coll_tail{.info = info}, sv, buf_count(r, count_unless_in_place(r, fn)), mpi::to_rank(root),
                   comm);
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
  return invoke<M>(f, coll_tail{.info = info}, sv, rv, comm);
}

// Count and datatype of a reduction: from the send buffer, or the receive buffer in place.
template <class S, class B>
std::pair<MPI_Count, MPI_Datatype> reduction_shape(S const& s, B const& r, char const* fn) {
  if constexpr (is_in_place<S>) return {count_of(r, fn), type_of(r)};
  else return {count_of(s, fn), type_of(s)};
}

// reduce, allreduce, scan, exscan.
template <mode M, class F, class S, class B, class O, class... R>
auto reduce_impl(F const& f, MPI_Info info, MPI_Comm comm, S& s, B& r, O const& op, R const&... root) {
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
  return invoke<M>(f, coll_tail{.info = info}, mpi::ptr(s), mpi::ptr(r), counts, is_in_place<S> ? type_of(r) : type_of(s),
                   o.h, comm);
}

}  // namespace detail

// Reductions: the blocking form also accepts a callable on the element type. ARGS2 follow
// the op (reduce's root), written with a leading comma. BUFFERS as for MPI_CXX_COLL_VARIANTS_.
#define MPI_CXX_REDUCTION_VARIANTS_(name, impl, TPL, PARAMS, ARGS, PARAMS2, ARGS2, BUFFERS)        \
  template <MPI_CXX_UNPAREN_ TPL, class Op, comm_handle C>                                          \
    requires detail::reduction_for<Op, detail::element_type_t<R>>                                   \
  void name(MPI_CXX_UNPAREN_ PARAMS, Op const& op MPI_CXX_UNPAREN_ PARAMS2, C const& comm) {        \
    detail::impl##_impl<detail::mode::blocking>(detail::name##_forms, MPI_INFO_NULL, mpi::handle(comm), \
                                                MPI_CXX_UNPAREN_ ARGS, op MPI_CXX_UNPAREN_ ARGS2);   \
  }                                                                                                 \
  template <MPI_CXX_UNPAREN_ TPL, op_handle Op, comm_handle C>                                      \
    requires buffers_outlive_call<MPI_CXX_UNPAREN_ BUFFERS>                                         \
  [[nodiscard]] request i##name(MPI_CXX_UNPAREN_ PARAMS, Op const& op MPI_CXX_UNPAREN_ PARAMS2,      \
                                C const& comm) {                                                    \
    return detail::impl##_impl<detail::mode::nonblocking>(detail::name##_forms, MPI_INFO_NULL,      \
                                                          mpi::handle(comm), MPI_CXX_UNPAREN_ ARGS,  \
                                                          op MPI_CXX_UNPAREN_ ARGS2);                \
  }                                                                                                 \
  template <MPI_CXX_UNPAREN_ TPL, op_handle Op, comm_handle C, info_handle I = info_view>           \
    requires buffers_outlive_call<MPI_CXX_UNPAREN_ BUFFERS>                                         \
  [[nodiscard]] request name##_init(MPI_CXX_UNPAREN_ PARAMS, Op const& op MPI_CXX_UNPAREN_ PARAMS2,  \
                                    C const& comm, I const& info = I{}) {                           \
    return detail::impl##_impl<detail::mode::persistent>(detail::name##_forms, mpi::handle(info),   \
                                                         mpi::handle(comm), MPI_CXX_UNPAREN_ ARGS,   \
                                                         op MPI_CXX_UNPAREN_ ARGS2);                 \
  }

template <comm_handle C>
void barrier(C const& comm) {
  detail::barrier_impl<detail::mode::blocking>(detail::barrier_forms, MPI_INFO_NULL, mpi::handle(comm));
}
template <comm_handle C>
[[nodiscard]] request ibarrier(C const& comm) {
  return detail::barrier_impl<detail::mode::nonblocking>(detail::barrier_forms, MPI_INFO_NULL, mpi::handle(comm));
}
template <comm_handle C, info_handle I = info_view>
[[nodiscard]] request barrier_init(C const& comm, I const& info = I{}) {
  return detail::barrier_impl<detail::mode::persistent>(detail::barrier_forms, mpi::handle(info), mpi::handle(comm));
}

MPI_CXX_COLL_VARIANTS_(bcast, bcast, (data_buffer B, rank_like Rt), (B&& buf, Rt const& root), (buf, root), (B))
MPI_CXX_COLL_VARIANTS_(gather, whole, (send_buffer S, recv_buffer R, rank_like Rt), (S&& s, R&& r, Rt const& root),
                       (s, r, root), (S, R))
MPI_CXX_COLL_VARIANTS_(gatherv, gatherv, (send_buffer S, recv_buffer_v R, rank_like Rt),
                       (S&& s, R&& r, Rt const& root), (s, r, root), (S, R))
MPI_CXX_COLL_VARIANTS_(scatter, whole, (send_buffer S, recv_buffer R, rank_like Rt), (S&& s, R&& r, Rt const& root),
                       (s, r, root), (S, R))
MPI_CXX_COLL_VARIANTS_(scatterv, scatterv, (send_buffer_v S, recv_buffer R, rank_like Rt),
                       (S&& s, R&& r, Rt const& root), (s, r, root), (S, R))
MPI_CXX_COLL_VARIANTS_(allgather, whole, (send_buffer S, recv_buffer R), (S&& s, R&& r), (s, r), (S, R))
MPI_CXX_COLL_VARIANTS_(allgatherv, gatherv, (send_buffer S, recv_buffer_v R), (S&& s, R&& r), (s, r), (S, R))
MPI_CXX_COLL_VARIANTS_(alltoall, whole, (send_buffer S, recv_buffer R), (S&& s, R&& r), (s, r), (S, R))
MPI_CXX_COLL_VARIANTS_(alltoallw, alltoallv, (send_buffer_w S, recv_buffer_w R), (S&& s, R&& r), (s, r), (S, R))
// alltoallv: the send buffer is a varying buffer, or mpi::in_place.
MPI_CXX_COLL_VARIANTS_(alltoallv, alltoallv, (detail::send_buffer_v_or_in_place S, recv_buffer_v R), (S&& s, R&& r),
                       (s, r), (S, R))

MPI_CXX_REDUCTION_VARIANTS_(reduce, reduce, (send_buffer S, recv_buffer R), (S&& s, R&& r), (s, r),
                            (, rank_like auto const& root), (, root), (S, R))
MPI_CXX_REDUCTION_VARIANTS_(allreduce, reduce, (send_buffer S, recv_buffer R), (S&& s, R&& r), (s, r), (), (), (S, R))
MPI_CXX_REDUCTION_VARIANTS_(scan, reduce, (send_buffer S, recv_buffer R), (S&& s, R&& r), (s, r), (), (), (S, R))
MPI_CXX_REDUCTION_VARIANTS_(exscan, reduce, (send_buffer S, recv_buffer R), (S&& s, R&& r), (s, r), (), (), (S, R))
MPI_CXX_REDUCTION_VARIANTS_(reduce_scatter_block, reduce_scatter, (send_buffer S, recv_buffer R), (S&& s, R&& r),
                            (s, r), (), (), (S, R))
// MPI reads recvcounts until a nonblocking or persistent reduce_scatter completes: it is held
// to the buffers' rule.
MPI_CXX_REDUCTION_VARIANTS_(reduce_scatter, reduce_scatter, (send_buffer S, recv_buffer R, cnt_range K),
                            (S&& s, R&& r, K&& recvcounts), (s, r), (), (, recvcounts), (S, R, K))

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
