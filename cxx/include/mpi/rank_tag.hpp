// Ranks and tags: any integer type (range-checked, never narrowed silently), enumerations
// as tags, and customization points for user representations:
//   mpi::rank_traits<T>::rank(t) or a member t.mpi_rank();  mpi::tag_traits<T>::tag(t) or t.mpi_tag().
#pragma once

#include <mpi/error.hpp>
#include <mpi/handle.hpp>

#include <concepts>
#include <type_traits>
#include <utility>

namespace mpi {

template <class T>
struct rank_traits {};
template <class T>
struct tag_traits {};

inline constexpr int any_source = MPI_ANY_SOURCE;
inline constexpr int any_tag = MPI_ANY_TAG;
inline constexpr int proc_null = MPI_PROC_NULL;
inline constexpr int root = MPI_ROOT;  // the root's own rank argument in intercomm collectives
inline constexpr int undefined = MPI_UNDEFINED;

namespace detail {

template <class T>
concept plain_integer = std::integral<T> && !std::same_as<T, bool>;

template <class I>
int checked_int(I v, int error_class, char const* what) {
  if (!std::in_range<int>(v)) fail(error_class, what, error_text{} << v << " does not fit in int");
  return static_cast<int>(v);
}

struct rank_fn {
  template <class T>
    requires requires(T const& t) { rank_traits<uncvref_t<T>>::rank(t); } ||
             requires(T const& t) { t.mpi_rank(); } || plain_integer<uncvref_t<T>>
  int operator()(T const& t) const {
    if constexpr (requires { rank_traits<uncvref_t<T>>::rank(t); }) return rank_traits<uncvref_t<T>>::rank(t);
    else if constexpr (requires { t.mpi_rank(); }) return t.mpi_rank();
    else return checked_int(t, MPI_ERR_RANK, "rank");
  }
};

struct tag_fn {
  template <class T>
    requires requires(T const& t) { tag_traits<uncvref_t<T>>::tag(t); } ||
             requires(T const& t) { t.mpi_tag(); } || plain_integer<uncvref_t<T>> ||
             std::is_enum_v<uncvref_t<T>>
  int operator()(T const& t) const {
    if constexpr (requires { tag_traits<uncvref_t<T>>::tag(t); }) return tag_traits<uncvref_t<T>>::tag(t);
    else if constexpr (requires { t.mpi_tag(); }) return t.mpi_tag();
    else if constexpr (std::is_enum_v<uncvref_t<T>>)
      return checked_int(static_cast<std::underlying_type_t<uncvref_t<T>>>(t), MPI_ERR_TAG, "tag");
    else return checked_int(t, MPI_ERR_TAG, "tag");
  }
};

}  // namespace detail

inline constexpr detail::rank_fn to_rank{};
inline constexpr detail::tag_fn to_tag{};

template <class T>
concept rank_like = requires(T const& t) {
  { mpi::to_rank(t) } -> std::same_as<int>;
};
template <class T>
concept tag_like = requires(T const& t) {
  { mpi::to_tag(t) } -> std::same_as<int>;
};

}  // namespace mpi
