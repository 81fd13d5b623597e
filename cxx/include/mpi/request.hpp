// Requests and their completion: wait/test on one request, wait_all/any/some and
// test_all/any/some over contiguous ranges of requests (native MPI_Request or mpi::request,
// which is layout-compatible) without allocating, cancel, get_status, start/start_all.
#pragma once

#include <mpi/large_count.hpp>
#include <mpi/object.hpp>
#include <mpi/rank_tag.hpp>
#include <mpi/status.hpp>
#include <mpi/std_parts.hpp>

#include <optional>
#include <span>
#include <type_traits>
#include <utility>

namespace mpi {

namespace detail {
struct request_kind {
  using native_type = MPI_Request;
  static MPI_Request null() noexcept { return MPI_REQUEST_NULL; }
  static bool is_predefined(MPI_Request) noexcept { return false; }
  // Freeing an active request is allowed: the operation still completes, nobody waits.
  static int free(MPI_Request* h) noexcept { return MPI_Request_free(h); }
  static constexpr char const* free_name = "MPI_Request_free";
};
}  // namespace detail

class request;

// Unlike the other views, a request_view refers to the caller's handle (an MPI_Request, or
// the one an mpi::request owns) instead of holding a copy: completing a request sets its
// handle to MPI_REQUEST_NULL, and through a copy the caller's would be left stale (then
// waited on again, or freed twice by its owner). So a wait or test through the view, or any
// call that takes it, updates the caller's handle as MPI_Wait does. The handle must outlive
// the view.
class request_view {
public:
  using mpi_handle_kind = detail::request_kind;
  using native_type = MPI_Request;

  explicit request_view(MPI_Request& h) noexcept : h_(&h) {}
  request_view(MPI_Request const&) = delete;  // a const handle cannot be completed
  request_view(request& r) noexcept;

  MPI_Request native() const noexcept { return *h_; }
  MPI_Request mpi_handle() const noexcept { return *h_; }
  MPI_Request* mpi_handle_ptr() const noexcept { return h_; }
  bool is_null() const noexcept { return *h_ == MPI_REQUEST_NULL; }
  explicit operator bool() const noexcept { return !is_null(); }

  status wait() const;
  template <detail::status_out St>
  void wait(St&& st) const;
  std::optional<status> test() const;
  template <detail::status_out St>
  bool test(St&& st) const;

private:
  MPI_Request* h_;
};

// Owns a request: returned by every nonblocking, persistent and partitioned operation.
class request : public detail::owner_base<detail::request_kind, request, request_view> {
public:
  request() noexcept = default;
  status wait();
  template <detail::status_out St>
  void wait(St&& st);
  std::optional<status> test();
  template <detail::status_out St>
  bool test(St&& st);
  void cancel();
  void start();
};

inline request_view::request_view(request& r) noexcept : h_(r.mpi_handle_ptr()) {}

static_assert(sizeof(request) == sizeof(MPI_Request) && std::is_standard_layout_v<request>,
              "mpi::request must be layout-compatible with MPI_Request");

struct completion {
  int index;  // MPI_UNDEFINED when no request was active
  mpi::status status;
};

namespace detail {

template <class R>
concept request_range = contiguous_sized<R> &&
                        (std::same_as<std::remove_cv_t<range_value_t<R>>, MPI_Request> ||
                         std::same_as<std::remove_cv_t<range_value_t<R>>, request>) &&
                        !std::is_const_v<range_element_t<R>>;

template <class R>
concept status_range = contiguous_sized<R> &&
                       (std::same_as<std::remove_cv_t<range_value_t<R>>, MPI_Status> ||
                        std::same_as<std::remove_cv_t<range_value_t<R>>, status>) &&
                       !std::is_const_v<range_element_t<R>>;

template <class R>
MPI_Request* request_data(R& r) {
  // mpi::request is a standard-layout class whose only member is the MPI_Request.
  return reinterpret_cast<MPI_Request*>(data_of(r));
}
template <class R>
MPI_Status* status_data(R& r) {
  return reinterpret_cast<MPI_Status*>(data_of(r));
}
// The statuses array of an array procedure: the caller's range, or MPI_STATUSES_IGNORE.
template <class R, class... S>
MPI_Status* statuses_of(R const& reqs, char const* fn, S&... sts) {
  if constexpr (sizeof...(S) == 0) {
    return MPI_STATUSES_IGNORE;
  } else {
    if (((std::ranges::size(sts) < std::ranges::size(reqs)) || ...))
      fail(MPI_ERR_ARG, fn, "statuses range is smaller than the requests range");
    return (status_data(sts), ...);
  }
}
// MPI_Waitsome and MPI_Testsome have the same parameters.
template <class R, class... S>
int some(int (*fn)(int, MPI_Request*, int*, int*, MPI_Status*), char const* name, R& reqs,
         std::span<int> indices, S&... sts) {
  if (indices.size() < std::ranges::size(reqs)) fail(MPI_ERR_ARG, name, "indices span is smaller than the requests range");
  int out = 0;
  int const err = fn(range_size(reqs, name), request_data(reqs), &out, indices.data(), statuses_of(reqs, name, sts...));
  // The count is lost when the call throws (MPI_ERR_IN_STATUS): an MPI_UNDEFINED entry ends
  // the completed indices instead.
  if (err != MPI_SUCCESS && out >= 0 && std::cmp_less(out, indices.size())) indices[static_cast<std::size_t>(out)] = MPI_UNDEFINED;
  check(err, name);
  return out;
}

}  // namespace detail

template <request_handle_ptr R, detail::status_out St>
void wait(R& req, St&& st) {
  MPI_CXX_CALL(MPI_Wait, mpi::handle_ptr(req), detail::status_ptr(st));
}
template <request_handle_ptr R>
status wait(R& req) {
  return detail::returned([&](status& s) MPI_CXX_ALWAYS_INLINE_LAMBDA { mpi::wait(req, s); });
}
// Whether the request completed (then `st` holds its status).
template <request_handle_ptr R, detail::status_out St>
bool test(R& req, St&& st) {
  int flag = 0;
  MPI_CXX_CALL(MPI_Test, mpi::handle_ptr(req), &flag, detail::status_ptr(st));
  return flag != 0;
}
template <request_handle_ptr R>
std::optional<status> test(R& req) {
  return detail::returned_if([&](status& s) MPI_CXX_ALWAYS_INLINE_LAMBDA { return mpi::test(req, s); });
}
template <request_handle_ptr R>
void cancel(R& req) {
  MPI_CXX_CALL(MPI_Cancel, mpi::handle_ptr(req));
}
// Status of a request without completing (freeing) it; false / nullopt while incomplete.
template <request_handle_ptr R, detail::status_out St>
bool get_status(R& req, St&& st) {
  int flag = 0;
  MPI_CXX_CALL(MPI_Request_get_status, *mpi::handle_ptr(req), &flag, detail::status_ptr(st));
  return flag != 0;
}
template <request_handle_ptr R>
std::optional<status> get_status(R& req) {
  return detail::returned_if([&](status& s) MPI_CXX_ALWAYS_INLINE_LAMBDA { return mpi::get_status(req, s); });
}
template <request_handle_ptr R>
void start(R& req) {
  MPI_CXX_CALL(MPI_Start, mpi::handle_ptr(req));
}

// The array procedures take a statuses range (at least as long as the requests range) or
// nothing (MPI_STATUSES_IGNORE). Under MPI_ERRORS_RETURN a failure of some of the requests
// throws mpi_error with class MPI_ERR_IN_STATUS; each status's error() then says which.
template <detail::request_range R, detail::status_range... S>
  requires(sizeof...(S) <= 1)
void wait_all(R&& reqs, S&&... statuses) {
  MPI_CXX_CALL(MPI_Waitall, detail::range_size(reqs, "MPI_Waitall"), detail::request_data(reqs),
               detail::statuses_of(reqs, "MPI_Waitall", statuses...));
}
template <detail::request_range R, detail::status_range... S>
  requires(sizeof...(S) <= 1)
bool test_all(R&& reqs, S&&... statuses) {
  int flag = 0;
  MPI_CXX_CALL(MPI_Testall, detail::range_size(reqs, "MPI_Testall"), detail::request_data(reqs), &flag,
               detail::statuses_of(reqs, "MPI_Testall", statuses...));
  return flag != 0;
}
// The index of the completed request (its status in `st`), MPI_UNDEFINED when no request
// was active.
template <detail::request_range R, detail::status_out St>
int wait_any(R&& reqs, St&& st) {
  int index = MPI_UNDEFINED;
  MPI_CXX_CALL(MPI_Waitany, detail::range_size(reqs, "MPI_Waitany"), detail::request_data(reqs), &index,
               detail::status_ptr(st));
  return index;
}
template <detail::request_range R>
completion wait_any(R&& reqs) {
  completion c{MPI_UNDEFINED, {}};
  c.index = mpi::wait_any(reqs, c.status);
  return c;
}
// nullopt: none completed yet; index MPI_UNDEFINED: no active request.
template <detail::request_range R, detail::status_out St>
std::optional<int> test_any(R&& reqs, St&& st) {
  int index = MPI_UNDEFINED;
  int flag = 0;
  MPI_CXX_CALL(MPI_Testany, detail::range_size(reqs, "MPI_Testany"), detail::request_data(reqs), &index,
               &flag, detail::status_ptr(st));
  if (!flag) return std::nullopt;
  return index;
}
template <detail::request_range R>
std::optional<completion> test_any(R&& reqs) {
  completion c{MPI_UNDEFINED, {}};
  auto const index = mpi::test_any(reqs, c.status);
  if (!index) return std::nullopt;
  c.index = *index;
  return c;
}
// Returns the number of completed requests (their indices are the first entries of
// `indices`), or MPI_UNDEFINED when no request was active. When it throws, the completed
// indices are those before the first MPI_UNDEFINED in `indices` (or all of them).
template <detail::request_range R, detail::status_range... S>
  requires(sizeof...(S) <= 1)
int wait_some(R&& reqs, std::span<int> indices, S&&... statuses) {
  return detail::some(&MPI_Waitsome, "MPI_Waitsome", reqs, indices, statuses...);
}
template <detail::request_range R, detail::status_range... S>
  requires(sizeof...(S) <= 1)
int test_some(R&& reqs, std::span<int> indices, S&&... statuses) {
  return detail::some(&MPI_Testsome, "MPI_Testsome", reqs, indices, statuses...);
}
template <detail::request_range R>
void start_all(R&& reqs) {
  MPI_CXX_CALL(MPI_Startall, detail::range_size(reqs, "MPI_Startall"), detail::request_data(reqs));
}

inline status request::wait() { return mpi::wait(*this); }
inline std::optional<status> request::test() { return mpi::test(*this); }
template <detail::status_out St>
void request::wait(St&& st) {
  mpi::wait(*this, st);
}
template <detail::status_out St>
bool request::test(St&& st) {
  return mpi::test(*this, st);
}
inline status request_view::wait() const {
  request_view v = *this;
  return mpi::wait(v);
}
inline std::optional<status> request_view::test() const {
  request_view v = *this;
  return mpi::test(v);
}
template <detail::status_out St>
void request_view::wait(St&& st) const {
  request_view v = *this;
  mpi::wait(v, st);
}
template <detail::status_out St>
bool request_view::test(St&& st) const {
  request_view v = *this;
  return mpi::test(v, st);
}
inline void request::cancel() { mpi::cancel(*this); }
inline void request::start() { mpi::start(*this); }


// --- The forms of an operation ----------------------------------------------------------
// Most operations come as a blocking procedure, a nonblocking one (MPI_I...) and a
// persistent one (..._init), all with the same leading arguments. Each operation is one
// `forms` value naming its C bindings, and one body that calls invoke<M> with the leading
// arguments: the form M decides the binding and what follows (nothing or a status; the
// request, after the info for persistent collectives).
namespace detail {

enum class mode { blocking, nonblocking, persistent };

// `split`: for collectives whose buffers are whole messages, how they divide into the
// per-process counts the bindings take (coll_detail.hpp); unused elsewhere.
template <class B, class N, class P, class X = std::nullptr_t>
struct forms {
  B blocking;
  N nonblocking;
  P persistent;
  X split = nullptr;

  template <mode M>
  constexpr auto const& get() const noexcept {
    if constexpr (M == mode::blocking) return blocking;
    else if constexpr (M == mode::nonblocking) return nonblocking;
    else return persistent;
  }
  template <mode M>
  constexpr char const* name() const noexcept {
    return get<M>().name;
  }
};
template <class B, class N, class P>
forms(B, N, P) -> forms<B, N, P>;
template <class B, class N, class P, class X>
forms(B, N, P, X) -> forms<B, N, P, X>;

// The trailing arguments of each form: the blocking form's status (Status), the persistent
// form's info (Info), the request of the others.
template <bool Status, bool Info>
struct tail {
  static constexpr bool has_status = Status;
  static constexpr bool has_info = Info;
  MPI_Status* status = nullptr;
  MPI_Info info = MPI_INFO_NULL;
};
using send_tail = tail<false, false>;  // sends, partitioned
using recv_tail = tail<true, false>;   // receives, sendrecv, mrecv
using coll_tail = tail<false, true>;   // collectives

// Calls form M of `f` with the leading arguments `a` (counted arguments among them, see
// call_with), then the form's trailing ones; returns the request of the nonblocking and
// persistent forms.
template <mode M, class F, class T, class... A>
  requires(M == mode::blocking)
MPI_CXX_ALWAYS_INLINE void invoke(F const& f, T const& trailing, A&&... a) {
  // No request: none to construct, none for the compiler to prove null before it drops the
  // destructor's free.
  if constexpr (T::has_status) call_with(f.template get<M>(), a..., trailing.status);
  else call_with(f.template get<M>(), a...);
}
template <mode M, class F, class T, class... A>
  requires(M != mode::blocking)
MPI_CXX_ALWAYS_INLINE request invoke(F const& f, T const& trailing, A&&... a) {
  request req;
  if constexpr (M == mode::persistent && T::has_info)
    call_with(f.template get<M>(), a..., trailing.info, req.mpi_handle_ptr());
  else call_with(f.template get<M>(), a..., req.mpi_handle_ptr());
  return req;
}

}  // namespace detail

}  // namespace mpi
