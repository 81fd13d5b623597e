// Matched messages (MPI_Mprobe / MPI_Improbe), consumed by mrecv / imrecv.
#pragma once

#include <mpi/object.hpp>

namespace mpi {

namespace detail {
struct message_kind {
  using native_type = MPI_Message;
  static MPI_Message null() noexcept { return MPI_MESSAGE_NULL; }
  // A matched message is not freed: MPI only lets it be received. MPI_MESSAGE_NO_PROC
  // (from a probe of MPI_PROC_NULL) is not an object at all.
  static bool is_predefined(MPI_Message) noexcept { return true; }
  static int free(MPI_Message*) noexcept { return MPI_SUCCESS; }
  static constexpr char const* free_name = "mpi::message";
};
}  // namespace detail

class message_view : public detail::view_base<detail::message_kind> {
public:
  using view_base::view_base;
};

// Move-only: a matched message can be received exactly once.
class message : public detail::owner_base<detail::message_kind, message, message_view> {
public:
  message() noexcept = default;
};

}  // namespace mpi
