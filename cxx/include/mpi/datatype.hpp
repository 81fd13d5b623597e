// Derived datatypes: RAII constructors for every MPI type constructor, commit, size and
// extent queries. Counts use the "_c" constructors when they do not fit in int.
#pragma once

#include <mpi/large_count.hpp>
#include <mpi/object.hpp>
#include <mpi/rank_tag.hpp>

#include <span>
#include <string>
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
template <class R>
int span_size(R const& r, char const* fn) {
  return checked_int(std::ranges::size(r), MPI_ERR_COUNT, fn);
}
}  // namespace detail

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
#if MPI_CXX_HAS_LARGE_COUNT
    MPI_Count n = 0;
    MPI_CXX_CALL(MPI_Type_size_c, h(), &n);
#else
    MPI_Count n = 0;
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
  void set_name(std::string const& n) const { MPI_CXX_CALL(MPI_Type_set_name, h(), n.c_str()); }
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
    MPI_CXX_CALL_COUNTED(detail::fits_int(count), MPI_Type_contiguous, cnt_t(count), mpi::handle(old), &t);
    return from_native(t);
  }
  template <datatype_handle Old>
  static datatype vector(MPI_Count count, MPI_Count blocklength, MPI_Count stride, Old const& old) {
    MPI_Datatype t;
    MPI_CXX_CALL_COUNTED(detail::all_fit_int(count, blocklength, stride), MPI_Type_vector, cnt_t(count),
                         cnt_t(blocklength), cnt_t(stride), mpi::handle(old), &t);
    return from_native(t);
  }
  template <datatype_handle Old>
  static datatype hvector(MPI_Count count, MPI_Count blocklength, MPI_Aint stride_bytes, Old const& old) {
    MPI_Datatype t;
    MPI_CXX_CALL_COUNTED(detail::all_fit_int(count, blocklength), MPI_Type_create_hvector, cnt_t(count),
                         cnt_t(blocklength), stride_bytes, mpi::handle(old), &t);
    return from_native(t);
  }
  template <datatype_handle Old>
  static datatype indexed(std::span<int const> blocklengths, std::span<int const> displs, Old const& old) {
    same_size(blocklengths.size(), displs.size(), "MPI_Type_indexed");
    MPI_Datatype t;
    MPI_CXX_CALL(MPI_Type_indexed, detail::span_size(blocklengths, "MPI_Type_indexed"), blocklengths.data(),
                 displs.data(), mpi::handle(old), &t);
    return from_native(t);
  }
  template <datatype_handle Old>
  static datatype hindexed(std::span<int const> blocklengths, std::span<MPI_Aint const> displs, Old const& old) {
    same_size(blocklengths.size(), displs.size(), "MPI_Type_create_hindexed");
    MPI_Datatype t;
    MPI_CXX_CALL(MPI_Type_create_hindexed, detail::span_size(blocklengths, "MPI_Type_create_hindexed"),
                 blocklengths.data(), displs.data(), mpi::handle(old), &t);
    return from_native(t);
  }
  template <datatype_handle Old>
  static datatype indexed_block(int blocklength, std::span<int const> displs, Old const& old) {
    MPI_Datatype t;
    MPI_CXX_CALL(MPI_Type_create_indexed_block, detail::span_size(displs, "MPI_Type_create_indexed_block"),
                 blocklength, displs.data(), mpi::handle(old), &t);
    return from_native(t);
  }
  template <datatype_handle Old>
  static datatype hindexed_block(int blocklength, std::span<MPI_Aint const> displs, Old const& old) {
    MPI_Datatype t;
    MPI_CXX_CALL(MPI_Type_create_hindexed_block, detail::span_size(displs, "MPI_Type_create_hindexed_block"),
                 blocklength, displs.data(), mpi::handle(old), &t);
    return from_native(t);
  }
  static datatype struct_(std::span<int const> blocklengths, std::span<MPI_Aint const> displs,
                          std::span<MPI_Datatype const> types) {
    same_size(blocklengths.size(), displs.size(), "MPI_Type_create_struct");
    same_size(blocklengths.size(), types.size(), "MPI_Type_create_struct");
    MPI_Datatype t;
    MPI_CXX_CALL(MPI_Type_create_struct, detail::span_size(blocklengths, "MPI_Type_create_struct"),
                 blocklengths.data(), displs.data(), types.data(), &t);
    return from_native(t);
  }
  template <datatype_handle Old>
  static datatype subarray(std::span<int const> sizes, std::span<int const> subsizes, std::span<int const> starts,
                           array_order order, Old const& old) {
    same_size(sizes.size(), subsizes.size(), "MPI_Type_create_subarray");
    same_size(sizes.size(), starts.size(), "MPI_Type_create_subarray");
    MPI_Datatype t;
    MPI_CXX_CALL(MPI_Type_create_subarray, detail::span_size(sizes, "MPI_Type_create_subarray"), sizes.data(),
                 subsizes.data(), starts.data(), order == array_order::c ? MPI_ORDER_C : MPI_ORDER_FORTRAN,
                 mpi::handle(old), &t);
    return from_native(t);
  }
  // distribs: MPI_DISTRIBUTE_BLOCK / CYCLIC / NONE; dargs: MPI_DISTRIBUTE_DFLT_DARG or a block size.
  template <datatype_handle Old>
  static datatype darray(int size, int rank, std::span<int const> gsizes, std::span<int const> distribs,
                         std::span<int const> dargs, std::span<int const> psizes, array_order order,
                         Old const& old) {
    same_size(gsizes.size(), distribs.size(), "MPI_Type_create_darray");
    same_size(gsizes.size(), dargs.size(), "MPI_Type_create_darray");
    same_size(gsizes.size(), psizes.size(), "MPI_Type_create_darray");
    MPI_Datatype t;
    MPI_CXX_CALL(MPI_Type_create_darray, size, rank, detail::span_size(gsizes, "MPI_Type_create_darray"),
                 gsizes.data(), distribs.data(), dargs.data(), psizes.data(),
                 order == array_order::c ? MPI_ORDER_C : MPI_ORDER_FORTRAN, mpi::handle(old), &t);
    return from_native(t);
  }
  template <datatype_handle Old>
  static datatype resized(Old const& old, MPI_Aint lb, MPI_Aint extent) {
    MPI_Datatype t;
    MPI_CXX_CALL(MPI_Type_create_resized, mpi::handle(old), lb, extent, &t);
    return from_native(t);
  }

private:
  static void same_size(std::size_t a, std::size_t b, char const* fn) {
    if (a != b) detail::fail(MPI_ERR_ARG, fn, "array arguments differ in length");
  }
};

template <class D>
datatype datatype_ops<D>::dup() const {
  MPI_Datatype t;
  MPI_CXX_CALL(MPI_Type_dup, h(), &t);
  return datatype::from_native(t);
}

}  // namespace mpi
