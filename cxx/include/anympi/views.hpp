// anympi::views: small adaptors that attach or override one piece of a buffer's MPI metadata,
// composed with `|` over anything the core takes as a buffer (a contiguous container, a
// std::span, a contiguous std::views pipeline, a core mpi_span) and over each other:
//
//   v | views::with_type(dt)       the datatype            v | views::with_count(n)    the count
//   v | views::with_counts(c)      per-process counts      v | views::with_displs(d)   displacements
//   v | views::auto_counts         counts found by infer()  v | views::auto_displs     packed displacements
//   v | views::resize              count found by infer(); the container resized to it
//   v | views::grow_only           the same, but a container only ever grows
//   v | views::no_resize           the same, never resized (too small: MPI_ERR_TRUNCATE)
//   v | views::resize_v            a varying buffer's container resized to fit its counts
//   r | views::flatten_v           one block per process (a range of ranges) packed for alltoallv
//   s | views::flatten_v(p)        the same from sparse (rank, block) pairs among p processes
//
// Each view holds the buffer it adapts (a reference to an lvalue, the object itself when given
// an rvalue: held_t) and its one piece of metadata, answers the one accessor it is about, and
// passes every other accessor through unchanged (view_base). Views without arguments may be
// written with or without (): views::auto_displs and views::auto_displs() are the same.
// Like std::ranges views, a view is not thread-safe (auto_displs computes on first use).
#pragma once

#include <anympi/buffer.hpp>

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace anympi::views {

struct view_tag {};

template <class B>
concept view = std::derived_from<std::remove_cvref_t<B>, view_tag>;

namespace detail {
template <class B>
concept has_ptr = requires(B& b) { mpi::ptr(b); };
template <class B>
concept has_count = requires(B const& b) { mpi::count(b); };
template <class B>
concept has_type = requires(B const& b) { mpi::type(b); };
template <class B>
concept has_counts = requires(B const& b) { mpi::counts(b); };
template <class B>
concept has_displs = requires(B const& b) { mpi::displs(b); };
template <class B>
concept has_datatypes = requires(B const& b) { mpi::datatypes(b); };

// The container under a stack of views: what the resize views resize.
template <class B>
decltype(auto) container_of(B& b) {
  if constexpr (view<B>) return container_of(b.base());
  else return (b);
}

// Displacements that pack the blocks one after another: the exclusive prefix sum of counts.
template <class C, class D>
void pack_displs(C const& counts, D& displs) {
  displs.assign(std::ranges::size(counts), typename D::value_type{0});
  std::exclusive_scan(std::ranges::begin(counts), std::ranges::end(counts), displs.begin(), typename D::value_type{0});
}
}  // namespace detail

// The pass-through every view starts from: all accessors of the core's buffer model, and the
// infer() protocol (anympi/buffer.hpp), forwarded to the adapted buffer; a view declares the
// one it overrides, which hides the forwarded one.
template <class B>
class view_base : public view_tag {
  using mut = std::remove_reference_t<held_t<B>>;
  using con = std::conditional_t<std::is_lvalue_reference_v<B>, mut, mut const>;

public:
  template <class U>
  explicit view_base(U&& b) : base_(std::forward<U>(b)) {}

  mut& base() & noexcept { return base_; }
  con& base() const& noexcept { return base_; }
  // An owned buffer can be taken back out of a view that is done with.
  std::remove_cvref_t<B> base() &&
    requires(!std::is_lvalue_reference_v<B>)
  {
    return std::move(base_);
  }

  decltype(auto) mpi_ptr()
    requires detail::has_ptr<mut>
  {
    return mpi::ptr(base_);
  }
  decltype(auto) mpi_ptr() const
    requires detail::has_ptr<con>
  {
    return mpi::ptr(base_);
  }
  decltype(auto) mpi_count() const
    requires detail::has_count<mut>
  {
    return mpi::count(base_);
  }
  decltype(auto) mpi_type() const
    requires detail::has_type<mut>
  {
    return mpi::type(base_);
  }
  decltype(auto) mpi_counts() const
    requires detail::has_counts<mut>
  {
    return mpi::counts(base_);
  }
  decltype(auto) mpi_displs() const
    requires detail::has_displs<mut>
  {
    return mpi::displs(base_);
  }
  decltype(auto) mpi_datatypes() const
    requires detail::has_datatypes<mut>
  {
    return mpi::datatypes(base_);
  }
  void mpi_set_count(MPI_Count n)
    requires deferred_count<mut>
  {
    base_.mpi_set_count(n);
  }
  std::span<int> mpi_counts_to_fill(std::size_t p)
    requires deferred_counts<mut>
  {
    return base_.mpi_counts_to_fill(p);
  }

protected:
  held_t<B> base_;
};

// `buf | a` is a(buf); an adaptor without arguments may also be called with none.
template <class F>
struct adaptor {
  F make;
  constexpr adaptor operator()() const { return *this; }
  template <class B>
    requires std::invocable<F const&, B>
  friend auto operator|(B&& b, adaptor const& a) {
    return a.make(std::forward<B>(b));
  }
  template <class B>
    requires std::invocable<F, B>
  friend auto operator|(B&& b, adaptor&& a) {
    return std::move(a.make)(std::forward<B>(b));
  }
};
template <class F>
adaptor(F) -> adaptor<F>;

// --- Datatype and count ------------------------------------------------------------------

template <class B>
class with_type_view : public view_base<B> {
public:
  template <class U>
  with_type_view(U&& b, MPI_Datatype t) : view_base<B>(std::forward<U>(b)), t_(t) {}
  MPI_Datatype mpi_type() const noexcept { return t_; }

private:
  MPI_Datatype t_;
};

template <class D>
  requires mpi::datatype_handle<D> || std::same_as<D, MPI_Datatype>
auto with_type(D const& type) {
  return adaptor{[t = mpi::detail::to_datatype(type)]<class B>(B&& b) {
    return with_type_view<held_t<B>>(std::forward<B>(b), t);
  }};
}

// The count is known: a resizable buffer underneath is sized to it, and infer() leaves it.
template <class B>
class with_count_view : public view_base<B> {
public:
  template <class U>
  with_count_view(U&& b, MPI_Count n) : view_base<B>(std::forward<U>(b)), n_(n) {
    if constexpr (deferred_count<held_t<B>>) this->base_.mpi_set_count(n);
  }
  MPI_Count mpi_count() const noexcept { return n_; }
  void mpi_set_count(MPI_Count) = delete;

private:
  MPI_Count n_;
};

inline auto with_count(MPI_Count n) {
  return adaptor{[n]<class B>(B&& b) { return with_count_view<held_t<B>>(std::forward<B>(b), n); }};
}

// --- Per-process counts and displacements ------------------------------------------------

// A value held the way held_t says, inside an adaptor until it is applied.
template <class T>
struct held_box {
  held_t<T> value;
};

template <class B, class C>
class with_counts_view : public view_base<B> {
public:
  template <class U, class V>
  with_counts_view(U&& b, V&& c) : view_base<B>(std::forward<U>(b)), c_(std::forward<V>(c)) {}
  std::remove_reference_t<held_t<C>> const& mpi_counts() const noexcept { return c_; }
  std::span<int> mpi_counts_to_fill(std::size_t) = delete;

private:
  held_t<C> c_;
};

template <mpi::cnt_range C>
auto with_counts(C&& counts) {
  return adaptor{[c = held_box<C>{std::forward<C>(counts)}]<class B>(B&& b) mutable {
    return with_counts_view<held_t<B>, C>(std::forward<B>(b), std::forward<held_t<C>>(c.value));
  }};
}

template <class B, class D>
class with_displs_view : public view_base<B> {
public:
  template <class U, class V>
  with_displs_view(U&& b, V&& d) : view_base<B>(std::forward<U>(b)), d_(std::forward<V>(d)) {}
  std::remove_reference_t<held_t<D>> const& mpi_displs() const noexcept { return d_; }

private:
  held_t<D> d_;
};

template <mpi::cnt_range D>
auto with_displs(D&& displs) {
  return adaptor{[d = held_box<D>{std::forward<D>(displs)}]<class B>(B&& b) mutable {
    return with_displs_view<held_t<B>, D>(std::forward<B>(b), std::forward<held_t<D>>(d.value));
  }};
}

// Counts that infer() fills by one count exchange (int: what MPI's count exchange sends).
template <class B>
class auto_counts_view : public view_base<B> {
public:
  template <class U>
  explicit auto_counts_view(U&& b) : view_base<B>(std::forward<U>(b)) {}
  std::span<int const> mpi_counts() const noexcept { return {c_.data(), c_.size()}; }
  std::span<int> mpi_counts_to_fill(std::size_t p) {
    c_.assign(p, 0);
    return {c_.data(), c_.size()};
  }

private:
  anympi::detail::small_vector<int> c_;
};

inline constexpr adaptor auto_counts{
    []<class B>(B&& b) { return auto_counts_view<held_t<B>>(std::forward<B>(b)); }};

// Displacements packing the blocks one after another: the exclusive prefix sum of the
// counts, computed when first asked for, and again only if infer() refills the counts.
template <class B>
class auto_displs_view : public view_base<B> {
  using count_type = std::remove_cvref_t<std::ranges::range_value_t<decltype(mpi::counts(std::declval<B const&>()))>>;

public:
  template <class U>
  explicit auto_displs_view(U&& b) : view_base<B>(std::forward<U>(b)) {}
  std::span<count_type const> mpi_displs() const {
    if (!d_) detail::pack_displs(mpi::counts(this->base_), d_.emplace());
    return {d_->data(), d_->size()};
  }
  std::span<int> mpi_counts_to_fill(std::size_t p)
    requires deferred_counts<held_t<B>>
  {
    d_.reset();
    return this->base_.mpi_counts_to_fill(p);
  }

private:
  mutable std::optional<anympi::detail::small_vector<count_type>> d_;
};

inline constexpr adaptor auto_displs{
    []<class B>(B&& b) { return auto_displs_view<held_t<B>>(std::forward<B>(b)); }};

// --- Resizing ------------------------------------------------------------------------------

enum class resize_policy { exact, grow_only, none };

// A buffer whose count infer() finds. Recorded there, the count is applied to the container
// (views::resize: resized to it; grow_only: enlarged if smaller; no_resize: checked) only when
// the operation asks for the address, just before MPI writes. Until then the count is the
// container's. Counts are in elements of the container (a with_type underneath must describe
// one element).
template <class B, resize_policy P>
class resize_view : public view_base<B> {
public:
  template <class U>
  explicit resize_view(U&& b) : view_base<B>(std::forward<U>(b)) {}

  void mpi_set_count(MPI_Count n) noexcept { n_ = n; }
  MPI_Count mpi_count() const { return n_ ? *n_ : static_cast<MPI_Count>(mpi::count(this->base_)); }
  auto mpi_ptr() {
    if (n_) fit(detail::container_of(this->base_), static_cast<std::size_t>(*n_));
    return mpi::ptr(this->base_);
  }

private:
  template <class Container>
  static void fit(Container& c, std::size_t n) {
    if constexpr (P == resize_policy::exact) {
      if (std::ranges::size(c) != n) c.resize(n);
    } else if constexpr (P == resize_policy::grow_only) {
      if (std::ranges::size(c) < n) c.resize(n);
    } else if (std::ranges::size(c) < n) {
      mpi::detail::fail(MPI_ERR_TRUNCATE, "anympi::views::no_resize",
                        "the message has " + std::to_string(n) + " elements, the buffer room for " +
                            std::to_string(std::ranges::size(c)));
    }
  }
  std::optional<MPI_Count> n_;
};

inline constexpr adaptor resize{
    []<class B>(B&& b) { return resize_view<held_t<B>, resize_policy::exact>(std::forward<B>(b)); }};
inline constexpr adaptor grow_only{
    []<class B>(B&& b) { return resize_view<held_t<B>, resize_policy::grow_only>(std::forward<B>(b)); }};
inline constexpr adaptor no_resize{
    []<class B>(B&& b) { return resize_view<held_t<B>, resize_policy::none>(std::forward<B>(b)); }};

// A varying buffer whose container is resized, when the operation asks for the address, to
// hold every block: max(displs[i] + counts[i]), or the sum of the counts where the
// displacements are not known yet underneath (an auto_displs above packs them).
template <class B>
class resize_v_view : public view_base<B> {
public:
  template <class U>
  explicit resize_v_view(U&& b) : view_base<B>(std::forward<U>(b)) {}

  auto mpi_ptr() {
    auto const& c = mpi::counts(this->base_);
    std::size_t n = 0;
    if constexpr (detail::has_displs<std::remove_reference_t<held_t<B>>>) {
      auto const& d = mpi::displs(this->base_);
      for (std::size_t i = 0; i < std::ranges::size(c); ++i)
        n = std::max(n, static_cast<std::size_t>(std::ranges::data(d)[i] + std::ranges::data(c)[i]));
    } else {
      for (auto k : c) n += static_cast<std::size_t>(k);
    }
    auto& container = detail::container_of(this->base_);
    if (std::ranges::size(container) != n) container.resize(n);
    return mpi::ptr(this->base_);
  }
};

inline constexpr adaptor resize_v{[]<class B>(B&& b) { return resize_v_view<held_t<B>>(std::forward<B>(b)); }};

// --- Blocks per process ----------------------------------------------------------------------

// The send side of an alltoallv whose data is kept as one block per destination: the blocks
// copied once, in rank order, into one vector the buffer owns, with int counts (what the
// count exchange of infer() sends) and packed displacements.
template <class T>
class flattened_v {
public:
  flattened_v(std::vector<T> data, std::vector<int> counts)
      : data_(std::move(data)), counts_(std::move(counts)) {
    detail::pack_displs(counts_, displs_);
  }
  T* mpi_ptr() noexcept { return data_.data(); }
  T const* mpi_ptr() const noexcept { return data_.data(); }
  MPI_Count mpi_count() const noexcept { return static_cast<MPI_Count>(data_.size()); }
  MPI_Datatype mpi_type() const { return mpi::datatype_of<T>(); }
  std::span<int const> mpi_counts() const noexcept { return counts_; }
  std::span<int const> mpi_displs() const noexcept { return displs_; }

private:
  std::vector<T> data_;
  std::vector<int> counts_, displs_;
};

namespace detail {
template <class R>
concept block = std::ranges::sized_range<R> && mpi::mapped_type<std::ranges::range_value_t<R>>;
template <class R>
concept range_of_blocks = std::ranges::sized_range<R> && block<std::ranges::range_reference_t<R>>;
template <class P>
concept rank_and_block = requires(P const& p) {
  { std::get<0>(p) } -> std::convertible_to<int>;
  requires block<decltype(std::get<1>(p))>;
};
template <class R>
concept rank_block_pairs = std::ranges::input_range<R> && rank_and_block<std::ranges::range_reference_t<R>>;

inline int block_count(std::size_t n) {
  if (!std::in_range<int>(n))
    mpi::detail::fail(MPI_ERR_COUNT, "anympi::views::flatten_v",
                      "a block of " + std::to_string(n) + " elements exceeds the int counts of alltoallv");
  return static_cast<int>(n);
}

struct flatten_v_fn {
  // One block per process, block i for process i.
  template <range_of_blocks R>
  friend auto operator|(R&& blocks, flatten_v_fn) {
    using T = std::ranges::range_value_t<std::ranges::range_reference_t<R>>;
    std::vector<int> counts;
    counts.reserve(std::ranges::size(blocks));
    std::size_t total = 0;
    for (auto&& b : blocks) total += std::ranges::size(b), counts.push_back(block_count(std::ranges::size(b)));
    std::vector<T> data;
    data.reserve(total);
    for (auto&& b : blocks) data.insert(data.end(), std::ranges::begin(b), std::ranges::end(b));
    return flattened_v<T>(std::move(data), std::move(counts));
  }
  // (rank, block) pairs among `processes`: the ranks not named send nothing, a rank named more
  // than once gets its blocks one after another, in the order given.
  auto operator()(int processes) const {
    return adaptor{[processes]<rank_block_pairs R>(R&& pairs) {
      using T = std::ranges::range_value_t<decltype(std::get<1>(*std::ranges::begin(pairs)))>;
      std::vector<std::size_t> sizes(static_cast<std::size_t>(processes));
      for (auto&& p : pairs) {
        int const r = std::get<0>(p);
        if (r < 0 || r >= processes)
          mpi::detail::fail(MPI_ERR_RANK, "anympi::views::flatten_v",
                            "rank " + std::to_string(r) + " of a (rank, block) pair is not among the " +
                                std::to_string(processes) + " processes");
        sizes[static_cast<std::size_t>(r)] += std::ranges::size(std::get<1>(p));
      }
      std::vector<int> counts(sizes.size());
      std::vector<std::size_t> at(sizes.size());
      std::size_t total = 0;
      for (std::size_t i = 0; i < sizes.size(); ++i) counts[i] = block_count(sizes[i]), at[i] = total, total += sizes[i];
      std::vector<T> data(total);
      for (auto&& p : pairs) {
        auto const& b = std::get<1>(p);
        auto& cursor = at[static_cast<std::size_t>(std::get<0>(p))];
        std::ranges::copy(b, data.begin() + static_cast<std::ptrdiff_t>(cursor));
        cursor += std::ranges::size(b);
      }
      return flattened_v<T>(std::move(data), std::move(counts));
    }};
  }
};
}  // namespace detail

inline constexpr detail::flatten_v_fn flatten_v{};

}  // namespace anympi::views

// A view over an lvalue refers to storage it does not own (the core's nonblocking calls take
// it as a temporary), unless it owns what MPI reads until the operation completes: the
// buffer, or counts and displacements (auto_counts and auto_displs always own theirs).
namespace anympi::views::detail {
template <class B>
inline constexpr bool borrowed = std::is_lvalue_reference_v<B> || mpi::enable_borrowed_buffer<std::remove_cvref_t<B>>;
}
namespace mpi {

template <class B>
inline constexpr bool enable_borrowed_buffer<anympi::views::with_type_view<B>> = anympi::views::detail::borrowed<B>;
template <class B>
inline constexpr bool enable_borrowed_buffer<anympi::views::with_count_view<B>> = anympi::views::detail::borrowed<B>;
template <class B, class C>
inline constexpr bool enable_borrowed_buffer<anympi::views::with_counts_view<B, C>> =
    anympi::views::detail::borrowed<B> && anympi::views::detail::borrowed<C>;
template <class B, class D>
inline constexpr bool enable_borrowed_buffer<anympi::views::with_displs_view<B, D>> =
    anympi::views::detail::borrowed<B> && anympi::views::detail::borrowed<D>;
template <class B, anympi::views::resize_policy P>
inline constexpr bool enable_borrowed_buffer<anympi::views::resize_view<B, P>> = anympi::views::detail::borrowed<B>;
}  // namespace mpi
