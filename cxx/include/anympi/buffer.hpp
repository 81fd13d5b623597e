// What the anympi:: layer adds to the core's buffer model (mpi/buffer.hpp): how it holds a
// buffer it is given, and the protocol through which infer() (anympi/infer.hpp) completes a
// buffer whose receive count(s) are not known before the operation.
#pragma once

#include <mpi.hpp>

#include <cstddef>
#include <span>
#include <type_traits>

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

}  // namespace anympi
