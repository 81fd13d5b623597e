// mpi::info: a map-like owner of an MPI_Info (string keys to string values), typed values
// (bool, integers, thread_level) and a range of its (key, value) entries.
#pragma once

#include <mpi/object.hpp>
#include <mpi/std_parts.hpp>
#include <mpi/thread_level.hpp>

#include <climits>
#include <concepts>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpi {

// The value types info::set / get<T> convert: MPI stores strings, these are written as the
// standard writes them (bool "true"/"false", integers in decimal, thread levels as
// "MPI_THREAD_SINGLE" ...). Characters are not integers here: '1' would be stored as "49".
template <class T>
concept info_integer = std::integral<T> && !std::same_as<T, bool> && !std::same_as<T, char> &&
                       !std::same_as<T, wchar_t> && !std::same_as<T, char8_t> &&
                       !std::same_as<T, char16_t> && !std::same_as<T, char32_t>;
template <class T>
concept info_value = std::same_as<T, std::string> || std::same_as<T, bool> ||
                     std::same_as<T, thread_level> || info_integer<T>;

namespace detail {
struct info_kind {
  using native_type = MPI_Info;
  static MPI_Info null() noexcept { return MPI_INFO_NULL; }
  static bool is_predefined(MPI_Info h) noexcept { return h == MPI_INFO_ENV; }
  static int free(MPI_Info* h) noexcept { return MPI_Info_free(h); }
  static constexpr char const* free_name = "MPI_Info_free";
};

#if MPI_CXX_HAS_INFO_GET_STRING
inline constexpr char const* info_get_name = "MPI_Info_get_string";
#else
inline constexpr char const* info_get_name = "MPI_Info_get";
#endif

inline MPI_Info info_create() {
  MPI_Info h;
  MPI_CXX_CALL(MPI_Info_create, &h);
  return h;
}

inline std::string info_string(bool v) { return v ? "true" : "false"; }
inline std::string info_string(thread_level v) { return std::string(name_of(v)); }
template <info_integer T>
std::string info_string(T v) {
  return std::to_string(v);
}

// A value that does not read as T is the caller's error, reported like MPI's own: the class
// MPI_ERR_INFO_VALUE, the procedure that read it, the key and the value.
[[noreturn]] inline void bad_info_value(std::string const& key, std::string const& value, char const* as) {
  fail(MPI_ERR_INFO_VALUE, info_get_name, error_text{} << "key \"" << key << "\": \"" << value << "\" is not " << as);
}
// A decimal integer as std::from_chars reads one: for signed types an optional '-', then
// digits, nothing else, in T's range. Not from_chars itself: <charconv> has the compiler
// instantiate its conversions for every integer type in each translation unit (a fiftieth of
// what compiling bench/compile_tu.cpp cost).
template <info_integer T>
bool parse_decimal(std::string const& s, T& out) {
  bool negative = false;
  if constexpr (std::is_signed_v<T>) negative = !s.empty() && s[0] == '-';
  std::size_t i = negative ? 1 : 0;
  if (i == s.size()) return false;
  unsigned long long u = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    unsigned const d = static_cast<unsigned>(s[i] - '0');
    if (u > (ULLONG_MAX - d) / 10) return false;
    u = u * 10 + d;
  }
  if (!negative) {
    if (!std::in_range<T>(u)) return false;
    out = static_cast<T>(u);
    return true;
  }
  // -u, with LLONG_MIN's magnitude one more than LLONG_MAX (conversion to signed is modular).
  if (u > static_cast<unsigned long long>(LLONG_MAX) + 1) return false;
  long long const v = static_cast<long long>(0ull - u);
  if (!std::in_range<T>(v)) return false;
  out = static_cast<T>(v);
  return true;
}

template <info_value T>
T info_parse(std::string const& key, std::string const& value) {
  if constexpr (std::same_as<T, std::string>) {
    return value;
  } else if constexpr (std::same_as<T, bool>) {
    if (value == "true") return true;
    if (value == "false") return false;
    bad_info_value(key, value, "a bool (\"true\" or \"false\")");
  } else if constexpr (std::same_as<T, thread_level>) {
    if (auto t = thread_level_named(value)) return *t;
    bad_info_value(key, value, "a thread level (\"MPI_THREAD_SINGLE\" ... \"MPI_THREAD_MULTIPLE\")");
  } else {
    T v{};
    if (!parse_decimal(value, v)) bad_info_value(key, value, "an integer in the range of the type asked for");
    return v;
  }
}
}  // namespace detail

// The entries of an info object in MPI's key order, each read when dereferenced (one
// MPI_Info_get_nthkey and one get): an input range whose end is a sentinel, the number of
// keys having been asked once, by begin().
class info_sentinel {};

// A template (of the view it reads through), so that only a program that reads an entry
// compiles the reading: a non-template's body makes every translation unit that includes this
// header instantiate what it calls.
template <class View>
class basic_info_iterator {
public:
  using iterator_concept = std::input_iterator_tag;
  using value_type = std::pair<std::string, std::string>;
  using difference_type = std::ptrdiff_t;

  basic_info_iterator() = default;
  basic_info_iterator(MPI_Info h, int n) noexcept : h_(h), n_(n) {}

  value_type operator*() const {
    View const i{h_};
    std::string key = i.nth_key(i_);
    std::string value = i.get(key).value_or("");
    return {std::move(key), std::move(value)};
  }
  basic_info_iterator& operator++() noexcept {
    ++i_;
    return *this;
  }
  void operator++(int) noexcept { ++i_; }
  friend bool operator==(basic_info_iterator const& it, info_sentinel) noexcept { return it.i_ >= it.n_; }

private:
  MPI_Info h_ = MPI_INFO_NULL;
  int i_ = 0;
  int n_ = 0;
};

class info_view;
using info_iterator = basic_info_iterator<info_view>;

class info;

template <class D>
class info_ops {
  MPI_Info h() const noexcept { return static_cast<D const&>(*this).native(); }

public:
  void set(std::string const& key, std::string const& value) const {
    MPI_CXX_CALL(MPI_Info_set, h(), key.c_str(), value.c_str());
  }
  template <info_value T>
    requires(!std::same_as<T, std::string>)
  void set(std::string const& key, T value) const {
    set(key, detail::info_string(value));
  }
  // nullopt when the key is absent; a value that does not read as T is MPI_ERR_INFO_VALUE.
  template <info_value T = std::string>
  std::optional<T> get(std::string const& key) const {
    auto v = get_string(key);
    if (!v) return std::nullopt;
    return detail::info_parse<T>(key, *v);
  }
  bool contains(std::string const& key) const { return get_string(key).has_value(); }
  void erase(std::string const& key) const { MPI_CXX_CALL(MPI_Info_delete, h(), key.c_str()); }
  int size() const {
    int n = 0;
    MPI_CXX_CALL(MPI_Info_get_nkeys, h(), &n);
    return n;
  }
  bool empty() const { return size() == 0; }
  std::string nth_key(int n) const {
    char key[MPI_MAX_INFO_KEY + 1] = {};
    MPI_CXX_CALL(MPI_Info_get_nthkey, h(), n, key);
    return key;
  }
  // for (auto [key, value] : info): see info_iterator.
  info_iterator begin() const { return info_iterator(h(), size()); }
  info_sentinel end() const noexcept { return {}; }
  // All (key, value) pairs in MPI's key order.
  std::vector<std::pair<std::string, std::string>> items() const {
    std::vector<std::pair<std::string, std::string>> out;
    out.reserve(static_cast<std::size_t>(size()));
    for (auto&& kv : *this) out.push_back(std::move(kv));
    return out;
  }
  info dup() const;

private:
  std::optional<std::string> get_string(std::string const& key) const {
    int flag = 0;
#if MPI_CXX_HAS_INFO_GET_STRING
    int len = 0;
    char probe_buf[1];
    MPI_CXX_CALL(MPI_Info_get_string, h(), key.c_str(), &len, probe_buf, &flag);
    if (!flag) return std::nullopt;
    std::string v(static_cast<std::size_t>(len), '\0');  // len includes the terminator
    MPI_CXX_CALL(MPI_Info_get_string, h(), key.c_str(), &len, v.data(), &flag);
    v.resize(static_cast<std::size_t>(len > 0 ? len - 1 : 0));
    return v;
#else
    int len = 0;
    MPI_CXX_CALL(MPI_Info_get_valuelen, h(), key.c_str(), &len, &flag);
    if (!flag) return std::nullopt;
    std::string v(static_cast<std::size_t>(len) + 1, '\0');
    MPI_CXX_CALL(MPI_Info_get, h(), key.c_str(), len, v.data(), &flag);
    v.resize(static_cast<std::size_t>(len));
    return v;
#endif
  }
};

class info_view : public detail::view_base<detail::info_kind>, public info_ops<info_view> {
public:
  using view_base::view_base;
};

// Default construction creates an empty info object (MPI_Info_create), as in the paper;
// info{mpi::null_handle} holds MPI_INFO_NULL (a default info_view is MPI_INFO_NULL too).
class info : public detail::owner_base<detail::info_kind, info, info_view>, public info_ops<info> {
public:
  info() : owner_base(detail::info_create()) {}
  explicit info(null_handle_t) noexcept {}
  static info create() { return info{}; }
  static info create(std::initializer_list<std::pair<std::string, std::string>> kv) {
    info i;
    for (auto const& [k, v] : kv) i.set(k, v);
    return i;
  }
};

template <class D>
info info_ops<D>::dup() const {
  MPI_Info n;
  MPI_CXX_CALL(MPI_Info_dup, h(), &n);
  return info::from_native(n);
}

inline info_view info_null() noexcept { return info_view{}; }
inline info_view info_env() noexcept { return info_view{MPI_INFO_ENV}; }

}  // namespace mpi
