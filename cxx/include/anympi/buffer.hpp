// What the anympi:: layer adds to the core's buffer model (mpi/buffer.hpp): how it holds a
// buffer it is given, and the protocol through which infer() (anympi/infer.hpp) completes a
// buffer whose receive count(s) are not known before the operation.
#pragma once

#include <mpi.hpp>

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>

namespace anympi {

// How the layer holds a buffer argument B (as a forwarding reference deduces it): an lvalue
// is borrowed (a reference, the caller keeps it alive), an rvalue is owned (moved in), so
// that a view of a temporary, or a nonblocking result given a temporary, keeps it alive.
template <class B>
using held_t = std::conditional_t<std::is_lvalue_reference_v<B>, B, std::remove_cvref_t<B>>;

// A buffer whose receive count is not known yet: infer() finds it (from the matched message,
// the send side, or one count exchange) and hands it over with mpi_set_count(n) before the
// operation takes the buffer's address. views::resize, grow_only and no_resize make one.
template <class B>
concept deferred_count = requires(std::remove_reference_t<B>& b, MPI_Count n) { b.mpi_set_count(n); };

// A varying buffer whose per-process counts are not known yet: mpi_counts_to_fill(p) gives
// room for the p counts, which infer() fills by one count exchange. views::auto_counts makes one.
template <class B>
concept deferred_counts = requires(std::remove_reference_t<B>& b, std::size_t p) {
  { b.mpi_counts_to_fill(p) } -> std::same_as<std::span<int>>;
};

// A buffer that hands back something other than itself once the operation is done:
// views::serialize and views::deserialize<T>() hand back the object decoded from the bytes MPI
// wrote. `received` says whether MPI wrote into it on this process (a bcast's root: false).
template <class B>
concept finishing_buffer = requires(B&& b) { std::forward<B>(b).mpi_finish(true); };

// What a wrapper hands back for a buffer it holds as H (held_t): the buffer itself, or what a
// finishing_buffer yields.
template <class H>
  requires(!finishing_buffer<H>)
H finish(H&& b, bool) {
  return std::forward<H>(b);
}
template <finishing_buffer H>
decltype(auto) finish(H&& b, bool received) {
  return std::forward<H>(b).mpi_finish(received);
}
template <class B>
using result_t = decltype(anympi::finish(std::declval<held_t<B>>(), true));

}  // namespace anympi
