// Point-to-point communication, blocking and nonblocking. Argument order mirrors the C
// bindings minus count and datatype, which come from the buffer.
#pragma once

#include <mpi/buffer.hpp>
#include <mpi/communicator.hpp>
#include <mpi/large_count.hpp>
#include <mpi/rank_tag.hpp>
#include <mpi/request.hpp>
#include <mpi/status.hpp>

#include <cstddef>
#include <span>

namespace mpi {

#define MPI_CXX_SEND_(name, fn)                                                                   \
  template <send_buffer S, rank_like R, tag_like T, comm_handle C>                                \
  void name(S&& buf, R const& dest, T const& tag, C const& comm) {                               \
    MPI_Count const n = detail::count_of(buf, #fn);                                               \
    MPI_CXX_CALL_COUNTED(detail::fits_int(n), fn, mpi::ptr(buf), cnt_t(n), detail::type_of(buf), \
                         mpi::to_rank(dest), mpi::to_tag(tag), mpi::handle(comm));                \
  }
MPI_CXX_SEND_(send, MPI_Send)
MPI_CXX_SEND_(bsend, MPI_Bsend)
MPI_CXX_SEND_(ssend, MPI_Ssend)
MPI_CXX_SEND_(rsend, MPI_Rsend)
#undef MPI_CXX_SEND_

#define MPI_CXX_ISEND_(name, fn)                                                                  \
  template <send_buffer S, rank_like R, tag_like T, comm_handle C>                                \
  [[nodiscard]] request name(S&& buf, R const& dest, T const& tag, C const& comm) {              \
    MPI_Count const n = detail::count_of(buf, #fn);                                               \
    request req;                                                                                  \
    MPI_CXX_CALL_COUNTED(detail::fits_int(n), fn, mpi::ptr(buf), cnt_t(n), detail::type_of(buf), \
                         mpi::to_rank(dest), mpi::to_tag(tag), mpi::handle(comm),                 \
                         req.mpi_handle_ptr());                                                   \
    return req;                                                                                   \
  }
MPI_CXX_ISEND_(isend, MPI_Isend)
MPI_CXX_ISEND_(ibsend, MPI_Ibsend)
MPI_CXX_ISEND_(issend, MPI_Issend)
MPI_CXX_ISEND_(irsend, MPI_Irsend)
#undef MPI_CXX_ISEND_

template <recv_buffer B, rank_like R, tag_like T, comm_handle C>
status recv(B&& buf, R const& source, T const& tag, C const& comm) {
  MPI_Count const n = detail::count_of(buf, "MPI_Recv");
  status st;
  MPI_CXX_CALL_COUNTED(detail::fits_int(n), MPI_Recv, mpi::ptr(buf), cnt_t(n), detail::type_of(buf),
                       mpi::to_rank(source), mpi::to_tag(tag), mpi::handle(comm), st.mpi_status_ptr());
  return st;
}

template <recv_buffer B, rank_like R, tag_like T, comm_handle C>
[[nodiscard]] request irecv(B&& buf, R const& source, T const& tag, C const& comm) {
  MPI_Count const n = detail::count_of(buf, "MPI_Irecv");
  request req;
  MPI_CXX_CALL_COUNTED(detail::fits_int(n), MPI_Irecv, mpi::ptr(buf), cnt_t(n), detail::type_of(buf),
                       mpi::to_rank(source), mpi::to_tag(tag), mpi::handle(comm), req.mpi_handle_ptr());
  return req;
}

template <send_buffer S, rank_like RD, tag_like TS, recv_buffer B, rank_like RS, tag_like TR, comm_handle C>
status sendrecv(S&& sbuf, RD const& dest, TS const& sendtag, B&& rbuf, RS const& source, TR const& recvtag,
                C const& comm) {
  MPI_Count const ns = detail::count_of(sbuf, "MPI_Sendrecv");
  MPI_Count const nr = detail::count_of(rbuf, "MPI_Sendrecv");
  status st;
  MPI_CXX_CALL_COUNTED(detail::all_fit_int(ns, nr), MPI_Sendrecv, mpi::ptr(sbuf), cnt_t(ns),
                       detail::type_of(sbuf), mpi::to_rank(dest), mpi::to_tag(sendtag), mpi::ptr(rbuf),
                       cnt_t(nr), detail::type_of(rbuf), mpi::to_rank(source), mpi::to_tag(recvtag),
                       mpi::handle(comm), st.mpi_status_ptr());
  return st;
}

template <recv_buffer B, rank_like RD, tag_like TS, rank_like RS, tag_like TR, comm_handle C>
status sendrecv_replace(B&& buf, RD const& dest, TS const& sendtag, RS const& source, TR const& recvtag,
                        C const& comm) {
  MPI_Count const n = detail::count_of(buf, "MPI_Sendrecv_replace");
  status st;
  MPI_CXX_CALL_COUNTED(detail::fits_int(n), MPI_Sendrecv_replace, mpi::ptr(buf), cnt_t(n),
                       detail::type_of(buf), mpi::to_rank(dest), mpi::to_tag(sendtag), mpi::to_rank(source),
                       mpi::to_tag(recvtag), mpi::handle(comm), st.mpi_status_ptr());
  return st;
}

// MPI-4.0; MPI_ERR_UNSUPPORTED_OPERATION on an older MPI.
template <send_buffer S, rank_like RD, tag_like TS, recv_buffer B, rank_like RS, tag_like TR, comm_handle C>
[[nodiscard]] request isendrecv(S&& sbuf, RD const& dest, TS const& sendtag, B&& rbuf, RS const& source,
                                TR const& recvtag, C const& comm) {
#if MPI_CXX_HAS_ISENDRECV
  MPI_Count const ns = detail::count_of(sbuf, "MPI_Isendrecv");
  MPI_Count const nr = detail::count_of(rbuf, "MPI_Isendrecv");
  request req;
  MPI_CXX_CALL_COUNTED(detail::all_fit_int(ns, nr), MPI_Isendrecv, mpi::ptr(sbuf), cnt_t(ns),
                       detail::type_of(sbuf), mpi::to_rank(dest), mpi::to_tag(sendtag), mpi::ptr(rbuf),
                       cnt_t(nr), detail::type_of(rbuf), mpi::to_rank(source), mpi::to_tag(recvtag),
                       mpi::handle(comm), req.mpi_handle_ptr());
  return req;
#else
  (void)sbuf, (void)dest, (void)sendtag, (void)rbuf, (void)source, (void)recvtag, (void)comm;
  detail::unsupported("MPI_Isendrecv");
#endif
}

template <recv_buffer B, rank_like RD, tag_like TS, rank_like RS, tag_like TR, comm_handle C>
[[nodiscard]] request isendrecv_replace(B&& buf, RD const& dest, TS const& sendtag, RS const& source,
                                        TR const& recvtag, C const& comm) {
#if MPI_CXX_HAS_ISENDRECV
  MPI_Count const n = detail::count_of(buf, "MPI_Isendrecv_replace");
  request req;
  MPI_CXX_CALL_COUNTED(detail::fits_int(n), MPI_Isendrecv_replace, mpi::ptr(buf), cnt_t(n),
                       detail::type_of(buf), mpi::to_rank(dest), mpi::to_tag(sendtag), mpi::to_rank(source),
                       mpi::to_tag(recvtag), mpi::handle(comm), req.mpi_handle_ptr());
  return req;
#else
  (void)buf, (void)dest, (void)sendtag, (void)source, (void)recvtag, (void)comm;
  detail::unsupported("MPI_Isendrecv_replace");
#endif
}

// The buffer used by bsend; it must stay valid until detached.
inline void buffer_attach(std::span<std::byte> b) {
  MPI_CXX_CALL(MPI_Buffer_attach, b.data(), detail::checked_int(b.size(), MPI_ERR_COUNT, "MPI_Buffer_attach"));
}
// Blocks until all buffered messages are delivered; returns the detached buffer.
inline std::span<std::byte> buffer_detach() {
  void* p = nullptr;
  int n = 0;
  MPI_CXX_CALL(MPI_Buffer_detach, &p, &n);
  return {static_cast<std::byte*>(p), static_cast<std::size_t>(n)};
}
// Bytes MPI needs in the attached buffer for one bsend of `count` elements of `type`.
template <datatype_handle D>
int bsend_overhead(int count, D const& type, comm_view comm = comm_world()) {
  int n = 0;
  MPI_CXX_CALL(MPI_Pack_size, count, mpi::handle(type), comm.native(), &n);
  return n + MPI_BSEND_OVERHEAD;
}

}  // namespace mpi
