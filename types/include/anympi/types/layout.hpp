// What a datatype means, once decoded: its type map, signature and the figures that
// are routinely confused (value bytes, span, count x extent). Nothing here calls MPI:
// decode.hpp turns an MPI_Datatype into a type_node, everything after that is arithmetic.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <anympi/types/expression.hpp>

namespace anympi::types {

// A basic datatype as it appears in a type map. `canonical` is what matching compares:
// synonyms the standard defines (MPI_LONG_LONG_INT is MPI_LONG_LONG) share it.
struct basic_type {
  std::string name;
  std::string canonical;
  std::int64_t size = 0;
  friend bool operator==(const basic_type&, const basic_type&) = default;
};

// Bounds as MPI reports them (MPI_Type_get_extent / get_true_extent / size).
struct bounds {
  std::int64_t lb = 0, extent = 0, true_lb = 0, true_extent = 0, size = 0;
  std::int64_t ub() const { return lb + extent; }
  std::int64_t true_ub() const { return true_lb + true_extent; }
};

// A decoded datatype: the constructor MPI reports (envelope), its arguments (contents,
// in the same shape as type_expr) and its bounds. A named type carries its own type map:
// one entry, or two for the pair types (MPI_DOUBLE_INT is {MPI_DOUBLE, MPI_INT}).
struct type_node {
  constructor kind = constructor::basic;
  std::string name;  // basic: the MPI name
  std::vector<std::pair<basic_type, std::int64_t>> components;  // basic: (type, displacement)
  std::vector<std::int64_t> ints;
  std::vector<std::vector<std::int64_t>> lists;
  array_order order = array_order::c;
  std::vector<type_node> children;
  bounds b;
};

// The expression that reproduces a decoded type: what the MPI really built.
inline type_expr to_expr(const type_node& n) {
  type_expr e;
  e.kind = n.kind;
  e.name = n.name;
  e.ints = n.ints;
  e.lists = n.lists;
  e.order = n.order;
  for (const auto& c : n.children) e.children.push_back(to_expr(c));
  return e;
}

struct type_map_entry {
  std::uint32_t type;  // index into type_map::types
  std::int64_t disp;
  friend bool operator==(const type_map_entry&, const type_map_entry&) = default;
};

struct type_map {
  std::vector<basic_type> types;  // each distinct basic type once
  std::vector<type_map_entry> entries;
  bounds b;
  const basic_type& type_of(const type_map_entry& e) const { return types[e.type]; }
};

class type_map_too_large : public std::length_error {
public:
  type_map_too_large(std::int64_t entries, std::int64_t limit)
      : std::length_error("the type map has " + std::to_string(entries) + " entries, more than the limit of " +
                          std::to_string(limit) + " this tool expands"),
        entries_(entries) {}
  std::int64_t entries() const noexcept { return entries_; }

private:
  std::int64_t entries_;
};

inline constexpr std::int64_t default_entry_limit = std::int64_t{1} << 22;

namespace detail {

inline std::int64_t sat_mul(std::int64_t a, std::int64_t b) {
  if (a <= 0 || b <= 0) return 0;
  if (a > std::numeric_limits<std::int64_t>::max() / b) return std::numeric_limits<std::int64_t>::max();
  return a * b;
}
inline std::int64_t sat_add(std::int64_t a, std::int64_t b) {
  if (a > std::numeric_limits<std::int64_t>::max() - b) return std::numeric_limits<std::int64_t>::max();
  return a + b;
}
inline std::int64_t sum(const std::vector<std::int64_t>& v) {
  std::int64_t s = 0;
  for (auto x : v) s = sat_add(s, std::max<std::int64_t>(x, 0));
  return s;
}

// The global indices one process owns along one darray dimension, in increasing order.
inline std::vector<std::int64_t> darray_indices(std::int64_t gsize, distribution dist, std::int64_t darg,
                                                std::int64_t psize, std::int64_t coord) {
  std::vector<std::int64_t> idx;
  if (dist == distribution::none) {
    for (std::int64_t i = 0; i < gsize; ++i) idx.push_back(i);
  } else if (dist == distribution::block) {
    std::int64_t b = darg == default_darg ? (gsize + psize - 1) / psize : darg;
    for (std::int64_t i = coord * b; i < std::min(gsize, (coord + 1) * b); ++i) idx.push_back(i);
  } else {
    std::int64_t b = darg == default_darg ? 1 : darg;
    for (std::int64_t start = coord * b; start < gsize; start += psize * b)
      for (std::int64_t i = start; i < std::min(gsize, start + b); ++i) idx.push_back(i);
  }
  return idx;
}

// Element offsets (in units of the old type's extent) selected by a subarray or darray,
// in type map order: the fastest-varying dimension innermost.
inline std::vector<std::int64_t> array_offsets(const std::vector<std::int64_t>& gsizes,
                                               const std::vector<std::vector<std::int64_t>>& per_dim,
                                               array_order order) {
  const std::size_t nd = gsizes.size();
  std::vector<std::int64_t> stride(nd, 1);
  std::vector<std::size_t> dims(nd);  // slowest to fastest
  for (std::size_t k = 0; k < nd; ++k) dims[k] = order == array_order::c ? k : nd - 1 - k;
  for (std::size_t k = nd; k-- > 1;) stride[dims[k - 1]] = stride[dims[k]] * gsizes[dims[k]];
  std::vector<std::int64_t> out{0};
  for (std::size_t k = 0; k < nd; ++k) {
    std::vector<std::int64_t> next;
    next.reserve(out.size() * per_dim[dims[k]].size());
    for (auto base : out)
      for (auto i : per_dim[dims[k]]) next.push_back(base + i * stride[dims[k]]);
    out = std::move(next);
  }
  return out;
}

inline std::vector<std::vector<std::int64_t>> darray_per_dim(const type_node& n) {
  const std::int64_t size = n.ints[0], rank = n.ints[1];
  const auto& gs = n.lists[0];
  const auto& ps = n.lists[3];
  std::vector<std::int64_t> coord(gs.size());
  // The process grid is row-major whatever the array order (MPI_Type_create_darray).
  std::int64_t r = rank, rest = size;
  for (std::size_t d = 0; d < gs.size(); ++d) {
    rest /= ps[d];
    coord[d] = r / rest;
    r %= rest;
  }
  std::vector<std::vector<std::int64_t>> per_dim;
  for (std::size_t d = 0; d < gs.size(); ++d)
    per_dim.push_back(darray_indices(gs[d], static_cast<distribution>(n.lists[1][d]), n.lists[2][d], ps[d], coord[d]));
  return per_dim;
}

inline std::int64_t entry_count(const type_node& n) {
  auto child = [&] { return entry_count(n.children.at(0)); };
  switch (n.kind) {
    case constructor::basic: return static_cast<std::int64_t>(n.components.size());
    case constructor::f90_real:
    case constructor::f90_complex:
    case constructor::f90_integer: return 1;
    case constructor::value_index: return sat_add(child(), entry_count(n.children.at(1)));
    case constructor::dup:
    case constructor::resized: return child();
    case constructor::contiguous: return sat_mul(n.ints[0], child());
    case constructor::vector:
    case constructor::hvector: return sat_mul(sat_mul(n.ints[0], n.ints[1]), child());
    case constructor::indexed:
    case constructor::hindexed: return sat_mul(sum(n.lists[0]), child());
    case constructor::indexed_block:
    case constructor::hindexed_block:
      return sat_mul(sat_mul(static_cast<std::int64_t>(n.lists[0].size()), n.ints[0]), child());
    case constructor::struct_: {
      std::int64_t s = 0;
      for (std::size_t i = 0; i < n.children.size(); ++i) s = sat_add(s, sat_mul(n.lists[0][i], entry_count(n.children[i])));
      return s;
    }
    case constructor::subarray: {
      std::int64_t s = 1;
      for (auto x : n.lists[1]) s = sat_mul(s, x);
      return sat_mul(s, child());
    }
    case constructor::darray: {
      std::int64_t s = 1;
      for (const auto& d : darray_per_dim(n)) s = sat_mul(s, static_cast<std::int64_t>(d.size()));
      return sat_mul(s, child());
    }
  }
  return 0;
}

class expander {
public:
  explicit expander(std::vector<basic_type>& types) : types_(types) {}

  std::vector<type_map_entry> expand(const type_node& n) {
    std::vector<type_map_entry> out;
    auto child_map = [&](std::size_t i = 0) { return expand(n.children.at(i)); };
    // Append `m` shifted by `by`.
    auto place = [&](const std::vector<type_map_entry>& m, std::int64_t by) {
      for (auto e : m) out.push_back({e.type, e.disp + by});
    };
    switch (n.kind) {
      case constructor::basic:
        for (const auto& [t, d] : n.components) out.push_back({intern(t), d});
        break;
      case constructor::f90_real:
      case constructor::f90_complex:
      case constructor::f90_integer: out.push_back({intern(f90_basic(n)), 0}); break;
      case constructor::value_index:
        // The value at 0 and the index where the C struct {value; index} puts it, which is
        // where the pair's true extent ends less the index's own.
        place(child_map(0), 0);
        place(child_map(1), n.b.true_ub() - n.children.at(1).b.true_ub());
        break;
      case constructor::dup:
      case constructor::resized: out = child_map(); break;
      case constructor::contiguous: {
        auto m = child_map();
        for (std::int64_t i = 0; i < n.ints[0]; ++i) place(m, i * ext(n));
        break;
      }
      case constructor::vector:
      case constructor::hvector: {
        auto m = child_map();
        const std::int64_t stride = n.kind == constructor::vector ? n.ints[2] * ext(n) : n.ints[2];
        for (std::int64_t i = 0; i < n.ints[0]; ++i)
          for (std::int64_t j = 0; j < n.ints[1]; ++j) place(m, i * stride + j * ext(n));
        break;
      }
      case constructor::indexed:
      case constructor::hindexed: {
        auto m = child_map();
        const std::int64_t unit = n.kind == constructor::indexed ? ext(n) : 1;
        for (std::size_t i = 0; i < n.lists[0].size(); ++i)
          for (std::int64_t j = 0; j < n.lists[0][i]; ++j) place(m, n.lists[1][i] * unit + j * ext(n));
        break;
      }
      case constructor::indexed_block:
      case constructor::hindexed_block: {
        auto m = child_map();
        const std::int64_t unit = n.kind == constructor::indexed_block ? ext(n) : 1;
        for (auto d : n.lists[0])
          for (std::int64_t j = 0; j < n.ints[0]; ++j) place(m, d * unit + j * ext(n));
        break;
      }
      case constructor::struct_:
        for (std::size_t i = 0; i < n.children.size(); ++i) {
          auto m = child_map(i);
          for (std::int64_t j = 0; j < n.lists[0][i]; ++j) place(m, n.lists[1][i] + j * n.children[i].b.extent);
        }
        break;
      case constructor::subarray: {
        auto m = child_map();
        std::vector<std::vector<std::int64_t>> per_dim;
        for (std::size_t d = 0; d < n.lists[0].size(); ++d) {
          per_dim.emplace_back();
          for (std::int64_t i = 0; i < n.lists[1][d]; ++i) per_dim.back().push_back(n.lists[2][d] + i);
        }
        for (auto off : array_offsets(n.lists[0], per_dim, n.order)) place(m, off * ext(n));
        break;
      }
      case constructor::darray: {
        auto m = child_map();
        for (auto off : array_offsets(n.lists[0], darray_per_dim(n), n.order)) place(m, off * ext(n));
        break;
      }
    }
    return out;
  }

private:
  std::vector<basic_type>& types_;

  static std::int64_t ext(const type_node& n) { return n.children.at(0).b.extent; }

  static basic_type f90_basic(const type_node& n) {
    // Predefined types that match only a type made with the same (p, r), or a dup of one
    // (MPI 4.1 section 19.1.9): the canonical name is the call itself.
    const std::string call = to_string(to_expr(n));
    return {call, call, n.b.size};
  }

  std::uint32_t intern(const basic_type& t) {
    for (std::size_t i = 0; i < types_.size(); ++i)
      if (types_[i] == t) return static_cast<std::uint32_t>(i);
    types_.push_back(t);
    return static_cast<std::uint32_t>(types_.size() - 1);
  }
};

}  // namespace detail

// The type map of one instance. Throws type_map_too_large above `limit` entries.
inline type_map expand(const type_node& n, std::int64_t limit = default_entry_limit) {
  const std::int64_t count = detail::entry_count(n);
  if (count > limit) throw type_map_too_large(count, limit);
  type_map m;
  m.b = n.b;
  m.entries = detail::expander(m.types).expand(n);
  return m;
}

// ---------------------------------------------------------------------------------------
// Signatures: the type map without displacements, run-length encoded.

struct signature_run {
  std::string type;  // canonical name
  std::int64_t size = 0;
  std::int64_t length = 0;
  friend bool operator==(const signature_run&, const signature_run&) = default;
};

// `runs` repeated `repeat` times: the signature of `count` instances without expanding them.
struct signature {
  std::vector<signature_run> runs;
  std::int64_t repeat = 1;
  friend bool operator==(const signature&, const signature&) = default;

  std::int64_t elements() const {
    std::int64_t n = 0;
    for (const auto& r : runs) n = detail::sat_add(n, r.length);
    return detail::sat_mul(n, repeat);
  }
  std::int64_t bytes() const {
    std::int64_t n = 0;
    for (const auto& r : runs) n = detail::sat_add(n, detail::sat_mul(r.length, r.size));
    return detail::sat_mul(n, repeat);
  }
  bool all_of(std::string_view type) const {
    for (const auto& r : runs)
      if (r.type != type) return false;
    return true;
  }
};

inline signature signature_of(const type_map& m, std::int64_t count = 1) {
  signature s;
  for (const auto& e : m.entries) {
    const auto& t = m.type_of(e);
    if (!s.runs.empty() && s.runs.back().type == t.canonical) ++s.runs.back().length;
    else s.runs.push_back({t.canonical, t.size, 1});
  }
  if (count <= 0 || s.runs.empty()) {
    s.runs.clear();
    s.repeat = 1;
  } else if (s.runs.size() == 1) {
    s.runs[0].length = detail::sat_mul(s.runs[0].length, count);
  } else {
    s.repeat = count;  // shown as n x (...), never expanded
  }
  return s;
}

inline std::string to_string(const signature& s) {
  if (s.runs.empty()) return "empty";
  // A struct repeated inside one instance shows as n x (...): find the shortest period.
  std::size_t period = s.runs.size();
  for (std::size_t p = 1; p < s.runs.size(); ++p) {
    if (s.runs.size() % p) continue;
    bool periodic = true;
    for (std::size_t i = p; i < s.runs.size() && periodic; ++i) periodic = s.runs[i] == s.runs[i - p];
    if (periodic) {
      period = p;
      break;
    }
  }
  const std::int64_t repeat = detail::sat_mul(s.repeat, static_cast<std::int64_t>(s.runs.size() / period));
  std::string body;
  for (std::size_t i = 0; i < period; ++i) {
    if (i) body += ", ";
    if (s.runs[i].length != 1) body += std::to_string(s.runs[i].length) + " \u00d7 ";
    body += s.runs[i].type;
  }
  if (repeat == 1) return period == 1 && s.runs[0].length == 1 ? "1 \u00d7 " + body : body;
  return std::to_string(repeat) + " \u00d7 (" + body + ")";
}

// ---------------------------------------------------------------------------------------
// The figures of `count` instances.

struct byte_range {
  std::int64_t lo = 0, hi = 0;  // [lo, hi)
  std::int64_t size() const { return hi - lo; }
  friend bool operator==(const byte_range&, const byte_range&) = default;
};

struct layout {
  type_map map;  // one instance
  std::int64_t count = 1;
  signature sig;  // of the whole message

  std::int64_t elements = 0;      // basic values in the message
  std::int64_t value_bytes = 0;   // their bytes: count x size
  std::int64_t count_extent = 0;  // count x extent: where instance count+1 would start, relative to lb
  byte_range span;                // the smallest interval holding every selected byte
  std::int64_t gap_bytes = 0;     // bytes in the span that no value occupies
  std::int64_t overlap_bytes = 0; // bytes selected more than once (erroneous in a receive buffer)
  std::vector<byte_range> gaps;
  byte_range instance_span;       // the same for one instance
  std::int64_t instance_gap_bytes = 0;
  bool monotonic = true;          // displacements never decrease within one instance
  std::size_t first_decrease = 0; // the entry where they first do
};

// `limit` bounds the byte intervals kept for the whole message (count x entries).
inline layout describe(type_map m, std::int64_t count = 1, std::int64_t limit = default_entry_limit) {
  if (count < 0) throw std::invalid_argument("count must not be negative (got " + std::to_string(count) + ")");
  layout L;
  L.count = count;
  L.sig = signature_of(m, count);
  L.elements = L.sig.elements();
  L.value_bytes = detail::sat_mul(m.b.size, count);
  L.count_extent = detail::sat_mul(count, m.b.extent);
  if (m.b.extent < 0) L.count_extent = -detail::sat_mul(count, -m.b.extent);

  for (std::size_t i = 1; i < m.entries.size(); ++i)
    if (m.entries[i].disp < m.entries[i - 1].disp) {
      L.monotonic = false;
      L.first_decrease = i;
      break;
    }

  // One instance's selected bytes as sorted, merged intervals.
  std::vector<byte_range> one;
  std::int64_t one_bytes = 0;
  for (const auto& e : m.entries) {
    const auto sz = m.type_of(e).size;
    if (sz > 0) one.push_back({e.disp, e.disp + sz});
    one_bytes += sz;
  }
  std::sort(one.begin(), one.end(), [](auto a, auto b) { return a.lo < b.lo; });
  auto merge = [](std::vector<byte_range>& v) {
    std::vector<byte_range> out;
    for (auto r : v) {
      if (!out.empty() && r.lo <= out.back().hi) out.back().hi = std::max(out.back().hi, r.hi);
      else out.push_back(r);
    }
    v = std::move(out);
  };
  merge(one);
  if (!one.empty()) {
    L.instance_span = {one.front().lo, one.back().hi};
    std::int64_t covered = 0;
    for (auto r : one) covered += r.size();
    L.instance_gap_bytes = L.instance_span.size() - covered;
  }
  if (one.empty() || count == 0) {
    L.map = std::move(m);
    return L;
  }

  if (detail::sat_mul(count, static_cast<std::int64_t>(one.size())) > limit)
    throw type_map_too_large(detail::sat_mul(count, static_cast<std::int64_t>(m.entries.size())), limit);
  std::vector<byte_range> all;
  all.reserve(static_cast<std::size_t>(count) * one.size());
  for (std::int64_t i = 0; i < count; ++i)
    for (auto r : one) all.push_back({r.lo + i * m.b.extent, r.hi + i * m.b.extent});
  if (m.b.extent < 0 || m.b.extent < L.instance_span.size())
    std::sort(all.begin(), all.end(), [](auto a, auto b) { return a.lo < b.lo; });
  merge(all);
  L.span = {all.front().lo, all.back().hi};
  std::int64_t covered = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    covered += all[i].size();
    if (i) L.gaps.push_back({all[i - 1].hi, all[i].lo});
  }
  L.gap_bytes = L.span.size() - covered;
  L.overlap_bytes = detail::sat_mul(one_bytes, count) - covered;
  L.map = std::move(m);
  return L;
}

// ---------------------------------------------------------------------------------------
// Type matching between a send and a receive (MPI 4.1 sections 3.3.1 and 5.2).

enum class verdict { compatible, compatible_spare_capacity, truncation, mismatch };

inline const char* to_string(verdict v) {
  switch (v) {
    case verdict::compatible: return "compatible";
    case verdict::compatible_spare_capacity: return "compatible (spare capacity)";
    case verdict::truncation: return "truncation";
    case verdict::mismatch: return "mismatch";
  }
  return "?";
}

struct compatibility {
  verdict result = verdict::compatible;
  std::int64_t send_elements = 0, recv_elements = 0;
  std::int64_t send_bytes = 0, recv_bytes = 0;
  std::int64_t mismatch_element = -1;  // 0-based, in the message
  std::string send_type, recv_type;    // at the mismatch
  bool untyped = false;                // decided by bytes: MPI_PACKED on one side
  std::string explanation;             // one sentence, for people

  bool ok() const { return result == verdict::compatible || result == verdict::compatible_spare_capacity; }
};

namespace detail {

// Walks a repeated run-length signature one run (or part of one) at a time.
class signature_cursor {
public:
  explicit signature_cursor(const signature& s) : s_(s) { settle(); }
  bool done() const { return rep_ >= s_.repeat || s_.runs.empty(); }
  const signature_run& run() const { return s_.runs[run_]; }
  std::int64_t left() const { return run().length - used_; }
  void advance(std::int64_t n) {
    used_ += n;
    settle();
  }

private:
  const signature& s_;
  std::size_t run_ = 0;
  std::int64_t used_ = 0, rep_ = 0;
  void settle() {
    while (!done() && used_ >= s_.runs[run_].length) {
      used_ = 0;
      if (++run_ == s_.runs.size()) {
        run_ = 0;
        ++rep_;
      }
    }
  }
};

}  // namespace detail

inline compatibility check(const signature& send, const signature& recv) {
  compatibility c;
  c.send_elements = send.elements();
  c.recv_elements = recv.elements();
  c.send_bytes = send.bytes();
  c.recv_bytes = recv.bytes();
  auto bytes = [](std::int64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); };

  // MPI_PACKED: any message can be received as packed bytes, and packed bytes can be
  // received with any datatype matching what was packed, which only the program knows.
  const bool send_packed = !send.runs.empty() && send.all_of("MPI_PACKED");
  const bool recv_packed = !recv.runs.empty() && recv.all_of("MPI_PACKED");
  if (send_packed || recv_packed) {
    c.untyped = true;
    if (c.send_bytes > c.recv_bytes) {
      c.result = verdict::truncation;
      c.explanation = "the receive holds " + bytes(c.recv_bytes) + " but the message has " + bytes(c.send_bytes) +
                      " (MPI_ERR_TRUNCATE)";
    } else {
      c.result = c.send_bytes == c.recv_bytes ? verdict::compatible : verdict::compatible_spare_capacity;
      c.explanation = std::string(recv_packed ? "received as MPI_PACKED: " : "MPI_PACKED data: ") + bytes(c.send_bytes) +
                      (recv_packed && !send_packed ? " of the sender's representation, to MPI_Unpack with its signature"
                                                   : "; the unpacked values must match what was packed") +
                      (c.result == verdict::compatible ? "" : "; " + bytes(c.recv_bytes - c.send_bytes) + " to spare");
    }
    return c;
  }

  detail::signature_cursor s(send), r(recv);
  std::int64_t k = 0;
  while (!s.done() && !r.done()) {
    if (s.run().type != r.run().type) {
      c.result = verdict::mismatch;
      c.mismatch_element = k;
      c.send_type = s.run().type;
      c.recv_type = r.run().type;
      c.explanation = "element " + std::to_string(k) + " (counting from 0) is " + c.send_type + " in the send but " +
                      c.recv_type + " in the receive";
      if (c.send_type == "MPI_BYTE" || c.recv_type == "MPI_BYTE")
        c.explanation += "; MPI_BYTE matches only MPI_BYTE (use it on both sides for untyped bytes)";
      return c;
    }
    const std::int64_t n = std::min(s.left(), r.left());
    s.advance(n);
    r.advance(n);
    k = detail::sat_add(k, n);
  }
  if (!s.done()) {
    c.result = verdict::truncation;
    c.explanation = "the message has " + std::to_string(c.send_elements) + " elements (" + bytes(c.send_bytes) +
                    ") but the receive holds " + std::to_string(c.recv_elements) + " (" + bytes(c.recv_bytes) +
                    "): MPI_ERR_TRUNCATE";
  } else if (!r.done()) {
    c.result = verdict::compatible_spare_capacity;
    c.explanation = "all " + std::to_string(c.send_elements) + " elements match (" + bytes(c.send_bytes) + "); " +
                    std::to_string(c.recv_elements - c.send_elements) + " elements (" +
                    bytes(c.recv_bytes - c.send_bytes) + ") of the receive stay untouched";
  } else {
    c.result = verdict::compatible;
    c.explanation = "all " + std::to_string(c.send_elements) + " elements match (" + bytes(c.send_bytes) + ")";
  }
  return c;
}

}  // namespace anympi::types
