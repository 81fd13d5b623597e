// mpi::status: an MPI_Status with accessors. Layout-compatible with MPI_Status, so a
// contiguous range of mpi::status is handed to the array procedures without copying.
#pragma once

#include <mpi/buffer.hpp>
#include <mpi/error.hpp>

#include <type_traits>

namespace mpi {

class status {
public:
  status() noexcept : s_{} {
    s_.MPI_SOURCE = MPI_ANY_SOURCE;
    s_.MPI_TAG = MPI_ANY_TAG;
    s_.MPI_ERROR = MPI_SUCCESS;
  }
  explicit status(MPI_Status const& s) noexcept : s_(s) {}

  int source() const noexcept { return s_.MPI_SOURCE; }
  int tag() const noexcept { return s_.MPI_TAG; }
  int error() const noexcept { return s_.MPI_ERROR; }

  // Number of received elements of `type`; MPI_UNDEFINED if not a whole number.
  template <datatype_handle D>
  MPI_Count count(D const& type) const {
#if MPI_CXX_HAS_LARGE_COUNT
    MPI_Count n = 0;
    MPI_CXX_CALL(MPI_Get_count_c, &s_, mpi::handle(type), &n);
    return n;
#else
    int n = 0;
    MPI_CXX_CALL(MPI_Get_count, &s_, mpi::handle(type), &n);
    return n;
#endif
  }
  template <mapped_type T>
  MPI_Count count() const {
    return count(datatype_of<T>());
  }
  template <datatype_handle D>
  MPI_Count elements(D const& type) const {
#if MPI_CXX_HAS_LARGE_COUNT
    MPI_Count n = 0;
    MPI_CXX_CALL(MPI_Get_elements_c, &s_, mpi::handle(type), &n);
    return n;
#else
    MPI_Count n = 0;
    MPI_CXX_CALL(MPI_Get_elements_x, &s_, mpi::handle(type), &n);
    return n;
#endif
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
  MPI_Status s_;
};

static_assert(sizeof(status) == sizeof(MPI_Status) && std::is_standard_layout_v<status>,
              "mpi::status must be layout-compatible with MPI_Status");

}  // namespace mpi
