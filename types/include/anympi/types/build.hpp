// Building a real MPI datatype from an expression (expression.hpp), so that what is shown
// afterwards is what the MPI built, decoded back, not what the expression meant to say.
//
// Arguments MPI would reject (or, in some implementations, crash on) are checked first and
// reported at their column; what MPI still rejects comes back with MPI's own message. Errors
// are read from return codes, so the caller sets MPI_ERRORS_RETURN (on MPI_COMM_SELF, where
// MPI-4 raises errors that belong to no communicator) to see them instead of an abort.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <anympi/types/decode.hpp>
#include <anympi/types/expression.hpp>

namespace anympi::types {

// Owns a derived datatype (frees it once); a predefined one is held but never freed.
class datatype {
public:
  datatype() = default;
  explicit datatype(MPI_Datatype h) : h_(h) {}
  datatype(const datatype&) = delete;
  datatype& operator=(const datatype&) = delete;
  datatype(datatype&& o) noexcept : h_(std::exchange(o.h_, MPI_DATATYPE_NULL)) {}
  datatype& operator=(datatype&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, MPI_DATATYPE_NULL);
    }
    return *this;
  }
  ~datatype() { reset(); }

  MPI_Datatype get() const noexcept { return h_; }
  // Committing may replace the handle (it is INOUT in the standard), so it goes through here.
  void commit() { detail::check(MPI_Type_commit(&h_), "MPI_Type_commit"); }
  MPI_Datatype release() noexcept { return std::exchange(h_, MPI_DATATYPE_NULL); }
  void reset() noexcept {
    if (h_ == MPI_DATATYPE_NULL) return;
    if (!detail::is_predefined(detail::combiner_of(h_))) MPI_Type_free(&h_);
    h_ = MPI_DATATYPE_NULL;
  }

private:
  MPI_Datatype h_ = MPI_DATATYPE_NULL;
};

// The predefined datatype a name in an expression stands for: any case, MPI_ optional.
inline std::optional<MPI_Datatype> predefined_by_name(std::string_view name) {
  std::string n;
  for (char c : name) n += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (n.rfind("MPI_", 0) != 0) n = "MPI_" + n;
  for (const auto& p : detail::predefined_table())
    if (n == p.name) return p.handle;
  for (const auto& p : detail::pair_table())
    if (n == p.name) return p.handle;
  return std::nullopt;
}

namespace detail {

class builder {
public:
  datatype build(const type_expr& e) {
    switch (e.kind) {
      case constructor::basic: {
        auto h = predefined_by_name(e.name);
        if (!h) throw expression_error(e.offset, "unknown basic datatype '" + e.name + "' (in this MPI)");
        return datatype(*h);
      }
      case constructor::contiguous: {
        auto old = child(e);
        return made(e, "MPI_Type_contiguous", [&](MPI_Datatype* t) {
          return MPI_Type_contiguous(count(e, e.ints[0], "count"), old.get(), t);
        });
      }
      case constructor::vector:
      case constructor::hvector: {
        auto old = child(e);
        const int c = count(e, e.ints[0], "count"), bl = count(e, e.ints[1], "blocklength");
        if (e.kind == constructor::vector) {
          const int stride = in_int(e, e.ints[2], "stride");
          return made(e, "MPI_Type_vector", [&](MPI_Datatype* t) { return MPI_Type_vector(c, bl, stride, old.get(), t); });
        }
        const MPI_Aint stride = static_cast<MPI_Aint>(e.ints[2]);
        return made(e, "MPI_Type_create_hvector",
                    [&](MPI_Datatype* t) { return MPI_Type_create_hvector(c, bl, stride, old.get(), t); });
      }
      case constructor::indexed:
      case constructor::hindexed: {
        auto old = child(e);
        if (e.lists[0].size() != e.lists[1].size())
          throw expression_error(e.list_offsets[1], "there are " + std::to_string(e.lists[0].size()) +
                                                        " blocklengths but " + std::to_string(e.lists[1].size()) +
                                                        " displacements");
        std::vector<int> bl = counts(e, e.lists[0], 0, "blocklength");
        const int n = static_cast<int>(bl.size());
        if (e.kind == constructor::indexed) {
          std::vector<int> d = ints(e, e.lists[1], 1, "displacement");
          return made(e, "MPI_Type_indexed",
                      [&](MPI_Datatype* t) { return MPI_Type_indexed(n, bl.data(), d.data(), old.get(), t); });
        }
        std::vector<MPI_Aint> d(e.lists[1].begin(), e.lists[1].end());
        return made(e, "MPI_Type_create_hindexed",
                    [&](MPI_Datatype* t) { return MPI_Type_create_hindexed(n, bl.data(), d.data(), old.get(), t); });
      }
      case constructor::indexed_block:
      case constructor::hindexed_block: {
        auto old = child(e);
        const int bl = count(e, e.ints[0], "blocklength");
        const int n = static_cast<int>(e.lists[0].size());
        if (e.kind == constructor::indexed_block) {
          std::vector<int> d = ints(e, e.lists[0], 0, "displacement");
          return made(e, "MPI_Type_create_indexed_block",
                      [&](MPI_Datatype* t) { return MPI_Type_create_indexed_block(n, bl, d.data(), old.get(), t); });
        }
        std::vector<MPI_Aint> d(e.lists[0].begin(), e.lists[0].end());
        return made(e, "MPI_Type_create_hindexed_block",
                    [&](MPI_Datatype* t) { return MPI_Type_create_hindexed_block(n, bl, d.data(), old.get(), t); });
      }
      case constructor::struct_: {
        std::vector<datatype> fields;
        std::vector<MPI_Datatype> handles;
        std::vector<int> bl;
        for (std::size_t i = 0; i < e.children.size(); ++i) {
          fields.push_back(build(e.children[i]));
          handles.push_back(fields.back().get());
          bl.push_back(count_at(e.list_offsets[i], e.lists[0][i], "blocklength"));
        }
        std::vector<MPI_Aint> d(e.lists[1].begin(), e.lists[1].end());
        return made(e, "MPI_Type_create_struct", [&](MPI_Datatype* t) {
          return MPI_Type_create_struct(static_cast<int>(bl.size()), bl.data(), d.data(), handles.data(), t);
        });
      }
      case constructor::subarray: {
        auto old = child(e);
        const auto nd = e.lists[0].size();
        for (std::size_t k = 1; k < 3; ++k)
          if (e.lists[k].size() != nd)
            throw expression_error(e.list_offsets[k], "subarray lists must all have " + std::to_string(nd) + " entries");
        if (nd == 0) throw expression_error(e.list_offsets[0], "a subarray needs at least one dimension");
        std::vector<int> sizes = ints(e, e.lists[0], 0, "size"), sub = ints(e, e.lists[1], 1, "subsize"),
                         starts = ints(e, e.lists[2], 2, "start");
        for (std::size_t d = 0; d < nd; ++d) {
          if (sizes[d] < 1) throw expression_error(e.list_offsets[0], "sizes must be at least 1");
          if (sub[d] < 1 || sub[d] > sizes[d])
            throw expression_error(e.list_offsets[1], "subsizes must be between 1 and the size (dimension " +
                                                          std::to_string(d) + ")");
          if (starts[d] < 0 || starts[d] > sizes[d] - sub[d])
            throw expression_error(e.list_offsets[2], "starts must keep the subarray inside the array (dimension " +
                                                          std::to_string(d) + ")");
        }
        const int order = e.order == array_order::c ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
        return made(e, "MPI_Type_create_subarray", [&](MPI_Datatype* t) {
          return MPI_Type_create_subarray(static_cast<int>(nd), sizes.data(), sub.data(), starts.data(), order,
                                          old.get(), t);
        });
      }
      case constructor::darray: {
        auto old = child(e);
        const auto nd = e.lists[0].size();
        for (std::size_t k = 1; k < 4; ++k)
          if (e.lists[k].size() != nd)
            throw expression_error(e.list_offsets[k], "darray lists must all have " + std::to_string(nd) + " entries");
        if (nd == 0) throw expression_error(e.list_offsets[0], "a darray needs at least one dimension");
        const int size = in_int(e, e.ints[0], "number of processes"), rank = in_int(e, e.ints[1], "rank");
        if (size < 1) throw expression_error(e.offset, "the number of processes must be at least 1");
        if (rank < 0 || rank >= size) throw expression_error(e.offset, "the rank must be in [0, size)");
        std::vector<int> gs = ints(e, e.lists[0], 0, "global size"), ps = ints(e, e.lists[3], 3, "process grid size");
        std::vector<int> dist, darg;
        long long grid = 1;
        for (std::size_t d = 0; d < nd; ++d) {
          if (gs[d] < 1) throw expression_error(e.list_offsets[0], "global sizes must be at least 1");
          if (ps[d] < 1) throw expression_error(e.list_offsets[3], "process grid sizes must be at least 1");
          grid = std::min<long long>(grid * ps[d], LLONG_MAX / INT_MAX);
          const auto k = static_cast<distribution>(e.lists[1][d]);
          const std::int64_t a = e.lists[2][d];
          if (k == distribution::none && ps[d] != 1)
            throw expression_error(e.list_offsets[3], "a dimension distributed as none needs 1 process");
          if (k == distribution::none && a != default_darg)
            throw expression_error(e.list_offsets[2], "a dimension distributed as none takes dflt");
          if (k == distribution::block && a != default_darg && a * ps[d] < gs[d])
            throw expression_error(e.list_offsets[2], "block size times processes must cover the global size (dimension " +
                                                          std::to_string(d) + ")");
          dist.push_back(k == distribution::block ? MPI_DISTRIBUTE_BLOCK
                         : k == distribution::cyclic ? MPI_DISTRIBUTE_CYCLIC
                                                      : MPI_DISTRIBUTE_NONE);
          darg.push_back(a == default_darg ? MPI_DISTRIBUTE_DFLT_DARG : in_int_at(e.list_offsets[2], a, "darg"));
        }
        if (grid != size)
          throw expression_error(e.list_offsets[3], "the process grid has " + std::to_string(grid) +
                                                        " processes but size is " + std::to_string(size));
        const int order = e.order == array_order::c ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
        return made(e, "MPI_Type_create_darray", [&](MPI_Datatype* t) {
          return MPI_Type_create_darray(size, rank, static_cast<int>(nd), gs.data(), dist.data(), darg.data(),
                                        ps.data(), order, old.get(), t);
        });
      }
      case constructor::resized: {
        auto old = child(e);
        return made(e, "MPI_Type_create_resized", [&](MPI_Datatype* t) {
          return MPI_Type_create_resized(old.get(), static_cast<MPI_Aint>(e.ints[0]), static_cast<MPI_Aint>(e.ints[1]), t);
        });
      }
      case constructor::dup: {
        auto old = child(e);
        return made(e, "MPI_Type_dup", [&](MPI_Datatype* t) { return MPI_Type_dup(old.get(), t); });
      }
      case constructor::f90_real:
      case constructor::f90_complex: {
        const int p = in_int(e, e.ints[0], "p"), r = in_int(e, e.ints[1], "r");
        if (e.kind == constructor::f90_real)
          return made(e, "MPI_Type_create_f90_real", [&](MPI_Datatype* t) { return MPI_Type_create_f90_real(p, r, t); });
        return made(e, "MPI_Type_create_f90_complex",
                    [&](MPI_Datatype* t) { return MPI_Type_create_f90_complex(p, r, t); });
      }
      case constructor::f90_integer: {
        const int r = in_int(e, e.ints[0], "r");
        return made(e, "MPI_Type_create_f90_integer", [&](MPI_Datatype* t) { return MPI_Type_create_f90_integer(r, t); });
      }
      case constructor::value_index: {
#if ANYMPI_TYPES_HAVE_VALUE_INDEX
        auto value = build(e.children.at(0));
        auto index = build(e.children.at(1));
        auto pair = made(e, "MPI_Type_get_value_index", [&](MPI_Datatype* t) {
          return MPI_Type_get_value_index(value.get(), index.get(), t);
        });
        // The standard's answer when the MPI has no pair type for these two.
        if (pair.get() == MPI_DATATYPE_NULL)
          throw expression_error(e.offset, "MPI_Type_get_value_index has no pair type for (" + to_string(e.children[0]) +
                                               ", " + to_string(e.children[1]) +
                                               "): the value must be a predefined C type MPI_MAXLOC orders, the index "
                                               "a predefined integer type");
        return pair;
#else
        throw expression_error(e.offset, "value_index needs MPI_Type_get_value_index (MPI-4.1); this mpi.h is MPI " +
                                             std::to_string(MPI_VERSION) + "." + std::to_string(MPI_SUBVERSION));
#endif
      }
    }
    throw expression_error(e.offset, "unknown constructor");
  }

private:
  datatype child(const type_expr& e) { return build(e.children.at(0)); }

  template <class F>
  static datatype made(const type_expr& e, const char* call, F&& f) {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    const int rc = f(&t);
    if (rc != MPI_SUCCESS) throw expression_error(e.offset, std::string(call) + " failed: " + mpi_error_string(rc));
    return datatype(t);
  }
  static int in_int_at(std::size_t at, std::int64_t v, const char* what) {
    if (v < INT_MIN || v > INT_MAX) throw expression_error(at, std::string(what) + " " + std::to_string(v) + " does not fit an int");
    return static_cast<int>(v);
  }
  static int count_at(std::size_t at, std::int64_t v, const char* what) {
    if (v < 0) throw expression_error(at, std::string(what) + " must not be negative (got " + std::to_string(v) + ")");
    return in_int_at(at, v, what);
  }
  static int in_int(const type_expr& e, std::int64_t v, const char* what) { return in_int_at(e.offset, v, what); }
  static int count(const type_expr& e, std::int64_t v, const char* what) { return count_at(e.offset, v, what); }
  static std::vector<int> ints(const type_expr& e, const std::vector<std::int64_t>& v, std::size_t list, const char* what) {
    std::vector<int> out;
    for (auto x : v) out.push_back(in_int_at(e.list_offsets.at(list), x, what));
    return out;
  }
  static std::vector<int> counts(const type_expr& e, const std::vector<std::int64_t>& v, std::size_t list, const char* what) {
    std::vector<int> out;
    for (auto x : v) out.push_back(count_at(e.list_offsets.at(list), x, what));
    return out;
  }
};

}  // namespace detail

// The datatype `e` describes, built with MPI calls (not committed).
inline datatype build(const type_expr& e) { return detail::builder().build(e); }

// Parses and builds; the count of a message expression is returned beside the type.
struct built_message {
  datatype type;
  std::int64_t count = 1;
};

inline built_message build(std::string_view text) {
  message_expr m = parse_message(text);
  if (m.count < 0) throw expression_error(m.count_offset, "the count must not be negative");
  return {build(m.type), m.count};
}

}  // namespace anympi::types
