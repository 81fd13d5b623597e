// Persistent point-to-point requests: *_init creates an inactive request; start it with
// mpi::start / mpi::start_all (or request.start()) and complete it with wait/test, as
// often as wanted.
#pragma once

#include <mpi/buffer.hpp>
#include <mpi/communicator.hpp>
#include <mpi/large_count.hpp>
#include <mpi/rank_tag.hpp>
#include <mpi/request.hpp>

namespace mpi {

#define MPI_CXX_SEND_INIT_(name, fn)                                                              \
  template <send_buffer S, rank_like R, tag_like T, comm_handle C>                                \
  [[nodiscard]] request name(S&& buf, R const& dest, T const& tag, C const& comm) {              \
    MPI_Count const n = detail::count_of(buf, #fn);                                               \
    request req;                                                                                  \
    MPI_CXX_CALL_COUNTED(detail::fits_int(n), fn, mpi::ptr(buf), cnt_t(n), detail::type_of(buf), \
                         mpi::to_rank(dest), mpi::to_tag(tag), mpi::handle(comm),                 \
                         req.mpi_handle_ptr());                                                   \
    return req;                                                                                   \
  }
MPI_CXX_SEND_INIT_(send_init, MPI_Send_init)
MPI_CXX_SEND_INIT_(bsend_init, MPI_Bsend_init)
MPI_CXX_SEND_INIT_(ssend_init, MPI_Ssend_init)
MPI_CXX_SEND_INIT_(rsend_init, MPI_Rsend_init)
#undef MPI_CXX_SEND_INIT_

template <recv_buffer B, rank_like R, tag_like T, comm_handle C>
[[nodiscard]] request recv_init(B&& buf, R const& source, T const& tag, C const& comm) {
  MPI_Count const n = detail::count_of(buf, "MPI_Recv_init");
  request req;
  MPI_CXX_CALL_COUNTED(detail::fits_int(n), MPI_Recv_init, mpi::ptr(buf), cnt_t(n), detail::type_of(buf),
                       mpi::to_rank(source), mpi::to_tag(tag), mpi::handle(comm), req.mpi_handle_ptr());
  return req;
}

}  // namespace mpi
