// The object model shared by every MPI object kind: a non-owning view (cheap to copy, no
// lifetime semantics) and a move-only owner (frees in its destructor), both exposing the
// same operations through a per-kind interface template.
//
//   view:   explicit from a native handle; native(); comparison; is_null().
//   owner:  from_native() adopts a handle, release() gives it back, free() frees it and
//           reports errors, the destructor frees without throwing (a failing free there
//           calls std::terminate, as the paper prescribes), view() / implicit conversion to
//           the view type. Duplication is always explicit (dup()).
//
// A default-constructed owner holds the null handle, except for info and session, whose
// default constructors create the object (the paper's API); `X x{mpi::null_handle}` is then
// the owner that holds nothing (moved-from and released owners of every kind hold null).
#pragma once

#include <mpi/error.hpp>
#include <mpi/handle.hpp>

#include <cstddef>
#include <cstring>
#include <exception>
#include <string_view>
#include <type_traits>
#include <utility>

namespace mpi {

namespace detail {
// A string argument as MPI takes it, NUL-terminated: the characters of a std::string_view
// copied (on the stack when short), so that a caller passes a literal, a std::string or a view
// alike and the headers need no <string>.
class c_string {
public:
  explicit c_string(std::string_view s) : p_(s.size() < sizeof small_ ? small_ : new char[s.size() + 1]) {
    if (!s.empty()) std::memcpy(p_, s.data(), s.size());
    p_[s.size()] = '\0';
  }
  c_string(c_string const&) = delete;
  c_string& operator=(c_string const&) = delete;
  ~c_string() {
    if (p_ != small_) delete[] p_;
  }
  operator char const*() const noexcept { return p_; }

private:
  char small_[256];
  char* p_;
};
}  // namespace detail

struct null_handle_t {
  explicit null_handle_t() = default;
};
inline constexpr null_handle_t null_handle{};

}  // namespace mpi

namespace mpi::detail {

template <class Kind>
class view_base {
public:
  using mpi_handle_kind = Kind;
  using native_type = typename Kind::native_type;

  view_base() noexcept : h_(Kind::null()) {}
  explicit view_base(native_type h) noexcept : h_(h) {}

  native_type native() const noexcept { return h_; }
  native_type mpi_handle() const noexcept { return h_; }
  native_type* mpi_handle_ptr() noexcept { return &h_; }
  bool is_null() const noexcept { return h_ == Kind::null(); }
  explicit operator bool() const noexcept { return !is_null(); }

  friend bool operator==(view_base const& a, view_base const& b) noexcept { return a.h_ == b.h_; }

protected:
  native_type h_;
};

inline bool mpi_finalized() noexcept {
  int flag = 0;
  MPI_Finalized(&flag);
  return flag != 0;
}

// What an owner may remember of the object it holds, for a kind whose objects have facts
// that cannot change while they live (a communicator's size): Kind::facts, or nothing.
struct no_facts {};
template <class Kind>
struct facts_of {
  using type = no_facts;
};
template <class Kind>
  requires requires { typename Kind::facts; }
struct facts_of<Kind> {
  using type = typename Kind::facts;
};

template <class Kind, class Derived, class View>
class owner_base {
public:
  using mpi_handle_kind = Kind;
  using native_type = typename Kind::native_type;
  using view_type = View;
  using facts_type = typename facts_of<Kind>::type;

  owner_base() noexcept : h_(Kind::null()) {}
  owner_base(owner_base const&) = delete;
  owner_base& operator=(owner_base const&) = delete;
  owner_base(owner_base&& o) noexcept : h_(std::exchange(o.h_, Kind::null())), facts_(std::exchange(o.facts_, {})) {}
  owner_base& operator=(owner_base&& o) noexcept {
    if (this != &o) {
      destroy();
      h_ = std::exchange(o.h_, Kind::null());
      facts_ = std::exchange(o.facts_, {});
    }
    return *this;
  }
  ~owner_base() { destroy(); }

  // Adopts `h`: the owner frees it.
  static Derived from_native(native_type h) noexcept {
    Derived d = holding_nothing();
    static_cast<owner_base&>(d).h_ = h;
    return d;
  }
  // Gives up ownership: the caller frees the returned handle.
  [[nodiscard]] native_type release() noexcept {
    facts_ = {};
    return std::exchange(h_, Kind::null());
  }
  // Frees now, reporting errors as mpi_error; leaves the owner empty.
  void free() {
    facts_ = {};
    if (!is_null() && !Kind::is_predefined(h_)) {
      native_type h = h_;
      h_ = Kind::null();
      check(Kind::free(&h), Kind::free_name);
    }
    h_ = Kind::null();
  }

  native_type native() const noexcept { return h_; }
  native_type mpi_handle() const noexcept { return h_; }
  // The handle may be replaced through this pointer, so what was remembered of it is forgotten.
  native_type* mpi_handle_ptr() noexcept {
    facts_ = {};
    return &h_;
  }
  bool is_null() const noexcept { return h_ == Kind::null(); }
  explicit operator bool() const noexcept { return !is_null(); }
  View view() const noexcept {
    if constexpr (std::is_constructible_v<View, native_type, facts_type const&>) return View{h_, facts_};
    else return View{h_};
  }
  // What is remembered of the object held: filled in by the operations that need it, forgotten
  // whenever the handle changes (a const owner's object cannot change, so it stays true).
  facts_type& facts() const noexcept { return facts_; }
  operator View() const noexcept { return view(); }

protected:
  // For the owners whose default constructor creates the object (info, session).
  explicit owner_base(native_type h) noexcept : h_(h) {}

  void destroy() noexcept {
    facts_ = {};
    if (is_null() || Kind::is_predefined(h_)) return;
    // After MPI_Finalize nothing may be freed; the objects are gone with the library.
    if (mpi_finalized()) {
      h_ = Kind::null();
      return;
    }
    if (Kind::free(&h_) != MPI_SUCCESS) std::terminate();
    h_ = Kind::null();
  }
  native_type h_;
  // Protected as h_ is: an owner of a request stays standard-layout, as MPI_Request.
  [[no_unique_address]] mutable facts_type facts_{};

private:
  // Adopting must not create an object first (and leak it, or throw).
  static Derived holding_nothing() noexcept {
    if constexpr (std::is_constructible_v<Derived, null_handle_t>) return Derived{null_handle};
    else return Derived{};
  }
};

}  // namespace mpi::detail
