// Shared machinery of the collective families (blocking, nonblocking, persistent): the
// argument kinds and the forms table macro (detail::*_forms; the public functions are written
// out in collectives.hpp and neighborhood.hpp).
#pragma once

#include <mpi/buffer.hpp>
#include <mpi/communicator.hpp>
#include <mpi/large_count.hpp>
#include <mpi/op.hpp>
#include <mpi/request.hpp>
#include <mpi/std_parts.hpp>

#include <type_traits>
#include <utility>

namespace mpi::detail {

// Whether this process is the root of a rooted collective (MPI_ROOT on an intercomm).
inline bool is_root(MPI_Comm c, int root) {
  int inter = 0, r = 0;
  MPI_CXX_CALL(MPI_Comm_test_inter, c, &inter);
  if (inter) return root == MPI_ROOT;
  MPI_CXX_CALL(MPI_Comm_rank, c, &r);
  return r == root;
}
// A whole-message buffer whose count does not divide into the count per peer process: the
// error, out of line, raised on the communicator.
MPI_CXX_COLD [[noreturn]] inline void indivisible(MPI_Count total, int n, char const* fn, char const* which,
                                                  MPI_Comm comm) {
  if (n == 0) fail(MPI_ERR_COUNT, fn, error_text{} << which << " has elements but there are no peer processes", comm);
  fail(MPI_ERR_COUNT, fn,
       error_text{} << which << " count " << total << " is not divisible by the " << n << " peer processes", comm);
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
  requires requires { typename range_value_t<B const&>; }
struct element_type<B> {
  using type = std::remove_cv_t<range_value_t<B const&>>;
};
template <class B>
  requires(!std::ranges::range<B const&> && mapped_type<B>)
struct element_type<B> {
  using type = std::remove_cv_t<B>;
};
template <class B>
using element_type_t = typename element_type<uncvref_t<B>>::type;

// An op argument of a blocking reduction: an op handle, or a callable on the element type,
// turned into a user op that lives for the duration of the call; not commutative, since nothing
// says the callable is (op::create).
template <class F, class T>
concept reduction_callable = !op_handle<F> && !std::is_void_v<T> && std::is_invocable_r_v<T, F const&, T const&, T const&>;
template <class F, class T>
concept reduction_for = op_handle<F> || reduction_callable<F, T>;

template <class T, class F>
struct op_arg {
  explicit op_arg(F const& f) : owned(op::create<T>(f)), h(owned.native()) {}
  op owned;
  MPI_Op h;
};
// An op handle: nothing owned, so nothing to free (nor to test) after the call.
template <class T, op_handle F>
struct op_arg<T, F> {
  explicit op_arg(F const& f) noexcept : h(mpi::handle(f)) {}
  MPI_Op h;
};

// How the whole-message buffers of gather, scatter, allgather, alltoall (and the
// neighborhood forms) divide into the count per peer process the bindings take: `peers`
// gives the number of processes received from and sent to; a divided side passes its count
// over that number (only at the root, for rooted collectives), the other side passes its
// whole count.
struct split {
  comm_kind::peers (*peers)(MPI_Comm);
  // Where an mpi::comm or a comm_view remembers them.
  comm_kind::peers comm_kind::facts::*remembered;
  bool send;
  bool recv;
};
// The processes of the group a rooted/all-to-all collective exchanges with: the group size, or
// the remote group's on an intercommunicator, both ways. MPI_COMM_WORLD's size is fixed from
// MPI_Init to MPI_Finalize, so it is asked once; MPI_COMM_SELF never comes here (whole_impl:
// one peer divides nothing); any other communicator is asked once per mpi::comm or comm_view
// that names it (comm_arg below), each time it is given as a native handle (which may name
// another communicator once it is freed).
inline comm_kind::peers group_peers(MPI_Comm c) {
  int n = 0;
  if (c == MPI_COMM_WORLD) {
    static int const world = [] {
      int w = 0;
      MPI_CXX_CALL(MPI_Comm_size, MPI_COMM_WORLD, &w);
      return w;
    }();
    return {world, world};
  }
  int inter = 0;
  MPI_CXX_CALL(MPI_Comm_test_inter, c, &inter);
  if (inter) MPI_CXX_CALL(MPI_Comm_remote_size, c, &n);
  else MPI_CXX_CALL(MPI_Comm_size, c, &n);
  return {n, n};
}
// A split by the group: its peers, remembered apart from the topology's.
constexpr split by_group(bool send, bool recv) { return {&group_peers, &comm_kind::facts::group_peers, send, recv}; }

// A communicator argument as the collectives take it: the handle, and what the argument
// remembers of it (an mpi::comm or a comm_view; nothing for a native handle).
struct comm_arg {
  MPI_Comm handle;
  comm_kind::facts* facts;
};
template <class C>
MPI_CXX_ALWAYS_INLINE comm_arg comm_arg_of(C const& c) {
  if constexpr (std::is_base_of_v<comm, uncvref_t<C>> || std::is_base_of_v<comm_view, uncvref_t<C>>)
    return {c.native(), &c.facts()};
  else return {mpi::handle(c), nullptr};
}
// The peers of `s` on `c`, asked of MPI, and remembered where the argument remembers them.
inline comm_kind::peers remember_peers(split const& s, comm_arg c) {
  return c.facts->*s.remembered = s.peers(c.handle);
}
MPI_CXX_ALWAYS_INLINE comm_kind::peers peers_of(split const& s, comm_arg c) {
  if (!c.facts) return s.peers(c.handle);
  if (auto const known = c.facts->*s.remembered; known.from >= 0) return known;
  return remember_peers(s, c);
}

// A varying buffer as its binding takes it, four arguments: ptr(), counts(), displs(), then
// types(), its datatype or (Types, the w forms) its per-process datatypes. IntDispl is the
// displacement type of the int binding (MPI_Aint for MPI_Neighbor_alltoallw).
template <class B, class IntDispl = int, bool Types = false>
class varying {
  using counts_type = decltype(mpi::counts(std::declval<B const&>()));
  using displs_type = decltype(mpi::displs(std::declval<B const&>()));
  using counts_array = int_array<std::remove_cvref_t<counts_type>, MPI_Count, int>;
  using displs_array = int_array<std::remove_cvref_t<displs_type>, MPI_Aint, IntDispl>;
  static decltype(auto) types_of(B& b) {
    if constexpr (Types) return mpi::datatypes(b);
    else return type_of(b);
  }

public:
  varying(B& b, char const* fn, bool keep)
      : b_(b), c_(mpi::counts(b)), d_(mpi::displs(b)), t_(types_of(b)), counts_(c_, fn, keep), displs_(d_, fn, keep) {}
  varying(varying const&) = delete;
  varying& operator=(varying const&) = delete;

  auto ptr() const { return mpi::ptr(b_); }
  counts_array& counts() { return counts_; }
  displs_array& displs() { return displs_; }
  auto types() const {
    if constexpr (Types) return std::ranges::data(t_);
    else return t_;
  }

private:
  B& b_;
  // The ranges as the buffer gives them (a reference, or a view held here for the call).
  counts_type c_;
  displs_type d_;
  decltype(types_of(std::declval<B&>())) t_;
  counts_array counts_;
  displs_array displs_;
};

// mpi::in_place as the send side of alltoallv: MPI ignores the counts, displacements and type.
struct in_place_varying {
  in_place_varying(in_place_t const&, char const*, bool) noexcept {}
  static void* ptr() noexcept { return MPI_IN_PLACE; }
  static std::nullptr_t counts() noexcept { return nullptr; }
  static std::nullptr_t displs() noexcept { return nullptr; }
  static MPI_Datatype types() noexcept { return MPI_DATATYPE_NULL; }
};

}  // namespace mpi::detail

#if MPI_CXX_HAS_PERSISTENT_COLLECTIVES
#define MPI_CXX_PERSISTENT_COLL_FN_(fn) MPI_CXX_COUNTED_FN(fn)
#define MPI_CXX_PERSISTENT_UNCOUNTED_FN_(fn) MPI_CXX_UNCOUNTED_FN(fn)
#else
#define MPI_CXX_PERSISTENT_COLL_FN_(fn) MPI_CXX_MISSING_FN(fn)
#define MPI_CXX_PERSISTENT_UNCOUNTED_FN_(fn) MPI_CXX_MISSING_FN(fn)
#endif

// The forms of collective MPI_<Name>: MPI_<Name>, MPI_I<name>, MPI_<Name>_init, each with
// its _c twin; then, optionally, its `split`.
#define MPI_CXX_COLL_FORMS_(Name, name, ...)                                                   \
  ::mpi::detail::forms {                                                                       \
    MPI_CXX_COUNTED_FN(MPI_##Name), MPI_CXX_COUNTED_FN(MPI_I##name),                           \
        MPI_CXX_PERSISTENT_COLL_FN_(MPI_##Name##_init) __VA_OPT__(, ) __VA_ARGS__              \
  }
