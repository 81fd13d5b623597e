// Derived datatypes: RAII constructors for every MPI type constructor, commit, size and
// extent queries. Counts and displacements are MPI_Count / MPI_Aint wide (arrays: any
// integer type); the "_c" constructors are used when a value does not fit in int.
#pragma once

#include <mpi/large_count.hpp>
#include <mpi/object.hpp>
#include <mpi/rank_tag.hpp>
#include <mpi/std_parts.hpp>

#include <concepts>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace mpi {

namespace detail {
struct datatype_kind {
  using native_type = MPI_Datatype;
  static MPI_Datatype null() noexcept { return MPI_DATATYPE_NULL; }
  // Predefined datatypes are never adopted by an owner created by this library; a user
  // who adopts one with from_native() gets the MPI error MPI_Type_free reports.
  static bool is_predefined(MPI_Datatype) noexcept { return false; }
  static int free(MPI_Datatype* h) noexcept { return MPI_Type_free(h); }
  static constexpr char const* free_name = "MPI_Type_free";
};
// Byte displacements: MPI_Aint in the classic constructors, MPI_Count in the "_c" ones. They
// never decide which is called: MPI_Aint holds every value MPI_Count does here.
template <class R>
struct byte_displs : int_array<R, MPI_Count, MPI_Aint> {
  using int_array<R, MPI_Count, MPI_Aint>::int_array;
  static constexpr bool always_fits = true;
};
template <class R>
byte_displs(R const&, char const*) -> byte_displs<R>;
}  // namespace detail

// An array argument of a type constructor: contiguous integers of any width and signedness.
template <class R>
concept integer_array = cnt_range<R const>;

struct type_extent {
  MPI_Aint lb;
  MPI_Aint extent;
};

enum class array_order { c, fortran };

class datatype;

template <class D>
class datatype_ops {
  MPI_Datatype h() const noexcept { return static_cast<D const&>(*this).native(); }

public:
  MPI_Count size() const {
    MPI_Count n = 0;
#if MPI_CXX_HAS_LARGE_COUNT
    MPI_CXX_CALL(MPI_Type_size_c, h(), &n);
    // A size is never negative. An MPI that serves MPI_Type_size_c through the int
    // MPI_Type_size (anympi's runtime over Open MPI 4.1) returns MPI_UNDEFINED for a type
    // beyond 2 GiB; MPI_Type_size_x (every MPI since 3.0; deprecated in 4.1, still in 5.0)
    // is exact there.
    if (n < 0) MPI_CXX_CALL(MPI_Type_size_x, h(), &n);
#else
    MPI_CXX_CALL(MPI_Type_size_x, h(), &n);
#endif
    return n;
  }
  // Extents are MPI_Aint-wide already: the classic bindings suffice everywhere.
  type_extent extent() const {
    type_extent e{};
    MPI_CXX_CALL(MPI_Type_get_extent, h(), &e.lb, &e.extent);
    return e;
  }
  type_extent true_extent() const {
    type_extent e{};
    MPI_CXX_CALL(MPI_Type_get_true_extent, h(), &e.lb, &e.extent);
    return e;
  }
  std::string name() const {
    char buf[MPI_MAX_OBJECT_NAME + 1] = {};
    int len = 0;
    MPI_CXX_CALL(MPI_Type_get_name, h(), buf, &len);
    return std::string(buf, static_cast<std::size_t>(len));
  }
  void set_name(std::string_view n) const { MPI_CXX_CALL(MPI_Type_set_name, h(), detail::c_string(n)); }
  datatype dup() const;
};

class datatype_view : public detail::view_base<detail::datatype_kind>, public datatype_ops<datatype_view> {
public:
  using view_base::view_base;
};

// An owned derived datatype. The constructors return uncommitted types; commit() before
// communicating (or use the committed() helper).
class datatype : public detail::owner_base<detail::datatype_kind, datatype, datatype_view>,
                 public datatype_ops<datatype> {
public:
  datatype() noexcept = default;

  datatype& commit() & {
    MPI_CXX_CALL(MPI_Type_commit, mpi_handle_ptr());
    return *this;
  }
  datatype&& commit() && {
    MPI_CXX_CALL(MPI_Type_commit, mpi_handle_ptr());
    return std::move(*this);
  }

  template <datatype_handle Old>
  static datatype contiguous(MPI_Count count, Old const& old) {
    MPI_Datatype t;
    detail::call_with(MPI_CXX_COUNTED_FN(MPI_Type_contiguous), detail::counted{count}, mpi::handle(old), &t);
    return from_native(t);
  }
  template <datatype_handle Old>
  static datatype vector(MPI_Count count, MPI_Count blocklength, MPI_Count stride, Old const& old) {
    MPI_Datatype t;
    detail::call_with(MPI_CXX_COUNTED_FN(MPI_Type_vector), detail::counted{count}, detail::counted{blocklength},
                      detail::counted{stride}, mpi::handle(old), &t);
    return from_native(t);
  }
  template <datatype_handle Old>
  static datatype hvector(MPI_Count count, MPI_Count blocklength, MPI_Aint stride_bytes, Old const& old) {
    MPI_Datatype t;
    detail::call_with(MPI_CXX_COUNTED_FN(MPI_Type_create_hvector), detail::counted{count},
                      detail::counted{blocklength}, stride_bytes, mpi::handle(old), &t);
    return from_native(t);
  }
  // The array arguments below take any contiguous range of integers (std::vector<int>,
  // std::array<MPI_Count, N>, std::span<MPI_Aint const>, ...). When every value fits the
  // classic binding, it is called; otherwise the MPI-4.0 "_c" binding is (MPI_ERR_COUNT
  // where the MPI has none). Arrays of the element type the chosen binding takes are passed
  // as they are; others are converted, value by value with a range check, into a
  // std::vector: type construction is not on the communication path, and one allocation
  // there buys wide arrays everywhere without a second overload of every constructor.
  template <integer_array B, integer_array D, datatype_handle Old>
  static datatype indexed(B const& blocklengths, D const& displs, Old const& old) {
    constexpr char const* fn = "MPI_Type_indexed";
    MPI_Count const n = paired_length(blocklengths, displs, fn);
    detail::int_array bl(blocklengths, fn);
    detail::int_array di(displs, fn);
    MPI_Datatype t;
    detail::call_with(MPI_CXX_COUNTED_FN(MPI_Type_indexed), detail::counted{n}, bl, di, mpi::handle(old), &t);
    return from_native(t);
  }
  // Byte displacements are MPI_Aint in the classic binding already: only the count and the
  // block lengths decide.
  template <integer_array B, integer_array D, datatype_handle Old>
  static datatype hindexed(B const& blocklengths, D const& displs, Old const& old) {
    constexpr char const* fn = "MPI_Type_create_hindexed";
    MPI_Count const n = paired_length(blocklengths, displs, fn);
    detail::int_array bl(blocklengths, fn);
    detail::byte_displs di(displs, fn);
    MPI_Datatype t;
    detail::call_with(MPI_CXX_COUNTED_FN(MPI_Type_create_hindexed), detail::counted{n}, bl, di, mpi::handle(old),
                      &t);
    return from_native(t);
  }
  template <integer_array D, datatype_handle Old>
  static datatype indexed_block(MPI_Count blocklength, D const& displs, Old const& old) {
    constexpr char const* fn = "MPI_Type_create_indexed_block";
    MPI_Count const n = detail::to_count(detail::size_of(displs), fn);
    detail::int_array di(displs, fn);
    MPI_Datatype t;
    detail::call_with(MPI_CXX_COUNTED_FN(MPI_Type_create_indexed_block), detail::counted{n},
                      detail::counted{blocklength}, di, mpi::handle(old), &t);
    return from_native(t);
  }
  template <integer_array D, datatype_handle Old>
  static datatype hindexed_block(MPI_Count blocklength, D const& displs, Old const& old) {
    constexpr char const* fn = "MPI_Type_create_hindexed_block";
    MPI_Count const n = detail::to_count(detail::size_of(displs), fn);
    detail::byte_displs di(displs, fn);
    MPI_Datatype t;
    detail::call_with(MPI_CXX_COUNTED_FN(MPI_Type_create_hindexed_block), detail::counted{n},
                      detail::counted{blocklength}, di, mpi::handle(old), &t);
    return from_native(t);
  }
  template <integer_array B, integer_array D>
  static datatype struct_(B const& blocklengths, D const& displs, std::span<MPI_Datatype const> types) {
    constexpr char const* fn = "MPI_Type_create_struct";
    same_size(blocklengths, types, fn);
    MPI_Count const n = paired_length(blocklengths, displs, fn);
    detail::int_array bl(blocklengths, fn);
    detail::byte_displs di(displs, fn);
    MPI_Datatype t;
    detail::call_with(MPI_CXX_COUNTED_FN(MPI_Type_create_struct), detail::counted{n}, bl, di, types.data(), &t);
    return from_native(t);
  }
  // The number of dimensions is an int in both bindings; sizes, subsizes and starts widen.
  template <integer_array S, integer_array U, integer_array T0, datatype_handle Old>
  static datatype subarray(S const& sizes, U const& subsizes, T0 const& starts, array_order order, Old const& old) {
    constexpr char const* fn = "MPI_Type_create_subarray";
    same_size(sizes, subsizes, fn);
    same_size(sizes, starts, fn);
    int const ndims = detail::range_size(sizes, fn);
    detail::int_array sz(sizes, fn);
    detail::int_array sub(subsizes, fn);
    detail::int_array st(starts, fn);
    MPI_Datatype t;
    detail::call_with(MPI_CXX_COUNTED_FN(MPI_Type_create_subarray), ndims, sz, sub, st, native_order(order),
                      mpi::handle(old), &t);
    return from_native(t);
  }
  // distribs: MPI_DISTRIBUTE_BLOCK / CYCLIC / NONE; dargs: MPI_DISTRIBUTE_DFLT_DARG or a block size.
  // Only the global sizes widen in MPI_Type_create_darray_c; the rest stays int.
  template <integer_array G, datatype_handle Old>
  static datatype darray(int size, int rank, G const& gsizes, std::span<int const> distribs,
                         std::span<int const> dargs, std::span<int const> psizes, array_order order,
                         Old const& old) {
    constexpr char const* fn = "MPI_Type_create_darray";
    same_size(gsizes, distribs, fn);
    same_size(gsizes, dargs, fn);
    same_size(gsizes, psizes, fn);
    int const ndims = detail::range_size(gsizes, fn);
    detail::int_array gs(gsizes, fn);
    MPI_Datatype t;
    detail::call_with(MPI_CXX_COUNTED_FN(MPI_Type_create_darray), size, rank, ndims, gs, distribs.data(), dargs.data(),
                      psizes.data(), native_order(order), mpi::handle(old), &t);
    return from_native(t);
  }
  // lb and extent are MPI_Aint, as wide as MPI_Count on every platform anympi supports, so
  // the classic binding already takes every value MPI_Type_create_resized_c would.
  template <datatype_handle Old>
  static datatype resized(Old const& old, MPI_Aint lb, MPI_Aint extent) {
    MPI_Datatype t;
    MPI_CXX_CALL(MPI_Type_create_resized, mpi::handle(old), lb, extent, &t);
    return from_native(t);
  }

private:
  template <class A, class B>
  static void same_size(A const& a, B const& b, char const* fn) {
    if (detail::size_of(a) != detail::size_of(b)) detail::fail(MPI_ERR_ARG, fn, "array arguments differ in length");
  }
  // The common length of block lengths and displacements: the count argument.
  template <class A, class B>
  static MPI_Count paired_length(A const& blocklengths, B const& displs, char const* fn) {
    same_size(blocklengths, displs, fn);
    return detail::to_count(detail::size_of(blocklengths), fn);
  }
  static int native_order(array_order o) noexcept { return o == array_order::c ? MPI_ORDER_C : MPI_ORDER_FORTRAN; }
};

template <class D>
datatype datatype_ops<D>::dup() const {
  MPI_Datatype t;
  MPI_CXX_CALL(MPI_Type_dup, h(), &t);
  return datatype::from_native(t);
}

// The (value, index) pair type MPI_MAXLOC and MPI_MINLOC reduce (MPI_Type_get_value_index; the
// C++ struct mpi::value_index<T> maps to the predefined ones), e.g. MPI_DOUBLE_INT for
// (double, int). The standard makes it a predefined type, so it comes back as a view, never
// freed; a null view where the MPI has no pair type for these two.
template <datatype_handle V, datatype_handle I>
datatype_view value_index_type(V const& value, I const& index) {
#if MPI_CXX_HAS_VALUE_INDEX
  MPI_Datatype t;
  MPI_CXX_CALL(MPI_Type_get_value_index, mpi::handle(value), mpi::handle(index), &t);
  return datatype_view(t);
#else
  (void)value, (void)index;
  detail::unsupported("MPI_Type_get_value_index");
#endif
}

}  // namespace mpi
