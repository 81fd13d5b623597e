// Decoding an MPI datatype through MPI_Type_get_envelope / MPI_Type_get_contents.
//
// Works over any mpi.h: handles are compared only with ==, never assumed to be integers
// or pointers, and a predefined name is looked up only if this mpi.h defines it.
// The int versions of get_envelope/get_contents are used on purpose: Open MPI 4.1 has no
// _c variants, and a type whose arguments need large counts is reported as an MPI error.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <anympi/types/layout.hpp>

// MPI_Type_get_value_index and MPI_COMBINER_VALUE_INDEX are MPI-4.1; an mpi.h may spell
// combiners as an enum, so the version says whether they exist.
#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
#define ANYMPI_TYPES_HAVE_VALUE_INDEX 1
#else
#define ANYMPI_TYPES_HAVE_VALUE_INDEX 0
#endif
// MPI-4.0's large-count (_c) constructors: a type they made answers only
// MPI_Type_get_envelope_c / MPI_Type_get_contents_c, with its counts as large counts.
#if MPI_VERSION >= 4
#define ANYMPI_TYPES_HAVE_LARGE_COUNTS 1
#else
#define ANYMPI_TYPES_HAVE_LARGE_COUNTS 0
#endif

namespace anympi::types {

// An MPI call failed: the code, the call, and MPI's own words.
class mpi_error : public std::runtime_error {
public:
  mpi_error(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const noexcept { return code_; }

private:
  int code_;
};

namespace detail {

inline std::string mpi_error_string(int rc) {
  char text[MPI_MAX_ERROR_STRING + 1] = {};
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(rc);
  return std::string(text, static_cast<std::size_t>(len));
}

// The one error check of this library.
inline void check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) throw mpi_error(rc, std::string(call) + ": " + mpi_error_string(rc));
}

struct predefined {
  MPI_Datatype handle;
  const char* name;
  const char* canonical;  // nullptr: the name itself
};

// Predefined datatypes that are one basic value. Synonyms come after the name they stand
// for, so a handle two names share (MPICH) is shown by its primary name.
#define ANYMPI_TYPES_P(t) predefined{t, #t, nullptr}
#define ANYMPI_TYPES_SYN(t, of) predefined{t, #t, #of}
inline const std::vector<predefined>& predefined_table() {
  static const std::vector<predefined> table = [] {
    std::vector<predefined> v = {
#ifdef MPI_CHAR
        ANYMPI_TYPES_P(MPI_CHAR),
#endif
#ifdef MPI_SIGNED_CHAR
        ANYMPI_TYPES_P(MPI_SIGNED_CHAR),
#endif
#ifdef MPI_UNSIGNED_CHAR
        ANYMPI_TYPES_P(MPI_UNSIGNED_CHAR),
#endif
#ifdef MPI_BYTE
        ANYMPI_TYPES_P(MPI_BYTE),
#endif
#ifdef MPI_PACKED
        ANYMPI_TYPES_P(MPI_PACKED),
#endif
#ifdef MPI_SHORT
        ANYMPI_TYPES_P(MPI_SHORT),
#endif
#ifdef MPI_UNSIGNED_SHORT
        ANYMPI_TYPES_P(MPI_UNSIGNED_SHORT),
#endif
#ifdef MPI_INT
        ANYMPI_TYPES_P(MPI_INT),
#endif
#ifdef MPI_UNSIGNED
        ANYMPI_TYPES_P(MPI_UNSIGNED),
#endif
#ifdef MPI_LONG
        ANYMPI_TYPES_P(MPI_LONG),
#endif
#ifdef MPI_UNSIGNED_LONG
        ANYMPI_TYPES_P(MPI_UNSIGNED_LONG),
#endif
#ifdef MPI_LONG_LONG
        ANYMPI_TYPES_P(MPI_LONG_LONG),
#endif
#ifdef MPI_LONG_LONG_INT
        ANYMPI_TYPES_SYN(MPI_LONG_LONG_INT, MPI_LONG_LONG),
#endif
#ifdef MPI_UNSIGNED_LONG_LONG
        ANYMPI_TYPES_P(MPI_UNSIGNED_LONG_LONG),
#endif
#ifdef MPI_FLOAT
        ANYMPI_TYPES_P(MPI_FLOAT),
#endif
#ifdef MPI_DOUBLE
        ANYMPI_TYPES_P(MPI_DOUBLE),
#endif
#ifdef MPI_LONG_DOUBLE
        ANYMPI_TYPES_P(MPI_LONG_DOUBLE),
#endif
#ifdef MPI_WCHAR
        ANYMPI_TYPES_P(MPI_WCHAR),
#endif
#ifdef MPI_C_BOOL
        ANYMPI_TYPES_P(MPI_C_BOOL),
#endif
#ifdef MPI_INT8_T
        ANYMPI_TYPES_P(MPI_INT8_T),
#endif
#ifdef MPI_INT16_T
        ANYMPI_TYPES_P(MPI_INT16_T),
#endif
#ifdef MPI_INT32_T
        ANYMPI_TYPES_P(MPI_INT32_T),
#endif
#ifdef MPI_INT64_T
        ANYMPI_TYPES_P(MPI_INT64_T),
#endif
#ifdef MPI_UINT8_T
        ANYMPI_TYPES_P(MPI_UINT8_T),
#endif
#ifdef MPI_UINT16_T
        ANYMPI_TYPES_P(MPI_UINT16_T),
#endif
#ifdef MPI_UINT32_T
        ANYMPI_TYPES_P(MPI_UINT32_T),
#endif
#ifdef MPI_UINT64_T
        ANYMPI_TYPES_P(MPI_UINT64_T),
#endif
#ifdef MPI_AINT
        ANYMPI_TYPES_P(MPI_AINT),
#endif
#ifdef MPI_COUNT
        ANYMPI_TYPES_P(MPI_COUNT),
#endif
#ifdef MPI_OFFSET
        ANYMPI_TYPES_P(MPI_OFFSET),
#endif
#ifdef MPI_C_FLOAT_COMPLEX
        ANYMPI_TYPES_P(MPI_C_FLOAT_COMPLEX),
#endif
#ifdef MPI_C_COMPLEX
        ANYMPI_TYPES_SYN(MPI_C_COMPLEX, MPI_C_FLOAT_COMPLEX),
#endif
#ifdef MPI_C_DOUBLE_COMPLEX
        ANYMPI_TYPES_P(MPI_C_DOUBLE_COMPLEX),
#endif
#ifdef MPI_C_LONG_DOUBLE_COMPLEX
        ANYMPI_TYPES_P(MPI_C_LONG_DOUBLE_COMPLEX),
#endif
#ifdef MPI_CXX_BOOL
        ANYMPI_TYPES_P(MPI_CXX_BOOL),
#endif
#ifdef MPI_CXX_FLOAT_COMPLEX
        ANYMPI_TYPES_P(MPI_CXX_FLOAT_COMPLEX),
#endif
#ifdef MPI_CXX_DOUBLE_COMPLEX
        ANYMPI_TYPES_P(MPI_CXX_DOUBLE_COMPLEX),
#endif
#ifdef MPI_CXX_LONG_DOUBLE_COMPLEX
        ANYMPI_TYPES_P(MPI_CXX_LONG_DOUBLE_COMPLEX),
#endif
#ifdef MPI_CHARACTER
        ANYMPI_TYPES_P(MPI_CHARACTER),
#endif
#ifdef MPI_LOGICAL
        ANYMPI_TYPES_P(MPI_LOGICAL),
#endif
#ifdef MPI_INTEGER
        ANYMPI_TYPES_P(MPI_INTEGER),
#endif
#ifdef MPI_REAL
        ANYMPI_TYPES_P(MPI_REAL),
#endif
#ifdef MPI_DOUBLE_PRECISION
        ANYMPI_TYPES_P(MPI_DOUBLE_PRECISION),
#endif
#ifdef MPI_COMPLEX
        ANYMPI_TYPES_P(MPI_COMPLEX),
#endif
#ifdef MPI_DOUBLE_COMPLEX
        ANYMPI_TYPES_P(MPI_DOUBLE_COMPLEX),
#endif
#ifdef MPI_LOGICAL1
        ANYMPI_TYPES_P(MPI_LOGICAL1),
#endif
#ifdef MPI_LOGICAL2
        ANYMPI_TYPES_P(MPI_LOGICAL2),
#endif
#ifdef MPI_LOGICAL4
        ANYMPI_TYPES_P(MPI_LOGICAL4),
#endif
#ifdef MPI_LOGICAL8
        ANYMPI_TYPES_P(MPI_LOGICAL8),
#endif
#ifdef MPI_LOGICAL16
        ANYMPI_TYPES_P(MPI_LOGICAL16),
#endif
#ifdef MPI_INTEGER1
        ANYMPI_TYPES_P(MPI_INTEGER1),
#endif
#ifdef MPI_INTEGER2
        ANYMPI_TYPES_P(MPI_INTEGER2),
#endif
#ifdef MPI_INTEGER4
        ANYMPI_TYPES_P(MPI_INTEGER4),
#endif
#ifdef MPI_INTEGER8
        ANYMPI_TYPES_P(MPI_INTEGER8),
#endif
#ifdef MPI_INTEGER16
        ANYMPI_TYPES_P(MPI_INTEGER16),
#endif
#ifdef MPI_REAL2
        ANYMPI_TYPES_P(MPI_REAL2),
#endif
#ifdef MPI_REAL4
        ANYMPI_TYPES_P(MPI_REAL4),
#endif
#ifdef MPI_REAL8
        ANYMPI_TYPES_P(MPI_REAL8),
#endif
#ifdef MPI_REAL16
        ANYMPI_TYPES_P(MPI_REAL16),
#endif
#ifdef MPI_COMPLEX4
        ANYMPI_TYPES_P(MPI_COMPLEX4),
#endif
#ifdef MPI_COMPLEX8
        ANYMPI_TYPES_P(MPI_COMPLEX8),
#endif
#ifdef MPI_COMPLEX16
        ANYMPI_TYPES_P(MPI_COMPLEX16),
#endif
#ifdef MPI_COMPLEX32
        ANYMPI_TYPES_P(MPI_COMPLEX32),
#endif
    };
    std::vector<predefined> present;
    // An MPI built without Fortran (or without a type) defines it as MPI_DATATYPE_NULL.
    for (const auto& p : v)
      if (p.handle != MPI_DATATYPE_NULL) present.push_back(p);
    return present;
  }();
  return table;
}
#undef ANYMPI_TYPES_SYN
#undef ANYMPI_TYPES_P

// Pair types are defined by the standard as if built with MPI_Type_create_struct from two
// basic types; the second value sits where a C (or Fortran) compiler puts it.
struct predefined_pair {
  MPI_Datatype handle;
  const char* name;
  MPI_Datatype first;
  MPI_Datatype second;
  std::int64_t second_disp;  // -1: right after the first (the Fortran pairs)
};

template <class A, class B>
struct c_pair {
  A a;
  B b;
};
template <class A, class B>
constexpr std::int64_t second_offset() {
  using pair = c_pair<A, B>;
  return static_cast<std::int64_t>(offsetof(pair, b));
}

inline const std::vector<predefined_pair>& pair_table() {
  static const std::vector<predefined_pair> table = [] {
    std::vector<predefined_pair> v = {
#ifdef MPI_FLOAT_INT
        {MPI_FLOAT_INT, "MPI_FLOAT_INT", MPI_FLOAT, MPI_INT, second_offset<float, int>()},
#endif
#ifdef MPI_DOUBLE_INT
        {MPI_DOUBLE_INT, "MPI_DOUBLE_INT", MPI_DOUBLE, MPI_INT, second_offset<double, int>()},
#endif
#ifdef MPI_LONG_INT
        {MPI_LONG_INT, "MPI_LONG_INT", MPI_LONG, MPI_INT, second_offset<long, int>()},
#endif
#ifdef MPI_2INT
        {MPI_2INT, "MPI_2INT", MPI_INT, MPI_INT, second_offset<int, int>()},
#endif
#ifdef MPI_SHORT_INT
        {MPI_SHORT_INT, "MPI_SHORT_INT", MPI_SHORT, MPI_INT, second_offset<short, int>()},
#endif
#ifdef MPI_LONG_DOUBLE_INT
        {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE, MPI_INT, second_offset<long double, int>()},
#endif
#if defined(MPI_2REAL) && defined(MPI_REAL)
        {MPI_2REAL, "MPI_2REAL", MPI_REAL, MPI_REAL, -1},
#endif
#if defined(MPI_2DOUBLE_PRECISION) && defined(MPI_DOUBLE_PRECISION)
        {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, -1},
#endif
#if defined(MPI_2INTEGER) && defined(MPI_INTEGER)
        {MPI_2INTEGER, "MPI_2INTEGER", MPI_INTEGER, MPI_INTEGER, -1},
#endif
    };
    std::vector<predefined_pair> present;
    for (const auto& p : v)
      if (p.handle != MPI_DATATYPE_NULL && p.first != MPI_DATATYPE_NULL) present.push_back(p);
    return present;
  }();
  return table;
}

inline std::int64_t type_size(MPI_Datatype t) {
  int size = 0;
  check(MPI_Type_size(t, &size), "MPI_Type_size");
  return size;
}

inline std::optional<basic_type> lookup_basic(MPI_Datatype t) {
  for (const auto& p : predefined_table())
    if (p.handle == t) return basic_type{p.name, p.canonical ? p.canonical : p.name, type_size(t)};
  return std::nullopt;
}

inline bounds bounds_of(MPI_Datatype t) {
  bounds b;
  MPI_Aint lb = 0, extent = 0, tlb = 0, textent = 0;
  check(MPI_Type_get_extent(t, &lb, &extent), "MPI_Type_get_extent");
  check(MPI_Type_get_true_extent(t, &tlb, &textent), "MPI_Type_get_true_extent");
  b.lb = lb;
  b.extent = extent;
  b.true_lb = tlb;
  b.true_extent = textent;
  b.size = type_size(t);
  return b;
}

// t's combiner, or MPI_COMBINER_NAMED where the MPI cannot tell (a handle then never freed).
inline int combiner_of(MPI_Datatype t) noexcept {
  int combiner = MPI_COMBINER_NAMED;
#if ANYMPI_TYPES_HAVE_LARGE_COUNTS
  MPI_Count ni, na, nc, nd;
  if (MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &combiner) != MPI_SUCCESS) return MPI_COMBINER_NAMED;
#else
  int ni, na, nd;
  if (MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) != MPI_SUCCESS) return MPI_COMBINER_NAMED;
#endif
  return combiner;
}

// Handles get_contents returns are new references to derived types; predefined ones
// (named, and the f90 and value-index ones, which the standard also calls predefined)
// must not be freed.
inline bool is_predefined(int combiner) {
  return combiner == MPI_COMBINER_NAMED || combiner == MPI_COMBINER_F90_REAL ||
         combiner == MPI_COMBINER_F90_COMPLEX || combiner == MPI_COMBINER_F90_INTEGER
#if ANYMPI_TYPES_HAVE_VALUE_INDEX
         || combiner == MPI_COMBINER_VALUE_INDEX
#endif
      ;
}

class contents_handles {
public:
  std::vector<MPI_Datatype> types;
  ~contents_handles() {
    for (auto& t : types)
      if (t != MPI_DATATYPE_NULL && !is_predefined(combiner_of(t))) MPI_Type_free(&t);
  }
};

inline type_node decode_named(MPI_Datatype t) {
  type_node n;
  n.kind = constructor::basic;
  if (auto b = lookup_basic(t)) {
    n.name = b->name;
    n.components.emplace_back(*b, 0);
    return n;
  }
  for (const auto& p : pair_table())
    if (p.handle == t) {
      n.name = p.name;
      auto first = lookup_basic(p.first);
      auto second = lookup_basic(p.second);
      if (!first || !second) break;
      n.components.emplace_back(*first, 0);
      n.components.emplace_back(*second, p.second_disp < 0 ? first->size : p.second_disp);
      return n;
    }
  // Not a name this mpi.h spells (an implementation extension, or MPI_LB/MPI_UB of old MPICH):
  // MPI's own name and size. A zero-size marker selects no value.
  char text[MPI_MAX_OBJECT_NAME + 1] = {};
  int len = 0;
  check(MPI_Type_get_name(t, text, &len), "MPI_Type_get_name");
  n.name = len ? std::string(text, static_cast<std::size_t>(len)) : std::string("<unnamed predefined datatype>");
  const auto size = type_size(t);
  if (size > 0) n.components.emplace_back(basic_type{n.name, n.name, size}, 0);
  return n;
}

inline type_node decode(MPI_Datatype t, int depth);

inline std::int64_t order_of(int o) {
  return o == MPI_ORDER_FORTRAN ? static_cast<std::int64_t>(array_order::fortran) : static_cast<std::int64_t>(array_order::c);
}

inline type_node decode(MPI_Datatype t, int depth) {
  if (t == MPI_DATATYPE_NULL) throw mpi_error(MPI_ERR_TYPE, "the datatype is MPI_DATATYPE_NULL");
  if (depth > 1000) throw mpi_error(MPI_ERR_TYPE, "datatype nested more than 1000 levels deep");
  int combiner = 0;
  std::vector<int> iv;
  std::vector<MPI_Aint> av;
  std::vector<std::int64_t> cv;  // the large counts of a type a _c constructor made
  contents_handles dv;
#if ANYMPI_TYPES_HAVE_LARGE_COUNTS
  MPI_Count ni = 0, na = 0, nc = 0, nd = 0;
  check(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &combiner), "MPI_Type_get_envelope_c");
#else
  int ni = 0, na = 0, nd = 0;
  check(MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner), "MPI_Type_get_envelope");
#endif
  type_node n;
  if (combiner == MPI_COMBINER_NAMED) {
    n = decode_named(t);
    n.b = bounds_of(t);
    return n;
  }
  iv.resize(static_cast<std::size_t>(ni));
  av.resize(static_cast<std::size_t>(na));
  dv.types.assign(static_cast<std::size_t>(nd), MPI_DATATYPE_NULL);
#if ANYMPI_TYPES_HAVE_LARGE_COUNTS
  std::vector<MPI_Count> counts(static_cast<std::size_t>(nc));
  check(MPI_Type_get_contents_c(t, ni, na, nc, nd, iv.data(), av.data(), counts.data(), dv.types.data()),
        "MPI_Type_get_contents_c");
  cv.assign(counts.begin(), counts.end());
#else
  check(MPI_Type_get_contents(t, ni, na, nd, iv.data(), av.data(), dv.types.data()), "MPI_Type_get_contents");
#endif
  n.b = bounds_of(t);

  // The constructor's arguments in the order the int form lists them: from the integers and
  // addresses, or, for a type a _c constructor made, all from the large counts (the standard
  // lists them there in the same order; a subarray's and darray's constants stay integers).
  const bool large = !cv.empty();
  auto I = [&](std::size_t i) -> std::int64_t { return large ? cv.at(i) : iv.at(i); };
  auto A = [&](std::size_t i) -> std::int64_t { return static_cast<std::int64_t>(av.at(i)); };
  auto ilist = [&](std::size_t from, std::size_t count) {
    std::vector<std::int64_t> v;
    for (std::size_t i = 0; i < count; ++i) v.push_back(I(from + i));
    return v;
  };
  // The address arguments: after the `after` integers where the large counts hold both.
  auto alist = [&](std::size_t from, std::size_t count, std::size_t after) {
    std::vector<std::int64_t> v;
    for (std::size_t i = 0; i < count; ++i) v.push_back(large ? cv.at(after + from + i) : A(from + i));
    return v;
  };
  auto children = [&] {
    for (auto d : dv.types) n.children.push_back(decode(d, depth + 1));
  };

  if (combiner == MPI_COMBINER_DUP) {
    n.kind = constructor::dup;
  } else if (combiner == MPI_COMBINER_CONTIGUOUS) {
    n.kind = constructor::contiguous;
    n.ints = {I(0)};
  } else if (combiner == MPI_COMBINER_VECTOR) {
    n.kind = constructor::vector;
    n.ints = {I(0), I(1), I(2)};
  } else if (combiner == MPI_COMBINER_HVECTOR) {
    n.kind = constructor::hvector;
    n.ints = {I(0), I(1), alist(0, 1, 2).at(0)};
  } else if (combiner == MPI_COMBINER_INDEXED) {
    n.kind = constructor::indexed;
    const auto c = static_cast<std::size_t>(I(0));
    n.lists = {ilist(1, c), ilist(1 + c, c)};
  } else if (combiner == MPI_COMBINER_HINDEXED) {
    n.kind = constructor::hindexed;
    const auto c = static_cast<std::size_t>(I(0));
    n.lists = {ilist(1, c), alist(0, c, 1 + c)};
  } else if (combiner == MPI_COMBINER_INDEXED_BLOCK) {
    n.kind = constructor::indexed_block;
    const auto c = static_cast<std::size_t>(I(0));
    n.ints = {I(1)};
    n.lists = {ilist(2, c)};
  } else if (combiner == MPI_COMBINER_HINDEXED_BLOCK) {
    n.kind = constructor::hindexed_block;
    const auto c = static_cast<std::size_t>(I(0));
    n.ints = {I(1)};
    n.lists = {alist(0, c, 2)};
  } else if (combiner == MPI_COMBINER_STRUCT) {
    n.kind = constructor::struct_;
    const auto c = static_cast<std::size_t>(I(0));
    n.lists = {ilist(1, c), alist(0, c, 1 + c)};
  } else if (combiner == MPI_COMBINER_SUBARRAY && large) {  // ints: ndims, order
    n.kind = constructor::subarray;
    const auto d = static_cast<std::size_t>(iv.at(0));
    n.lists = {ilist(0, d), ilist(d, d), ilist(2 * d, d)};
    n.order = static_cast<array_order>(order_of(iv.at(1)));
  } else if (combiner == MPI_COMBINER_SUBARRAY) {
    n.kind = constructor::subarray;
    const auto d = static_cast<std::size_t>(I(0));
    n.lists = {ilist(1, d), ilist(1 + d, d), ilist(1 + 2 * d, d)};
    n.order = static_cast<array_order>(order_of(iv.at(1 + 3 * d)));
  } else if (combiner == MPI_COMBINER_DARRAY) {
    // ints: size, rank, ndims, [gsizes,] distribs, dargs, psizes, order; large: gsizes
    n.kind = constructor::darray;
    const auto d = static_cast<std::size_t>(iv.at(2));
    const std::size_t at = large ? 3 : 3 + d;  // the distributions
    n.ints = {iv.at(0), iv.at(1)};
    std::vector<std::int64_t> dist, darg, gsizes, psizes;
    for (std::size_t i = 0; i < d; ++i) {
      gsizes.push_back(large ? cv.at(i) : iv.at(3 + i));
      psizes.push_back(iv.at(at + 2 * d + i));
      const int ds = iv.at(at + i);
      dist.push_back(static_cast<std::int64_t>(ds == MPI_DISTRIBUTE_BLOCK    ? distribution::block
                                               : ds == MPI_DISTRIBUTE_CYCLIC ? distribution::cyclic
                                                                             : distribution::none));
      const int da = iv.at(at + d + i);
      darg.push_back(da == MPI_DISTRIBUTE_DFLT_DARG ? default_darg : da);
    }
    n.lists = {gsizes, dist, darg, psizes};
    n.order = static_cast<array_order>(order_of(iv.at(at + 3 * d)));
  } else if (combiner == MPI_COMBINER_RESIZED) {
    n.kind = constructor::resized;
    n.ints = alist(0, 2, 0);
  } else if (combiner == MPI_COMBINER_F90_REAL || combiner == MPI_COMBINER_F90_COMPLEX) {
    n.kind = combiner == MPI_COMBINER_F90_REAL ? constructor::f90_real : constructor::f90_complex;
    n.ints = {I(0), I(1)};
  } else if (combiner == MPI_COMBINER_F90_INTEGER) {
    n.kind = constructor::f90_integer;
    n.ints = {I(0)};
#if ANYMPI_TYPES_HAVE_VALUE_INDEX
  } else if (combiner == MPI_COMBINER_VALUE_INDEX) {
    n.kind = constructor::value_index;  // children: the value type, the index type
#endif
  } else {
    // MPI-1 Fortran combiners (*_INTEGER) left the standard in MPI-3; and a combiner from a
    // newer standard than this code knows is better reported than guessed.
    throw mpi_error(MPI_ERR_TYPE, "MPI_Type_get_envelope returned combiner " + std::to_string(combiner) +
                                      ", which this decoder does not know");
  }
  children();
  return n;
}

}  // namespace detail

// The constructor tree of any datatype, committed or not. Frees every handle
// MPI_Type_get_contents returned; `t` itself stays the caller's.
inline type_node decode(MPI_Datatype t) { return detail::decode(t, 0); }

// The type map of one instance of `t`.
inline type_map decode_map(MPI_Datatype t, std::int64_t limit = default_entry_limit) { return expand(decode(t), limit); }

// Everything about `count` instances of `t`.
inline layout describe(MPI_Datatype t, std::int64_t count = 1, std::int64_t limit = default_entry_limit) {
  return describe(decode_map(t, limit), count, limit);
}

inline signature signature_of(MPI_Datatype t, std::int64_t count = 1, std::int64_t limit = default_entry_limit) {
  return signature_of(decode_map(t, limit), count);
}

// Does a receive of (recv_count, recv_type) accept a send of (send_count, send_type)?
inline compatibility check(std::int64_t send_count, MPI_Datatype send_type, std::int64_t recv_count,
                           MPI_Datatype recv_type, std::int64_t limit = default_entry_limit) {
  return check(signature_of(send_type, send_count, limit), signature_of(recv_type, recv_count, limit));
}

}  // namespace anympi::types
