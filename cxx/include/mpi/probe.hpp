// Probing: probe / iprobe, matched probe mprobe / improbe, and mrecv / imrecv of a matched
// message (which consume it).
#pragma once

#include <mpi/buffer.hpp>
#include <mpi/communicator.hpp>
#include <mpi/large_count.hpp>
#include <mpi/message.hpp>
#include <mpi/rank_tag.hpp>
#include <mpi/request.hpp>
#include <mpi/status.hpp>

#include <optional>
#include <utility>

namespace mpi {

// Each call that yields a status fills `st` (an mpi::status, an MPI_Status or
// mpi::status_ignore) when given one, else returns it.
template <rank_like R, tag_like T, comm_handle C, detail::status_out St>
void probe(R const& source, T const& tag, C const& comm, St&& st) {
  MPI_CXX_CALL(MPI_Probe, mpi::to_rank(source), mpi::to_tag(tag), mpi::handle(comm), detail::status_ptr(st));
}
template <rank_like R, tag_like T, comm_handle C>
status probe(R const& source, T const& tag, C const& comm) {
  return detail::received([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { mpi::probe(source, tag, comm, st); });
}

// Whether a matching message is pending.
template <rank_like R, tag_like T, comm_handle C, detail::status_out St>
bool iprobe(R const& source, T const& tag, C const& comm, St&& st) {
  int flag = 0;
  MPI_CXX_CALL(MPI_Iprobe, mpi::to_rank(source), mpi::to_tag(tag), mpi::handle(comm), &flag, detail::status_ptr(st));
  return flag != 0;
}
template <rank_like R, tag_like T, comm_handle C>
std::optional<status> iprobe(R const& source, T const& tag, C const& comm) {
  return detail::returned_if(
      [&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { return mpi::iprobe(source, tag, comm, st); });
}

template <rank_like R, tag_like T, comm_handle C, detail::status_out St>
message mprobe(R const& source, T const& tag, C const& comm, St&& st) {
  message m;
  MPI_CXX_CALL(MPI_Mprobe, mpi::to_rank(source), mpi::to_tag(tag), mpi::handle(comm), m.mpi_handle_ptr(),
               detail::status_ptr(st));
  return m;
}
template <rank_like R, tag_like T, comm_handle C>
std::pair<message, status> mprobe(R const& source, T const& tag, C const& comm) {
  std::pair<message, status> r{message{}, detail::unreceived()};
  r.first = mpi::mprobe(source, tag, comm, r.second);
  return r;
}

// nullopt while no matching message is pending.
template <rank_like R, tag_like T, comm_handle C, detail::status_out St>
std::optional<message> improbe(R const& source, T const& tag, C const& comm, St&& st) {
  message m;
  int flag = 0;
  MPI_CXX_CALL(MPI_Improbe, mpi::to_rank(source), mpi::to_tag(tag), mpi::handle(comm), &flag, m.mpi_handle_ptr(),
               detail::status_ptr(st));
  if (!flag) return std::nullopt;
  return m;
}
template <rank_like R, tag_like T, comm_handle C>
std::optional<std::pair<message, status>> improbe(R const& source, T const& tag, C const& comm) {
  std::pair<message, status> r{message{}, detail::unreceived()};
  auto m = mpi::improbe(source, tag, comm, r.second);
  if (!m) return std::nullopt;
  r.first = std::move(*m);
  return r;
}

namespace detail {
inline constexpr auto mrecv_forms =
    forms{MPI_CXX_COUNTED_FN(MPI_Mrecv), MPI_CXX_COUNTED_FN(MPI_Imrecv), MPI_CXX_MISSING_FN(MPI_Mrecv_init)};

template <mode M, class B, class Msg>
auto mrecv(MPI_Status* st, B& buf, Msg& msg) {
  return invoke<M>(mrecv_forms, recv_tail{st}, mpi::ptr(buf), count_arg(buf, mrecv_forms.name<M>()), type_of(buf),
                   mpi::handle_ptr(msg));
}
}  // namespace detail

template <recv_buffer B, message_handle_ptr M, detail::status_out St>
void mrecv(B&& buf, M& msg, St&& st) {
  detail::mrecv<detail::mode::blocking>(detail::status_ptr(st), buf, msg);
}
template <recv_buffer B, message_handle_ptr M>
status mrecv(B&& buf, M& msg) {
  return detail::received([&](status& st) MPI_CXX_ALWAYS_INLINE_LAMBDA { mpi::mrecv(buf, msg, st); });
}
template <recv_buffer B, message_handle_ptr M>
  requires buffer_outlives_call<B>
[[nodiscard]] request imrecv(B&& buf, M& msg) {
  return detail::mrecv<detail::mode::nonblocking>(nullptr, buf, msg);
}

}  // namespace mpi
