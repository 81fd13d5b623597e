// mpi::status: an MPI_Status with accessors. Layout-compatible with MPI_Status, so a
// contiguous range of mpi::status is handed to the array procedures without copying.
#pragma once

#include <mpi/buffer.hpp>
#include <mpi/error.hpp>

#include <concepts>
#include <optional>
#include <type_traits>

namespace mpi {

namespace detail {
// The widest count queries the MPI has: MPI-4.0's _c forms, else MPI_Get_count (int) and
// MPI_Get_elements_x.
template <class N>
struct status_query {
  using result_type = N;
  int (*fn)(MPI_Status const*, MPI_Datatype, N*);
  char const* name;
};
// A status a receive is about to fill (see unreceived).
struct to_be_received_t {};
#if MPI_CXX_HAS_LARGE_COUNT
inline constexpr status_query<MPI_Count> get_count{&MPI_Get_count_c, "MPI_Get_count_c"};
inline constexpr status_query<MPI_Count> get_elements{&MPI_Get_elements_c, "MPI_Get_elements_c"};
#else
inline constexpr status_query<int> get_count{&MPI_Get_count, "MPI_Get_count"};
inline constexpr status_query<MPI_Count> get_elements{&MPI_Get_elements_x, "MPI_Get_elements_x"};
#endif
}  // namespace detail

class status {
public:
  status() noexcept : s_{} {
    s_.MPI_SOURCE = MPI_ANY_SOURCE;
    s_.MPI_TAG = MPI_ANY_TAG;
    s_.MPI_ERROR = MPI_SUCCESS;
  }
  explicit status(MPI_Status const& s) noexcept : s_(s) {}
  // Only the field a receive leaves alone (detail::unreceived).
  explicit status(detail::to_be_received_t) noexcept { s_.MPI_ERROR = MPI_SUCCESS; }

  int source() const noexcept { return s_.MPI_SOURCE; }
  int tag() const noexcept { return s_.MPI_TAG; }
  int error() const noexcept { return s_.MPI_ERROR; }

  // Number of received elements of `type`; MPI_UNDEFINED if not a whole number.
  template <datatype_handle D>
  MPI_Count count(D const& type) const {
    return query(detail::get_count, type);
  }
  template <mapped_type T>
  MPI_Count count() const {
    return count(datatype_of<T>());
  }
  // Number of received basic elements of `type`.
  template <datatype_handle D>
  MPI_Count elements(D const& type) const {
    return query(detail::get_elements, type);
  }
  template <mapped_type T>
  MPI_Count elements() const {
    return elements(datatype_of<T>());
  }
  bool cancelled() const {
    int flag = 0;
    MPI_CXX_CALL(MPI_Test_cancelled, &s_, &flag);
    return flag != 0;
  }

  MPI_Status& native() noexcept { return s_; }
  MPI_Status const& native() const noexcept { return s_; }
  MPI_Status* mpi_status_ptr() noexcept { return &s_; }

private:
  template <class Q, datatype_handle D>
  MPI_Count query(Q const& q, D const& type) const {
    typename Q::result_type n = 0;
    detail::check(q.fn(&s_, mpi::handle(type), &n), q.name);
    return n;
  }
  MPI_Status s_;
};

// Where a completing call writes its status: an mpi::status or MPI_Status of the caller's,
// or mpi::status_ignore (MPI_STATUS_IGNORE) when the caller does not want it. Every call
// that returns a status also has a form taking one of these as its last argument.
struct status_ignore_t {
  explicit constexpr status_ignore_t() = default;
};
inline constexpr status_ignore_t status_ignore{};

namespace detail {
template <class S>
concept status_out = std::same_as<S, status&> || std::same_as<S, MPI_Status&> ||
                     std::same_as<std::remove_cvref_t<S>, status_ignore_t>;

template <status_out S>
MPI_Status* status_ptr(S&& s) noexcept {
  if constexpr (std::same_as<std::remove_cvref_t<S>, status_ignore_t>) return MPI_STATUS_IGNORE;
  else if constexpr (std::same_as<std::remove_cvref_t<S>, status>) return s.mpi_status_ptr();
  else return &s;
}

// The returning forms of the calls that fill a status: the status of `fill(st)`, and, for
// calls that may not complete, nullopt when `fill(st)` says it did not.
template <class F>
MPI_CXX_ALWAYS_INLINE status returned(F&& fill) {
  status st;
  fill(st);
  return st;
}
// The status a receive or probe (recv, sendrecv, sendrecv_replace, mrecv, probe, mprobe,
// improbe, and the anympi:: layer's receives) returns, before the call fills it: MPI writes the
// source, the tag and the count, also for MPI_PROC_NULL, and leaves MPI_ERROR alone, so only
// MPI_ERROR is set beforehand (the whole status was four stores more per call).
inline status unreceived() noexcept { return status(to_be_received_t{}); }
template <class F>
MPI_CXX_ALWAYS_INLINE status received(F&& fill) {
  status st = unreceived();
  fill(st);
  return st;
}
template <class F>
std::optional<status> returned_if(F&& fill) {
  status st;
  if (!fill(st)) return std::nullopt;
  return st;
}
}  // namespace detail

static_assert(sizeof(status) == sizeof(MPI_Status) && std::is_standard_layout_v<status>,
              "mpi::status must be layout-compatible with MPI_Status");

}  // namespace mpi
