// Point-to-point wrappers of the layer. Each has one shape: hold the buffers (held_t: an
// lvalue borrowed, an rvalue owned), run infer() (anympi/infer.hpp), call the mpi:: core,
// return the receive buffer by value (a reference for an lvalue) with its status; a
// finishing_buffer (views::deserialize<T>() ...) hands back what it yields instead (the object).
//
//   auto [v, st] = anympi::recv(std::vector<int>{} | views::resize, src, tag, comm);
//
// recv of a buffer with a known count is the core's recv; of a deferred_count buffer
// (views::resize ...), MPI_Mprobe and then MPI_Mrecv of that very message.
#pragma once

#include <anympi/buffer.hpp>
#include <anympi/infer.hpp>
#include <anympi/iresult.hpp>

#include <type_traits>
#include <utility>

namespace anympi {

// What a receive returns: the buffer (B = result_t of the argument) and the message's status.
template <class B>
struct received {
  B buffer;
  mpi::status status;
};
// Forced inline as the core's calls are: a wrapper that stays out of line costs a call and
// the argument moves on top of the core's (bench/run's layer table).
template <mpi::send_buffer S, mpi::rank_like R, mpi::tag_like T, mpi::comm_handle C>
MPI_CXX_ALWAYS_INLINE void send(S&& buf, R const& dest, T const& tag, C const& comm) {
  mpi::send(buf, dest, tag, comm);
}

template <class B, mpi::rank_like R, mpi::tag_like T, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<B>&>
MPI_CXX_ALWAYS_INLINE received<result_t<B>> recv(B&& buf, R const& source, T const& tag, C const& comm) {
  received<held_t<B>> r{std::forward<B>(buf), mpi::detail::unreceived()};
  recv_op const op{mpi::to_rank(source), mpi::to_tag(tag)};
  mpi::comm_view const cv(mpi::handle(comm));
  if constexpr (std::is_void_v<decltype(infer(op, cv, r.buffer))>) {
    infer(op, cv, r.buffer);
    r.status = mpi::recv(r.buffer, source, tag, comm);
  } else {
    auto msg = infer(op, cv, r.buffer);
    r.status = mpi::mrecv(r.buffer, msg);
  }
  if constexpr (finishing_buffer<held_t<B>>)
    return received<result_t<B>>{anympi::finish(std::forward<held_t<B>>(r.buffer), true), r.status};
  else return r;
}

template <mpi::send_buffer S, mpi::rank_like RD, mpi::tag_like TS, class B, mpi::rank_like RS, mpi::tag_like TR,
          mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<B>&>
received<result_t<B>> sendrecv(S&& sbuf, RD const& dest, TS const& sendtag, B&& rbuf, RS const& source,
                             TR const& recvtag, C const& comm) {
  received<held_t<B>> r{std::forward<B>(rbuf), mpi::detail::unreceived()};
  sendrecv_op op{mpi::to_rank(dest), mpi::to_tag(sendtag), mpi::to_rank(source), mpi::to_tag(recvtag)};
  infer(op, mpi::comm_view(mpi::handle(comm)), sbuf, r.buffer);
  r.status = mpi::sendrecv(sbuf, op.dest, op.sendtag, r.buffer, op.source, op.recvtag, comm);
  if constexpr (finishing_buffer<held_t<B>>)
    return received<result_t<B>>{anympi::finish(std::forward<held_t<B>>(r.buffer), true), r.status};
  else return r;
}

// The other send modes, as send.
template <mpi::send_buffer S, mpi::rank_like R, mpi::tag_like T, mpi::comm_handle C>
MPI_CXX_ALWAYS_INLINE void bsend(S&& buf, R const& dest, T const& tag, C const& comm) {
  mpi::bsend(buf, dest, tag, comm);
}
template <mpi::send_buffer S, mpi::rank_like R, mpi::tag_like T, mpi::comm_handle C>
MPI_CXX_ALWAYS_INLINE void ssend(S&& buf, R const& dest, T const& tag, C const& comm) {
  mpi::ssend(buf, dest, tag, comm);
}
template <mpi::send_buffer S, mpi::rank_like R, mpi::tag_like T, mpi::comm_handle C>
MPI_CXX_ALWAYS_INLINE void rsend(S&& buf, R const& dest, T const& tag, C const& comm) {
  mpi::rsend(buf, dest, tag, comm);
}

// The buffer is sent and then received into: its count is the message's both ways.
template <class B, mpi::rank_like RD, mpi::tag_like TS, mpi::rank_like RS, mpi::tag_like TR, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<B>&>
received<result_t<B>> sendrecv_replace(B&& buf, RD const& dest, TS const& sendtag, RS const& source,
                                     TR const& recvtag, C const& comm) {
  received<held_t<B>> r{std::forward<B>(buf), mpi::detail::unreceived()};
  r.status = mpi::sendrecv_replace(r.buffer, dest, sendtag, source, recvtag, comm);
  if constexpr (finishing_buffer<held_t<B>>)
    return received<result_t<B>>{anympi::finish(std::forward<held_t<B>>(r.buffer), true), r.status};
  else return r;
}

// Nonblocking: wait() hands back an owned buffer (the sent one, for isend; what a
// finishing_buffer yields). A receive of a deferred_count buffer cannot probe here (that would
// block): it matches its message when it is first tested or waited for (anympi/iresult.hpp).
template <mpi::send_buffer S, mpi::rank_like R, mpi::tag_like T, mpi::comm_handle C>
[[nodiscard]] iresult<S> isend(S&& buf, R const& dest, T const& tag, C const& comm) {
  return iresult<S>(
      std::in_place, [&](auto& b) { return detail::started{mpi::isend(b, dest, tag, comm), false}; },
      std::forward<S>(buf));
}

template <class B, mpi::rank_like R, mpi::tag_like T, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<B>&> && (!deferred_count<B>)
[[nodiscard]] iresult<B> irecv(B&& buf, R const& source, T const& tag, C const& comm) {
  return iresult<B>(
      std::in_place, [&](auto& b) { return mpi::irecv(b, source, tag, comm); }, std::forward<B>(buf));
}

template <class B, mpi::rank_like R, mpi::tag_like T, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<B>&> && deferred_count<B>
[[nodiscard]] iresult<B, detail::match_later> irecv(B&& buf, R const& source, T const& tag, C const& comm) {
  return iresult<B, detail::match_later>(
      std::in_place, [](auto&, auto&) { return mpi::request{}; }, std::forward<B>(buf),
      detail::match_later{mpi::to_rank(source), mpi::to_tag(tag), mpi::handle(comm)});
}

template <mpi::send_buffer S, mpi::rank_like R, mpi::tag_like T, mpi::comm_handle C>
[[nodiscard]] iresult<S> ibsend(S&& buf, R const& dest, T const& tag, C const& comm) {
  return iresult<S>(
      std::in_place, [&](auto& b) { return detail::started{mpi::ibsend(b, dest, tag, comm), false}; },
      std::forward<S>(buf));
}
template <mpi::send_buffer S, mpi::rank_like R, mpi::tag_like T, mpi::comm_handle C>
[[nodiscard]] iresult<S> issend(S&& buf, R const& dest, T const& tag, C const& comm) {
  return iresult<S>(
      std::in_place, [&](auto& b) { return detail::started{mpi::issend(b, dest, tag, comm), false}; },
      std::forward<S>(buf));
}
template <mpi::send_buffer S, mpi::rank_like R, mpi::tag_like T, mpi::comm_handle C>
[[nodiscard]] iresult<S> irsend(S&& buf, R const& dest, T const& tag, C const& comm) {
  return iresult<S>(
      std::in_place, [&](auto& b) { return detail::started{mpi::irsend(b, dest, tag, comm), false}; },
      std::forward<S>(buf));
}

// MPI-4.0 (anympi provides it on every MPI over the standard ABI). A receive count left open is
// found as sendrecv finds it: the counts travel first, blocking, along the same route.
template <mpi::send_buffer S, mpi::rank_like RD, mpi::tag_like TS, class B, mpi::rank_like RS, mpi::tag_like TR,
          mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<B>&>
[[nodiscard]] iresult<B, S> isendrecv(S&& sbuf, RD const& dest, TS const& sendtag, B&& rbuf, RS const& source,
                                      TR const& recvtag, C const& comm) {
  return iresult<B, S>(
      std::in_place,
      [&](auto& r, auto& sb) {
        sendrecv_op op{mpi::to_rank(dest), mpi::to_tag(sendtag), mpi::to_rank(source), mpi::to_tag(recvtag)};
        infer(op, mpi::comm_view(mpi::handle(comm)), sb, r);
        return mpi::isendrecv(sb, op.dest, op.sendtag, r, op.source, op.recvtag, comm);
      },
      std::forward<B>(rbuf), std::forward<S>(sbuf));
}
template <class B, mpi::rank_like RD, mpi::tag_like TS, mpi::rank_like RS, mpi::tag_like TR, mpi::comm_handle C>
  requires mpi::recv_buffer<held_t<B>&>
[[nodiscard]] iresult<B> isendrecv_replace(B&& buf, RD const& dest, TS const& sendtag, RS const& source,
                                           TR const& recvtag, C const& comm) {
  return iresult<B>(
      std::in_place,
      [&](auto& b) { return mpi::isendrecv_replace(b, dest, sendtag, source, recvtag, comm); },
      std::forward<B>(buf));
}

}  // namespace anympi
