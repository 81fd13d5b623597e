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
#include <string>
#include <type_traits>

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
// sized at compile time (MPI_CXX_STATEFUL_OP_LIMIT); anympi's runtime has its own pool of
// 128 trampolines for all user ops, stateless ones included (docs/runtime.md), so raising
// this beyond 128 gains nothing over the standard ABI.
#ifndef MPI_CXX_STATEFUL_OP_LIMIT
#define MPI_CXX_STATEFUL_OP_LIMIT 64
#endif
inline constexpr int op_slot_count = MPI_CXX_STATEFUL_OP_LIMIT;
static_assert(op_slot_count > 0, "MPI_CXX_STATEFUL_OP_LIMIT must be positive");
struct op_slot {
  std::function<void(void const*, void*, int)> fn;
  MPI_Op op = MPI_OP_NULL;
};
inline std::array<op_slot, op_slot_count>& op_slots() {
  static std::array<op_slot, op_slot_count> s;
  return s;
}
inline std::mutex& op_slots_mutex() {
  static std::mutex m;
  return m;
}
template <int Slot>
void slot_trampoline(void* in, void* inout, int* len, MPI_Datatype*) {
  op_slots()[Slot].fn(in, inout, *len);
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
  F f{};
  auto const* a = static_cast<T const*>(in);
  auto* b = static_cast<T*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = f(a[i], b[i]);
}

inline int op_kind::free(MPI_Op* h) noexcept {
  MPI_Op old = *h;
  int err = MPI_Op_free(h);
  std::lock_guard lock(op_slots_mutex());
  for (auto& s : op_slots())
    if (s.op == old && old != MPI_OP_NULL) {
      s.fn = nullptr;
      s.op = MPI_OP_NULL;
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
      std::lock_guard lock(detail::op_slots_mutex());
      auto& slots = detail::op_slots();
      for (int i = 0; i < detail::op_slot_count; ++i) {
        if (slots[i].fn) continue;
        slots[i].fn = [f = std::move(f)](void const* in, void* inout, int n) {
          auto const* a = static_cast<T const*>(in);
          auto* b = static_cast<T*>(inout);
          for (int k = 0; k < n; ++k) b[k] = f(a[k], b[k]);
        };
        auto* const trampoline =
            detail::slot_trampoline_at(i, std::make_integer_sequence<int, detail::op_slot_count>{});
        int err = MPI_Op_create(trampoline, commutative ? 1 : 0, &h);
        if (err != MPI_SUCCESS) {
          slots[i].fn = nullptr;
          detail::throw_error(err, "MPI_Op_create");
        }
        slots[i].op = h;
        return from_native(h);
      }
      detail::fail(MPI_ERR_OTHER, "MPI_Op_create",
                   detail::error_text{} << "at most mpi::op::max_stateful = " << max_stateful
                                        << " user ops with state (a capturing lambda, a function pointer, a "
                                           "function object with members) can be alive at once; free one, or use "
                                           "a stateless function object, which needs no slot");
    }
  }
  bool commutative() const { return view().commutative(); }
};

}  // namespace mpi
