// infer(): what each wrapper of the layer does, before it calls the core, to complete the
// receive buffers the caller left open (anympi/buffer.hpp's deferred_count and
// deferred_counts). It is called unqualified with the operation's tag first,
//   infer(op_tag, comm, buffers&...)
// so that it is found by argument-dependent lookup: a library customizes it for its buffer
// type with an overload in the buffer's namespace, which is more specialized than these.
//
// Each default resolves what is missing at the least cost: nothing to do (a plain buffer, or
// counts given: the `if constexpr` leaves an empty function), the send side's own count
// (allgather, alltoall, allreduce ...), the matched message (recv: MPI_Mprobe, whose message
// the wrapper then receives with MPI_Mrecv, so that no other receive can take it in between),
// or exactly one count exchange (bcast, scatter, sendrecv, and the v-collectives).
// Count exchanges send int counts per process (what the int bindings take).
#pragma once

#include <anympi/buffer.hpp>

#include <algorithm>
#include <cstddef>
#include <ranges>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace anympi {

// One tag per operation, carrying what infer() needs of the operation's arguments.
struct recv_op {
  int source;
  int tag;
};
struct sendrecv_op {
  int dest;
  int sendtag;
  int source;  // set to the sender's rank by infer() when it was MPI_ANY_SOURCE
  int recvtag;
};
struct bcast_op {
  int root;
};
struct gather_op {
  int root;
};
struct gatherv_op {
  int root;
};
struct scatter_op {
  int root;
};
struct scatterv_op {
  int root;
};
struct allgather_op {};
struct allgatherv_op {};
struct alltoall_op {};
struct alltoallv_op {};
struct reduce_op {
  int root;
};
struct allreduce_op {};
struct scan_op {};
struct exscan_op {};
struct reduce_scatter_block_op {};
struct reduce_scatter_op {
  int rank;  // this process's rank: its block is recvcounts[rank]
};
struct neighbor_allgather_op {};
struct neighbor_allgatherv_op {};
struct neighbor_alltoall_op {};
struct neighbor_alltoallv_op {};

namespace detail {
template <class B>
MPI_Count count_of(B const& b) {
  return static_cast<MPI_Count>(mpi::count(b));
}
template <class B>
small_vector<int> int_counts(B const& b) {
  auto const& c = mpi::counts(b);
  small_vector<int> out;
  out.resize_for_overwrite(std::ranges::size(c));  // each element written below
  std::ranges::transform(c, out.begin(), [](auto n) { return static_cast<int>(n); });
  return out;
}
}  // namespace detail

// recv: the matched message, returned for the wrapper to receive; nothing when the count is known.
template <class B>
auto infer(recv_op const& op, mpi::comm_view comm, B& buf) {
  if constexpr (deferred_count<B>) {
    auto [msg, st] = mpi::mprobe(op.source, op.tag, comm);
    buf.mpi_set_count(st.count(mpi::detail::type_of(buf)));
    return std::move(msg);
  }
}

// sendrecv: a probe before the send could deadlock a ring of sendrecvs, so the counts travel
// first along the same route.
template <class S, class R>
void infer(sendrecv_op& op, mpi::comm_view comm, S& s, R& r) {
  if constexpr (deferred_count<R>) {
    MPI_Count const n = detail::count_of(s);
    MPI_Count m = 0;
    auto const st = mpi::sendrecv(n, op.dest, op.sendtag, m, op.source, op.recvtag, comm);
    if (op.source == MPI_ANY_SOURCE) op.source = st.source();
    r.mpi_set_count(m);
  }
}

template <class B>
void infer(bcast_op const& op, mpi::comm_view comm, B& b) {
  if constexpr (deferred_count<B>) {
    MPI_Count n = comm.rank() == op.root ? detail::count_of(b) : 0;
    mpi::bcast(n, op.root, comm);
    b.mpi_set_count(n);
  }
}

// The whole-message collectives: every process sends the same count.
template <class S, class R>
void infer(gather_op const& op, mpi::comm_view comm, S& s, R& r) {
  if constexpr (deferred_count<R>)
    if (comm.rank() == op.root) r.mpi_set_count(detail::count_of(s) * comm.size());
}
template <class S, class R>
void infer(allgather_op, mpi::comm_view comm, S& s, R& r) {
  if constexpr (deferred_count<R>) r.mpi_set_count(detail::count_of(s) * comm.size());
}
template <class S, class R>
void infer(alltoall_op, mpi::comm_view, S& s, R& r) {
  if constexpr (deferred_count<R>) r.mpi_set_count(detail::count_of(s));
}
template <class S, class R>
void infer(scatter_op const& op, mpi::comm_view comm, S& s, R& r) {
  if constexpr (deferred_count<R>) {
    MPI_Count n = comm.rank() == op.root ? detail::count_of(s) / comm.size() : 0;
    mpi::bcast(n, op.root, comm);
    r.mpi_set_count(n);
  }
}
template <class S, class R>
void infer(reduce_op const& op, mpi::comm_view comm, S& s, R& r) {
  if constexpr (deferred_count<R>)
    if (comm.rank() == op.root) r.mpi_set_count(detail::count_of(s));
}
template <class S, class R>
void infer(allreduce_op, mpi::comm_view, S& s, R& r) {
  if constexpr (deferred_count<R>) r.mpi_set_count(detail::count_of(s));
}

// The scans receive what they send; reduce_scatter_block a size()-th of it; reduce_scatter
// its own entry of the counts every process passes (the recv counts given, so no exchange).
template <class S, class R>
void infer(scan_op, mpi::comm_view, S& s, R& r) {
  if constexpr (deferred_count<R>) r.mpi_set_count(detail::count_of(s));
}
template <class S, class R>
void infer(exscan_op, mpi::comm_view, S& s, R& r) {
  if constexpr (deferred_count<R>) r.mpi_set_count(detail::count_of(s));
}
template <class S, class R>
void infer(reduce_scatter_block_op, mpi::comm_view comm, S& s, R& r) {
  if constexpr (deferred_count<R>) r.mpi_set_count(detail::count_of(s) / comm.size());
}
template <class S, class R, class K>
void infer(reduce_scatter_op const& op, mpi::comm_view comm, S&, R& r, K const& recvcounts) {
  if constexpr (deferred_count<R>) {
    int const p = comm.size();
    if (std::cmp_not_equal(std::ranges::size(recvcounts), p))
      mpi::detail::fail(MPI_ERR_COUNT, "anympi::reduce_scatter",
                        "recvcounts has " + std::to_string(std::ranges::size(recvcounts)) + " entries for " +
                            std::to_string(p) + " processes",
                        comm.native());
    r.mpi_set_count(static_cast<MPI_Count>(std::ranges::data(recvcounts)[op.rank]));
  }
}

// The neighbourhood collectives, by the topology's in- and out-degree: the whole-message ones
// without communication, the v-forms by one exchange of counts with the neighbours.
template <class S, class R>
void infer(neighbor_allgather_op, mpi::comm_view comm, S& s, R& r) {
  if constexpr (deferred_count<R>)
    r.mpi_set_count(detail::count_of(s) * mpi::detail::neighbor_degrees(comm.native()).from);
}
template <class S, class R>
void infer(neighbor_alltoall_op, mpi::comm_view comm, S& s, R& r) {
  if constexpr (deferred_count<R>) {
    auto const [in, out] = mpi::detail::neighbor_degrees(comm.native());
    r.mpi_set_count(out == 0 ? 0 : detail::count_of(s) / out * in);
  }
}
template <class S, class R>
void infer(neighbor_allgatherv_op, mpi::comm_view comm, S& s, R& r) {
  if constexpr (deferred_counts<R>) {
    int const n = static_cast<int>(detail::count_of(s));
    auto const in = static_cast<std::size_t>(mpi::detail::neighbor_degrees(comm.native()).from);
    mpi::neighbor_allgather(n, r.mpi_counts_to_fill(in), comm);
  }
}
template <class S, class R>
void infer(neighbor_alltoallv_op, mpi::comm_view comm, S& s, R& r) {
  if constexpr (deferred_counts<R>) {
    auto const in = static_cast<std::size_t>(mpi::detail::neighbor_degrees(comm.native()).from);
    mpi::neighbor_alltoall(detail::int_counts(s), r.mpi_counts_to_fill(in), comm);
  }
}

// The v-collectives: the receive counts are the senders' counts.
template <class S, class R>
void infer(gatherv_op const& op, mpi::comm_view comm, S& s, R& r) {
  if constexpr (deferred_counts<R>) {
    int const n = static_cast<int>(detail::count_of(s));
    mpi::gather(n, r.mpi_counts_to_fill(static_cast<std::size_t>(comm.size())), op.root, comm);
  }
}
template <class S, class R>
void infer(allgatherv_op, mpi::comm_view comm, S& s, R& r) {
  if constexpr (deferred_counts<R>) {
    int const n = static_cast<int>(detail::count_of(s));
    mpi::allgather(n, r.mpi_counts_to_fill(static_cast<std::size_t>(comm.size())), comm);
  }
}
template <class S, class R>
void infer(scatterv_op const& op, mpi::comm_view comm, S& s, R& r) {
  if constexpr (deferred_count<R>) {
    detail::small_vector<int> const counts = comm.rank() == op.root ? detail::int_counts(s) : detail::small_vector<int>{};
    int n = 0;
    mpi::scatter(counts, n, op.root, comm);
    r.mpi_set_count(n);
  }
}
template <class S, class R>
void infer(alltoallv_op, mpi::comm_view comm, S& s, R& r) {
  if constexpr (deferred_counts<R>)
    mpi::alltoall(detail::int_counts(s), r.mpi_counts_to_fill(static_cast<std::size_t>(comm.size())), comm);
}

}  // namespace anympi
