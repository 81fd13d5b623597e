// The builtin type map: which C++ types correspond to a predefined MPI datatype.
//
// Mapping is by C++ type, not by size: int32_t is `int` on every platform anympi supports
// and therefore maps to MPI_INT, exactly as the C compiler would see it. Character types
// without an MPI counterpart of their own map to the unsigned integer of the same width
// (char8_t -> MPI_UINT8_T, char16_t -> MPI_UINT16_T, char32_t -> MPI_UINT32_T).
// The datatype is produced at run time: a datatype handle is not a constant expression
// under every mpi.h (under the standard ABI it is a pointer cast, under Open MPI the
// address of a library object).
#pragma once

#include <mpi/config.hpp>
#include <mpi/std_parts.hpp>

#include <cstddef>
#include <type_traits>

namespace mpi {

// Value/index pairs for MPI_MINLOC / MPI_MAXLOC (layout of the C struct types).
template <class T>
struct value_index {
  T value;
  int index;
  friend bool operator==(value_index const&, value_index const&) = default;
};

// Specialize for your own element types to make ranges of them data buffers:
//   template <> struct mpi::type_traits<my_pod> { static MPI_Datatype type() { ... } };
template <class T>
struct type_traits {};

#define MPI_CXX_BUILTIN_(cxx, dt)                   \
  template <>                                       \
  struct type_traits<cxx> {                         \
    static MPI_Datatype type() noexcept { return dt; } \
    static constexpr bool builtin = true;          \
  };

MPI_CXX_BUILTIN_(char, MPI_CHAR)
MPI_CXX_BUILTIN_(signed char, MPI_SIGNED_CHAR)
MPI_CXX_BUILTIN_(unsigned char, MPI_UNSIGNED_CHAR)
MPI_CXX_BUILTIN_(wchar_t, MPI_WCHAR)
MPI_CXX_BUILTIN_(char8_t, MPI_UINT8_T)
MPI_CXX_BUILTIN_(char16_t, MPI_UINT16_T)
MPI_CXX_BUILTIN_(char32_t, MPI_UINT32_T)
MPI_CXX_BUILTIN_(short, MPI_SHORT)
MPI_CXX_BUILTIN_(unsigned short, MPI_UNSIGNED_SHORT)
MPI_CXX_BUILTIN_(int, MPI_INT)
MPI_CXX_BUILTIN_(unsigned, MPI_UNSIGNED)
MPI_CXX_BUILTIN_(long, MPI_LONG)
MPI_CXX_BUILTIN_(unsigned long, MPI_UNSIGNED_LONG)
MPI_CXX_BUILTIN_(long long, MPI_LONG_LONG)
MPI_CXX_BUILTIN_(unsigned long long, MPI_UNSIGNED_LONG_LONG)
MPI_CXX_BUILTIN_(float, MPI_FLOAT)
MPI_CXX_BUILTIN_(double, MPI_DOUBLE)
MPI_CXX_BUILTIN_(long double, MPI_LONG_DOUBLE)
MPI_CXX_BUILTIN_(bool, MPI_CXX_BOOL)
MPI_CXX_BUILTIN_(std::byte, MPI_BYTE)
MPI_CXX_BUILTIN_(std::complex<float>, MPI_CXX_FLOAT_COMPLEX)
MPI_CXX_BUILTIN_(std::complex<double>, MPI_CXX_DOUBLE_COMPLEX)
MPI_CXX_BUILTIN_(std::complex<long double>, MPI_CXX_LONG_DOUBLE_COMPLEX)
MPI_CXX_BUILTIN_(value_index<float>, MPI_FLOAT_INT)
MPI_CXX_BUILTIN_(value_index<double>, MPI_DOUBLE_INT)
MPI_CXX_BUILTIN_(value_index<long>, MPI_LONG_INT)
MPI_CXX_BUILTIN_(value_index<int>, MPI_2INT)
MPI_CXX_BUILTIN_(value_index<short>, MPI_SHORT_INT)
MPI_CXX_BUILTIN_(value_index<long double>, MPI_LONG_DOUBLE_INT)
#undef MPI_CXX_BUILTIN_

// A type with a predefined MPI datatype.
template <class T>
concept builtin_type = requires {
  requires type_traits<std::remove_cv_t<T>>::builtin;
};

// A type the type map knows: builtin, or described by a user type_traits specialization.
template <class T>
concept mapped_type = requires {
  { type_traits<std::remove_cv_t<T>>::type() } -> std::convertible_to<MPI_Datatype>;
};

template <mapped_type T>
MPI_Datatype datatype_of() noexcept(noexcept(type_traits<std::remove_cv_t<T>>::type())) {
  return type_traits<std::remove_cv_t<T>>::type();
}

}  // namespace mpi
