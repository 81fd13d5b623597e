// Requests and their completion: wait/test on one request, wait_all/any/some and
// test_all/any/some over contiguous ranges of requests (native MPI_Request or mpi::request,
// which is layout-compatible) without allocating, cancel, get_status, start/start_all.
#pragma once

#include <mpi/object.hpp>
#include <mpi/rank_tag.hpp>
#include <mpi/status.hpp>

#include <optional>
#include <ranges>
#include <span>
#include <type_traits>

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

class request_view : public detail::view_base<detail::request_kind> {
public:
  using view_base::view_base;
};

// Owns a request: returned by every nonblocking, persistent and partitioned operation.
class request : public detail::owner_base<detail::request_kind, request, request_view> {
public:
  request() noexcept = default;
  status wait();
  std::optional<status> test();
  void cancel();
  void start();
};

static_assert(sizeof(request) == sizeof(MPI_Request) && std::is_standard_layout_v<request>,
              "mpi::request must be layout-compatible with MPI_Request");

struct completion {
  int index;  // MPI_UNDEFINED when no request was active
  mpi::status status;
};

namespace detail {

template <class R>
concept request_range =
    std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
    (std::same_as<std::remove_cv_t<std::ranges::range_value_t<R>>, MPI_Request> ||
     std::same_as<std::remove_cv_t<std::ranges::range_value_t<R>>, request>) &&
    !std::is_const_v<std::remove_reference_t<std::ranges::range_reference_t<R>>>;

template <class R>
concept status_range =
    std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
    (std::same_as<std::remove_cv_t<std::ranges::range_value_t<R>>, MPI_Status> ||
     std::same_as<std::remove_cv_t<std::ranges::range_value_t<R>>, status>) &&
    !std::is_const_v<std::remove_reference_t<std::ranges::range_reference_t<R>>>;

template <class R>
MPI_Request* request_data(R& r) {
  // mpi::request is a standard-layout class whose only member is the MPI_Request.
  return reinterpret_cast<MPI_Request*>(std::ranges::data(r));
}
template <class R>
MPI_Status* status_data(R& r) {
  return reinterpret_cast<MPI_Status*>(std::ranges::data(r));
}
template <class R>
int range_size(R const& r, char const* fn) {
  return checked_int(std::ranges::size(r), MPI_ERR_COUNT, fn);
}
template <class R, class S>
void check_status_size(R const& reqs, S const& sts, char const* fn) {
  if (std::ranges::size(sts) < std::ranges::size(reqs))
    fail(MPI_ERR_ARG, fn, "statuses range is smaller than the requests range");
}

}  // namespace detail

template <request_handle_ptr R>
status wait(R& req) {
  status s;
  MPI_CXX_CALL(MPI_Wait, mpi::handle_ptr(req), s.mpi_status_ptr());
  return s;
}
template <request_handle_ptr R>
std::optional<status> test(R& req) {
  status s;
  int flag = 0;
  MPI_CXX_CALL(MPI_Test, mpi::handle_ptr(req), &flag, s.mpi_status_ptr());
  if (!flag) return std::nullopt;
  return s;
}
template <request_handle_ptr R>
void cancel(R& req) {
  MPI_CXX_CALL(MPI_Cancel, mpi::handle_ptr(req));
}
// Status of a request without completing (freeing) it; nullopt while incomplete.
template <request_handle_ptr R>
std::optional<status> get_status(R& req) {
  status s;
  int flag = 0;
  MPI_CXX_CALL(MPI_Request_get_status, *mpi::handle_ptr(req), &flag, s.mpi_status_ptr());
  if (!flag) return std::nullopt;
  return s;
}
template <request_handle_ptr R>
void start(R& req) {
  MPI_CXX_CALL(MPI_Start, mpi::handle_ptr(req));
}

template <detail::request_range R>
void wait_all(R&& reqs) {
  MPI_CXX_CALL(MPI_Waitall, detail::range_size(reqs, "MPI_Waitall"), detail::request_data(reqs),
               MPI_STATUSES_IGNORE);
}
template <detail::request_range R, detail::status_range S>
void wait_all(R&& reqs, S&& statuses) {
  detail::check_status_size(reqs, statuses, "MPI_Waitall");
  MPI_CXX_CALL(MPI_Waitall, detail::range_size(reqs, "MPI_Waitall"), detail::request_data(reqs),
               detail::status_data(statuses));
}
template <detail::request_range R>
bool test_all(R&& reqs) {
  int flag = 0;
  MPI_CXX_CALL(MPI_Testall, detail::range_size(reqs, "MPI_Testall"), detail::request_data(reqs), &flag,
               MPI_STATUSES_IGNORE);
  return flag != 0;
}
template <detail::request_range R, detail::status_range S>
bool test_all(R&& reqs, S&& statuses) {
  detail::check_status_size(reqs, statuses, "MPI_Testall");
  int flag = 0;
  MPI_CXX_CALL(MPI_Testall, detail::range_size(reqs, "MPI_Testall"), detail::request_data(reqs), &flag,
               detail::status_data(statuses));
  return flag != 0;
}
template <detail::request_range R>
completion wait_any(R&& reqs) {
  completion c{MPI_UNDEFINED, {}};
  MPI_CXX_CALL(MPI_Waitany, detail::range_size(reqs, "MPI_Waitany"), detail::request_data(reqs), &c.index,
               c.status.mpi_status_ptr());
  return c;
}
// nullopt: none completed yet; index MPI_UNDEFINED: no active request.
template <detail::request_range R>
std::optional<completion> test_any(R&& reqs) {
  completion c{MPI_UNDEFINED, {}};
  int flag = 0;
  MPI_CXX_CALL(MPI_Testany, detail::range_size(reqs, "MPI_Testany"), detail::request_data(reqs), &c.index,
               &flag, c.status.mpi_status_ptr());
  if (!flag) return std::nullopt;
  return c;
}
// Returns the number of completed requests (their indices are the first entries of
// `indices`), or MPI_UNDEFINED when no request was active.
template <detail::request_range R>
int wait_some(R&& reqs, std::span<int> indices) {
  if (indices.size() < std::ranges::size(reqs))
    detail::fail(MPI_ERR_ARG, "MPI_Waitsome", "indices span is smaller than the requests range");
  int out = 0;
  MPI_CXX_CALL(MPI_Waitsome, detail::range_size(reqs, "MPI_Waitsome"), detail::request_data(reqs), &out,
               indices.data(), MPI_STATUSES_IGNORE);
  return out;
}
template <detail::request_range R, detail::status_range S>
int wait_some(R&& reqs, std::span<int> indices, S&& statuses) {
  if (indices.size() < std::ranges::size(reqs))
    detail::fail(MPI_ERR_ARG, "MPI_Waitsome", "indices span is smaller than the requests range");
  detail::check_status_size(reqs, statuses, "MPI_Waitsome");
  int out = 0;
  MPI_CXX_CALL(MPI_Waitsome, detail::range_size(reqs, "MPI_Waitsome"), detail::request_data(reqs), &out,
               indices.data(), detail::status_data(statuses));
  return out;
}
template <detail::request_range R>
int test_some(R&& reqs, std::span<int> indices) {
  if (indices.size() < std::ranges::size(reqs))
    detail::fail(MPI_ERR_ARG, "MPI_Testsome", "indices span is smaller than the requests range");
  int out = 0;
  MPI_CXX_CALL(MPI_Testsome, detail::range_size(reqs, "MPI_Testsome"), detail::request_data(reqs), &out,
               indices.data(), MPI_STATUSES_IGNORE);
  return out;
}
template <detail::request_range R>
void start_all(R&& reqs) {
  MPI_CXX_CALL(MPI_Startall, detail::range_size(reqs, "MPI_Startall"), detail::request_data(reqs));
}

inline status request::wait() { return mpi::wait(*this); }
inline std::optional<status> request::test() { return mpi::test(*this); }
inline void request::cancel() { mpi::cancel(*this); }
inline void request::start() { mpi::start(*this); }

}  // namespace mpi
