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

template <rank_like R, tag_like T, comm_handle C>
status probe(R const& source, T const& tag, C const& comm) {
  status st;
  MPI_CXX_CALL(MPI_Probe, mpi::to_rank(source), mpi::to_tag(tag), mpi::handle(comm), st.mpi_status_ptr());
  return st;
}

template <rank_like R, tag_like T, comm_handle C>
std::optional<status> iprobe(R const& source, T const& tag, C const& comm) {
  status st;
  int flag = 0;
  MPI_CXX_CALL(MPI_Iprobe, mpi::to_rank(source), mpi::to_tag(tag), mpi::handle(comm), &flag,
               st.mpi_status_ptr());
  if (!flag) return std::nullopt;
  return st;
}

template <rank_like R, tag_like T, comm_handle C>
std::pair<message, status> mprobe(R const& source, T const& tag, C const& comm) {
  std::pair<message, status> r;
  MPI_CXX_CALL(MPI_Mprobe, mpi::to_rank(source), mpi::to_tag(tag), mpi::handle(comm),
               r.first.mpi_handle_ptr(), r.second.mpi_status_ptr());
  return r;
}

template <rank_like R, tag_like T, comm_handle C>
std::optional<std::pair<message, status>> improbe(R const& source, T const& tag, C const& comm) {
  std::pair<message, status> r;
  int flag = 0;
  MPI_CXX_CALL(MPI_Improbe, mpi::to_rank(source), mpi::to_tag(tag), mpi::handle(comm), &flag,
               r.first.mpi_handle_ptr(), r.second.mpi_status_ptr());
  if (!flag) return std::nullopt;
  return r;
}

template <recv_buffer B, message_handle_ptr M>
status mrecv(B&& buf, M& msg) {
  MPI_Count const n = detail::count_of(buf, "MPI_Mrecv");
  status st;
  MPI_CXX_CALL_COUNTED(detail::fits_int(n), MPI_Mrecv, mpi::ptr(buf), cnt_t(n), detail::type_of(buf),
                       mpi::handle_ptr(msg), st.mpi_status_ptr());
  return st;
}

template <recv_buffer B, message_handle_ptr M>
[[nodiscard]] request imrecv(B&& buf, M& msg) {
  MPI_Count const n = detail::count_of(buf, "MPI_Imrecv");
  request req;
  MPI_CXX_CALL_COUNTED(detail::fits_int(n), MPI_Imrecv, mpi::ptr(buf), cnt_t(n), detail::type_of(buf),
                       mpi::handle_ptr(msg), req.mpi_handle_ptr());
  return req;
}

}  // namespace mpi
