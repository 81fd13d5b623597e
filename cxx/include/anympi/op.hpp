// User reductions from lambdas and function objects, for the layer's reduce, allreduce and
// iallreduce (and the core's reductions alike):
//
//   auto sum = anympi::make_op([](point a, point b) { return point{a.x + b.x, a.y + b.y}; }, anympi::commutative);
//   auto total = anympi::allreduce(local, std::vector<point>{} | views::resize, sum, comm);
//
// The element type is the callable's parameter type, or given explicitly for a generic
// lambda (make_op<point>(...)). It may be any mapped type, derived struct types
// (anympi/types.hpp) included. The op is the core's mpi::op (mpi/op.hpp), which owns the
// MPI_Op and bounds how many callables with state may be alive at once (mpi::op::max_stateful);
// a lambda without captures needs no such slot.
#pragma once

#include <mpi.hpp>

#include <concepts>
#include <type_traits>
#include <utility>

namespace anympi {

// Whether the reduction may combine operands in any order: MPI needs to be told, and a wrong
// "commutative" gives silently different results, so there is no default.
enum class commutativity : bool { non_commutative = false, commutative = true };
inline constexpr commutativity commutative = commutativity::commutative;
inline constexpr commutativity non_commutative = commutativity::non_commutative;

namespace detail {
// The operand type of a binary callable that is not generic: the parameter type of its one
// call operator (or of a function pointer).
template <class F>
struct operand_of {};
template <class F>
  requires requires { &F::operator(); }
struct operand_of<F> : operand_of<decltype(&F::operator())> {};
template <class R, class A, class B>
struct operand_of<R (*)(A, B)> {
  using type = std::remove_cvref_t<A>;
};
template <class R, class A, class B>
struct operand_of<R(A, B)> : operand_of<R (*)(A, B)> {};
template <class C, class R, class A, class B>
struct operand_of<R (C::*)(A, B) const> : operand_of<R (*)(A, B)> {};
template <class C, class R, class A, class B>
struct operand_of<R (C::*)(A, B)> : operand_of<R (*)(A, B)> {};
template <class C, class R, class A, class B>
struct operand_of<R (C::*)(A, B) const noexcept> : operand_of<R (*)(A, B)> {};
template <class C, class R, class A, class B>
struct operand_of<R (C::*)(A, B) noexcept> : operand_of<R (*)(A, B)> {};
template <class R, class A, class B>
struct operand_of<R (*)(A, B) noexcept> : operand_of<R (*)(A, B)> {};

template <class F>
concept has_operand = requires { typename operand_of<std::remove_cvref_t<F>>::type; };
}  // namespace detail

// A callable that reduces two T into one, as MPI applies it: inout[i] = f(in[i], inout[i]).
template <class F, class T>
concept reduction_for = mpi::mapped_type<T> && std::is_invocable_r_v<T, F const&, T const&, T const&>;

// The op reducing elements of T with f.
template <class T, reduction_for<T> F>
[[nodiscard]] mpi::op make_op(F f, commutativity c) {
  return mpi::op::create<T>(std::move(f), c == commutative);
}

// The same, T being f's parameter type.
template <class F>
  requires detail::has_operand<F> && reduction_for<F, typename detail::operand_of<std::remove_cvref_t<F>>::type>
[[nodiscard]] mpi::op make_op(F f, commutativity c) {
  return make_op<typename detail::operand_of<std::remove_cvref_t<F>>::type>(std::move(f), c);
}

}  // namespace anympi
