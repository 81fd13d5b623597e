// The handle model: how anything that stands for an MPI object becomes its native handle.
//
// mpi::handle(x) and mpi::handle_ptr(x) dispatch in three levels, like the buffer accessors:
//   1. a mpi::handle_traits<T> specialization (non-intrusive, for types you do not own),
//   2. a member x.mpi_handle() / x.mpi_handle_ptr() (the core's views and owners use this),
//   3. a native handle, passed through unchanged (handle_ptr: its address).
// Nothing here assumes how a handle is represented: under native MPICH every handle type is
// `int`, under Open MPI and the standard ABI a pointer to an incomplete struct.
#pragma once

#include <mpi/config.hpp>

#include <concepts>
#include <type_traits>

namespace mpi {

template <class T>
struct handle_traits {};

namespace detail {

template <class T>
using uncvref_t = std::remove_cvref_t<T>;

template <class T>
concept native_handle =
    std::same_as<T, MPI_Comm> || std::same_as<T, MPI_Group> || std::same_as<T, MPI_Datatype> ||
    std::same_as<T, MPI_Op> || std::same_as<T, MPI_Request> || std::same_as<T, MPI_Info> ||
    std::same_as<T, MPI_Errhandler> || std::same_as<T, MPI_Message> || std::same_as<T, MPI_Win> ||
    std::same_as<T, MPI_File>
#if MPI_CXX_HAS_SESSIONS
    || std::same_as<T, MPI_Session>
#endif
    ;

template <class T>
concept trait_handle = requires(T const& t) { handle_traits<uncvref_t<T>>::handle(t); };
template <class T>
concept member_handle = requires(T const& t) { t.mpi_handle(); };
template <class T>
concept trait_handle_ptr = requires(T& t) { handle_traits<uncvref_t<T>>::handle_ptr(t); };
template <class T>
concept member_handle_ptr = requires(T& t) { t.mpi_handle_ptr(); };

struct handle_fn {
  template <class T>
    requires trait_handle<T> || member_handle<T> || native_handle<uncvref_t<T>>
  constexpr auto operator()(T const& t) const {
    if constexpr (trait_handle<T>) return handle_traits<uncvref_t<T>>::handle(t);
    else if constexpr (member_handle<T>) return t.mpi_handle();
    else return t;
  }
};

struct handle_ptr_fn {
  template <class T>
    requires trait_handle_ptr<T> || member_handle_ptr<T> ||
             (native_handle<uncvref_t<T>> && !std::is_const_v<T>)
  constexpr auto operator()(T& t) const {
    if constexpr (trait_handle_ptr<T>) return handle_traits<uncvref_t<T>>::handle_ptr(t);
    else if constexpr (member_handle_ptr<T>) return t.mpi_handle_ptr();
    else return &t;
  }
};

}  // namespace detail

inline constexpr detail::handle_fn handle{};
inline constexpr detail::handle_ptr_fn handle_ptr{};

template <class T, class H>
concept convertible_to_mpi_handle = requires(T const& t) {
  { mpi::handle(t) } -> std::convertible_to<H>;
};

template <class T, class H>
concept convertible_to_mpi_handle_ptr = requires(T& t) {
  { mpi::handle_ptr(t) } -> std::convertible_to<H*>;
};

namespace detail {

// Kinds tag the core's own handle types so that, e.g., a group_view is rejected where a
// communicator is expected even where both native handles are the same C type (MPICH: int).
struct comm_kind;
struct group_kind;
struct datatype_kind;
struct op_kind;
struct request_kind;
struct info_kind;
struct errhandler_kind;
struct message_kind;
struct session_kind;
struct win_kind;
struct file_kind;

template <class T>
struct handle_kind_of {
  using type = void;
};
template <class T>
  requires requires { typename T::mpi_handle_kind; }
struct handle_kind_of<T> {
  using type = typename T::mpi_handle_kind;
};

template <class T, class Kind>
concept kind_allows = std::is_void_v<typename handle_kind_of<uncvref_t<T>>::type> ||
                      std::same_as<typename handle_kind_of<uncvref_t<T>>::type, Kind>;

}  // namespace detail

// What each argument of the core functions accepts: native handles, the core's views and
// owners of that kind, and any user type mpi::handle() can convert.
template <class T>
concept comm_handle = convertible_to_mpi_handle<T, MPI_Comm> && detail::kind_allows<T, detail::comm_kind>;
template <class T>
concept group_handle = convertible_to_mpi_handle<T, MPI_Group> && detail::kind_allows<T, detail::group_kind>;
template <class T>
concept datatype_handle =
    convertible_to_mpi_handle<T, MPI_Datatype> && detail::kind_allows<T, detail::datatype_kind>;
template <class T>
concept op_handle = convertible_to_mpi_handle<T, MPI_Op> && detail::kind_allows<T, detail::op_kind>;
template <class T>
concept info_handle = convertible_to_mpi_handle<T, MPI_Info> && detail::kind_allows<T, detail::info_kind>;
template <class T>
concept errhandler_handle =
    convertible_to_mpi_handle<T, MPI_Errhandler> && detail::kind_allows<T, detail::errhandler_kind>;
template <class T>
concept win_handle = convertible_to_mpi_handle<T, MPI_Win> && detail::kind_allows<T, detail::win_kind>;
template <class T>
concept file_handle = convertible_to_mpi_handle<T, MPI_File> && detail::kind_allows<T, detail::file_kind>;
template <class T>
concept request_handle_ptr =
    convertible_to_mpi_handle_ptr<T, MPI_Request> && detail::kind_allows<T, detail::request_kind>;
template <class T>
concept message_handle_ptr =
    convertible_to_mpi_handle_ptr<T, MPI_Message> && detail::kind_allows<T, detail::message_kind>;
#if MPI_CXX_HAS_SESSIONS
template <class T>
concept session_handle =
    convertible_to_mpi_handle<T, MPI_Session> && detail::kind_allows<T, detail::session_kind>;
#endif

// The absent info argument (MPI_INFO_NULL), the default of the calls that take one: a tag
// rather than an mpi::info_view, so that their headers need nothing of what reading an info
// needs (info.hpp, <string>).
struct info_null_t {
  MPI_Info mpi_handle() const noexcept { return MPI_INFO_NULL; }
  using mpi_handle_kind = detail::info_kind;
};

namespace detail {
template <class T>
auto native(T const& t) {
  return mpi::handle(t);
}
}  // namespace detail

}  // namespace mpi
