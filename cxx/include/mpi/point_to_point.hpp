// Point-to-point communication: blocking, nonblocking and persistent. Argument order
// mirrors the C bindings minus count and datatype, which come from the buffer.
#pragma once

#include <mpi/buffer.hpp>
#include <mpi/communicator.hpp>
#include <mpi/large_count.hpp>
#include <mpi/rank_tag.hpp>
#include <mpi/request.hpp>
#include <mpi/status.hpp>

#include <concepts>
#include <cstddef>
#include <span>
#include <utility>

namespace mpi {

namespace detail {

#if MPI_CXX_HAS_ISENDRECV
#define MPI_CXX_ISENDRECV_FN_(fn) MPI_CXX_COUNTED_FN(fn)
#else
#define MPI_CXX_ISENDRECV_FN_(fn) MPI_CXX_MISSING_FN(fn)
#endif

// The C bindings of each operation: blocking, nonblocking, persistent.
inline constexpr auto send_forms =
    forms{MPI_CXX_COUNTED_FN(MPI_Send), MPI_CXX_COUNTED_FN(MPI_Isend), MPI_CXX_COUNTED_FN(MPI_Send_init)};
inline constexpr auto bsend_forms =
    forms{MPI_CXX_COUNTED_FN(MPI_Bsend), MPI_CXX_COUNTED_FN(MPI_Ibsend), MPI_CXX_COUNTED_FN(MPI_Bsend_init)};
inline constexpr auto ssend_forms =
    forms{MPI_CXX_COUNTED_FN(MPI_Ssend), MPI_CXX_COUNTED_FN(MPI_Issend), MPI_CXX_COUNTED_FN(MPI_Ssend_init)};
inline constexpr auto rsend_forms =
    forms{MPI_CXX_COUNTED_FN(MPI_Rsend), MPI_CXX_COUNTED_FN(MPI_Irsend), MPI_CXX_COUNTED_FN(MPI_Rsend_init)};
inline constexpr auto recv_forms =
    forms{MPI_CXX_COUNTED_FN(MPI_Recv), MPI_CXX_COUNTED_FN(MPI_Irecv), MPI_CXX_COUNTED_FN(MPI_Recv_init)};
// MPI has no persistent sendrecv: that slot is never called.
inline constexpr auto sendrecv_forms = forms{MPI_CXX_COUNTED_FN(MPI_Sendrecv), MPI_CXX_ISENDRECV_FN_(MPI_Isendrecv),
                                             MPI_CXX_MISSING_FN(MPI_Sendrecv_init)};
inline constexpr auto sendrecv_replace_forms =
    forms{MPI_CXX_COUNTED_FN(MPI_Sendrecv_replace), MPI_CXX_ISENDRECV_FN_(MPI_Isendrecv_replace),
          MPI_CXX_MISSING_FN(MPI_Sendrecv_replace_init)};
#undef MPI_CXX_ISENDRECV_FN_

// send, bsend, ssend, rsend, recv in every form: (buf, count, datatype, peer, tag, comm).
template <mode M, class F, class T, class B, class R, class G, class C>
MPI_CXX_ALWAYS_INLINE auto p2p(F const& f, T const& trailing, B& buf, R const& peer, G const& tag, C const& comm) {
  return invoke<M>(f, trailing, mpi::ptr(buf), count_arg(buf, f.template name<M>()), type_of(buf), mpi::to_rank(peer),
                   mpi::to_tag(tag), mpi::handle(comm));
}

template <mode M, class S, class RD, class TS, class B, class RS, class TR, class C>
auto sendrecv(MPI_Status* st, S& sbuf, RD const& dest, TS const& sendtag, B& rbuf, RS const& source,
              TR const& recvtag, C const& comm) {
  char const* fn = sendrecv_forms.name<M>();
  return invoke<M>(sendrecv_forms, recv_tail{st}, mpi::ptr(sbuf), count_arg(sbuf, fn), type_of(sbuf),
                   mpi::to_rank(dest), mpi::to_tag(sendtag), mpi::ptr(rbuf), count_arg(rbuf, fn), type_of(rbuf),
                   mpi::to_rank(source), mpi::to_tag(recvtag), mpi::handle(comm));
}

template <mode M, class B, class RD, class TS, class RS, class TR, class C>
auto sendrecv_replace(MPI_Status* st, B& buf, RD const& dest, TS const& sendtag, RS const& source, TR const& recvtag,
                      C const& comm) {
  char const* fn = sendrecv_replace_forms.name<M>();
  return invoke<M>(sendrecv_replace_forms, recv_tail{st}, mpi::ptr(buf), count_arg(buf, fn), type_of(buf),
                   mpi::to_rank(dest), mpi::to_tag(sendtag), mpi::to_rank(source), mpi::to_tag(recvtag),
                   mpi::handle(comm));
}

}  // namespace detail

// send / isend / send_init, and the same for bsend, ssend, rsend. The *_init forms create an
// inactive persistent request: start it with mpi::start / mpi::start_all (or
// request.start()) and complete it with wait/test, as often as wanted. The nonblocking and
// persistent forms take no temporary buffer (buffer_outlives_call, buffer.hpp).
template <send_buffer S, rank_like R, tag_like T, comm_handle C>
MPI_CXX_ALWAYS_INLINE void send(S&& buf, R const& dest, T const& tag, C const& comm) {
  detail::p2p<detail::mode::blocking>(detail::send_forms, detail::send_tail{}, buf, dest, tag, comm);
}
template <send_buffer S, rank_like R, tag_like T, comm_handle C>
  requires buffer_outlives_call<S>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request isend(S&& buf, R const& dest, T const& tag, C const& comm) {
  return detail::p2p<detail::mode::nonblocking>(detail::send_forms, detail::send_tail{}, buf, dest, tag, comm);
}
template <send_buffer S, rank_like R, tag_like T, comm_handle C>
  requires buffer_outlives_call<S>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request send_init(S&& buf, R const& dest, T const& tag, C const& comm) {
  return detail::p2p<detail::mode::persistent>(detail::send_forms, detail::send_tail{}, buf, dest, tag, comm);
}

template <send_buffer S, rank_like R, tag_like T, comm_handle C>
MPI_CXX_ALWAYS_INLINE void bsend(S&& buf, R const& dest, T const& tag, C const& comm) {
  detail::p2p<detail::mode::blocking>(detail::bsend_forms, detail::send_tail{}, buf, dest, tag, comm);
}
template <send_buffer S, rank_like R, tag_like T, comm_handle C>
  requires buffer_outlives_call<S>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request ibsend(S&& buf, R const& dest, T const& tag, C const& comm) {
  return detail::p2p<detail::mode::nonblocking>(detail::bsend_forms, detail::send_tail{}, buf, dest, tag, comm);
}
template <send_buffer S, rank_like R, tag_like T, comm_handle C>
  requires buffer_outlives_call<S>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request bsend_init(S&& buf, R const& dest, T const& tag, C const& comm) {
  return detail::p2p<detail::mode::persistent>(detail::bsend_forms, detail::send_tail{}, buf, dest, tag, comm);
}

template <send_buffer S, rank_like R, tag_like T, comm_handle C>
MPI_CXX_ALWAYS_INLINE void ssend(S&& buf, R const& dest, T const& tag, C const& comm) {
  detail::p2p<detail::mode::blocking>(detail::ssend_forms, detail::send_tail{}, buf, dest, tag, comm);
}
template <send_buffer S, rank_like R, tag_like T, comm_handle C>
  requires buffer_outlives_call<S>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request issend(S&& buf, R const& dest, T const& tag, C const& comm) {
  return detail::p2p<detail::mode::nonblocking>(detail::ssend_forms, detail::send_tail{}, buf, dest, tag, comm);
}
template <send_buffer S, rank_like R, tag_like T, comm_handle C>
  requires buffer_outlives_call<S>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request ssend_init(S&& buf, R const& dest, T const& tag, C const& comm) {
  return detail::p2p<detail::mode::persistent>(detail::ssend_forms, detail::send_tail{}, buf, dest, tag, comm);
}

template <send_buffer S, rank_like R, tag_like T, comm_handle C>
MPI_CXX_ALWAYS_INLINE void rsend(S&& buf, R const& dest, T const& tag, C const& comm) {
  detail::p2p<detail::mode::blocking>(detail::rsend_forms, detail::send_tail{}, buf, dest, tag, comm);
}
template <send_buffer S, rank_like R, tag_like T, comm_handle C>
  requires buffer_outlives_call<S>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request irsend(S&& buf, R const& dest, T const& tag, C const& comm) {
  return detail::p2p<detail::mode::nonblocking>(detail::rsend_forms, detail::send_tail{}, buf, dest, tag, comm);
}
template <send_buffer S, rank_like R, tag_like T, comm_handle C>
  requires buffer_outlives_call<S>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request rsend_init(S&& buf, R const& dest, T const& tag, C const& comm) {
  return detail::p2p<detail::mode::persistent>(detail::rsend_forms, detail::send_tail{}, buf, dest, tag, comm);
}

// recv fills `st` (an mpi::status, an MPI_Status or mpi::status_ignore), or returns the status.
template <recv_buffer B, rank_like R, tag_like T, comm_handle C, detail::status_out St>
MPI_CXX_ALWAYS_INLINE void recv(B&& buf, R const& source, T const& tag, C const& comm, St&& st) {
  detail::p2p<detail::mode::blocking>(detail::recv_forms, detail::recv_tail{detail::status_ptr(st)}, buf, source,
                                      tag, comm);
}
template <recv_buffer B, rank_like R, tag_like T, comm_handle C>
MPI_CXX_ALWAYS_INLINE status recv(B&& buf, R const& source, T const& tag, C const& comm) {
  return detail::received([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { mpi::recv(buf, source, tag, comm, st); });
}
template <recv_buffer B, rank_like R, tag_like T, comm_handle C>
  requires buffer_outlives_call<B>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request irecv(B&& buf, R const& source, T const& tag, C const& comm) {
  return detail::p2p<detail::mode::nonblocking>(detail::recv_forms, detail::recv_tail{}, buf, source, tag, comm);
}
template <recv_buffer B, rank_like R, tag_like T, comm_handle C>
  requires buffer_outlives_call<B>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request recv_init(B&& buf, R const& source, T const& tag, C const& comm) {
  return detail::p2p<detail::mode::persistent>(detail::recv_forms, detail::recv_tail{}, buf, source, tag, comm);
}

// The paper's defaults: tag 0 on MPI_COMM_WORLD.
template <send_buffer S, rank_like R>
MPI_CXX_ALWAYS_INLINE void send(S&& buf, R const& dest) {
  mpi::send(std::forward<S>(buf), dest, 0, comm_world());
}
template <recv_buffer B, rank_like R>
MPI_CXX_ALWAYS_INLINE status recv(B&& buf, R const& source) {
  return mpi::recv(std::forward<B>(buf), source, 0, comm_world());
}

template <send_buffer S, rank_like RD, tag_like TS, recv_buffer B, rank_like RS, tag_like TR, comm_handle C,
          detail::status_out St>
MPI_CXX_ALWAYS_INLINE void sendrecv(S&& sbuf, RD const& dest, TS const& sendtag, B&& rbuf, RS const& source,
                                    TR const& recvtag,
              C const& comm, St&& st) {
  detail::sendrecv<detail::mode::blocking>(detail::status_ptr(st), sbuf, dest, sendtag, rbuf, source, recvtag, comm);
}
template <send_buffer S, rank_like RD, tag_like TS, recv_buffer B, rank_like RS, tag_like TR, comm_handle C>
MPI_CXX_ALWAYS_INLINE status sendrecv(S&& sbuf, RD const& dest, TS const& sendtag, B&& rbuf, RS const& source,
                                      TR const& recvtag,
                C const& comm) {
  return detail::received([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA {
    mpi::sendrecv(sbuf, dest, sendtag, rbuf, source, recvtag, comm, st);
  });
}
// MPI-4.0; MPI_ERR_UNSUPPORTED_OPERATION on an older MPI.
template <send_buffer S, rank_like RD, tag_like TS, recv_buffer B, rank_like RS, tag_like TR, comm_handle C>
  requires buffer_outlives_call<S> && buffer_outlives_call<B>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request isendrecv(S&& sbuf, RD const& dest, TS const& sendtag, B&& rbuf,
                                                      RS const& source,
                                TR const& recvtag, C const& comm) {
  return detail::sendrecv<detail::mode::nonblocking>(nullptr, sbuf, dest, sendtag, rbuf, source, recvtag, comm);
}

template <recv_buffer B, rank_like RD, tag_like TS, rank_like RS, tag_like TR, comm_handle C, detail::status_out St>
MPI_CXX_ALWAYS_INLINE void sendrecv_replace(B&& buf, RD const& dest, TS const& sendtag, RS const& source,
                                            TR const& recvtag, C const& comm,
                      St&& st) {
  detail::sendrecv_replace<detail::mode::blocking>(detail::status_ptr(st), buf, dest, sendtag, source, recvtag, comm);
}
template <recv_buffer B, rank_like RD, tag_like TS, rank_like RS, tag_like TR, comm_handle C>
MPI_CXX_ALWAYS_INLINE status sendrecv_replace(B&& buf, RD const& dest, TS const& sendtag, RS const& source,
                                              TR const& recvtag,
                        C const& comm) {
  return detail::received([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA {
    mpi::sendrecv_replace(buf, dest, sendtag, source, recvtag, comm, st);
  });
}
// MPI-4.0; MPI_ERR_UNSUPPORTED_OPERATION on an older MPI.
template <recv_buffer B, rank_like RD, tag_like TS, rank_like RS, tag_like TR, comm_handle C>
  requires buffer_outlives_call<B>
[[nodiscard]] MPI_CXX_ALWAYS_INLINE request isendrecv_replace(B&& buf, RD const& dest, TS const& sendtag,
                                                              RS const& source,
                                        TR const& recvtag, C const& comm) {
  return detail::sendrecv_replace<detail::mode::nonblocking>(nullptr, buf, dest, sendtag, source, recvtag, comm);
}

namespace detail {
template <class B>
concept byte_like = std::same_as<B, std::byte> || std::same_as<B, char> || std::same_as<B, unsigned char>;
// Storage bsend may copy messages into: contiguous bytes that outlive the call (an lvalue or a
// view; a temporary container would be freed while attached).
template <class R>
concept attachable_bytes = contiguous_sized<R&> && std::ranges::borrowed_range<R> && byte_like<range_element_t<R&>>;
}  // namespace detail

// The buffer bsend copies messages into; it must stay valid until detached. Both are templates
// so that std::span<std::byte> and its constructors are compiled only where they are called:
// in every translation unit that includes this header they cost a fortieth of compiling
// bench/compile_tu.cpp.
template <class R>
  requires detail::attachable_bytes<R>
void buffer_attach(R&& bytes) {
  MPI_CXX_CALL(MPI_Buffer_attach, detail::data_of(bytes), detail::range_size(bytes, "MPI_Buffer_attach"));
}
// Blocks until all buffered messages are delivered; returns the detached buffer.
template <detail::byte_like Byte = std::byte>
std::span<Byte> buffer_detach() {
  void* p = nullptr;
  int n = 0;
  MPI_CXX_CALL(MPI_Buffer_detach, &p, &n);
  return {static_cast<Byte*>(p), static_cast<std::size_t>(n)};
}
// Bytes MPI needs in the attached buffer for one bsend of `count` elements of `type`.
template <datatype_handle D>
int bsend_overhead(int count, D const& type, comm_view comm = comm_world()) {
  int n = 0;
  MPI_CXX_CALL(MPI_Pack_size, count, mpi::handle(type), comm.native(), &n);
  return n + MPI_BSEND_OVERHEAD;
}

}  // namespace mpi
