// Counts and displacements are MPI_Count / MPI_Aint wide in the C++ API. A call goes to the
// int-count C binding when every count fits in int, to the MPI-4.0 "_c" binding otherwise;
// where the MPI underneath has no "_c" bindings, a count that does not fit is reported as
// MPI_ERR_COUNT. Nothing is ever narrowed silently.
#pragma once

#include <mpi/buffer.hpp>
#include <mpi/error.hpp>

#include <climits>
#include <limits>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace mpi::detail {

template <class N>
MPI_Count to_count(N n, char const* function) {
  using U = std::remove_cvref_t<N>;
  if constexpr (std::is_signed_v<U>) {
    if (n < 0) fail(MPI_ERR_COUNT, function, "negative count " + std::to_string(n));
  }
  if constexpr (std::numeric_limits<U>::max() > std::numeric_limits<MPI_Count>::max()) {
    if (n > static_cast<U>(std::numeric_limits<MPI_Count>::max()))
      fail(MPI_ERR_COUNT, function, "count " + std::to_string(n) + " exceeds MPI_Count");
  }
  return static_cast<MPI_Count>(n);
}

template <class B>
MPI_Count count_of(B const& b, char const* function) {
  return to_count(mpi::count(b), function);
}

constexpr bool fits_int(MPI_Count n) noexcept { return n >= INT_MIN && n <= INT_MAX; }
template <class... N>
constexpr bool all_fit_int(N... n) noexcept {
  return (fits_int(static_cast<MPI_Count>(n)) && ...);
}

template <class R>
bool range_fits_int(R const& r) {
  for (auto v : r)
    if (!fits_int(static_cast<MPI_Count>(v))) return false;
  return true;
}

// Per-process counts or displacements, handed to MPI as int* or MPI_Count*/MPI_Aint*.
// When the caller's element type is already the one the binding takes, the caller's array
// is passed as is; otherwise (blocking calls only) it is converted once into storage owned
// by this object, which lives for the duration of the call.
template <class R>
class int_array {
public:
  using value_type = std::remove_cv_t<std::ranges::range_value_t<R const&>>;
  int_array(R const& r, char const* function) : r_(r), function_(function) {}

  bool fits_int() const { return range_fits_int(r_); }
  std::size_t size() const { return std::ranges::size(r_); }
  template <class T>
  static constexpr bool exact = std::is_same_v<value_type, T>;

  // `persistent`: the array must outlive the call (nonblocking / persistent operations), so
  // it cannot be a converted copy.
  template <class T>
  T const* get(bool persistent) {
    if constexpr (exact<T>) {
      return std::ranges::data(r_);
    } else {
      if (persistent)
        fail(MPI_ERR_ARG, function_,
             "nonblocking and persistent operations need count/displacement arrays of the "
             "element type the MPI binding takes (int, or MPI_Count/MPI_Aint for large counts)");
      auto& store = storage<T>();
      store.clear();
      store.reserve(size());
      for (auto v : r_) {
        if (std::cmp_less(v, std::numeric_limits<T>::min()) || std::cmp_greater(v, std::numeric_limits<T>::max()))
          fail(MPI_ERR_COUNT, function_, "count/displacement " + std::to_string(v) + " does not fit");
        store.push_back(static_cast<T>(v));
      }
      return store.data();
    }
  }

private:
  template <class T>
  std::vector<T>& storage() {
    if constexpr (std::is_same_v<T, int>) return ints_;
    else if constexpr (std::is_same_v<T, MPI_Count>) return counts_;
    else return aints_;
  }
  R const& r_;
  char const* function_;
  std::vector<int> ints_;
  std::vector<MPI_Count> counts_;
  std::vector<MPI_Aint> aints_;
};

template <class R>
int_array(R const&, char const*) -> int_array<R>;

}  // namespace mpi::detail

// MPI_CXX_CALL_COUNTED(fits, MPI_Xxx, args...) calls MPI_Xxx with cnt_t = int, disp_t = int
// when `fits`, else MPI_Xxx_c with cnt_t = MPI_Count, disp_t = MPI_Aint; the arguments
// are written once, in terms of cnt_t / disp_t.
#if MPI_CXX_HAS_LARGE_COUNT
#define MPI_CXX_CALL_COUNTED(fits, fn, ...)                     \
  do {                                                          \
    if (fits) {                                                 \
      [[maybe_unused]] constexpr bool large_ = false;           \
      using cnt_t [[maybe_unused]] = int;                                        \
      using disp_t [[maybe_unused]] = int;                                       \
      ::mpi::detail::check(fn(__VA_ARGS__), #fn);               \
    } else {                                                    \
      [[maybe_unused]] constexpr bool large_ = true;            \
      using cnt_t [[maybe_unused]] = MPI_Count;                                  \
      using disp_t [[maybe_unused]] = MPI_Aint;                                  \
      ::mpi::detail::check(fn##_c(__VA_ARGS__), #fn "_c");      \
    }                                                           \
  } while (0)
#else
#define MPI_CXX_CALL_COUNTED(fits, fn, ...)                                              \
  do {                                                                                   \
    if (fits) {                                                                          \
      [[maybe_unused]] constexpr bool large_ = false;                                    \
      using cnt_t [[maybe_unused]] = int;                                                                 \
      using disp_t [[maybe_unused]] = int;                                                                \
      ::mpi::detail::check(fn(__VA_ARGS__), #fn);                                        \
    } else {                                                                             \
      ::mpi::detail::fail(MPI_ERR_COUNT, #fn,                                            \
                          "a count exceeds INT_MAX and this MPI has no large-count (_c) " \
                          "bindings");                                                   \
    }                                                                                    \
  } while (0)
#endif
