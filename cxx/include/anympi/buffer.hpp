// What the anympi:: layer adds to the core's buffer model (mpi/buffer.hpp): how it holds a
// buffer it is given, and the protocol through which infer() (anympi/infer.hpp) completes a
// buffer whose receive count(s) are not known before the operation.
#pragma once

#include <mpi.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
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

namespace detail {
// The counts or displacements of one call, one per process: held in the object up to N
// processes (a node's worth), so that a call on a small communicator allocates nothing (two
// allocations cost an alltoallv with inferred counts some 500 instructions), on the heap past N.
// A copy or move copies only the elements there are: a view is moved into the next one while
// its counts are still empty.
template <class T, std::size_t N = 32>
class small_vector {
public:
  using value_type = T;
  small_vector() noexcept {}  // the elements uninitialized: none is there yet
  small_vector(std::size_t n, T v) { assign(n, v); }
  small_vector(small_vector const& o) { *this = o; }
  small_vector(small_vector&& o) noexcept { *this = std::move(o); }
  small_vector& operator=(small_vector const& o) {
    if (this != &o) {
      resize_for_overwrite(o.n_);
      std::copy_n(o.data(), n_, data());
    }
    return *this;
  }
  small_vector& operator=(small_vector&& o) noexcept {
    if (this != &o) {
      heap_ = std::move(o.heap_);
      capacity_ = std::exchange(o.capacity_, 0);
      n_ = std::exchange(o.n_, 0);
      if (n_ <= N) std::copy_n(o.local_, n_, local_);
    }
    return *this;
  }
  void assign(std::size_t n, T v) {
    resize_for_overwrite(n);
    std::fill_n(data(), n, v);
  }
  T* data() noexcept { return n_ > N ? heap_.get() : local_; }
  T const* data() const noexcept { return n_ > N ? heap_.get() : local_; }
  std::size_t size() const noexcept { return n_; }
  T* begin() noexcept { return data(); }
  T* end() noexcept { return data() + n_; }
  T const* begin() const noexcept { return data(); }
  T const* end() const noexcept { return data() + n_; }

  // n elements, their values unspecified: for a caller that writes every one.
  void resize_for_overwrite(std::size_t n) {
    if (n > N && n > capacity_) heap_.reset(new T[n]), capacity_ = n;
    n_ = n;
  }

private:
  T local_[N];
  std::unique_ptr<T[]> heap_;
  std::size_t capacity_ = 0;  // of heap_
  std::size_t n_ = 0;
};
}  // namespace detail

}  // namespace anympi
