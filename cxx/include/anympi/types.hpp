// Derived datatypes of C++ types, built from the types' own fields, and a pool that owns them.
//
// A type is a derivable_type when the layer can describe it field by field:
//   - an aggregate of mapped types (reflected with Boost.PFR: no trait to write), nested
//     aggregates and std::array members included;
//   - std::pair, std::tuple and std::array of mapped types;
//   - any other type whose data members are listed once, in one line:
//       template <> inline constexpr auto anympi::fields<particle> = std::tuple{&particle::x, &particle::v};
// struct_type<T>() builds the committed MPI datatype: each field at the offset it has in a
// real T (its address minus the object's, so that padding and the ABI's layout are what the
// compiler chose), resized to sizeof(T) so that arrays of T stride over the tail padding.
//
// Including this header makes every derivable_type a mapped type of the core
// (mpi::type_traits, mpi/type_map.hpp): std::vector<particle> is then a buffer like
// std::vector<double>, in the layer and in mpi:: alike, its datatype created on first use
// by default_type_pool(). Include it (or <anympi.hpp>) in every translation unit that
// communicates such a type, as for any specialization of a trait.
//
// Boost.PFR cannot reflect aggregates with base classes or C array members: list their
// fields with anympi::fields, or use std::array members.
//
// A pool of one's own instead of default_type_pool(): v | views::with_auto_pool(pool) (the
// datatype created in pool on first use) or v | views::with_pool(pool) (it must be there).
// The paper's spelling, a specialization of anympi::types::mpi_type_traits<T> deriving from
// anympi::types::struct_type<T> (or with a make() of its own), is honoured by every pool.
#pragma once

#include <mpi.hpp>
#include <anympi/views.hpp>

#include <boost/pfr.hpp>

#include <array>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeindex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace anympi {

// The primary template: no fields listed. Specialize it with a std::tuple of pointers to
// data members, in any order, for a type that is not an aggregate.
struct no_fields {};
template <class T>
inline constexpr no_fields fields{};

namespace detail {

template <class T>
inline constexpr bool is_std_array = false;
template <class E, std::size_t N>
inline constexpr bool is_std_array<std::array<E, N>> = true;
template <class T>
inline constexpr bool is_pair_or_tuple = false;
template <class A, class B>
inline constexpr bool is_pair_or_tuple<std::pair<A, B>> = true;
template <class... E>
inline constexpr bool is_pair_or_tuple<std::tuple<E...>> = true;
// The aggregates with a predefined datatype (MPI_DOUBLE_INT ...). Asking the core's
// mpi::builtin_type instead would ask mpi::type_traits, whose specialization below asks this.
template <class T>
inline constexpr bool is_value_index = false;
template <class T>
inline constexpr bool is_value_index<mpi::value_index<T>> = true;

// MPI copies bytes: every element must be trivially copyable (std::pair and std::tuple are
// not themselves, their assignment being user-provided, but their elements may be).
template <class T>
concept byte_copyable_mapped = mpi::mapped_type<T> && std::is_trivially_copyable_v<T>;

template <class T>
concept listed_fields = !std::same_as<std::remove_cvref_t<decltype(fields<T>)>, no_fields>;

// Only the types Boost.PFR can reflect are asked for their fields: PFR's own checks are hard
// errors, and this concept is evaluated for whatever is given as a buffer.
template <class T>
concept pfr_candidate = std::is_aggregate_v<T> && !std::is_array_v<T> && !std::is_union_v<T> &&
                        !std::is_empty_v<T> && !std::is_polymorphic_v<T> && std::is_standard_layout_v<T> &&
                        std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T> &&
                        !is_std_array<T> && !is_value_index<T>;

// Whether every element of T (std::tuple_element_t or boost::pfr::tuple_element_t) is mapped.
// A function, not a lambda in a concept: nvcc 13's front end rewrites such a lambda into code
// the host compiler rejects.
template <template <std::size_t, class> class element_t, class T, std::size_t... I>
constexpr bool elements_mapped(std::index_sequence<I...>) {
  return (byte_copyable_mapped<element_t<I, T>> && ...);
}

template <class T>
concept reflectable_aggregate =
    pfr_candidate<T> && (boost::pfr::tuple_size_v<T> > 0) &&
    elements_mapped<boost::pfr::tuple_element_t, T>(std::make_index_sequence<boost::pfr::tuple_size_v<T>>{});

template <class T>
concept array_of_mapped = is_std_array<T> && byte_copyable_mapped<typename T::value_type>;

template <class T>
concept pair_or_tuple_of_mapped = is_pair_or_tuple<T> && (std::tuple_size_v<T> > 0) &&
                                  elements_mapped<std::tuple_element_t, T>(std::make_index_sequence<std::tuple_size_v<T>>{});

// Calls f on each field of obj, in declaration order.
template <class T, class F>
void for_each_field(T const& obj, F&& f) {
  if constexpr (listed_fields<T>) std::apply([&](auto... m) { (f(obj.*m), ...); }, fields<T>);
  else if constexpr (is_pair_or_tuple<T>) std::apply([&](auto const&... e) { (f(e), ...); }, obj);
  else boost::pfr::for_each_field(obj, f);
}

}  // namespace detail

namespace types {
// The paper's opt-in spelling, for code written against it: a specialization of
// mpi_type_traits<T> with a static make() returning a committed mpi::datatype chooses T's
// datatype in every pool; one that derives from struct_type<T> says what anympi does for an
// aggregate without it.
template <class T>
struct mpi_type_traits {};
template <class T>
concept traits_make = requires {
  { mpi_type_traits<T>::make() } -> std::same_as<mpi::datatype>;
};
}  // namespace types

// A type whose MPI datatype struct_type<T>() derives from its fields.
template <class T>
concept derivable_type = !std::is_const_v<T> &&
                         (detail::listed_fields<T> || detail::array_of_mapped<T> ||
                          detail::pair_or_tuple_of_mapped<T> || detail::reflectable_aggregate<T>);

// A new committed datatype for T, owned by the caller. Fields of a derived type are described
// through the core's type map, so a nested aggregate appears as its own (pooled) datatype and
// a std::array member as a block of its elements.
template <derivable_type T>
mpi::datatype struct_type() {
  constexpr auto extent = static_cast<MPI_Aint>(sizeof(T));
  if constexpr (detail::array_of_mapped<T>) {
    auto const whole = mpi::datatype::contiguous(std::tuple_size_v<T>,
                                                 mpi::datatype_view(mpi::datatype_of<typename T::value_type>()));
    return mpi::datatype::resized(whole, 0, extent).commit();
  } else {
    std::vector<int> blocklengths;
    std::vector<MPI_Aint> displs;
    std::vector<MPI_Datatype> types;
    // A real object, because only the compiler knows where its fields are.
    auto const obj = std::make_unique<T>();
    auto const* base = reinterpret_cast<std::byte const*>(obj.get());
    detail::for_each_field(*obj, [&]<class F>(F const& field) {
      displs.push_back(reinterpret_cast<std::byte const*>(std::addressof(field)) - base);
      if constexpr (detail::array_of_mapped<F>) {
        blocklengths.push_back(static_cast<int>(std::tuple_size_v<F>));
        types.push_back(mpi::datatype_of<typename F::value_type>());
      } else {
        blocklengths.push_back(1);
        types.push_back(mpi::datatype_of<F>());
      }
    });
    auto const fields = mpi::datatype::struct_(blocklengths, displs, types);
    return mpi::datatype::resized(fields, 0, extent).commit();
  }
}

// Owns committed datatypes, one per C++ type, each created on the first request and freed
// with the pool (unless MPI is finalized by then: mpi::datatype skips the free). Thread-safe:
// a mutex serializes the pool, so two threads asking for the same type get the same handle,
// created once; that creation calls MPI, so other threads calling MPI meanwhile need
// MPI_THREAD_MULTIPLE, and threads that only ask the pool need MPI_THREAD_SERIALIZED. The
// mutex is recursive because deriving a type asks the pool for the types of its fields.
// Move-only; a moved-from pool is empty and unusable.
class type_pool {
public:
  type_pool() = default;

  // T's committed datatype: the predefined one for a builtin type, the user's for a type with
  // its own mpi::type_traits, and for a derivable_type the pool's, derived once.
  template <mpi::mapped_type T>
  mpi::datatype_view get() {
    if constexpr (types::traits_make<T>) return get_or_make<T>([] { return types::mpi_type_traits<T>::make(); });
    else if constexpr (derivable_type<T>) return get_or_make<T>([] { return struct_type<T>(); });
    else return mpi::datatype_view(mpi::datatype_of<T>());
  }
  // T's datatype as make() builds it (a committed mpi::datatype), the first time T is asked for.
  template <class T, std::invocable Make>
    requires std::same_as<std::invoke_result_t<Make>, mpi::datatype>
  mpi::datatype_view get(Make&& make) {
    return get_or_make<T>(std::forward<Make>(make));
  }

  // T's datatype if the pool has it (a predefined one always), without creating it.
  template <mpi::mapped_type T>
  std::optional<mpi::datatype_view> find() const {
    if constexpr (derivable_type<T> || types::traits_make<T>) {
      std::lock_guard lock(s_->mutex);
      if (auto it = s_->types.find(std::type_index(typeid(T))); it != s_->types.end()) return it->second.view();
      return std::nullopt;
    } else {
      return mpi::datatype_view(mpi::datatype_of<T>());
    }
  }

  // How many datatypes the pool owns.
  std::size_t size() const {
    std::lock_guard lock(s_->mutex);
    return s_->types.size();
  }

private:
  template <class T, class Make>
  mpi::datatype_view get_or_make(Make&& make) {
    std::lock_guard lock(s_->mutex);
    auto const key = std::type_index(typeid(T));
    if (auto it = s_->types.find(key); it != s_->types.end()) return it->second.view();
    mpi::datatype t = std::forward<Make>(make)();
    return s_->types.emplace(key, std::move(t)).first->second.view();
  }
  struct state {
    mutable std::recursive_mutex mutex;
    std::unordered_map<std::type_index, mpi::datatype> types;
  };
  std::unique_ptr<state> s_ = std::make_unique<state>();
};

namespace types {
template <class T>
struct struct_type {
  static mpi::datatype make() { return anympi::struct_type<T>(); }
};
}  // namespace types

// The pool behind the core's type map for derivable types. A function-local static: its
// types are freed at exit, or left to MPI_Finalize where that came first.
inline type_pool& default_type_pool() {
  static type_pool pool;
  return pool;
}

}  // namespace anympi

// The one hook into the core: derivable types, and types with the paper's trait, become
// mapped types.
template <class T>
  requires anympi::derivable_type<T> || anympi::types::traits_make<T>
struct mpi::type_traits<T> {
  static MPI_Datatype type() { return anympi::default_type_pool().get<T>().native(); }
};

namespace anympi::views {
namespace detail {
// The element type of a buffer: of the container under its views, or the object itself.
template <class C>
struct element_of {
  using type = std::remove_cvref_t<C>;
};
template <std::ranges::range C>
struct element_of<C> {
  using type = std::ranges::range_value_t<C>;
};
template <class B>
using element_t =
    typename element_of<std::remove_reference_t<decltype(container_of(std::declval<std::remove_reference_t<B>&>()))>>::type;
}  // namespace detail

// The datatype of the buffer's elements taken from a pool the caller owns, rather than from
// default_type_pool(): with_auto_pool creates it there on first use; with_pool requires that
// the pool has it already (pool.get<T>() or pool.get<T>(make) earlier), and fails with
// MPI_ERR_TYPE otherwise, for code that registers its types up front.
template <class B>
class with_pool_view : public view_base<B> {
public:
  template <class U>
  with_pool_view(U&& b, mpi::datatype_view t) : view_base<B>(std::forward<U>(b)), t_(t) {}
  MPI_Datatype mpi_type() const noexcept { return t_.native(); }

private:
  mpi::datatype_view t_;
};

inline auto with_auto_pool(type_pool& pool) {
  return adaptor{[&pool]<class B>(B&& b) {
    auto const t = pool.get<detail::element_t<B>>();
    return with_pool_view<held_t<B>>(std::forward<B>(b), t);
  }};
}
inline auto with_pool(type_pool const& pool) {
  return adaptor{[&pool]<class B>(B&& b) {
    using T = detail::element_t<B>;
    auto const t = pool.find<T>();
    if (!t)
      mpi::detail::fail(MPI_ERR_TYPE, "anympi::views::with_pool",
                        std::string("the pool has no datatype for ") + typeid(T).name() +
                            " (with_auto_pool creates it on first use)");
    return with_pool_view<held_t<B>>(std::forward<B>(b), *t);
  }};
}
}  // namespace anympi::views

template <class B>
inline constexpr bool mpi::enable_borrowed_buffer<anympi::views::with_pool_view<B>> = anympi::views::detail::borrowed<B>;
