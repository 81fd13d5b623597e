// Kokkos::View as a buffer of the core and of the layer (not included by <anympi.hpp>:
// include it where Kokkos is available, after Kokkos::initialize).
//
//   mpi::allreduce(views::kokkos(a), views::kokkos(b), std::plus<>{}, comm);
//   anympi::send(views::kokkos(Kokkos::subview(m, Kokkos::ALL, j)), dest, tag, comm);
//   auto [col, st] = anympi::recv(Kokkos::subview(m, Kokkos::ALL, j) | views::kokkos, src, tag, comm);
//   anympi::recv(views::kokkos(r) | views::resize, src, tag, comm);   // r: a rank-1 View, resized
//
// A View is a buffer of its size() elements of its value type, in index order (the first
// index slowest, as LayoutRight stores them), whatever its layout:
// - a contiguous View (span_is_contiguous()) is passed directly, after Kokkos::fence(), so
//   that the kernels still writing it finish before MPI reads it;
// - any other (a column of a LayoutRight matrix, a strided subview) is packed, when the
//   operation asks for the address, into a contiguous staging View in the same memory space
//   (Kokkos::deep_copy) that MPI reads and writes, and unpacked into the View when the
//   operation is done: mpi_finish(true), which every wrapper of the layer calls where this
//   process received (and iresult's wait() or test() once a nonblocking one completes). After
//   the core's calls, call anympi::finish(buffer, true); until then the View keeps its values.
// - a rank-1 View whose extent is not fixed resizes (Kokkos::resize) under views::resize,
//   grow_only and no_resize, like a std::vector. Over an lvalue View, it is the caller's View
//   that is resized and received into; over an rvalue, the buffer owns the View.
// A View in device memory yields a device pointer (directly, or of its staging View), which
// only a device-aware MPI can use; the Debian package this is tested with has only the
// Serial (host) backend.
#pragma once

#include <anympi/buffer.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace anympi::views {

namespace detail {
template <class V>
concept kokkos_view = Kokkos::is_view<std::remove_cvref_t<V>>::value &&
                      mpi::mapped_type<typename std::remove_cvref_t<V>::non_const_value_type>;

// Kokkos::resize reallocates a View whose one extent is a run-time one; a strided or
// fixed-size View has no size of its own to change.
template <class V>
concept resizable_kokkos_view =
    V::rank == 1 && V::rank_dynamic == 1 && !std::is_same_v<typename V::array_layout, Kokkos::LayoutStride> &&
    !std::is_const_v<typename V::value_type>;
}  // namespace detail

// V: the View as held_t says (a reference to the caller's, or owned).
template <class V>
class kokkos_buffer {
  using view_type = std::remove_cvref_t<V>;
  using element_type = typename view_type::value_type;  // const for a View of const elements
  using staging_type =
      Kokkos::View<typename view_type::non_const_data_type, Kokkos::LayoutRight, typename view_type::memory_space>;

public:
  template <class U>
  explicit kokkos_buffer(U&& v) : h_(hold(std::forward<U>(v))) {}

  element_type* mpi_ptr() { return address(); }
  element_type const* mpi_ptr() const { return address(); }
  MPI_Count mpi_count() const noexcept { return static_cast<MPI_Count>(view().size()); }
  MPI_Datatype mpi_type() const { return mpi::datatype_of<typename view_type::non_const_value_type>(); }

  // What views::resize asks of the container under it.
  std::size_t size() const noexcept { return view().size(); }
  void resize(std::size_t n)
    requires detail::resizable_kokkos_view<view_type> && (!std::is_const_v<std::remove_reference_t<V>>)
  {
    Kokkos::resize(view(), n);
  }

  std::remove_reference_t<V>& view() noexcept {
    if constexpr (std::is_lvalue_reference_v<V>) return *h_;
    else return h_;
  }
  view_type const& view() const noexcept {
    if constexpr (std::is_lvalue_reference_v<V>) return *h_;
    else return h_;
  }

  // The View, with what MPI wrote into the staging copy unpacked into it if it was received.
  std::remove_reference_t<V>& mpi_finish(bool received) & {
    if (received) unpack();
    return view();
  }
  V mpi_finish(bool received) && {
    if (received) unpack();
    return std::forward<V>(view());
  }

private:
  // An lvalue View is held through a pointer rather than a reference, so that the buffer
  // stays assignable: iresult hands a borrowed buffer back by assigning to its std::optional.
  using holder = std::conditional_t<std::is_lvalue_reference_v<V>, std::remove_reference_t<V>*, view_type>;
  template <class U>
  static holder hold(U&& v) {
    if constexpr (std::is_lvalue_reference_v<V>) return std::addressof(v);
    else return std::forward<U>(v);
  }

  element_type* address() const {
    auto const& v = view();
    Kokkos::fence();
    staged_ = !v.span_is_contiguous();
    if (!staged_) return v.data();
    // One staging View per buffer, kept while the extents stay: a pointer handed out earlier
    // stays valid, and a buffer sent again is packed again with the View's current values.
    if (!same_extents()) {
      // Every extent, the unused ones too (1): LayoutRight takes eight and ignores those past the rank.
      staging_ = staging_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "anympi::views::kokkos staging"),
                              Kokkos::LayoutRight(v.extent(0), v.extent(1), v.extent(2), v.extent(3),
                                                  v.extent(4), v.extent(5), v.extent(6), v.extent(7)));
    }
    // Packed for a receive too: elements a shorter message leaves alone unpack to what they were.
    Kokkos::deep_copy(staging_, v);
    return staging_.data();
  }
  bool same_extents() const {
    auto const& v = view();
    if (!staging_.is_allocated() && v.size() != 0) return false;
    for (unsigned r = 0; r < view_type::rank; ++r)
      if (staging_.extent(r) != v.extent(r)) return false;
    return true;
  }
  void unpack() {
    if constexpr (!std::is_const_v<element_type>) {
      if (staged_) Kokkos::deep_copy(view(), staging_);
    }
  }

  holder h_;
  // The staging copy of a non-contiguous View, made when the address is asked for (also of a
  // const buffer, which a send may be given).
  mutable staging_type staging_;
  mutable bool staged_ = false;
};

// views::kokkos(v) or v | views::kokkos.
struct kokkos_fn {
  template <detail::kokkos_view V>
  kokkos_buffer<held_t<V>> operator()(V&& v) const {
    return kokkos_buffer<held_t<V>>(std::forward<V>(v));
  }
  template <detail::kokkos_view V>
  friend kokkos_buffer<held_t<V>> operator|(V&& v, kokkos_fn const& f) {
    return f(std::forward<V>(v));
  }
};
inline constexpr kokkos_fn kokkos{};

}  // namespace anympi::views
