// Collective wrappers of the layer, in the shape of anympi/point_to_point.hpp: hold the
// buffers, run infer(), call the mpi:: core, return the receive buffer (bcast: the buffer) by
// value, or a reference to it when it was given as an lvalue; bcast of a finishing_buffer
// (views::serialize) hands back the object.
//
//   auto all = anympi::allgatherv(local, std::vector<int>{} | views::auto_counts | views::resize_v, comm);
//
// The v-collectives exchange counts once where the receive counts are deferred
// (views::auto_counts), not at all where they are given; a varying buffer without
// displacements gets packed ones (views::auto_displs).
#pragma once

#include <anympi/buffer.hpp>
#include <anympi/infer.hpp>
#include <anympi/iresult.hpp>
#include <anympi/views.hpp>

#include <numeric>
#include <ranges>
#include <type_traits>
#include <utility>
#include <vector>

namespace anympi {

namespace detail {
inline mpi::comm_view view_of(mpi::comm_handle auto const& comm) { return mpi::comm_view(mpi::handle(comm)); }

// The displacements a nonblocking v-collective keeps until it completes (MPI may read them
// until then), of the buffer's count type: packed ones where the buffer has none.
template <class B>
struct kept_displs {
  using type = std::vector<int>;
};
template <class B>
  requires views::detail::has_counts<B>
struct kept_displs<B> {
  using type = std::vector<std::remove_cvref_t<std::ranges::range_value_t<decltype(mpi::counts(std::declval<B const&>()))>>>;
};
template <class B>
using kept_displs_t = typename kept_displs<std::remove_reference_t<held_t<B>>>::type;

template <class B, class D>
decltype(auto) with_kept_displs(B& b, D& d) {
  if constexpr (views::detail::has_displs<B>) {
    return (b);
  } else {
    views::detail::pack_displs(mpi::counts(b), d);
    return b | views::with_displs(d);
  }
}

// A varying buffer as the core takes it: with its displacements, packed where it has none.
template <class B>
decltype(auto) packed(B& b) {
  if constexpr (views::detail::has_displs<B>) return (b);
  else return b | views::auto_displs;
}

// Whether MPI writes the receive buffer on this process, asked only of a finishing_buffer
// (views::deserialize<T>() decodes, a strided views::kokkos unpacks, only what was received):
// at a gather's or reduce's root (MPI_ROOT on an intercommunicator), at a bcast's other
// processes (on an intercommunicator: the group that does not hold the root), else everywhere.
inline bool at_root(mpi::comm_handle auto const& comm, mpi::rank_like auto const& root) {
  return mpi::detail::is_root(mpi::handle(comm), mpi::to_rank(root));
}
inline bool from_root(mpi::comm_handle auto const& comm, mpi::rank_like auto const& root) {
  auto const c = view_of(comm);
  return c.is_inter() ? mpi::to_rank(root) >= 0 : c.rank() != mpi::to_rank(root);
}
inline constexpr auto everywhere = [] { return true; };

// The one shape of the blocking wrappers that receive: hold the receive buffer, run the
// operation on it (infer(), then the core's call), hand it back -- a reference where it was
// given as an lvalue -- or what a finishing_buffer finishes into, `received()` saying whether
// MPI wrote it on this process. The buffer is made in place of the result (no move), as each
// wrapper's own local would be.
template <class R, class Run, class Received>
MPI_CXX_ALWAYS_INLINE result_t<R> receive_into(R&& recv, Run&& run, Received&& received) {
  held_t<R> r(std::forward<R>(recv));
  run(r);
  if constexpr (finishing_buffer<held_t<R>>) return anympi::finish(std::forward<held_t<R>>(r), received());
  else return r;
}
}  // namespace detail

template <class B, mpi::rank_like Rt, mpi::comm_handle C>
  requires mpi::data_buffer<held_t<B>&>
result_t<B> bcast(B&& buf, Rt const& root, C const& comm) {
  return detail::receive_into(std::forward<B>(buf), [&](auto& b) {
    infer(bcast_op{mpi::to_rank(root)}, detail::view_of(comm), b);
    mpi::bcast(b, root, comm);
  }, [&] { return detail::from_root(comm, root); });
}

template <mpi::send_buffer S, class R, mpi::rank_like Rt, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
result_t<R> gather(S&& s, R&& recv, Rt const& root, C const& comm) {
  return detail::receive_into(std::forward<R>(recv), [&](auto& r) {
    infer(gather_op{mpi::to_rank(root)}, detail::view_of(comm), s, r);
    mpi::gather(s, r, root, comm);
  }, [&] { return detail::at_root(comm, root); });
}

template <mpi::send_buffer S, class R, mpi::rank_like Rt, mpi::comm_handle C>
result_t<R> gatherv(S&& s, R&& recv, Rt const& root, C const& comm) {
  return detail::receive_into(std::forward<R>(recv), [&](auto& r) {
    infer(gatherv_op{mpi::to_rank(root)}, detail::view_of(comm), s, r);
    mpi::gatherv(s, detail::packed(r), root, comm);
  }, [&] { return detail::at_root(comm, root); });
}

template <mpi::send_buffer S, class R, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
result_t<R> allgather(S&& s, R&& recv, C const& comm) {
  return detail::receive_into(std::forward<R>(recv), [&](auto& r) {
    infer(allgather_op{}, detail::view_of(comm), s, r);
    mpi::allgather(s, r, comm);
  }, detail::everywhere);
}

template <mpi::send_buffer S, class R, mpi::comm_handle C>
result_t<R> allgatherv(S&& s, R&& recv, C const& comm) {
  return detail::receive_into(std::forward<R>(recv), [&](auto& r) {
    infer(allgatherv_op{}, detail::view_of(comm), s, r);
    mpi::allgatherv(s, detail::packed(r), comm);
  }, detail::everywhere);
}

template <mpi::send_buffer S, class R, mpi::rank_like Rt, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
result_t<R> scatter(S&& s, R&& recv, Rt const& root, C const& comm) {
  return detail::receive_into(std::forward<R>(recv), [&](auto& r) {
    infer(scatter_op{mpi::to_rank(root)}, detail::view_of(comm), s, r);
    mpi::scatter(s, r, root, comm);
  }, detail::everywhere);
}

template <class S, class R, mpi::rank_like Rt, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
result_t<R> scatterv(S&& s, R&& recv, Rt const& root, C const& comm) {
  return detail::receive_into(std::forward<R>(recv), [&](auto& r) {
    infer(scatterv_op{mpi::to_rank(root)}, detail::view_of(comm), s, r);
    mpi::scatterv(detail::packed(s), r, root, comm);
  }, detail::everywhere);
}

template <mpi::send_buffer S, class R, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
result_t<R> alltoall(S&& s, R&& recv, C const& comm) {
  return detail::receive_into(std::forward<R>(recv), [&](auto& r) {
    infer(alltoall_op{}, detail::view_of(comm), s, r);
    mpi::alltoall(s, r, comm);
  }, detail::everywhere);
}

template <class S, class R, mpi::comm_handle C>
result_t<R> alltoallv(S&& s, R&& recv, C const& comm) {
  return detail::receive_into(std::forward<R>(recv), [&](auto& r) {
    infer(alltoallv_op{}, detail::view_of(comm), s, r);
    mpi::alltoallv(detail::packed(s), detail::packed(r), comm);
  }, detail::everywhere);
}

template <mpi::send_buffer S, class R, class Op, mpi::rank_like Rt, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
result_t<R> reduce(S&& s, R&& recv, Op const& op, Rt const& root, C const& comm) {
  return detail::receive_into(std::forward<R>(recv), [&](auto& r) {
    infer(reduce_op{mpi::to_rank(root)}, detail::view_of(comm), s, r);
    mpi::reduce(s, r, op, root, comm);
  }, [&] { return detail::at_root(comm, root); });
}

template <mpi::send_buffer S, class R, class Op, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
result_t<R> allreduce(S&& s, R&& recv, Op const& op, C const& comm) {
  return detail::receive_into(std::forward<R>(recv), [&](auto& r) {
    infer(allreduce_op{}, detail::view_of(comm), s, r);
    mpi::allreduce(s, r, op, comm);
  }, detail::everywhere);
}

template <mpi::send_buffer S, class R, class Op, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
result_t<R> scan(S&& s, R&& recv, Op const& op, C const& comm) {
  return detail::receive_into(std::forward<R>(recv), [&](auto& r) {
    infer(scan_op{}, detail::view_of(comm), s, r);
    mpi::scan(s, r, op, comm);
  }, detail::everywhere);
}

// MPI leaves the receive buffer of process 0 alone.
template <mpi::send_buffer S, class R, class Op, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
result_t<R> exscan(S&& s, R&& recv, Op const& op, C const& comm) {
  return detail::receive_into(std::forward<R>(recv), [&](auto& r) {
    infer(exscan_op{}, detail::view_of(comm), s, r);
    mpi::exscan(s, r, op, comm);
  }, [&] { return detail::view_of(comm).rank() != 0; });
}

template <mpi::send_buffer S, class R, class Op, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
result_t<R> reduce_scatter_block(S&& s, R&& recv, Op const& op, C const& comm) {
  return detail::receive_into(std::forward<R>(recv), [&](auto& r) {
    infer(reduce_scatter_block_op{}, detail::view_of(comm), s, r);
    mpi::reduce_scatter_block(s, r, op, comm);
  }, detail::everywhere);
}

// recvcounts: every process's block, the same on all of them; a receive buffer whose count is
// left open takes this process's.
template <mpi::send_buffer S, class R, mpi::cnt_range K, class Op, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
result_t<R> reduce_scatter(S&& s, R&& recv, K const& recvcounts, Op const& op, C const& comm) {
  return detail::receive_into(std::forward<R>(recv), [&](auto& r) {
    auto const cv = detail::view_of(comm);
    if constexpr (deferred_count<held_t<R>>) infer(reduce_scatter_op{cv.rank()}, cv, s, r, recvcounts);
    mpi::reduce_scatter(s, r, recvcounts, op, comm);
  }, detail::everywhere);
}

// The buffers carry their counts, displacements and datatypes per process: nothing to infer.
template <mpi::send_buffer_w S, class R, mpi::comm_handle C>
  requires mpi::recv_buffer_w<held_t<R>&>
held_t<R> alltoallw(S&& s, R&& recv, C const& comm) {
  held_t<R> r(std::forward<R>(recv));
  mpi::alltoallw(s, r, comm);
  return r;
}

template <mpi::comm_handle C>
void barrier(C const& comm) {
  mpi::barrier(comm);
}

// Nonblocking collectives: wait() hands back the receive buffer where it is owned (what a
// finishing_buffer yields); an owned send buffer is kept until completion. infer() runs before
// the operation starts: where it needs no communication (a whole-message receive count is the
// send count) the call does not block; the deferred counts of bcast, scatter and the
// v-collectives (views::resize, views::auto_counts, views::deserialize<T>()) are found by a
// blocking count exchange first, the data then moves nonblocking.
template <class B, mpi::rank_like Rt, mpi::comm_handle C>
  requires mpi::data_buffer<held_t<B>&>
[[nodiscard]] iresult<B> ibcast(B&& buf, Rt const& root, C const& comm) {
  return iresult<B>(
      std::in_place,
      [&](auto& b) {
        infer(bcast_op{mpi::to_rank(root)}, detail::view_of(comm), b);
        return detail::started{mpi::ibcast(b, root, comm),
                               !finishing_buffer<decltype(b)> || detail::from_root(comm, root)};
      },
      std::forward<B>(buf));
}

template <mpi::send_buffer S, class R, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
[[nodiscard]] iresult<R, S> ialltoall(S&& s, R&& recv, C const& comm) {
  return iresult<R, S>(
      std::in_place,
      [&](auto& r, auto& sb) {
        infer(alltoall_op{}, detail::view_of(comm), sb, r);
        return mpi::ialltoall(sb, r, comm);
      },
      std::forward<R>(recv), std::forward<S>(s));
}

template <mpi::send_buffer S, class R, mpi::op_handle Op, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
[[nodiscard]] iresult<R, S> iallreduce(S&& s, R&& recv, Op const& op, C const& comm) {
  return iresult<R, S>(
      std::in_place,
      [&](auto& r, auto& sb) {
        infer(allreduce_op{}, detail::view_of(comm), sb, r);
        return mpi::iallreduce(sb, r, op, comm);
      },
      std::forward<R>(recv), std::forward<S>(s));
}

template <mpi::send_buffer S, class R, mpi::op_handle Op, mpi::rank_like Rt, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
[[nodiscard]] iresult<R, S> ireduce(S&& s, R&& recv, Op const& op, Rt const& root, C const& comm) {
  return iresult<R, S>(
      std::in_place,
      [&](auto& r, auto& sb) {
        infer(reduce_op{mpi::to_rank(root)}, detail::view_of(comm), sb, r);
        return detail::started{mpi::ireduce(sb, r, op, root, comm),
                               !finishing_buffer<decltype(r)> || detail::at_root(comm, root)};
      },
      std::forward<R>(recv), std::forward<S>(s));
}

template <mpi::send_buffer S, class R, mpi::rank_like Rt, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
[[nodiscard]] iresult<R, S> igather(S&& s, R&& recv, Rt const& root, C const& comm) {
  return iresult<R, S>(
      std::in_place,
      [&](auto& r, auto& sb) {
        infer(gather_op{mpi::to_rank(root)}, detail::view_of(comm), sb, r);
        return detail::started{mpi::igather(sb, r, root, comm),
                               !finishing_buffer<decltype(r)> || detail::at_root(comm, root)};
      },
      std::forward<R>(recv), std::forward<S>(s));
}

template <mpi::send_buffer S, class R, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
[[nodiscard]] iresult<R, S> iallgather(S&& s, R&& recv, C const& comm) {
  return iresult<R, S>(
      std::in_place,
      [&](auto& r, auto& sb) {
        infer(allgather_op{}, detail::view_of(comm), sb, r);
        return mpi::iallgather(sb, r, comm);
      },
      std::forward<R>(recv), std::forward<S>(s));
}

template <mpi::send_buffer S, class R, mpi::rank_like Rt, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
[[nodiscard]] iresult<R, S> iscatter(S&& s, R&& recv, Rt const& root, C const& comm) {
  return iresult<R, S>(
      std::in_place,
      [&](auto& r, auto& sb) {
        infer(scatter_op{mpi::to_rank(root)}, detail::view_of(comm), sb, r);
        return mpi::iscatter(sb, r, root, comm);
      },
      std::forward<R>(recv), std::forward<S>(s));
}

template <mpi::send_buffer S, class R, mpi::rank_like Rt, mpi::comm_handle C>
[[nodiscard]] iresult<R, S, detail::kept_displs_t<R>> igatherv(S&& s, R&& recv, Rt const& root, C const& comm) {
  using D = detail::kept_displs_t<R>;
  return iresult<R, S, D>(
      std::in_place,
      [&](auto& r, auto& sb, D& d) {
        infer(gatherv_op{mpi::to_rank(root)}, detail::view_of(comm), sb, r);
        return detail::started{mpi::igatherv(sb, detail::with_kept_displs(r, d), root, comm),
                               !finishing_buffer<decltype(r)> || detail::at_root(comm, root)};
      },
      std::forward<R>(recv), std::forward<S>(s), D{});
}

template <mpi::send_buffer S, class R, mpi::comm_handle C>
[[nodiscard]] iresult<R, S, detail::kept_displs_t<R>> iallgatherv(S&& s, R&& recv, C const& comm) {
  using D = detail::kept_displs_t<R>;
  return iresult<R, S, D>(
      std::in_place,
      [&](auto& r, auto& sb, D& d) {
        infer(allgatherv_op{}, detail::view_of(comm), sb, r);
        return mpi::iallgatherv(sb, detail::with_kept_displs(r, d), comm);
      },
      std::forward<R>(recv), std::forward<S>(s), D{});
}

template <class S, class R, mpi::rank_like Rt, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
[[nodiscard]] iresult<R, S, detail::kept_displs_t<S>> iscatterv(S&& s, R&& recv, Rt const& root, C const& comm) {
  using D = detail::kept_displs_t<S>;
  return iresult<R, S, D>(
      std::in_place,
      [&](auto& r, auto& sb, D& d) {
        infer(scatterv_op{mpi::to_rank(root)}, detail::view_of(comm), sb, r);
        return mpi::iscatterv(detail::with_kept_displs(sb, d), r, root, comm);
      },
      std::forward<R>(recv), std::forward<S>(s), D{});
}

template <class S, class R, mpi::comm_handle C>
[[nodiscard]] iresult<R, S, detail::kept_displs_t<R>, detail::kept_displs_t<S>> ialltoallv(S&& s, R&& recv,
                                                                                           C const& comm) {
  using DR = detail::kept_displs_t<R>;
  using DS = detail::kept_displs_t<S>;
  return iresult<R, S, DR, DS>(
      std::in_place,
      [&](auto& r, auto& sb, DR& dr, DS& ds) {
        infer(alltoallv_op{}, detail::view_of(comm), sb, r);
        return mpi::ialltoallv(detail::with_kept_displs(sb, ds), detail::with_kept_displs(r, dr), comm);
      },
      std::forward<R>(recv), std::forward<S>(s), DR{}, DS{});
}

template <mpi::send_buffer S, class R, mpi::op_handle Op, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
[[nodiscard]] iresult<R, S> iscan(S&& s, R&& recv, Op const& op, C const& comm) {
  return iresult<R, S>(
      std::in_place,
      [&](auto& r, auto& sb) {
        infer(scan_op{}, detail::view_of(comm), sb, r);
        return mpi::iscan(sb, r, op, comm);
      },
      std::forward<R>(recv), std::forward<S>(s));
}

template <mpi::send_buffer S, class R, mpi::op_handle Op, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
[[nodiscard]] iresult<R, S> iexscan(S&& s, R&& recv, Op const& op, C const& comm) {
  return iresult<R, S>(
      std::in_place,
      [&](auto& r, auto& sb) {
        infer(exscan_op{}, detail::view_of(comm), sb, r);
        return detail::started{mpi::iexscan(sb, r, op, comm),
                               !finishing_buffer<decltype(r)> || detail::view_of(comm).rank() != 0};
      },
      std::forward<R>(recv), std::forward<S>(s));
}

template <mpi::send_buffer S, class R, mpi::op_handle Op, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
[[nodiscard]] iresult<R, S> ireduce_scatter_block(S&& s, R&& recv, Op const& op, C const& comm) {
  return iresult<R, S>(
      std::in_place,
      [&](auto& r, auto& sb) {
        infer(reduce_scatter_block_op{}, detail::view_of(comm), sb, r);
        return mpi::ireduce_scatter_block(sb, r, op, comm);
      },
      std::forward<R>(recv), std::forward<S>(s));
}

// MPI reads recvcounts until the operation completes: kept with the buffers.
template <mpi::send_buffer S, class R, mpi::cnt_range K, mpi::op_handle Op, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<R>&>
[[nodiscard]] iresult<R, S, K> ireduce_scatter(S&& s, R&& recv, K&& recvcounts, Op const& op, C const& comm) {
  return iresult<R, S, K>(
      std::in_place,
      [&](auto& r, auto& sb, auto& k) {
        auto const cv = detail::view_of(comm);
        if constexpr (deferred_count<std::remove_reference_t<decltype(r)>>)
          infer(reduce_scatter_op{cv.rank()}, cv, sb, r, k);
        return mpi::ireduce_scatter(sb, r, k, op, comm);
      },
      std::forward<R>(recv), std::forward<S>(s), std::forward<K>(recvcounts));
}

template <mpi::send_buffer_w S, class R, mpi::comm_handle C>
  requires mpi::recv_buffer_w<held_t<R>&>
[[nodiscard]] iresult<R, S> ialltoallw(S&& s, R&& recv, C const& comm) {
  return iresult<R, S>(
      std::in_place, [&](auto& r, auto& sb) { return mpi::ialltoallw(sb, r, comm); }, std::forward<R>(recv),
      std::forward<S>(s));
}

// Nothing to own: the core's request.
template <mpi::comm_handle C>
[[nodiscard]] mpi::request ibarrier(C const& comm) {
  return mpi::ibarrier(comm);
}

}  // namespace anympi
