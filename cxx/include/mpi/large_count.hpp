// Counts and displacements are MPI_Count / MPI_Aint wide in the C++ API. A call goes to the
// int-count C binding when every count fits in int, to the MPI-4.0 "_c" binding otherwise;
// where the MPI underneath has no "_c" bindings, a count that does not fit is reported as
// MPI_ERR_COUNT. Nothing is ever narrowed silently.
//
// Each pair of C bindings is one value, detail::counted_fn<&MPI_Xxx, &MPI_Xxx_c> (made by
// MPI_CXX_COUNTED_FN). detail::call_with picks the binding and passes it the arguments; a
// counted argument (a count, a buffer's count, a count array) converts itself to that
// binding's types, so every operation writes its argument list once for both bindings.
#pragma once

#include <mpi/buffer.hpp>
#include <mpi/error.hpp>
#include <mpi/rank_tag.hpp>
#include <mpi/std_parts.hpp>

#include <climits>
#include <concepts>
#include <span>
#include <type_traits>
#include <utility>

namespace mpi::detail {

// A count MPI_Count cannot hold (negative, or beyond its range): the error, out of line.
template <class N>
MPI_CXX_COLD [[noreturn]] void bad_count(N n, char const* function) {
  if (std::cmp_less(n, 0)) fail(MPI_ERR_COUNT, function, error_text{} << "negative count " << n);
  fail(MPI_ERR_COUNT, function, error_text{} << "count " << n << " exceeds MPI_Count");
}

template <class N>
MPI_CXX_ALWAYS_INLINE MPI_Count to_count(N n, char const* function) {
  using U = std::remove_cvref_t<N>;
  if (std::cmp_less(n, 0) || !std::in_range<MPI_Count>(n)) [[unlikely]]
    bad_count<U>(n, function);
  return static_cast<MPI_Count>(n);
}

template <class B>
MPI_CXX_ALWAYS_INLINE MPI_Count count_of(B const& b, char const* function) {
  return to_count(mpi::count(b), function);
}

// The length of an array argument as the int MPI takes (MPI_ERR_COUNT past INT_MAX).
template <class R>
int range_size(R const& r, char const* fn) {
  return checked_int(size_of(r), MPI_ERR_COUNT, fn);
}

template <class R>
bool range_fits_int(R const& r) {
  for (auto v : r)
    if (!std::in_range<int>(v)) return false;
  return true;
}

// Per-process counts or displacements, handed to MPI as int* (Narrow) or MPI_Count* /
// MPI_Aint* (Wide). When the caller's element type is already the one the binding takes,
// the caller's array is passed as is; otherwise (blocking calls only) it is converted once
// into storage owned by this object, which lives for the duration of the call. It is also
// a counted argument (see call_with): it converts to the Narrow or the Wide array.
template <class R, class Wide = MPI_Count, class Narrow = int>
class int_array {
public:
  using value_type = std::remove_cv_t<range_value_t<R const&>>;
  // `keep`: the array must outlive the call (nonblocking / persistent operations), so it
  // cannot be a converted copy.
  int_array(R const& r, char const* function, bool keep = false) : r_(r), function_(function), keep_(keep) {}

  std::size_t size() const { return size_of(r_); }
  template <class T>
  static constexpr bool exact = std::is_same_v<value_type, T>;
  // Whether the int binding serves by the element type alone (int counts): see call_with.
  static constexpr bool always_fits = std::is_same_v<Narrow, Wide> || (std::is_same_v<Narrow, int> && exact<int>);

  template <class T>
  T const* get(bool persistent) {
    if constexpr (exact<T>) {
      return data_of(r_);
    } else {
      if (persistent)
        fail(MPI_ERR_ARG, function_,
             "nonblocking and persistent operations need count/displacement arrays of the "
             "element type the MPI binding takes (int, or MPI_Count/MPI_Aint for large counts)");
      auto& store = storage<T>();
      delete[] store.p;
      store.p = new T[size()];
      T* out = store.p;
      for (auto v : r_) {
        if (!std::in_range<T>(v))
          fail(MPI_ERR_COUNT, function_, error_text{} << "count/displacement " << v << " does not fit");
        *out++ = static_cast<T>(v);
      }
      return store.p;
    }
  }

  // The int binding serves when the values fit, unless the array must be passed as is
  // and is already of the wide type. Asked only where the element type does not decide
  // (always_fits; see arg_fits).
  bool fits() const { return range_fits_int(r_) && !(keep_ && !exact<Narrow> && exact<Wide>); }
  // The array as the binding takes it.
  template <class T>
    requires(std::is_same_v<T, Narrow> || std::is_same_v<T, Wide>)
  MPI_CXX_ALWAYS_INLINE operator T const*() {
    return get<T>(keep_);
  }

private:
  // Storage only for a type the caller's array is not of, and an owned array rather than a
  // std::vector, whose code is compiled per element type in every translation unit that makes
  // one, mostly for storage that calls with int counts never use.
  struct no_storage {};
  template <class T>
  struct copy {
    T* p = nullptr;
    copy() = default;
    copy(copy const&) = delete;
    copy& operator=(copy const&) = delete;
    ~copy() { delete[] p; }
  };
  template <class T>
  using storage_for = std::conditional_t<exact<T>, no_storage, copy<T>>;
  template <class T>
  copy<T>& storage() {
    if constexpr (std::is_same_v<T, Narrow>) return narrow_;
    else return wide_;
  }
  R const& r_;
  char const* function_;
  bool keep_;
  [[no_unique_address]] storage_for<Narrow> narrow_;
  [[no_unique_address]] storage_for<Wide> wide_;
};

template <class R>
int_array(R const&, char const*) -> int_array<R>;
template <class R>
int_array(R const&, char const*, bool) -> int_array<R>;

// --- Calling an int-count binding or its _c twin ---------------------------------------

// One MPI procedure and its large-count twin: Int is &MPI_Xxx, Large is &MPI_Xxx_c, or
// nullptr where the MPI has no _c form; Int is nullptr where the MPI lacks the procedure
// altogether (made by the MPI_CXX_*_FN macros below).
template <auto Int, auto Large>
struct counted_fn {
  char const* name;
  char const* name_c;
  static constexpr auto int_fn = Int;
};

// A counted argument says whether the int binding serves it (fits()) and converts itself to
// what either binding takes at its place: an int or an MPI_Count (MPI_Aint), an int const* or
// an MPI_Count const* (MPI_Aint const*). So the arguments reach either binding as they are, in
// one call, and the compiler has no per-argument function to optimize: an argument's value
// built in each binding's types by a function of its own, or handed on through continuations,
// was an eighth of what compiling bench/compile_tu.cpp's four calls cost.
template <class A>
concept counted_arg = requires(A& a) {
  { a.fits() } -> std::convertible_to<bool>;
};
// A counted argument that says, by a static always_fits, that its type alone decides for the
// int binding (int count arrays); other arguments are not counted and always fit.
template <class A>
constexpr bool fits_by_type() {
  if constexpr (!counted_arg<A>) return true;
  else if constexpr (requires { A::always_fits; }) return A::always_fits;
  else return false;
}
template <class A>
MPI_CXX_ALWAYS_INLINE bool arg_fits(A& a) {
  if constexpr (fits_by_type<A>()) return true;
  else return a.fits();
}

// Calls the binding of `f` that every counted argument fits: the int binding when all fit,
// else the _c binding. Where the arguments' types say the int binding serves, the _c call is
// not compiled.
template <auto Int, auto Large, class... A>
MPI_CXX_ALWAYS_INLINE void call_with(counted_fn<Int, Large> const& f, A&&... a) {
  if constexpr (std::is_null_pointer_v<decltype(Int)>) {
    unsupported(f.name);
  } else if constexpr ((fits_by_type<std::remove_cvref_t<A>>() && ...)) {
    check(Int(a...), f.name);
  } else if ((arg_fits(a) && ...)) {
    check(Int(a...), f.name);
  } else if constexpr (std::is_null_pointer_v<decltype(Large)>) {
    fail(MPI_ERR_COUNT, f.name,
         "a count does not fit in int (or a count array is of the large-count type) and this MPI "
         "has no large-count (_c) bindings");
  } else {
    check(Large(a...), f.name_c);
  }
}

// A single count.
struct counted {
  MPI_Count n;
  bool fits() const { return std::in_range<int>(n); }
  template <std::integral T>
  MPI_CXX_ALWAYS_INLINE operator T() const {
    return static_cast<T>(n);
  }
};

// The count of a buffer (mpi::ptr(b), count_arg(b, fn), type_of(b) are its three arguments),
// as the buffer gives it (a vector's size_t): whether the int binding serves is one compare
// on it, and its conversion to MPI_Count, with the check of its range, is made only where the
// _c binding is taken.
template <class N>
struct buffer_count {
  N n;
  char const* function;
  bool fits() const { return !std::cmp_less(n, 0) && std::cmp_less_equal(n, INT_MAX); }
  template <std::integral T>
  MPI_CXX_ALWAYS_INLINE operator T() const {
    if constexpr (std::is_same_v<T, int>) return static_cast<int>(n);
    else return static_cast<T>(to_count(n, function));
  }
};
template <class B>
MPI_CXX_ALWAYS_INLINE auto count_arg(B const& b, char const* function) {
  return buffer_count<std::remove_cvref_t<decltype(mpi::count(b))>>{mpi::count(b), function};
}

// Parameter I of the C binding Fn (as declared, and with pointer and const removed): lets
// one body serve bindings that differ only in a parameter's type.
template <std::size_t I, class P, class... Rest>
struct nth_param : nth_param<I - 1, Rest...> {};
template <class P, class... Rest>
struct nth_param<0, P, Rest...> {
  using type = P;
};
template <class F, std::size_t I>
struct fn_param;
template <class R, class... P, std::size_t I>
struct fn_param<R (*)(P...), I> : nth_param<I, P...> {};
template <class R, class... P, std::size_t I>
struct fn_param<R (*)(P...) noexcept, I> : nth_param<I, P...> {};
template <auto Fn, std::size_t I>
using param_decl_t = typename fn_param<std::remove_cv_t<decltype(Fn)>, I>::type;
template <auto Fn, std::size_t I>
using param_t = std::remove_cv_t<std::remove_pointer_t<param_decl_t<Fn, I>>>;

}  // namespace mpi::detail

// The counted_fn of MPI_Xxx: with its _c twin where the MPI has large-count bindings.
#if MPI_CXX_HAS_LARGE_COUNT
#define MPI_CXX_COUNTED_FN(fn) ::mpi::detail::counted_fn<&fn, &fn##_c>{#fn, #fn "_c"}
#else
#define MPI_CXX_COUNTED_FN(fn) ::mpi::detail::counted_fn<&fn, nullptr>{#fn, #fn "_c"}
#endif
// A procedure without a _c twin in any MPI (no counts: barrier).
#define MPI_CXX_UNCOUNTED_FN(fn) ::mpi::detail::counted_fn<&fn, nullptr>{#fn, #fn}
// A procedure the MPI underneath does not declare: calling it throws mpi_error with class
// MPI_ERR_UNSUPPORTED_OPERATION naming it.
#define MPI_CXX_MISSING_FN(fn) ::mpi::detail::counted_fn<nullptr, nullptr>{#fn, #fn}

