// iresult: the result of a nonblocking operation of the layer, which owns the buffers it was
// given as rvalues until the operation completes.
//
// - A buffer given as an rvalue is moved into the iresult and is out of reach until wait()
//   (or a successful test()) hands it back by value. It lives on the heap, so that moving the
//   iresult never moves storage MPI is reading or writing (a std::array, a short std::string).
// - A buffer given as an lvalue is borrowed: the caller must keep it alive, and leave it
//   alone, until the operation completes; wait() then returns nothing for it.
// - Moving an iresult transfers the request with the buffers; the moved-from iresult is
//   empty. An empty iresult (moved from, or already handed back) has nothing to wait for:
//   wait() returns at once, a value-initialized buffer where one would be owned (or throws
//   std::logic_error if that type has no default constructor, as a view of an rvalue), and
//   test() reports it complete. It never waits on a request twice.
// - Destroying (or assigning over) a pending iresult waits for the operation, as std::jthread
//   joins: an owned buffer is never freed while MPI may still touch it. An error in that wait
//   cannot leave a destructor; it is dropped (call wait() to see it).
// - A finishing_buffer (views::deserialize<T>(), a strided views::kokkos) is finished when the
//   operation completes, as the blocking wrappers finish theirs: wait() hands back what it
//   yields (the decoded object, the View), or, where that is the caller's own object, decodes or
//   unpacks into it and returns nothing.
// - A receive whose count comes from the message (irecv of views::resize or
//   views::deserialize<T>()) matches its message when it is first completed, tested or waited
//   for (MPI_Improbe / MPI_Mprobe), not when irecv returns: it is then received (MPI_Imrecv)
//   with the count the message has. Two such receives of one source and tag take the
//   messages in the order in which they are first tested or waited for. Until then no receive
//   is posted: a blocking send that counts on one (to this process, or around a ring whose
//   processes all send before they wait) may block for good; send such messages nonblocking.
#pragma once

#include <anympi/buffer.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace anympi {

namespace detail {
// What a wrapper's start step returns where MPI does not write the handed-back buffer on every
// process: a send, a bcast's root, a rooted gather or reduce away from its root. (A start step
// that returns only the request receives into it.)
struct started {
  mpi::request request;
  bool received;
};

// The pending part of a receive whose count comes from the message it matches (see above).
struct match_later {
  int source;
  int tag;
  MPI_Comm comm;
  bool matched = false;

  // Matches a message (waiting for one where `block`) and starts its receive into buf; whether
  // the receive has started.
  template <class B>
  bool start(B& buf, mpi::request& req, bool block) {
    if (matched) return true;
    mpi::status st;
    std::optional<mpi::message> msg;
    if (block) msg = mpi::mprobe(source, tag, comm, st);
    else msg = mpi::improbe(source, tag, comm, st);
    if (!msg) return false;
    buf.mpi_set_count(st.count(mpi::detail::type_of(buf)));
    req = mpi::imrecv(buf, *msg);
    return matched = true;
  }
};

// What wait() hands back for a buffer held as R: the buffer or what it finishes into, nothing
// where that is the caller's (borrowed, or a view over the caller's object).
template <class R>
using handed_back_t =
    std::conditional_t<std::is_lvalue_reference_v<R> || std::is_lvalue_reference_v<result_t<R>>, void, result_t<R>>;
}  // namespace detail

// R: the buffer wait() hands back (the receive buffer; the send buffer of a send), Keep: other
// buffers the operation uses, kept until it completes. Each as a forwarding reference deduces
// it: T& (borrowed) or T (owned).
template <class R, class... Keep>
class iresult {
  using payload = std::tuple<held_t<R>, held_t<Keep>...>;
  static constexpr bool owns = !std::is_lvalue_reference_v<R> || (!std::is_lvalue_reference_v<Keep> || ...);
  // References alone can stay in place; owned buffers must not move with the iresult.
  using storage = std::conditional_t<owns, std::unique_ptr<payload>, std::optional<payload>>;
  static constexpr bool matches_later = (std::is_same_v<Keep, detail::match_later> || ...);

public:
  using value_type = detail::handed_back_t<R>;

  iresult() noexcept = default;
  // For the layer's wrappers: holds the buffers, then `start(buffers&...)` begins the
  // operation on them where they will stay, and returns its mpi::request (or a
  // detail::started).
  template <class Start, class... B>
  explicit iresult(std::in_place_t, Start&& start, B&&... buffers) : p_(make(std::forward<B>(buffers)...)) {
    auto s = std::apply(std::forward<Start>(start), *p_);
    if constexpr (std::is_same_v<decltype(s), detail::started>) {
      req_ = std::move(s.request);
      received_ = s.received;
    } else {
      req_ = std::move(s);
    }
  }

  iresult(iresult&& o) noexcept : req_(std::move(o.req_)), p_(std::move(o.p_)), received_(o.received_) {
    o.p_.reset();
  }
  iresult& operator=(iresult&& o) noexcept {
    if (this != &o) {
      complete_quietly();
      req_ = std::move(o.req_);
      received_ = o.received_;
      take(o.p_);
    }
    return *this;
  }
  ~iresult() { complete_quietly(); }

  // Whether it still holds an operation or its buffers (false once moved from or handed back).
  bool valid() const noexcept { return static_cast<bool>(p_); }

  value_type wait() {
    if (!p_) return empty_value();
    complete();
    return hand_back();
  }
  // The buffer (or true) once the operation has completed; nullopt (false) before.
  auto test() {
    if constexpr (std::is_void_v<value_type>) {
      if (p_ && pending()) return false;
      if (p_) hand_back();
      return true;
    } else {
      if (p_ && pending()) return std::optional<value_type>();
      return std::optional<value_type>(wait());
    }
  }

private:
  template <class... B>
  static storage make(B&&... b) {
    if constexpr (owns) return std::make_unique<payload>(std::forward<B>(b)...);
    else return storage(std::in_place, std::forward<B>(b)...);
  }
  static value_type empty_value() {
    if constexpr (std::is_void_v<value_type> || std::is_default_constructible_v<value_type>) return value_type();
    else throw std::logic_error("anympi::iresult: wait() on an empty iresult (moved from or handed back)");
  }
  // Starts a receive that matches later where it has not yet (only if a message is there,
  // unless `block`); whether the operation is under way.
  bool started(bool block) {
    if constexpr (matches_later) return std::get<detail::match_later>(*p_).start(std::get<0>(*p_), req_, block);
    else return true;
  }
  void complete() {
    started(true);
    if (!req_.is_null()) req_.wait();
  }
  // Tests, without handing anything back: whether the operation is still pending.
  bool pending() { return !started(false) || (!req_.is_null() && !req_.test()); }

  value_type hand_back() {
    if constexpr (std::is_void_v<value_type>) {
      if constexpr (finishing_buffer<held_t<R>>) anympi::finish(std::forward<held_t<R>>(std::get<0>(*p_)), received_);
      p_.reset();
    } else {
      auto p = std::move(p_);
      p_.reset();
      return anympi::finish(std::move(std::get<0>(*p)), received_);
    }
  }
  // Takes another iresult's buffers. Borrowed ones are a tuple of references, which assignment
  // would write through (into the buffers this one borrowed): they are bound anew instead.
  void take(storage& from) noexcept {
    p_.reset();
    if constexpr (owns) {
      p_ = std::move(from);
    } else if (from) {
      p_.emplace(std::move(*from));
      from.reset();
    }
  }
  void complete_quietly() noexcept {
    if (p_) {
      try {
        complete();
      } catch (...) {
      }
    }
  }

  template <class R2, class... K2>
  friend std::vector<MPI_Request> pending_handles(std::vector<iresult<R2, K2...>>&);
  template <class R2, class... K2>
  friend void adopt_handles(std::vector<iresult<R2, K2...>>&, std::vector<MPI_Request> const&);
  template <class R2, class... K2>
  friend std::optional<std::size_t> wait_any(std::vector<iresult<R2, K2...>>&);

  mpi::request req_;
  storage p_;
  bool received_ = true;  // whether MPI writes the handed-back buffer on this process
};

// The requests of a vector of iresults, for one MPI_Waitall / MPI_Waitany over all of them
// (an empty iresult contributes MPI_REQUEST_NULL, which MPI skips, as does a receive that has
// not matched its message yet: iresult::wait() matches and completes it), and back.
template <class R, class... K>
std::vector<MPI_Request> pending_handles(std::vector<iresult<R, K...>>& v) {
  std::vector<MPI_Request> h;
  h.reserve(v.size());
  for (auto& r : v) h.push_back(r.p_ ? r.req_.native() : MPI_REQUEST_NULL);
  return h;
}
template <class R, class... K>
void adopt_handles(std::vector<iresult<R, K...>>& v, std::vector<MPI_Request> const& h) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i].p_) *v[i].req_.mpi_handle_ptr() = h[i];
}

// Completes every operation in one MPI_Waitall; returns the owned buffers in order (nothing
// where they are borrowed). Afterwards each iresult is empty.
template <class R, class... K>
auto wait_all(std::vector<iresult<R, K...>>& v) {
  auto h = pending_handles(v);
  try {
    mpi::wait_all(h);
  } catch (...) {
    adopt_handles(v, h);  // the completed ones are not waited on again
    throw;
  }
  adopt_handles(v, h);
  if constexpr (std::is_void_v<typename iresult<R, K...>::value_type>) {
    for (auto& r : v) r.wait();
  } else {
    std::vector<typename iresult<R, K...>::value_type> out;
    out.reserve(v.size());
    for (auto& r : v) out.push_back(r.wait());
    return out;
  }
}

// Waits until one pending operation completes and returns its index; v[index].wait() then
// hands back its buffer without waiting. nullopt when none is pending. Receives that match
// later are polled (MPI_Improbe, then MPI_Test), there being no request to wait on before
// their message is there.
template <class R, class... K>
std::optional<std::size_t> wait_any(std::vector<iresult<R, K...>>& v) {
  if constexpr (iresult<R, K...>::matches_later) {
    for (;;) {
      bool any = false;
      for (std::size_t i = 0; i < v.size(); ++i) {
        auto& r = v[i];
        if (!r.p_ || (std::get<detail::match_later>(*r.p_).matched && r.req_.is_null())) continue;
        any = true;
        if (r.started(false) && r.req_.test()) return i;
      }
      if (!any) return std::nullopt;
    }
  }
  auto h = pending_handles(v);
  auto const c = mpi::wait_any(h);
  adopt_handles(v, h);
  if (c.index == MPI_UNDEFINED) return std::nullopt;
  return static_cast<std::size_t>(c.index);
}

}  // namespace anympi
