// Shared by the mpi:: core tests: the buffer kinds every operation is exercised with.
#pragma once

#include <gtest/gtest.h>
#include <mpi.hpp>

#include <array>
#include <cstdlib>
#include <numeric>
#include <string_view>
#include <span>
#include <string>
#include <vector>

namespace test {

inline int rank() { return mpi::comm_world().rank(); }
inline int size() { return mpi::comm_world().size(); }
inline mpi::comm_view world() { return mpi::comm_world(); }
// The ring neighbours the layer's tests send to and receive from.
inline int next() { return (rank() + 1) % size(); }
inline int prev() { return (rank() + size() - 1) % size(); }

// Whether the MPI library running this test provides the MPI-4.0 features (partitioned and
// persistent collective communication, sessions, isendrecv, idup_with_info, large counts).
// Natively the header says so. Over the standard ABI the header declares everything and
// the backend decides: Open MPI 4.1 is an MPI-3.1 library, MPICH 4.0 an MPI-4.0 one.
inline bool mpi4_at_run_time() {
#ifdef ANYMPI_CXX_TEST_OVER_ABI
  char const* b = std::getenv("ANYMPI_BACKEND");
  return !(b && std::string_view(b) == "openmpi");
#else
  return MPI_VERSION >= 4;
#endif
}

// Persistent collectives, MPI_Isendrecv[_replace], partitioned communication, sessions,
// MPI_Comm_create_from_group and MPI_Comm_idup_with_info: over the standard ABI anympi provides
// them on every backend (its own where the MPI lacks them, and over MPICH 4.0 where its own are
// defective: docs/runtime.md).
inline constexpr bool over_abi =
#ifdef ANYMPI_CXX_TEST_OVER_ABI
    true;
#else
    false;
#endif
inline bool mpi4_anywhere_at_run_time() { return over_abi || MPI_VERSION >= 4; }

// Whether the MPI running this test is MPICH 4.0.x, whose known defects (docs/cxx-core.md)
// some tests avoid there and only there. Over the standard ABI the runtime prefixes the
// backend's version string with its own.
inline bool mpich_4_0_at_run_time() {
  return mpi::library_version().find("MPICH Version:\t4.0.") != std::string::npos;
}

// A feature the MPI underneath lacks must be reported, never silently skipped.
template <class F>
void expect_unsupported(char const* function, F&& f) {
  try {
    f();
    ADD_FAILURE() << function << " must report that this MPI lacks it";
  } catch (mpi::mpi_error const& e) {
    EXPECT_EQ(e.error_class(), MPI_ERR_UNSUPPORTED_OPERATION) << e.what();
    EXPECT_EQ(e.function(), function);
  }
}

// A user type customized non-intrusively through mpi::buffer_traits.
template <class T>
struct traits_buf {
  T* data;
  std::size_t n;
};
// Varying user type, also through buffer_traits.
template <class T>
struct traits_vbuf {
  T* data;
  std::span<int const> counts, displs;
};

// A user type customized through member functions.
template <class T>
class member_buf {
public:
  member_buf(T* d, std::size_t n) : d_(d), n_(n) {}
  T* mpi_ptr() const { return d_; }
  std::size_t mpi_count() const { return n_; }
  MPI_Datatype mpi_type() const { return MPI_INT; }

private:
  T* d_;
  std::size_t n_;
};
template <class T>
class member_vbuf {
public:
  member_vbuf(T* d, std::span<int const> c, std::span<int const> di) : d_(d), c_(c), di_(di) {}
  T* mpi_ptr() const { return d_; }
  std::span<int const> mpi_counts() const { return c_; }
  std::span<int const> mpi_displs() const { return di_; }
  MPI_Datatype mpi_type() const { return MPI_INT; }

private:
  T* d_;
  std::span<int const> c_, di_;
};

}  // namespace test

template <class T>
struct mpi::buffer_traits<test::traits_buf<T>> {
  static T* ptr(test::traits_buf<T> const& b) { return b.data; }
  static std::size_t count(test::traits_buf<T> const& b) { return b.n; }
  static MPI_Datatype type(test::traits_buf<T> const&) { return MPI_INT; }
};
template <class T>
struct mpi::buffer_traits<test::traits_vbuf<T>> {
  static T* ptr(test::traits_vbuf<T> const& b) { return b.data; }
  static std::span<int const> counts(test::traits_vbuf<T> const& b) { return b.counts; }
  static std::span<int const> displs(test::traits_vbuf<T> const& b) { return b.displs; }
  static MPI_Datatype type(test::traits_vbuf<T> const&) { return MPI_INT; }
};

// All four refer to storage they do not own, so a nonblocking or persistent call may take
// them as temporaries (buffer.hpp, buffer_outlives_call).
template <class T>
inline constexpr bool mpi::enable_borrowed_buffer<test::traits_buf<T>> = true;
template <class T>
inline constexpr bool mpi::enable_borrowed_buffer<test::traits_vbuf<T>> = true;
template <class T>
inline constexpr bool mpi::enable_borrowed_buffer<test::member_buf<T>> = true;
template <class T>
inline constexpr bool mpi::enable_borrowed_buffer<test::member_vbuf<T>> = true;

namespace test {

// Each kind turns int storage into a (const) buffer and a varying buffer.
struct vector_kind {
  static std::vector<int>& wrap(std::vector<int>& v) { return v; }
  static std::vector<int> const& cwrap(std::vector<int> const& v) { return v; }
  static auto wrap_v(std::vector<int>& v, std::span<int const> c, std::span<int const> d) {
    return mpi::mpi_span_v<int>(v, c, d);
  }
  static auto cwrap_v(std::vector<int> const& v, std::span<int const> c, std::span<int const> d) {
    return mpi::mpi_span_v<int const>(v, c, d);
  }
};
struct span_kind {
  static std::span<int> wrap(std::vector<int>& v) { return std::span<int>(v); }
  static std::span<int const> cwrap(std::vector<int> const& v) { return std::span<int const>(v); }
  static auto wrap_v(std::vector<int>& v, std::span<int const> c, std::span<int const> d) {
    return mpi::mpi_span_v<int>(std::span<int>(v), c, d);
  }
  static auto cwrap_v(std::vector<int> const& v, std::span<int const> c, std::span<int const> d) {
    return mpi::mpi_span_v<int const>(std::span<int const>(v), c, d);
  }
};
struct traits_kind {
  static traits_buf<int> wrap(std::vector<int>& v) { return {v.data(), v.size()}; }
  static traits_buf<int const> cwrap(std::vector<int> const& v) { return {v.data(), v.size()}; }
  static traits_vbuf<int> wrap_v(std::vector<int>& v, std::span<int const> c, std::span<int const> d) {
    return {v.data(), c, d};
  }
  static traits_vbuf<int const> cwrap_v(std::vector<int> const& v, std::span<int const> c, std::span<int const> d) {
    return {v.data(), c, d};
  }
};
struct member_kind {
  static member_buf<int> wrap(std::vector<int>& v) { return {v.data(), v.size()}; }
  static member_buf<int const> cwrap(std::vector<int> const& v) { return {v.data(), v.size()}; }
  static member_vbuf<int> wrap_v(std::vector<int>& v, std::span<int const> c, std::span<int const> d) {
    return {v.data(), c, d};
  }
  static member_vbuf<int const> cwrap_v(std::vector<int> const& v, std::span<int const> c, std::span<int const> d) {
    return {v.data(), c, d};
  }
};

using buffer_kinds = ::testing::Types<vector_kind, span_kind, traits_kind, member_kind>;

inline std::vector<int> iota(std::size_t n, int start) {
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

}  // namespace test
