// mpi::info: a map-like owner of an MPI_Info (string keys to string values).
#pragma once

#include <mpi/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpi {

namespace detail {
struct info_kind {
  using native_type = MPI_Info;
  static MPI_Info null() noexcept { return MPI_INFO_NULL; }
  static bool is_predefined(MPI_Info h) noexcept { return h == MPI_INFO_ENV; }
  static int free(MPI_Info* h) noexcept { return MPI_Info_free(h); }
  static constexpr char const* free_name = "MPI_Info_free";
};
}  // namespace detail

class info;

template <class D>
class info_ops {
  MPI_Info h() const noexcept { return static_cast<D const&>(*this).native(); }

public:
  void set(std::string const& key, std::string const& value) const {
    MPI_CXX_CALL(MPI_Info_set, h(), key.c_str(), value.c_str());
  }
  std::optional<std::string> get(std::string const& key) const {
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
  bool contains(std::string const& key) const { return get(key).has_value(); }
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
  // All (key, value) pairs in MPI's key order.
  std::vector<std::pair<std::string, std::string>> items() const {
    std::vector<std::pair<std::string, std::string>> out;
    int n = size();
    out.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      auto k = nth_key(i);
      out.emplace_back(k, get(k).value_or(""));
    }
    return out;
  }
  info dup() const;
};

class info_view : public detail::view_base<detail::info_kind>, public info_ops<info_view> {
public:
  using view_base::view_base;
};

class info : public detail::owner_base<detail::info_kind, info, info_view>, public info_ops<info> {
public:
  info() noexcept = default;
  static info create() {
    MPI_Info h;
    MPI_CXX_CALL(MPI_Info_create, &h);
    return from_native(h);
  }
  static info create(std::initializer_list<std::pair<std::string, std::string>> kv) {
    info i = create();
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
