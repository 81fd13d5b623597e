// The buffer model (paper §3.1): a data buffer is anything that yields an address, a count
// and a datatype through mpi::ptr(), mpi::count() and mpi::type(); a varying buffer
// (data_buffer_v) yields per-process counts and displacements through mpi::counts() and
// mpi::displs(), and for alltoallw per-process datatypes through mpi::datatypes().
//
// Each accessor dispatches independently, in order:
//   1. mpi::buffer_traits<T>::ptr(t) / count / type / counts / displs / datatypes,
//   2. a member t.mpi_ptr() / mpi_count() / mpi_type() / mpi_counts() / mpi_displs() /
//      mpi_datatypes(),
//   3. the standard fallback: std::ranges::data for contiguous ranges, std::ranges::size
//      for sized ranges, the builtin type map for the range's value type; a single object
//      of a mapped type is a buffer of one element.
// No accessor copies, allocates or serializes.
#pragma once

#include <mpi/handle.hpp>
#include <mpi/std_parts.hpp>
#include <mpi/type_map.hpp>

#include <array>
#include <concepts>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

namespace mpi {

template <class T>
struct buffer_traits {};

namespace detail {

template <class T>
using traits_of = buffer_traits<uncvref_t<T>>;

// An accessor tries its ways in order and takes the first that applies to the buffer. Each way
// is a lambda constrained by its template head or its return type (not a requires-clause after
// the parameters, which nvcc's front end instantiates anyway), so a way that does not apply
// drops out of overload resolution instead of failing to compile.
// `applies` asks the call expression itself rather than std::invocable, whose std::invoke
// machinery (is_invocable, __invoke_result) is instantiated for every buffer type and way.
template <class Way, class Buffer>
concept applies = requires(Way const& way, Buffer& b) { way(b); };

// The index of the first way that applies (sizeof...(Way) where none does), asking no way
// after it: a fold over || would check them all, and the later ways' range concepts are the
// expensive ones. Worked out at compile time, so a call through an accessor is the way's own
// call (a recursion of functions here was five functions per accessor and buffer type for the
// compiler to optimize).
template <class Buffer, class Way, class... Rest>
constexpr std::size_t first_way() {
  if constexpr (applies<Way, Buffer>) return 0;
  else if constexpr (sizeof...(Rest) == 0) return 1;
  else return 1 + first_way<Buffer, Rest...>();
}
template <std::size_t I, class Way, class... Rest>
struct nth_way : nth_way<I - 1, Rest...> {};
template <class Way, class... Rest>
struct nth_way<0, Way, Rest...> {
  using type = Way;
};

template <class... Way>
struct accessor {
  constexpr explicit accessor(Way...) {}
  template <class Buffer, std::size_t I = first_way<std::remove_reference_t<Buffer>, Way...>()>
    requires(I < sizeof...(Way))
  constexpr decltype(auto) operator()(Buffer&& b) const {
    return typename nth_way<I, Way...>::type{}(b);
  }
};

// The standard library's contiguous containers, known by name. The range concepts a buffer
// needs (std::ranges::contiguous_range, sized_range, range_value_t) check a container's iterator
// concepts, which cost a translation unit more than a call's whole binding: about 160 M of
// g++'s instructions for std::vector<double>, 450 M for an mpi_span_v made of three vectors. For
// these containers the range concepts hold and give data(), size() and value_type, so the
// buffer model asks those directly and checks the concepts only for other ranges.
template <class T>
struct std_contiguous : std::false_type {};
template <class T, class A>
struct std_contiguous<std::vector<T, A>> : std::bool_constant<!std::is_same_v<T, bool>> {};
template <class T, std::size_t N>
struct std_contiguous<std::array<T, N>> : std::true_type {};
template <class T, std::size_t E>
struct std_contiguous<std::span<T, E>> : std::true_type {};
template <class C, class Tr, class A>
struct std_contiguous<std::basic_string<C, Tr, A>> : std::true_type {};
template <class E>
class array_ref;
template <class E>
struct std_contiguous<array_ref<E>> : std::true_type {};
template <class R>
concept std_container = std_contiguous<std::remove_cvref_t<R>>::value;

// Each concept below is "a known container, or else the range concept", decided by if
// constexpr: g++ 12 checks both sides of a disjunction in a template's constraints even when
// the first holds, which would bring back the cost this saves.
template <class R>
constexpr bool is_contiguous() {
  if constexpr (std_container<R>) return true;
  else return std::ranges::contiguous_range<R>;
}
template <class R>
constexpr bool is_contiguous_sized() {
  if constexpr (std_container<R>) return true;
  else if constexpr (std::ranges::contiguous_range<R>) return std::ranges::sized_range<R>;
  else return false;
}
template <class R>
constexpr bool is_const_sized() {
  if constexpr (std_container<R>) return true;
  else return std::ranges::sized_range<R const&>;
}
template <class R>
constexpr bool is_mapped_range() {
  if constexpr (std_container<R>) return mapped_type<typename std::remove_cvref_t<R>::value_type>;
  else if constexpr (std::ranges::range<R const&>) return mapped_type<std::ranges::range_value_t<R const&>>;
  else return false;
}

// std::ranges::contiguous_range && sized_range, and what they give, for R as std::ranges takes
// it (a reference type where constness matters).
template <class R>
concept contiguous_sized = is_contiguous_sized<R>();
template <class R>
struct range_types {};
template <class R>
  requires(!std_container<R> && std::ranges::range<R>)
struct range_types<R> {
  using value = std::ranges::range_value_t<R>;
  using element = std::remove_reference_t<std::ranges::range_reference_t<R>>;
};
template <std_container R>
struct range_types<R> {
  using value = typename std::remove_cvref_t<R>::value_type;
  using element = std::remove_pointer_t<decltype(std::declval<R&>().data())>;
};
template <class R>
using range_value_t = typename range_types<R>::value;
template <class R>
using range_element_t = typename range_types<R>::element;
template <class R>
constexpr auto* data_of(R&& r) {
  if constexpr (std_container<R>) return r.data();
  else return std::ranges::data(r);
}
template <class R>
constexpr auto size_of(R&& r) {
  if constexpr (std_container<R>) return r.size();
  else return std::ranges::size(r);
}
// A contiguous range whose elements a span of E can refer to (std::span's rule).
template <class R, class E>
concept array_of = contiguous_sized<R const&> && std::is_convertible_v<range_element_t<R const&> (*)[], E (*)[]>;
// A contiguous array the caller owns: what mpi_span_v holds for its counts and displacements.
// Not std::span, whose class and (pointer, count) constructor, with its iterator concepts, cost a
// translation unit about 150 M of g++'s instructions per element type (half of what
// bench/compile_tu.cpp's alltoallv cost); it converts to std::span<E> where one is wanted.
template <class E>
class array_ref {
public:
  using value_type = std::remove_cv_t<E>;
  array_ref(E* p, std::size_t n) noexcept : p_(p), n_(n) {}
  E* data() const noexcept { return p_; }
  std::size_t size() const noexcept { return n_; }
  bool empty() const noexcept { return n_ == 0; }
  E* begin() const noexcept { return p_; }
  E* end() const noexcept { return p_ + n_; }
  E& operator[](std::size_t i) const noexcept { return p_[i]; }

private:
  E* p_;
  std::size_t n_;
};
}  // namespace detail
}  // namespace mpi
// It refers to the caller's arrays, so std::ranges::data and the like take it as an rvalue.
namespace std::ranges {
template <class E>
inline constexpr bool enable_borrowed_range<mpi::detail::array_ref<E>> = true;
}  // namespace std::ranges
namespace mpi {
namespace detail {

template <class T>
concept single_object = mapped_type<T> && !std::ranges::range<T>;
template <class T>
concept contiguous = is_contiguous<T>();
template <class T>
concept mapped_range = is_mapped_range<T>();
template <class T>
concept const_sized_range = is_const_sized<T>();

}  // namespace detail

// Each accessor: the buffer_traits specialization, else the member, else the standard fallback.
inline constexpr detail::accessor ptr{
    [](auto& b) -> decltype(detail::traits_of<decltype(b)>::ptr(b)) { return detail::traits_of<decltype(b)>::ptr(b); },
    [](auto& b) -> decltype(b.mpi_ptr()) { return b.mpi_ptr(); },
    []<detail::contiguous R>(R& b) { return detail::data_of(b); },
    []<detail::single_object T>(T& b) { return std::addressof(b); }};

inline constexpr detail::accessor count{
    [](auto const& b) -> decltype(detail::traits_of<decltype(b)>::count(b)) { return detail::traits_of<decltype(b)>::count(b); },
    [](auto const& b) -> decltype(b.mpi_count()) { return b.mpi_count(); },
    []<detail::const_sized_range R>(R const& b) { return detail::size_of(b); },
    []<detail::single_object T>(T const&) { return 1; }};

inline constexpr detail::accessor type{
    [](auto const& b) -> decltype(detail::traits_of<decltype(b)>::type(b)) { return detail::traits_of<decltype(b)>::type(b); },
    [](auto const& b) -> decltype(b.mpi_type()) { return b.mpi_type(); },
    []<detail::mapped_range R>(R const&) { return datatype_of<detail::range_value_t<R const&>>(); },
    []<detail::single_object T>(T const&) { return datatype_of<T>(); }};

inline constexpr detail::accessor counts{
    [](auto const& b) -> decltype(detail::traits_of<decltype(b)>::counts(b)) { return detail::traits_of<decltype(b)>::counts(b); },
    [](auto const& b) -> decltype(b.mpi_counts()) { return b.mpi_counts(); }};

inline constexpr detail::accessor displs{
    [](auto const& b) -> decltype(detail::traits_of<decltype(b)>::displs(b)) { return detail::traits_of<decltype(b)>::displs(b); },
    [](auto const& b) -> decltype(b.mpi_displs()) { return b.mpi_displs(); }};

inline constexpr detail::accessor datatypes{
    [](auto const& b) -> decltype(detail::traits_of<decltype(b)>::datatypes(b)) { return detail::traits_of<decltype(b)>::datatypes(b); },
    [](auto const& b) -> decltype(b.mpi_datatypes()) { return b.mpi_datatypes(); }};

namespace detail {
template <class P>
concept buffer_pointer = std::is_pointer_v<P> && (std::is_object_v<std::remove_pointer_t<P>> ||
                                                  std::is_void_v<std::remove_pointer_t<P>>);
// An integer that counts: what std::in_range takes (neither bool nor a character type).
template <class N>
concept count_like = std::integral<uncvref_t<N>> && !std::same_as<uncvref_t<N>, bool> &&
                     !std::same_as<uncvref_t<N>, char> && !std::same_as<uncvref_t<N>, wchar_t> &&
                     !std::same_as<uncvref_t<N>, char8_t> && !std::same_as<uncvref_t<N>, char16_t> &&
                     !std::same_as<uncvref_t<N>, char32_t>;
template <class D>
concept datatype_like = std::same_as<uncvref_t<D>, MPI_Datatype> || datatype_handle<uncvref_t<D>>;
template <class R>
concept datatype_range = contiguous_sized<R> && std::same_as<std::remove_cv_t<range_value_t<R>>, MPI_Datatype>;
}  // namespace detail

// A contiguous, sized range of integers: per-process counts or displacements.
template <class R>
concept cnt_range = detail::contiguous_sized<R> && detail::count_like<detail::range_value_t<R>>;

template <class T>
concept data_buffer = requires(T&& t, T const& ct) {
  { mpi::ptr(t) } -> detail::buffer_pointer;
  { mpi::count(ct) } -> detail::count_like;
  { mpi::type(ct) } -> detail::datatype_like;
};
template <class T>
concept send_buffer = data_buffer<T> && requires(T&& t) {
  { mpi::ptr(t) } -> std::convertible_to<void const*>;
};
template <class T>
concept recv_buffer = data_buffer<T> && requires(T&& t) {
  { mpi::ptr(t) } -> std::convertible_to<void*>;
};

template <class T>
concept data_buffer_v = requires(T&& t, T const& ct) {
  { mpi::ptr(t) } -> detail::buffer_pointer;
  { mpi::type(ct) } -> detail::datatype_like;
  { mpi::counts(ct) } -> cnt_range;
  { mpi::displs(ct) } -> cnt_range;
};
template <class T>
concept send_buffer_v = data_buffer_v<T> && requires(T&& t) {
  { mpi::ptr(t) } -> std::convertible_to<void const*>;
};
template <class T>
concept recv_buffer_v = data_buffer_v<T> && requires(T&& t) {
  { mpi::ptr(t) } -> std::convertible_to<void*>;
};

// alltoallw: per-process datatypes too (displacements in bytes).
template <class T>
concept data_buffer_w = requires(T&& t, T const& ct) {
  { mpi::ptr(t) } -> detail::buffer_pointer;
  { mpi::counts(ct) } -> cnt_range;
  { mpi::displs(ct) } -> cnt_range;
  { mpi::datatypes(ct) } -> detail::datatype_range;
};
template <class T>
concept send_buffer_w = data_buffer_w<T> && requires(T&& t) {
  { mpi::ptr(t) } -> std::convertible_to<void const*>;
};
template <class T>
concept recv_buffer_w = data_buffer_w<T> && requires(T&& t) {
  { mpi::ptr(t) } -> std::convertible_to<void*>;
};

// A nonblocking (i*) or persistent (*_init, psend_init, precv_init) call gives MPI the
// buffer's address and returns; MPI reads or writes the buffer until the operation completes,
// long after a temporary passed to the call has been destroyed. Nothing in the core could own
// such a temporary (the anympi:: layer will), so these calls take a buffer argument only if
// its storage outlives the call: an lvalue (the caller's object), or an rvalue of a type that
// refers to storage it does not own, whose destruction leaves that storage in place.
//
// Such view types are the borrowed ranges (std::span, std::string_view, std::ranges::subrange,
// views of lvalues: std::ranges::enable_borrowed_range) and the core's mpi_span, mpi_span_v,
// mpi_span_w and in_place_t. A type cannot say by itself that it owns nothing (std::array
// and a struct with an array member hold their elements inside), so a view type of your own
// says so, as for std::ranges:
//   template <> inline constexpr bool mpi::enable_borrowed_buffer<my_view> = true;
template <class T>
inline constexpr bool enable_borrowed_buffer = std::ranges::enable_borrowed_range<T>;

// B as a forwarding reference deduces it: T& for an lvalue, T for an rvalue.
template <class B>
concept buffer_outlives_call = std::is_lvalue_reference_v<B> || enable_borrowed_buffer<std::remove_cvref_t<B>>;
// Every buffer argument of a call (the collectives' send and receive buffers).
template <class... B>
concept buffers_outlive_call = (buffer_outlives_call<B> && ...);

namespace detail {
template <class D>
MPI_Datatype to_datatype(D const& d) {
  if constexpr (std::same_as<D, MPI_Datatype>) return d;
  else return mpi::handle(d);
}
template <class B>
MPI_Datatype type_of(B const& b) {
  return to_datatype(mpi::type(b));
}
}  // namespace detail

// A buffer given explicitly as address, count and datatype (T may be void / const void).
template <class T>
class mpi_span {
public:
  using element_type = T;
  mpi_span(T* p, MPI_Count n, MPI_Datatype t) noexcept : p_(p), n_(n), t_(t) {}
  template <datatype_handle D>
    requires(!std::same_as<D, MPI_Datatype>)
  mpi_span(T* p, MPI_Count n, D const& t) noexcept : p_(p), n_(n), t_(mpi::handle(t)) {}
  mpi_span(T* p, MPI_Count n) noexcept
    requires mapped_type<T>
      : p_(p), n_(n), t_(datatype_of<T>()) {}
  template <class R>
    requires detail::contiguous_sized<R> && mapped_type<detail::range_value_t<R>> &&
             std::convertible_to<detail::range_element_t<R>*, T*>
  explicit mpi_span(R&& r)
      : p_(detail::data_of(r)),
        n_(static_cast<MPI_Count>(detail::size_of(r))),
        t_(datatype_of<detail::range_value_t<R>>()) {}

  T* mpi_ptr() const noexcept { return p_; }
  MPI_Count mpi_count() const noexcept { return n_; }
  MPI_Datatype mpi_type() const noexcept { return t_; }

private:
  T* p_;
  MPI_Count n_;
  MPI_Datatype t_;
};

// A varying buffer: address, per-process counts and displacements (in elements of the
// datatype's extent), datatype. Counts/displacements are int by default (what MPI's
// int-count procedures take without conversion); use MPI_Count/MPI_Aint for large counts.
template <class T, class Count = int, class Displ = Count>
class mpi_span_v {
public:
  // The counts and displacements: any contiguous arrays a std::span<Count const> /
  // std::span<Displ const> could refer to, taken without std::span's own (costly) range checks
  // and held as detail::array_ref (data(), size(), begin(), end(), [], converts to std::span).
  template <detail::array_of<Count const> C, detail::array_of<Displ const> D>
  mpi_span_v(T* p, C const& counts, D const& displs, MPI_Datatype t) noexcept
      : p_(p), counts_(detail::data_of(counts), detail::size_of(counts)),
        displs_(detail::data_of(displs), detail::size_of(displs)), t_(t) {}
  template <detail::array_of<Count const> C, detail::array_of<Displ const> D>
    requires mapped_type<T>
  mpi_span_v(T* p, C const& counts, D const& displs) noexcept
      : p_(p), counts_(detail::data_of(counts), detail::size_of(counts)),
        displs_(detail::data_of(displs), detail::size_of(displs)), t_(datatype_of<T>()) {}
  template <class R, detail::array_of<Count const> C, detail::array_of<Displ const> D>
    requires detail::contiguous<R> && mapped_type<detail::range_value_t<R>> &&
             std::convertible_to<detail::range_element_t<R>*, T*>
  mpi_span_v(R&& r, C const& counts, D const& displs)
      : p_(detail::data_of(r)), counts_(detail::data_of(counts), detail::size_of(counts)),
        displs_(detail::data_of(displs), detail::size_of(displs)), t_(datatype_of<detail::range_value_t<R>>()) {}

  T* mpi_ptr() const noexcept { return p_; }
  detail::array_ref<Count const> mpi_counts() const noexcept { return counts_; }
  detail::array_ref<Displ const> mpi_displs() const noexcept { return displs_; }
  MPI_Datatype mpi_type() const noexcept { return t_; }

private:
  T* p_;
  detail::array_ref<Count const> counts_;
  detail::array_ref<Displ const> displs_;
  MPI_Datatype t_;
};

template <detail::contiguous R, class C, class D>
mpi_span_v(R&&, C const&, D const&)
    -> mpi_span_v<detail::range_element_t<R>, detail::range_value_t<C const&>, detail::range_value_t<D const&>>;

// alltoallw buffer: per-process counts, byte displacements and datatypes.
template <class T, class Count = int, class Displ = Count>
class mpi_span_w {
public:
  mpi_span_w(T* p, std::span<Count const> counts, std::span<Displ const> displs,
             std::span<MPI_Datatype const> types) noexcept
      : p_(p), counts_(counts), displs_(displs), types_(types) {}
  T* mpi_ptr() const noexcept { return p_; }
  std::span<Count const> mpi_counts() const noexcept { return counts_; }
  std::span<Displ const> mpi_displs() const noexcept { return displs_; }
  std::span<MPI_Datatype const> mpi_datatypes() const noexcept { return types_; }

private:
  T* p_;
  std::span<Count const> counts_;
  std::span<Displ const> displs_;
  std::span<MPI_Datatype const> types_;
};

// MPI_IN_PLACE as a send buffer of the collectives that allow it.
struct in_place_t {
  void* mpi_ptr() const noexcept { return MPI_IN_PLACE; }
  int mpi_count() const noexcept { return 0; }
  MPI_Datatype mpi_type() const noexcept { return MPI_DATATYPE_NULL; }
};
inline constexpr in_place_t in_place{};

// The core's views refer to the caller's storage (MPI_IN_PLACE and MPI_BOTTOM to none).
template <class T>
inline constexpr bool enable_borrowed_buffer<mpi_span<T>> = true;
template <class T, class Count, class Displ>
inline constexpr bool enable_borrowed_buffer<mpi_span_v<T, Count, Displ>> = true;
template <class T, class Count, class Displ>
inline constexpr bool enable_borrowed_buffer<mpi_span_w<T, Count, Displ>> = true;
template <>
inline constexpr bool enable_borrowed_buffer<in_place_t> = true;

// A buffer addressed absolutely through MPI_BOTTOM (the datatype carries the addresses).
template <datatype_handle D>
mpi_span<void> bottom(MPI_Count count, D const& type) {
  return mpi_span<void>(MPI_BOTTOM, count, mpi::handle(type));
}

namespace detail {
template <class B>
inline constexpr bool is_in_place = std::same_as<uncvref_t<B>, in_place_t>;
template <class S>
concept send_buffer_v_or_in_place = send_buffer_v<S> || is_in_place<S>;
}

}  // namespace mpi
