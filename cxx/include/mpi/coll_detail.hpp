// Shared machinery of the collective families (blocking, nonblocking, persistent).
#pragma once

#include <mpi/buffer.hpp>
#include <mpi/communicator.hpp>
#include <mpi/large_count.hpp>
#include <mpi/op.hpp>
#include <mpi/request.hpp>

#include <ranges>
#include <string>
#include <type_traits>

namespace mpi::detail {

enum class coll_mode { blocking, nonblocking, persistent };

// Number of processes a rooted/all-to-all collective exchanges with: the group size, or
// the remote group size on an intercommunicator.
inline int peer_count(MPI_Comm c) {
  int inter = 0, n = 0;
  MPI_CXX_CALL(MPI_Comm_test_inter, c, &inter);
  if (inter) MPI_CXX_CALL(MPI_Comm_remote_size, c, &n);
  else MPI_CXX_CALL(MPI_Comm_size, c, &n);
  return n;
}
inline bool is_inter(MPI_Comm c) {
  int inter = 0;
  MPI_CXX_CALL(MPI_Comm_test_inter, c, &inter);
  return inter != 0;
}
// Whether this process is the root of a rooted collective (MPI_ROOT on an intercomm).
inline bool is_root(MPI_Comm c, int root) {
  if (is_inter(c)) return root == MPI_ROOT;
  int r = 0;
  MPI_CXX_CALL(MPI_Comm_rank, c, &r);
  return r == root;
}
// A buffer describes the whole message of this process; the C binding wants the count
// per peer process.
inline MPI_Count per_process(MPI_Count total, int n, char const* fn, char const* which) {
  if (n == 0) {
    if (total == 0) return 0;
    fail(MPI_ERR_COUNT, fn, std::string(which) + " has elements but there are no peer processes");
  }
  if (total % n != 0)
    fail(MPI_ERR_COUNT, fn,
         std::string(which) + " count " + std::to_string(total) + " is not divisible by the " +
             std::to_string(n) + " peer processes");
  return total / n;
}

template <class B>
MPI_Count count_unless_in_place(B const& b, char const* fn) {
  if constexpr (is_in_place<B>) return 0;
  else return count_of(b, fn);
}

// The element type of a buffer, for building a user op from a callable.
template <class B>
struct element_type {
  using type = void;
};
template <class B>
  requires std::ranges::range<B const&>
struct element_type<B> {
  using type = std::remove_cv_t<std::ranges::range_value_t<B const&>>;
};
template <class B>
  requires(!std::ranges::range<B const&> && mapped_type<B>)
struct element_type<B> {
  using type = std::remove_cv_t<B>;
};
template <class B>
using element_type_t = typename element_type<uncvref_t<B>>::type;

// An op argument of a blocking reduction: an op handle, or a callable on the element type,
// turned into a user op that lives for the duration of the call.
template <class F, class T>
concept reduction_callable = !op_handle<F> && !std::is_void_v<T> && std::is_invocable_r_v<T, F const&, T const&, T const&>;
template <class F, class T>
concept reduction_for = op_handle<F> || reduction_callable<F, T>;

template <class T, class F>
struct op_arg {
  explicit op_arg(F const& f) {
    if constexpr (op_handle<F>) h = mpi::handle(f);
    else {
      owned = op::create<T>(f);
      h = owned.native();
    }
  }
  MPI_Op h;
  op owned;
};

}  // namespace mpi::detail

#if MPI_CXX_HAS_PERSISTENT_COLLECTIVES
#define MPI_CXX_PERSISTENT_COUNTED_(fits, fn, ...) MPI_CXX_CALL_COUNTED(fits, fn, __VA_ARGS__)
#define MPI_CXX_PERSISTENT_(fn, ...) MPI_CXX_CALL(fn, __VA_ARGS__)
#else
#define MPI_CXX_PERSISTENT_COUNTED_(fits, fn, ...) ::mpi::detail::unsupported(#fn)
#define MPI_CXX_PERSISTENT_(fn, ...) ::mpi::detail::unsupported(#fn)
#endif

// One collective call in mode M: MPI_<Name>, MPI_I<name> or MPI_<Name>_init, each with
// its large-count form. Expects `req` (mpi::request) and `info` (MPI_Info) in scope.
#define MPI_CXX_COLL_(M, fits, Name, name, ...)                                               \
  if constexpr (M == ::mpi::detail::coll_mode::blocking)                                      \
    MPI_CXX_CALL_COUNTED(fits, MPI_##Name, __VA_ARGS__);                                      \
  else if constexpr (M == ::mpi::detail::coll_mode::nonblocking)                              \
    MPI_CXX_CALL_COUNTED(fits, MPI_I##name, __VA_ARGS__, req.mpi_handle_ptr());               \
  else                                                                                        \
    MPI_CXX_PERSISTENT_COUNTED_(fits, MPI_##Name##_init, __VA_ARGS__, info, req.mpi_handle_ptr())

// Same, for calls without counts (barrier).
#define MPI_CXX_COLL_NOCOUNT_(M, Name, name, ...)                                             \
  if constexpr (M == ::mpi::detail::coll_mode::blocking)                                      \
    MPI_CXX_CALL(MPI_##Name, __VA_ARGS__);                                                    \
  else if constexpr (M == ::mpi::detail::coll_mode::nonblocking)                              \
    MPI_CXX_CALL(MPI_I##name, __VA_ARGS__, req.mpi_handle_ptr());                             \
  else                                                                                        \
    MPI_CXX_PERSISTENT_(MPI_##Name##_init, __VA_ARGS__, info, req.mpi_handle_ptr())
