// Error handlers. mpi::errors_return / errors_are_fatal / errors_abort name the predefined
// handlers without using their (non-constant) handle values in constant expressions.
#pragma once

#include <mpi/object.hpp>

namespace mpi {

namespace detail {
struct errhandler_kind {
  using native_type = MPI_Errhandler;
  static MPI_Errhandler null() noexcept { return MPI_ERRHANDLER_NULL; }
  static bool is_predefined(MPI_Errhandler h) noexcept {
    return h == MPI_ERRORS_RETURN || h == MPI_ERRORS_ARE_FATAL
#if MPI_VERSION >= 4
           || h == MPI_ERRORS_ABORT
#endif
        ;
  }
  static int free(MPI_Errhandler* h) noexcept { return MPI_Errhandler_free(h); }
  static constexpr char const* free_name = "MPI_Errhandler_free";
};
}  // namespace detail

class errhandler_view : public detail::view_base<detail::errhandler_kind> {
public:
  using view_base::view_base;
};

class errhandler : public detail::owner_base<detail::errhandler_kind, errhandler, errhandler_view> {
public:
  errhandler() noexcept = default;
  // A communicator error handler from a C callback.
  static errhandler create_for_comm(MPI_Comm_errhandler_function* fn) {
    MPI_Errhandler h;
    MPI_CXX_CALL(MPI_Comm_create_errhandler, fn, &h);
    return from_native(h);
  }
  // A window error handler from a C callback (one_sided.hpp: win::set_errhandler).
  static errhandler create_for_win(MPI_Win_errhandler_function* fn) {
    MPI_Errhandler h;
    MPI_CXX_CALL(MPI_Win_create_errhandler, fn, &h);
    return from_native(h);
  }
  // A file error handler from a C callback (file.hpp: file::set_errhandler).
  static errhandler create_for_file(MPI_File_errhandler_function* fn) {
    MPI_Errhandler h;
    MPI_CXX_CALL(MPI_File_create_errhandler, fn, &h);
    return from_native(h);
  }
#if MPI_CXX_HAS_SESSIONS
  static errhandler create_for_session(MPI_Session_errhandler_function* fn) {
    MPI_Errhandler h;
    MPI_CXX_CALL(MPI_Session_create_errhandler, fn, &h);
    return from_native(h);
  }
#endif
};

struct errors_return_t {
  MPI_Errhandler mpi_handle() const noexcept { return MPI_ERRORS_RETURN; }
  using mpi_handle_kind = detail::errhandler_kind;
};
struct errors_are_fatal_t {
  MPI_Errhandler mpi_handle() const noexcept { return MPI_ERRORS_ARE_FATAL; }
  using mpi_handle_kind = detail::errhandler_kind;
};
// Errors are returned as codes and thrown as mpi::mpi_error by the core.
inline constexpr errors_return_t errors_return{};
inline constexpr errors_are_fatal_t errors_are_fatal{};

}  // namespace mpi
