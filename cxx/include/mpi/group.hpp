// Groups: rank/size, set operations, inclusion/exclusion, translate_ranks, compare.
#pragma once

#include <mpi/large_count.hpp>
#include <mpi/rank_tag.hpp>
#include <mpi/object.hpp>

#include <array>
#include <optional>
#include <span>
#include <vector>

namespace mpi {

// Result of comparing communicators or groups.
enum class comparison { ident, congruent, similar, unequal };

namespace detail {
inline comparison to_comparison(int r) {
  if (r == MPI_IDENT) return comparison::ident;
  if (r == MPI_CONGRUENT) return comparison::congruent;
  if (r == MPI_SIMILAR) return comparison::similar;
  return comparison::unequal;
}
struct group_kind {
  using native_type = MPI_Group;
  static MPI_Group null() noexcept { return MPI_GROUP_NULL; }
  static bool is_predefined(MPI_Group h) noexcept { return h == MPI_GROUP_EMPTY; }
  static int free(MPI_Group* h) noexcept { return MPI_Group_free(h); }
  static constexpr char const* free_name = "MPI_Group_free";
};
}  // namespace detail

class group;

template <class D>
class group_ops {
  MPI_Group h() const noexcept { return static_cast<D const&>(*this).native(); }

public:
  int size() const {
    int n = 0;
    MPI_CXX_CALL(MPI_Group_size, h(), &n);
    return n;
  }
  // nullopt if the calling process is not a member (MPI_UNDEFINED).
  std::optional<int> rank() const {
    int r = 0;
    MPI_CXX_CALL(MPI_Group_rank, h(), &r);
    if (r == MPI_UNDEFINED) return std::nullopt;
    return r;
  }
  bool contains_self() const { return rank().has_value(); }
  // Ranks of this group's processes `ranks` in `other`; written to `out` (same size).
  template <group_handle G>
  void translate_ranks(std::span<int const> ranks, G const& other, std::span<int> out) const {
    if (out.size() < ranks.size())
      detail::fail(MPI_ERR_ARG, "MPI_Group_translate_ranks", "output span smaller than input");
    MPI_CXX_CALL(MPI_Group_translate_ranks, h(), detail::range_size(ranks, "MPI_Group_translate_ranks"),
                 ranks.data(), mpi::handle(other), out.data());
  }
  template <group_handle G>
  std::vector<int> translate_ranks(std::span<int const> ranks, G const& other) const {
    std::vector<int> out(ranks.size());
    translate_ranks(ranks, other, std::span<int>(out.data(), out.size()));
    return out;
  }
  template <group_handle G>
  comparison compare(G const& other) const {
    int r = 0;
    MPI_CXX_CALL(MPI_Group_compare, h(), mpi::handle(other), &r);
    return detail::to_comparison(r);
  }
  group incl(std::span<int const> ranks) const;
  group excl(std::span<int const> ranks) const;
  group range_incl(std::span<std::array<int, 3> const> ranges) const;
  group range_excl(std::span<std::array<int, 3> const> ranges) const;
};

class group_view : public detail::view_base<detail::group_kind>, public group_ops<group_view> {
public:
  using view_base::view_base;
};

// A default-constructed, moved-from or released group holds MPI_GROUP_NULL, not
// MPI_GROUP_EMPTY as in the paper: "no group" stays distinct from "the group without
// members", so using a moved-from group is MPI_ERR_GROUP instead of passing for empty
// (docs/cxx-core.md).
class group : public detail::owner_base<detail::group_kind, group, group_view>, public group_ops<group> {
public:
  group() noexcept = default;
  // The group without members. MPI_GROUP_EMPTY is predefined: the owner never frees it.
  static group empty() noexcept { return from_native(MPI_GROUP_EMPTY); }
};

namespace detail {
inline group group_result(MPI_Group g) { return group::from_native(g); }
}  // namespace detail

template <group_handle A, group_handle B>
group group_union(A const& a, B const& b) {
  MPI_Group g;
  MPI_CXX_CALL(MPI_Group_union, mpi::handle(a), mpi::handle(b), &g);
  return group::from_native(g);
}
template <group_handle A, group_handle B>
group group_intersection(A const& a, B const& b) {
  MPI_Group g;
  MPI_CXX_CALL(MPI_Group_intersection, mpi::handle(a), mpi::handle(b), &g);
  return group::from_native(g);
}
template <group_handle A, group_handle B>
group group_difference(A const& a, B const& b) {
  MPI_Group g;
  MPI_CXX_CALL(MPI_Group_difference, mpi::handle(a), mpi::handle(b), &g);
  return group::from_native(g);
}

template <class D>
group group_ops<D>::incl(std::span<int const> ranks) const {
  MPI_Group g;
  MPI_CXX_CALL(MPI_Group_incl, h(), detail::range_size(ranks, "MPI_Group_incl"),
               ranks.data(), &g);
  return group::from_native(g);
}
template <class D>
group group_ops<D>::excl(std::span<int const> ranks) const {
  MPI_Group g;
  MPI_CXX_CALL(MPI_Group_excl, h(), detail::range_size(ranks, "MPI_Group_excl"),
               ranks.data(), &g);
  return group::from_native(g);
}
// MPI takes int ranges[][3]; std::array<int,3> has that layout.
template <class D>
group group_ops<D>::range_incl(std::span<std::array<int, 3> const> r) const {
  MPI_Group g;
  MPI_CXX_CALL(MPI_Group_range_incl, h(), detail::range_size(r, "MPI_Group_range_incl"),
               const_cast<int(*)[3]>(reinterpret_cast<int const(*)[3]>(r.data())), &g);
  return group::from_native(g);
}
template <class D>
group group_ops<D>::range_excl(std::span<std::array<int, 3> const> r) const {
  MPI_Group g;
  MPI_CXX_CALL(MPI_Group_range_excl, h(), detail::range_size(r, "MPI_Group_range_excl"),
               const_cast<int(*)[3]>(reinterpret_cast<int const(*)[3]>(r.data())), &g);
  return group::from_native(g);
}

inline group_view group_empty() noexcept { return group_view{MPI_GROUP_EMPTY}; }

}  // namespace mpi
