// The datatype expression language of anympi-typeinfo: a small language whose
// constructors read like the MPI ones, so a layout can be written down on a command line.
//
//   message   := type [ '*' INT ]                       -- '* n' at the top is the send count
//   type      := primary { '*' INT }                    -- inside arguments, T * n is contiguous(n, T)
//   primary   := NAME | '(' type ')'
//              | 'contiguous' '(' INT ',' type ')'
//              | 'vector'  '(' INT ',' INT ',' INT ',' type ')'     -- stride in elements
//              | 'hvector' '(' INT ',' INT ',' INT ',' type ')'     -- stride in bytes
//              | 'indexed'  '(' list ',' list ',' type ')'           -- blocklengths, displacements (elements)
//              | 'hindexed' '(' list ',' list ',' type ')'           -- displacements in bytes
//              | 'indexed_block'  '(' INT ',' list ',' type ')'
//              | 'hindexed_block' '(' INT ',' list ',' type ')'
//              | 'struct' '(' field { ',' field } ')'
//              | 'subarray' '(' list ',' list ',' list ',' type [ ',' 'order' '=' ORDER ] ')'
//              | 'darray' '(' INT ',' INT ',' list ',' dlist ',' alist ',' list ',' type
//                             [ ',' 'order' '=' ORDER ] ')'   -- size, rank, gsizes, distribs, dargs, psizes
//              | 'resized' '(' type ',' [ 'lb' '=' ] INT ',' [ 'extent' '=' ] INT ')'
//              | 'dup' '(' type ')'
//              | 'f90_real' '(' INT ',' INT ')' | 'f90_complex' '(' INT ',' INT ')' | 'f90_integer' '(' INT ')'
//              | 'value_index' '(' type ',' type ')'             -- MPI_Type_get_value_index(value, index)
//   field     := primary [ '*' INT ] '@' INT              -- blocklength, displacement in bytes
//   list      := '[' [ INT { ',' INT } ] ']'
//   dlist     := '[' DIST { ',' DIST } ']'   DIST  := block | cyclic | none
//   alist     := '[' DARG { ',' DARG } ']'   DARG  := INT | dflt
//   ORDER     := c | fortran
//   NAME      := a basic datatype, with or without MPI_, any case: double, MPI_INT, double_int, 2int
//
// This header knows nothing about MPI (the fuzz target links no MPI); names are checked
// against the MPI in use when the expression is built (build.hpp), with the same columns.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace anympi::types {

// An error in an expression, at a byte offset into the text (0-based).
class expression_error : public std::runtime_error {
public:
  expression_error(std::size_t offset, const std::string& message)
      : std::runtime_error(message), offset_(offset) {}
  std::size_t offset() const noexcept { return offset_; }
  std::size_t column() const noexcept { return offset_ + 1; }  // what an editor shows

private:
  std::size_t offset_;
};

// The text, a caret under the offending column, and the message: what a user needs.
inline std::string format_error(std::string_view text, const expression_error& e) {
  std::string out;
  std::string line;
  for (char c : text) line += (c == '\n' || c == '\t' || c == '\r') ? ' ' : c;
  out += "  " + line + "\n  ";
  out.append(e.offset() < line.size() ? e.offset() : line.size(), ' ');
  out += "^\nerror: column " + std::to_string(e.column()) + ": " + e.what() + "\n";
  return out;
}

enum class constructor {
  basic, contiguous, vector, hvector, indexed, hindexed, indexed_block, hindexed_block,
  struct_, subarray, darray, resized, dup, f90_real, f90_complex, f90_integer, value_index
};

enum class distribution { none, block, cyclic };
inline constexpr std::int64_t default_darg = -1;  // 'dflt' in a darray argument list

enum class array_order { c, fortran };

// One node of a parsed type. Which members are used depends on `kind`:
//   basic            name
//   contiguous       ints {count}
//   vector, hvector  ints {count, blocklength, stride}
//   (h)indexed       lists {blocklengths, displacements}
//   (h)indexed_block ints {blocklength}, lists {displacements}
//   struct_          children (one per field), lists {blocklengths, displacements}
//   subarray         lists {sizes, subsizes, starts}, order
//   darray           ints {size, rank}, lists {gsizes, distribs, dargs, psizes}, order
//   resized          ints {lb, extent}
//   f90_real/complex ints {p, r};  f90_integer ints {r}
//   value_index      children {value type, index type}
// Every kind but basic, f90_*, struct_ and value_index has exactly one child: the old type.
struct type_expr {
  constructor kind = constructor::basic;
  std::size_t offset = 0;  // where it starts in the text, for errors found later
  std::string name;
  std::vector<std::int64_t> ints;
  std::vector<std::vector<std::int64_t>> lists;
  std::vector<std::size_t> list_offsets;  // where each list starts, same order as lists
  std::vector<type_expr> children;
  array_order order = array_order::c;

  friend bool operator==(const type_expr&, const type_expr&) = default;
};

struct message_expr {
  type_expr type;
  std::int64_t count = 1;
  std::size_t count_offset = 0;  // where the count is written (0 when it is not)
  friend bool operator==(const message_expr&, const message_expr&) = default;
};

namespace detail {

class parser {
public:
  explicit parser(std::string_view text) : text_(text) {}

  message_expr parse_message() {
    message_expr m;
    m.type = parse_primary();
    if (accept('*')) {
      skip_space();
      m.count_offset = pos_;
      m.count = parse_int("a count after '*'");
    }
    skip_space();
    if (pos_ != text_.size()) {
      if (text_[pos_] == '*')
        fail(pos_, "the count is already given; write contiguous(n, T) * count for nested repetition");
      fail(pos_, "unexpected '" + std::string(1, text_[pos_]) + "' after the datatype");
    }
    return m;
  }

private:
  static constexpr int max_depth = 64;  // deeper nesting is surely a mistake, and bounds the stack

  std::string_view text_;
  std::size_t pos_ = 0;
  int depth_ = 0;

  [[noreturn]] static void fail(std::size_t at, const std::string& msg) { throw expression_error(at, msg); }

  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool at(char c) {
    skip_space();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  bool accept(char c) {
    if (!at(c)) return false;
    ++pos_;
    return true;
  }
  std::string describe_here() {
    skip_space();
    if (pos_ >= text_.size()) return "the end of the expression";
    return "'" + std::string(1, text_[pos_]) + "'";
  }
  void expect(char c, const char* context) {
    if (!accept(c)) fail(pos_, std::string("expected '") + c + "' " + context + ", found " + describe_here());
  }

  static bool ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }
  static bool digit(char c) { return c >= '0' && c <= '9'; }

  // Names may start with a digit (MPI_2INT is written 2int); a run of digits alone is a number.
  bool at_identifier() {
    skip_space();
    std::size_t p = pos_;
    while (p < text_.size() && digit(text_[p])) ++p;
    return p < text_.size() && ident_char(text_[p]) && (p > pos_ || !digit(text_[p]));
  }
  std::string parse_identifier() {
    skip_space();
    std::size_t start = pos_;
    while (pos_ < text_.size() && ident_char(text_[pos_])) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  std::int64_t parse_int(const char* what) {
    skip_space();
    std::size_t start = pos_;
    bool negative = false;
    if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) {
      negative = text_[pos_] == '-';
      ++pos_;
    }
    std::size_t digits = pos_;
    while (pos_ < text_.size() && digit(text_[pos_])) ++pos_;
    if (pos_ == digits) fail(start, std::string("expected ") + what + ", found " + (start < text_.size() ? "'" + std::string(1, text_[start]) + "'" : "the end of the expression"));
    if (pos_ < text_.size() && ident_char(text_[pos_])) fail(pos_, std::string("unexpected '") + text_[pos_] + "' in a number");
    std::uint64_t magnitude = 0;
    auto r = std::from_chars(text_.data() + digits, text_.data() + pos_, magnitude);
    constexpr std::uint64_t limit = static_cast<std::uint64_t>(INT64_MAX);
    if (r.ec == std::errc::result_out_of_range || magnitude > limit + (negative ? 1 : 0))
      fail(start, "number out of range");
    if (negative) return magnitude == limit + 1 ? INT64_MIN : -static_cast<std::int64_t>(magnitude);
    return static_cast<std::int64_t>(magnitude);
  }

  std::vector<std::int64_t> parse_list(type_expr& owner, const char* what) {
    skip_space();
    owner.list_offsets.push_back(pos_);
    expect('[', (std::string("to start the list of ") + what).c_str());
    std::vector<std::int64_t> v;
    if (accept(']')) return v;
    do v.push_back(parse_int(what));
    while (accept(','));
    expect(']', (std::string("to close the list of ") + what).c_str());
    return v;
  }

  template <class F>
  std::vector<std::int64_t> parse_word_list(type_expr& owner, const char* what, F&& word) {
    skip_space();
    owner.list_offsets.push_back(pos_);
    expect('[', (std::string("to start the list of ") + what).c_str());
    std::vector<std::int64_t> v;
    do {
      skip_space();
      v.push_back(word());
    } while (accept(','));
    expect(']', (std::string("to close the list of ") + what).c_str());
    return v;
  }

  // 'name =' before an argument, optional where the position says it already.
  bool accept_keyword(std::string_view kw) {
    skip_space();
    std::size_t save = pos_;
    if (!at_identifier()) return false;
    if (parse_identifier() != kw) {
      pos_ = save;
      return false;
    }
    if (!accept('=')) {
      pos_ = save;
      return false;
    }
    return true;
  }

  array_order parse_order_option() {
    skip_space();
    std::size_t at_kw = pos_;
    if (!accept_keyword("order")) fail(at_kw, "expected 'order=c' or 'order=fortran', found " + describe_here());
    skip_space();
    std::size_t at_v = pos_;
    std::string v = at_identifier() ? parse_identifier() : std::string();
    if (v == "c" || v == "C") return array_order::c;
    if (v == "fortran" || v == "Fortran" || v == "FORTRAN") return array_order::fortran;
    fail(at_v, "order must be 'c' or 'fortran'");
  }

  // How many constructor levels the canonical spelling of t nests (a basic type is one).
  static int nesting(const type_expr& t) {
    int deepest = 0;
    for (const auto& c : t.children) deepest = std::max(deepest, nesting(c));
    return 1 + deepest;
  }

  type_expr parse_type() {
    type_expr t = parse_primary();
    int levels = nesting(t);
    while (at('*')) {
      // each '*' is one more contiguous() around t in the canonical spelling, which must parse
      // back: it may nest no deeper than the parser takes
      if (depth_ + ++levels > max_depth) fail(pos_, "datatype nested too deeply");
      ++pos_;
      type_expr c;
      c.kind = constructor::contiguous;
      c.offset = t.offset;
      c.ints = {parse_int("a count after '*'")};
      c.children.push_back(std::move(t));
      t = std::move(c);
    }
    return t;
  }

  struct depth_guard {
    int& d;
    explicit depth_guard(int& x, std::size_t at) : d(x) {
      if (++d > max_depth) {
        --d;
        throw expression_error(at, "datatype nested too deeply");
      }
    }
    ~depth_guard() { --d; }
  };

  type_expr parse_primary() {
    skip_space();
    const std::size_t start = pos_;
    depth_guard guard(depth_, start);
    type_expr t;
    t.offset = start;
    if (accept('(')) {
      t = parse_type();
      expect(')', "to close the parenthesis");
      return t;
    }
    if (!at_identifier()) fail(start, "expected a datatype, found " + describe_here());
    std::string word = parse_identifier();
    if (!at('(')) {
      static constexpr std::string_view ctors[] = {
          "contiguous", "vector", "hvector", "indexed", "hindexed", "indexed_block", "hindexed_block",
          "struct", "subarray", "darray", "resized", "dup", "f90_real", "f90_complex", "f90_integer",
          "value_index"};
      for (auto c : ctors)
        if (word == c) fail(pos_, "expected '(' after " + word + ", found " + describe_here());
      t.kind = constructor::basic;
      t.name = std::move(word);
      return t;
    }
    ++pos_;  // '('
    auto comma = [&](const char* next) { expect(',', (std::string("before ") + next).c_str()); };
    auto oldtype = [&] { t.children.push_back(parse_type()); };

    if (word == "contiguous") {
      t.kind = constructor::contiguous;
      t.ints = {parse_int("a count")};
      comma("the old type");
      oldtype();
    } else if (word == "vector" || word == "hvector") {
      t.kind = word == "vector" ? constructor::vector : constructor::hvector;
      t.ints.push_back(parse_int("a count"));
      comma("the blocklength");
      t.ints.push_back(parse_int("a blocklength"));
      comma("the stride");
      t.ints.push_back(parse_int(word == "vector" ? "a stride (in elements)" : "a stride (in bytes)"));
      comma("the old type");
      oldtype();
    } else if (word == "indexed" || word == "hindexed") {
      t.kind = word == "indexed" ? constructor::indexed : constructor::hindexed;
      t.lists.push_back(parse_list(t, "blocklengths"));
      comma("the displacements");
      t.lists.push_back(parse_list(t, "displacements"));
      comma("the old type");
      oldtype();
    } else if (word == "indexed_block" || word == "hindexed_block") {
      t.kind = word == "indexed_block" ? constructor::indexed_block : constructor::hindexed_block;
      t.ints = {parse_int("a blocklength")};
      comma("the displacements");
      t.lists.push_back(parse_list(t, "displacements"));
      comma("the old type");
      oldtype();
    } else if (word == "struct") {
      t.kind = constructor::struct_;
      t.lists.resize(2);
      do {
        skip_space();
        std::size_t field_at = pos_;
        t.list_offsets.push_back(field_at);
        t.children.push_back(parse_primary());
        std::int64_t blocklength = 1;
        if (accept('*')) blocklength = parse_int("a blocklength after '*'");
        if (!accept('@'))
          fail(pos_, "a struct field needs its displacement in bytes: write T@bytes (found " + describe_here() + ")");
        t.lists[0].push_back(blocklength);
        t.lists[1].push_back(parse_int("a displacement in bytes after '@'"));
      } while (accept(','));
    } else if (word == "subarray") {
      t.kind = constructor::subarray;
      t.lists.push_back(parse_list(t, "sizes"));
      comma("the subsizes");
      t.lists.push_back(parse_list(t, "subsizes"));
      comma("the starts");
      t.lists.push_back(parse_list(t, "starts"));
      comma("the old type");
      oldtype();
      if (accept(',')) t.order = parse_order_option();
    } else if (word == "darray") {
      t.kind = constructor::darray;
      t.ints.push_back(parse_int("the number of processes"));
      comma("the rank");
      t.ints.push_back(parse_int("a rank"));
      comma("the global sizes");
      t.lists.push_back(parse_list(t, "global sizes"));
      comma("the distributions");
      t.lists.push_back(parse_word_list(t, "distributions", [&]() -> std::int64_t {
        std::size_t w = pos_;
        std::string d = at_identifier() ? parse_identifier() : std::string();
        if (d == "block") return static_cast<std::int64_t>(distribution::block);
        if (d == "cyclic") return static_cast<std::int64_t>(distribution::cyclic);
        if (d == "none") return static_cast<std::int64_t>(distribution::none);
        fail(w, "a distribution is block, cyclic or none");
      }));
      comma("the distribution arguments");
      t.lists.push_back(parse_word_list(t, "distribution arguments", [&]() -> std::int64_t {
        if (at_identifier()) {
          std::size_t w = pos_;
          if (parse_identifier() == "dflt") return default_darg;
          fail(w, "a distribution argument is a positive number or dflt");
        }
        std::size_t w = pos_;
        std::int64_t v = parse_int("a distribution argument");
        if (v <= 0) fail(w, "a distribution argument is a positive number or dflt");
        return v;
      }));
      comma("the process grid sizes");
      t.lists.push_back(parse_list(t, "process grid sizes"));
      comma("the old type");
      oldtype();
      if (accept(',')) t.order = parse_order_option();
    } else if (word == "resized") {
      t.kind = constructor::resized;
      oldtype();
      comma("the lower bound");
      accept_keyword("lb");
      t.ints.push_back(parse_int("a lower bound in bytes"));
      comma("the extent");
      accept_keyword("extent");
      t.ints.push_back(parse_int("an extent in bytes"));
    } else if (word == "dup") {
      t.kind = constructor::dup;
      oldtype();
    } else if (word == "f90_real" || word == "f90_complex") {
      t.kind = word == "f90_real" ? constructor::f90_real : constructor::f90_complex;
      t.ints.push_back(parse_int("a precision p"));
      comma("the range r");
      t.ints.push_back(parse_int("a range r"));
    } else if (word == "f90_integer") {
      t.kind = constructor::f90_integer;
      t.ints.push_back(parse_int("a range r"));
    } else if (word == "value_index") {
      t.kind = constructor::value_index;
      oldtype();
      comma("the index type");
      oldtype();
    } else {
      fail(start, "unknown constructor '" + word + "'");
    }
    expect(')', ("to close " + word + "(").c_str());
    return t;
  }
};

}  // namespace detail

// Parses a whole message expression; throws expression_error with the offset of the problem.
inline message_expr parse_message(std::string_view text) { return detail::parser(text).parse_message(); }

// The canonical spelling: parse_message(to_string(m)) == m, up to text offsets.
inline std::string to_string(const type_expr& t) {
  auto list = [](const std::vector<std::int64_t>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  };
  auto ints = [&](std::size_t from) {
    std::string s;
    for (std::size_t i = from; i < t.ints.size(); ++i) s += std::to_string(t.ints[i]) + ", ";
    return s;
  };
  auto order = [&] { return t.order == array_order::fortran ? std::string(", order=fortran") : std::string(); };
  auto child = [&] { return t.children.empty() ? std::string("?") : to_string(t.children[0]); };
  switch (t.kind) {
    case constructor::basic: return t.name;
    case constructor::contiguous: return "contiguous(" + ints(0) + child() + ")";
    case constructor::vector: return "vector(" + ints(0) + child() + ")";
    case constructor::hvector: return "hvector(" + ints(0) + child() + ")";
    case constructor::indexed: return "indexed(" + list(t.lists[0]) + ", " + list(t.lists[1]) + ", " + child() + ")";
    case constructor::hindexed: return "hindexed(" + list(t.lists[0]) + ", " + list(t.lists[1]) + ", " + child() + ")";
    case constructor::indexed_block: return "indexed_block(" + ints(0) + list(t.lists[0]) + ", " + child() + ")";
    case constructor::hindexed_block: return "hindexed_block(" + ints(0) + list(t.lists[0]) + ", " + child() + ")";
    case constructor::struct_: {
      std::string s = "struct(";
      for (std::size_t i = 0; i < t.children.size(); ++i) {
        // A field's type is a primary: anything with a postfix needs parentheses.
        std::string f = to_string(t.children[i]);
        if (t.children[i].kind == constructor::contiguous && f.rfind("contiguous(", 0) != 0) f = "(" + f + ")";
        s += (i ? ", " : "") + f;
        if (t.lists[0][i] != 1) s += " * " + std::to_string(t.lists[0][i]);
        s += "@" + std::to_string(t.lists[1][i]);
      }
      return s + ")";
    }
    case constructor::subarray:
      return "subarray(" + list(t.lists[0]) + ", " + list(t.lists[1]) + ", " + list(t.lists[2]) + ", " + child() + order() + ")";
    case constructor::darray: {
      std::string d = "[", a = "[";
      for (std::size_t i = 0; i < t.lists[1].size(); ++i) {
        auto k = static_cast<distribution>(t.lists[1][i]);
        d += (i ? ", " : "") + std::string(k == distribution::block ? "block" : k == distribution::cyclic ? "cyclic" : "none");
      }
      for (std::size_t i = 0; i < t.lists[2].size(); ++i)
        a += (i ? ", " : "") + (t.lists[2][i] == default_darg ? std::string("dflt") : std::to_string(t.lists[2][i]));
      return "darray(" + ints(0) + list(t.lists[0]) + ", " + d + "], " + a + "], " + list(t.lists[3]) + ", " + child() + order() + ")";
    }
    case constructor::resized:
      return "resized(" + child() + ", lb=" + std::to_string(t.ints[0]) + ", extent=" + std::to_string(t.ints[1]) + ")";
    case constructor::dup: return "dup(" + child() + ")";
    case constructor::f90_real: return "f90_real(" + std::to_string(t.ints[0]) + ", " + std::to_string(t.ints[1]) + ")";
    case constructor::f90_complex: return "f90_complex(" + std::to_string(t.ints[0]) + ", " + std::to_string(t.ints[1]) + ")";
    case constructor::f90_integer: return "f90_integer(" + std::to_string(t.ints[0]) + ")";
    case constructor::value_index:
      return "value_index(" + child() + ", " + (t.children.size() > 1 ? to_string(t.children[1]) : std::string("?")) + ")";
  }
  return "?";
}

inline std::string to_string(const message_expr& m) {
  std::string s = to_string(m.type);
  if (m.count != 1) s += " * " + std::to_string(m.count);
  return s;
}

}  // namespace anympi::types
