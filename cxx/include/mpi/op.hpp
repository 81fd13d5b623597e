// Reduction operations. Standard function objects are the predefined ops (std::plus<> ->
// MPI_SUM, std::multiplies<> -> MPI_PROD, std::logical_and/or<> -> MPI_LAND/LOR,
// std::bit_and/or/xor<> -> MPI_BAND/BOR/BXOR, mpi::min<>/max<> -> MPI_MIN/MAX,
// mpi::logical_xor<> -> MPI_LXOR, mpi::minloc<>/maxloc<> -> MPI_MINLOC/MAXLOC); they
// are handles through mpi::handle_traits. User ops come from any callable T(T, T) through
// mpi::op::create<T>(f, commutative), owned by the returned mpi::op; at most
// mpi::op::max_stateful of them with state can be alive at once (see op_slot_count).
#pragma once

#include <mpi/object.hpp>
#include <mpi/std_parts.hpp>
#include <mpi/type_map.hpp>

#include <array>
#include <type_traits>
#include <utility>
#if !defined(__GNUC__) || defined(MPI_CXX_STANDARD_HEADERS)
#include <atomic>  // std::atomic_ref, for the op slots
#endif

namespace mpi {

template <class T = void>
struct min {
  constexpr T operator()(T const& a, T const& b) const { return std::min(a, b); }
};
template <>
struct min<void> {
  template <class T>
  constexpr T operator()(T const& a, T const& b) const { return std::min(a, b); }
};
template <class T = void>
struct max {
  constexpr T operator()(T const& a, T const& b) const { return std::max(a, b); }
};
template <>
struct max<void> {
  template <class T>
  constexpr T operator()(T const& a, T const& b) const { return std::max(a, b); }
};
template <class T = void>
struct logical_xor {
  constexpr bool operator()(T const& a, T const& b) const { return !a != !b; }
};
template <>
struct logical_xor<void> {
  template <class T>
  constexpr bool operator()(T const& a, T const& b) const { return !a != !b; }
};
// On value_index pairs; ties go to the lower index, as MPI specifies.
template <class T = void>
struct minloc {
  template <class V>
  constexpr V operator()(V const& a, V const& b) const {
    if (a.value < b.value) return a;
    if (b.value < a.value) return b;
    return a.index <= b.index ? a : b;
  }
};
template <class T = void>
struct maxloc {
  template <class V>
  constexpr V operator()(V const& a, V const& b) const {
    if (a.value > b.value) return a;
    if (b.value > a.value) return b;
    return a.index <= b.index ? a : b;
  }
};

#define MPI_CXX_PREDEFINED_OP_(tmpl, native)                                     \
  template <class T>                                                             \
  struct handle_traits<tmpl<T>> {                                                \
    static MPI_Op handle(tmpl<T> const&) noexcept { return native; }             \
  };
MPI_CXX_PREDEFINED_OP_(std::plus, MPI_SUM)
MPI_CXX_PREDEFINED_OP_(std::multiplies, MPI_PROD)
MPI_CXX_PREDEFINED_OP_(std::logical_and, MPI_LAND)
MPI_CXX_PREDEFINED_OP_(std::logical_or, MPI_LOR)
MPI_CXX_PREDEFINED_OP_(std::bit_and, MPI_BAND)
MPI_CXX_PREDEFINED_OP_(std::bit_or, MPI_BOR)
MPI_CXX_PREDEFINED_OP_(std::bit_xor, MPI_BXOR)
MPI_CXX_PREDEFINED_OP_(mpi::min, MPI_MIN)
MPI_CXX_PREDEFINED_OP_(mpi::max, MPI_MAX)
MPI_CXX_PREDEFINED_OP_(mpi::logical_xor, MPI_LXOR)
MPI_CXX_PREDEFINED_OP_(mpi::minloc, MPI_MINLOC)
MPI_CXX_PREDEFINED_OP_(mpi::maxloc, MPI_MAXLOC)
#undef MPI_CXX_PREDEFINED_OP_

namespace detail {

struct op_kind {
  using native_type = MPI_Op;
  static MPI_Op null() noexcept { return MPI_OP_NULL; }
  static bool is_predefined(MPI_Op) noexcept { return false; }
  static int free(MPI_Op* h) noexcept;
  static constexpr char const* free_name = "MPI_Op_free";
};

// MPI_User_function carries no user pointer, so a callable with state is reached through a
// slot: a fixed table of trampolines, one per slot, each calling the callable stored there.
// Stateless callables need no slot (their trampoline default-constructs them), so they are
// never subject to the bound. The bound cannot be lifted over an arbitrary mpi.h: a function
// pointer is the only thing MPI hands back, and the datatype it passes is the caller's
// (MPI_INT, ...), not something the op could have tagged; one trampoline per live op is
// the only exact scheme, and C++ can only instantiate a fixed number of them. The table is
// sized at compile time (MPI_CXX_STATEFUL_OP_LIMIT).
#ifndef MPI_CXX_STATEFUL_OP_LIMIT
#define MPI_CXX_STATEFUL_OP_LIMIT 64
#endif
inline constexpr int op_slot_count = MPI_CXX_STATEFUL_OP_LIMIT;
static_assert(op_slot_count > 0, "MPI_CXX_STATEFUL_OP_LIMIT must be positive");

// A slot is claimed and released by atomic operations on its members, not under a std::mutex:
// <mutex> (with <system_error> and std::function beside it) was about 4% of what a translation
// unit including <mpi/collectives.hpp> compiled (bench/compile_tu.cpp), for this table alone.
// GCC and Clang have the builtins std::atomic_ref is made of; elsewhere, and with
// -DMPI_CXX_STANDARD_HEADERS (std_parts.hpp), std::atomic_ref.
#if defined(__GNUC__) && !defined(MPI_CXX_STANDARD_HEADERS)
template <class T>
T atomic_load(T const& x) noexcept {
  return __atomic_load_n(&x, __ATOMIC_ACQUIRE);
}
template <class T>
void atomic_store(T& x, T v) noexcept {
  __atomic_store_n(&x, v, __ATOMIC_RELEASE);
}
// x = desired if x == expected, atomically; whether it was.
template <class T>
bool atomic_replace(T& x, T expected, T desired) noexcept {
  return __atomic_compare_exchange_n(&x, &expected, desired, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}
#else
template <class T>
T atomic_load(T const& x) noexcept {
  return std::atomic_ref<T>(const_cast<T&>(x)).load(std::memory_order_acquire);
}
template <class T>
void atomic_store(T& x, T v) noexcept {
  std::atomic_ref<T>(x).store(v, std::memory_order_release);
}
template <class T>
bool atomic_replace(T& x, T expected, T desired) noexcept {
  return std::atomic_ref<T>(x).compare_exchange_strong(expected, desired, std::memory_order_acq_rel,
                                                       std::memory_order_relaxed);
}
#endif

// The callable lives on the heap, typed only by the two functions beside it (std::function
// would need copyable callables and <functional>'s machinery); a slot without one is free.
// `callable` and `op` are accessed atomically: ops are created and freed from any thread under
// MPI_THREAD_MULTIPLE.
struct op_slot {
  void* callable = nullptr;
  void (*reduce)(void const* callable, void const* in, void* inout, int n) = nullptr;
  void (*destroy)(void* callable) noexcept = nullptr;
  MPI_Op op = MPI_OP_NULL;
};
inline std::array<op_slot, op_slot_count>& op_slots() {
  static std::array<op_slot, op_slot_count> s;
  return s;
}

template <class T, class F>
void reduce_with(void const* f, void const* in, void* inout, int n) {
  auto const& fn = *static_cast<F const*>(f);
  auto const* a = static_cast<T const*>(in);
  auto* b = static_cast<T*>(inout);
  for (int k = 0; k < n; ++k) b[k] = fn(a[k], b[k]);
}
template <class F>
void destroy_callable(void* f) noexcept {
  delete static_cast<F*>(f);
}

template <int Slot>
void slot_trampoline(void* in, void* inout, int* len, MPI_Datatype*) {
  op_slot const& s = op_slots()[Slot];
  s.reduce(s.callable, in, inout, *len);
}
// The trampoline of slot i. A table made only where a callable with state becomes an op: made
// at namespace scope, it instantiated every trampoline in every translation unit.
template <int... I>
MPI_User_function* slot_trampoline_at(int i, std::integer_sequence<int, I...>) {
  static constexpr MPI_User_function* table[] = {&slot_trampoline<I>...};
  return table[i];
}

template <class T, class F>
void stateless_trampoline(void* in, void* inout, int* len, MPI_Datatype*) {
  F const f{};
  reduce_with<T, F>(&f, in, inout, *len);
}

// Each slot is read before it is exchanged: a compare-and-swap that fails still takes its cache
// line for writing, and every op's free, a stateless op's too, looks through the whole table.
// A free slot, now holding `callable`; -1 when every slot holds one.
inline int claim_op_slot(void* callable) noexcept {
  for (int i = 0; i < op_slot_count; ++i) {
    void*& held = op_slots()[i].callable;
    if (!atomic_load(held) && atomic_replace<void*>(held, nullptr, callable)) return i;
  }
  return -1;
}
// The slot of op h, no longer found by h; -1 for an op without one.
inline int detach_op_slot(MPI_Op h) noexcept {
  if (h == MPI_OP_NULL) return -1;
  for (int i = 0; i < op_slot_count; ++i) {
    MPI_Op& op = op_slots()[i].op;
    if (atomic_load(op) == h && atomic_replace(op, h, MPI_OP_NULL)) return i;
  }
  return -1;
}
inline void release_op_slot(int i) noexcept {
  op_slot& s = op_slots()[i];
  s.destroy(s.callable);
  s.reduce = nullptr;
  s.destroy = nullptr;
  atomic_store<void*>(s.callable, nullptr);
}

// The slot is detached from the handle before MPI_Op_free: afterwards MPI may give the same
// handle to an op that another thread creates, and that thread's free must not find this slot.
// An op MPI did not free keeps its slot.
inline int op_kind::free(MPI_Op* h) noexcept {
  MPI_Op const old = *h;
  int const slot = detach_op_slot(old);
  int const err = MPI_Op_free(h);
  if (slot >= 0) {
    if (err == MPI_SUCCESS)
      release_op_slot(slot);
    else
      atomic_store(op_slots()[slot].op, old);
  }
  return err;
}

}  // namespace detail

class op_view : public detail::view_base<detail::op_kind> {
public:
  using view_base::view_base;
  bool commutative() const {
    int c = 0;
    MPI_CXX_CALL(MPI_Op_commutative, h_, &c);
    return c != 0;
  }
};

class op : public detail::owner_base<detail::op_kind, op, op_view> {
public:
  op() noexcept = default;

  // How many ops created from callables with state can be alive at once (see op_slot_count).
  static constexpr int max_stateful = detail::op_slot_count;

  // A user reduction on elements of T: inout[i] = f(in[i], inout[i]). Commutative only when
  // said: an MPI may reorder the operands of a commutative op, which silently changes the result
  // of one that is not (MPICH does), while any associative op is right without it.
  template <class T, class F>
    requires std::is_invocable_r_v<T, F const&, T const&, T const&>
  static op create(F f, bool commutative = false) {
    using Fn = std::remove_cvref_t<F>;
    MPI_Op h;
    if constexpr (std::is_empty_v<Fn> && std::is_default_constructible_v<Fn>) {
      MPI_CXX_CALL(MPI_Op_create, &detail::stateless_trampoline<T, Fn>, commutative ? 1 : 0, &h);
      return from_native(h);
    } else {
      auto* const held = new Fn(std::move(f));
      int const i = detail::claim_op_slot(held);
      if (i < 0) {
        delete held;
        detail::fail(MPI_ERR_OTHER, "MPI_Op_create",
                     detail::error_text{} << "at most mpi::op::max_stateful = " << max_stateful
                                          << " user ops with state (a capturing lambda, a function pointer, a "
                                             "function object with members) can be alive at once; free one, or "
                                             "use a stateless function object, which needs no slot");
      }
      auto& slot = detail::op_slots()[i];
      slot.reduce = &detail::reduce_with<T, Fn>;
      slot.destroy = &detail::destroy_callable<Fn>;
      auto* const trampoline = detail::slot_trampoline_at(i, std::make_integer_sequence<int, detail::op_slot_count>{});
      int const err = MPI_Op_create(trampoline, commutative ? 1 : 0, &h);
      if (err != MPI_SUCCESS) {
        detail::release_op_slot(i);
        detail::throw_error(err, "MPI_Op_create");
      }
      detail::atomic_store(slot.op, h);
      return from_native(h);
    }
  }
  bool commutative() const { return view().commutative(); }
};

}  // namespace mpi
