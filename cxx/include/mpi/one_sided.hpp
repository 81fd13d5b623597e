// One-sided communication (MPI-4.0 chapter 12): mpi::win_view (non-owning) and mpi::win
// (owning: MPI_Win_free in its destructor, never after MPI_Finalize), with
//   creation     win::create, win::allocate<T>, win::allocate_shared<T> (+ shared_query<T>),
//                win::create_dynamic (+ attach / detach, and mpi::get_address for the target),
//   RMA          put get accumulate get_accumulate fetch_and_op compare_and_swap,
//                rput rget raccumulate rget_accumulate (returning mpi::request),
//   epochs       fence; post start complete wait test; lock unlock lock_all unlock_all
//                flush flush_all flush_local flush_local_all sync; lock_guard / lock_all_guard,
//   attributes   base size disp_unit create_flavor model, get_info/set_info, group,
//                name/set_name, set/get_errhandler.
// The origin of every RMA call is a core buffer (buffer.hpp); where it lands is an
// mpi::target: a rank, a displacement in the target's disp_unit, and the target's count and
// datatype, which default to the origin's.
#pragma once

#include <mpi/buffer.hpp>
#include <mpi/datatype.hpp>
#include <mpi/errhandler.hpp>
#include <mpi/group.hpp>
#include <mpi/info.hpp>
#include <mpi/large_count.hpp>
#include <mpi/object.hpp>
#include <mpi/op.hpp>
#include <mpi/rank_tag.hpp>
#include <mpi/request.hpp>

#include <cstddef>
#include <exception>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace mpi {

namespace detail {
struct win_kind {
  using native_type = MPI_Win;
  static MPI_Win null() noexcept { return MPI_WIN_NULL; }
  static bool is_predefined(MPI_Win) noexcept { return false; }
  // Collective over the window's group, like MPI_Comm_free for an owned communicator.
  static int free(MPI_Win* h) noexcept { return MPI_Win_free(h); }
  static constexpr char const* free_name = "MPI_Win_free";
};
}  // namespace detail

// Where an RMA operation lands in the target's window. A struct rather than more positional
// parameters: the rank and the displacement are both integers, and grouping them as
// `{rank, disp}` keeps them apart from the origin buffer and the op, so every operation has
// one signature whether the target's layout is given or not (accumulate's op would otherwise
// follow an optional count and datatype). The count and datatype, when not given, are the
// origin buffer's: the common case of the same elements on both sides.
struct target {
  int rank;
  MPI_Aint disp;                          // in units of the target window's disp_unit
  std::optional<MPI_Count> count;         // default: the origin's count
  MPI_Datatype type = MPI_DATATYPE_NULL;  // default: the origin's datatype

  // Both given, always: a lone integer converting to a target would hide which it is.
  template <rank_like R>
  target(R const& r, MPI_Aint d) : rank(mpi::to_rank(r)), disp(d) {}
  template <rank_like R, datatype_handle D>
  target(R const& r, MPI_Aint d, MPI_Count n, D const& t)
      : rank(mpi::to_rank(r)), disp(d), count(n), type(detail::to_datatype(t)) {}
};

// MPI_REPLACE and MPI_NO_OP, the ops only RMA accumulates take (op.hpp has the rest).
struct replace_t {
  using mpi_handle_kind = detail::op_kind;
  MPI_Op mpi_handle() const noexcept { return MPI_REPLACE; }
};
struct no_op_t {
  using mpi_handle_kind = detail::op_kind;
  MPI_Op mpi_handle() const noexcept { return MPI_NO_OP; }
};
inline constexpr replace_t replace{};
inline constexpr no_op_t no_op{};

// The assert arguments of the synchronization calls (MPI_MODE_*), or-ed together.
inline constexpr int mode_nocheck = MPI_MODE_NOCHECK;
inline constexpr int mode_nostore = MPI_MODE_NOSTORE;
inline constexpr int mode_noput = MPI_MODE_NOPUT;
inline constexpr int mode_noprecede = MPI_MODE_NOPRECEDE;
inline constexpr int mode_nosucceed = MPI_MODE_NOSUCCEED;

enum class lock_type { exclusive, shared };
enum class win_flavor { create, allocate, allocate_shared, dynamic };
enum class win_model { separate, unified };

// The address of a buffer's first element (MPI_Get_address), e.g. memory attached to a
// dynamic window, which the target's peers address by it (target disp = this address).
template <data_buffer B>
MPI_Aint get_address(B const& b) {
  MPI_Aint a = 0;
  MPI_CXX_CALL(MPI_Get_address, mpi::ptr(b), &a);
  return a;
}

class win;
class win_view;
class rma_epoch;

namespace detail {

// The C bindings of each RMA operation: blocking-to-the-caller (completed by a later
// synchronization) and request-based; MPI has no persistent RMA, so that slot is never called.
inline constexpr auto put_forms =
    forms{MPI_CXX_COUNTED_FN(MPI_Put), MPI_CXX_COUNTED_FN(MPI_Rput), MPI_CXX_MISSING_FN(MPI_Put_init)};
inline constexpr auto get_forms =
    forms{MPI_CXX_COUNTED_FN(MPI_Get), MPI_CXX_COUNTED_FN(MPI_Rget), MPI_CXX_MISSING_FN(MPI_Get_init)};
inline constexpr auto accumulate_forms = forms{MPI_CXX_COUNTED_FN(MPI_Accumulate),
                                               MPI_CXX_COUNTED_FN(MPI_Raccumulate),
                                               MPI_CXX_MISSING_FN(MPI_Accumulate_init)};
inline constexpr auto get_accumulate_forms = forms{MPI_CXX_COUNTED_FN(MPI_Get_accumulate),
                                                   MPI_CXX_COUNTED_FN(MPI_Rget_accumulate),
                                                   MPI_CXX_MISSING_FN(MPI_Get_accumulate_init)};

// The target's count and datatype: the ones given, else the origin's.
template <class B>
counted target_count(target const& t, B const& origin, char const* fn) {
  return {t.count ? to_count(*t.count, fn) : count_of(origin, fn)};
}
template <class B>
MPI_Datatype target_type(target const& t, B const& origin) {
  return t.type != MPI_DATATYPE_NULL ? t.type : type_of(origin);
}

// put, get, rput, rget: (origin, count, type, rank, disp, target count, target type, win).
template <mode M, class F, class B>
auto put_get(F const& f, B& origin, target const& t, MPI_Win w) {
  char const* fn = f.template name<M>();
  return invoke<M>(f, send_tail{}, mpi::ptr(origin), count_arg(origin, fn), type_of(origin), t.rank, t.disp,
                   target_count(t, origin, fn), target_type(t, origin), w);
}
// accumulate, raccumulate: the same and the op.
template <mode M, class B>
auto accumulate(B& origin, target const& t, MPI_Op op, MPI_Win w) {
  char const* fn = accumulate_forms.name<M>();
  return invoke<M>(accumulate_forms, send_tail{}, mpi::ptr(origin), count_arg(origin, fn), type_of(origin), t.rank,
                   t.disp, target_count(t, origin, fn), target_type(t, origin), op, w);
}
// get_accumulate, rget_accumulate: the result buffer after the origin.
template <mode M, class B, class R>
auto get_accumulate(B& origin, R& result, target const& t, MPI_Op op, MPI_Win w) {
  char const* fn = get_accumulate_forms.name<M>();
  return invoke<M>(get_accumulate_forms, send_tail{}, mpi::ptr(origin), count_arg(origin, fn), type_of(origin),
                   mpi::ptr(result), count_arg(result, fn), type_of(result), t.rank, t.disp,
                   target_count(t, origin, fn), target_type(t, origin), op, w);
}

// Bytes spanned by a buffer (count elements of its datatype's extent): the window or the
// attached region it exposes.
template <class B>
MPI_Aint buffer_bytes(B const& b, char const* fn) {
  MPI_Count const n = count_of(b, fn);
  MPI_Aint const extent = datatype_view(type_of(b)).extent().extent;
  if (extent > 0 && n > std::numeric_limits<MPI_Aint>::max() / extent)
    fail(MPI_ERR_SIZE, fn, "the buffer's size in bytes exceeds MPI_Aint");
  return static_cast<MPI_Aint>(n) * extent;
}
template <class T>
MPI_Aint element_bytes(MPI_Aint n, char const* fn) {
  if (n < 0 || n > std::numeric_limits<MPI_Aint>::max() / static_cast<MPI_Aint>(sizeof(T)))
    fail(MPI_ERR_SIZE, fn, error_text{} << "window of " << n << " elements");
  return n * static_cast<MPI_Aint>(sizeof(T));
}

// fetch_and_op and compare_and_swap move exactly one element.
template <class B>
void expect_one(B const& b, char const* fn, char const* what) {
  if (count_of(b, fn) != 1) fail(MPI_ERR_COUNT, fn, error_text{} << what << " must be one element");
}

// The integer attributes point to ints MPI keeps; every window has them.
inline int const* win_int_attr(MPI_Win w, int keyval, char const* what) {
  int* v = nullptr;
  int flag = 0;
  MPI_CXX_CALL(MPI_Win_get_attr, w, keyval, &v, &flag);
  if (!flag || !v) fail(MPI_ERR_OTHER, "MPI_Win_get_attr", error_text{} << what << " not set");
  return v;
}

}  // namespace detail

// Every operation of a window, on the view and the owner alike. The RMA calls take buffers
// only if their storage outlives the call (buffer_outlives_call, buffer.hpp), the blocking
// put/get/accumulate included: MPI reads or writes the origin until the operation completes
// at a later flush, unlock, fence or complete (MPICH defers a locked epoch's operations to
// the unlock), long after a temporary would be gone.
template <class D>
class win_ops {
  MPI_Win h() const noexcept { return static_cast<D const&>(*this).native(); }

public:
  // --- RMA ---
  template <send_buffer B>
    requires buffer_outlives_call<B>
  void put(B&& origin, target const& t) const {
    detail::put_get<detail::mode::blocking>(detail::put_forms, origin, t, h());
  }
  template <recv_buffer B>
    requires buffer_outlives_call<B>
  void get(B&& origin, target const& t) const {
    detail::put_get<detail::mode::blocking>(detail::get_forms, origin, t, h());
  }
  template <send_buffer B, op_handle O>
    requires buffer_outlives_call<B>
  void accumulate(B&& origin, target const& t, O const& op) const {
    detail::accumulate<detail::mode::blocking>(origin, t, mpi::handle(op), h());
  }
  // The target's old contents land in `result`, then op combines origin into the target.
  template <send_buffer B, recv_buffer R, op_handle O>
    requires buffer_outlives_call<B> && buffer_outlives_call<R>
  void get_accumulate(B&& origin, R&& result, target const& t, O const& op) const {
    detail::get_accumulate<detail::mode::blocking>(origin, result, t, mpi::handle(op), h());
  }
  // One element: result = target; target = op(origin, target). The datatype is the
  // result's (t.count and t.type are ignored: MPI takes one datatype for all three).
  template <send_buffer B, recv_buffer R, op_handle O>
    requires buffer_outlives_call<B> && buffer_outlives_call<R>
  void fetch_and_op(B&& origin, R&& result, target const& t, O const& op) const {
    detail::expect_one(origin, "MPI_Fetch_and_op", "origin");
    detail::expect_one(result, "MPI_Fetch_and_op", "result");
    MPI_CXX_CALL(MPI_Fetch_and_op, mpi::ptr(origin), mpi::ptr(result), detail::type_of(result), t.rank, t.disp,
                 mpi::handle(op), h());
  }
  // One element: result = target; if target == compare, target = origin.
  template <send_buffer B, send_buffer C, recv_buffer R>
    requires buffer_outlives_call<B> && buffer_outlives_call<C> && buffer_outlives_call<R>
  void compare_and_swap(B&& origin, C&& compare, R&& result, target const& t) const {
    detail::expect_one(origin, "MPI_Compare_and_swap", "origin");
    detail::expect_one(compare, "MPI_Compare_and_swap", "compare");
    detail::expect_one(result, "MPI_Compare_and_swap", "result");
    MPI_CXX_CALL(MPI_Compare_and_swap, mpi::ptr(origin), mpi::ptr(compare), mpi::ptr(result),
                 detail::type_of(result), t.rank, t.disp, h());
  }

  // Request-based (passive target epochs only): the request completes the operation locally.
  template <send_buffer B>
    requires buffer_outlives_call<B>
  [[nodiscard]] request rput(B&& origin, target const& t) const {
    return detail::put_get<detail::mode::nonblocking>(detail::put_forms, origin, t, h());
  }
  template <recv_buffer B>
    requires buffer_outlives_call<B>
  [[nodiscard]] request rget(B&& origin, target const& t) const {
    return detail::put_get<detail::mode::nonblocking>(detail::get_forms, origin, t, h());
  }
  template <send_buffer B, op_handle O>
    requires buffer_outlives_call<B>
  [[nodiscard]] request raccumulate(B&& origin, target const& t, O const& op) const {
    return detail::accumulate<detail::mode::nonblocking>(origin, t, mpi::handle(op), h());
  }
  template <send_buffer B, recv_buffer R, op_handle O>
    requires buffer_outlives_call<B> && buffer_outlives_call<R>
  [[nodiscard]] request rget_accumulate(B&& origin, R&& result, target const& t, O const& op) const {
    return detail::get_accumulate<detail::mode::nonblocking>(origin, result, t, mpi::handle(op), h());
  }

  // --- Active target: fence ---
  void fence(int assert_ = 0) const { MPI_CXX_CALL(MPI_Win_fence, assert_, h()); }

  // --- Active target: post / start / complete / wait (PSCW) ---
  // post exposes this window to `g`'s processes; start opens access to theirs.
  template <group_handle G>
  void post(G const& g, int assert_ = 0) const {
    MPI_CXX_CALL(MPI_Win_post, mpi::handle(g), assert_, h());
  }
  template <group_handle G>
  void start(G const& g, int assert_ = 0) const {
    MPI_CXX_CALL(MPI_Win_start, mpi::handle(g), assert_, h());
  }
  void complete() const { MPI_CXX_CALL(MPI_Win_complete, h()); }
  void wait() const { MPI_CXX_CALL(MPI_Win_wait, h()); }
  // Whether the exposure epoch opened by post has ended (then as wait would).
  bool test() const {
    int flag = 0;
    MPI_CXX_CALL(MPI_Win_test, h(), &flag);
    return flag != 0;
  }

  // --- Passive target ---
  template <rank_like R>
  void lock(lock_type type, R const& rank, int assert_ = 0) const {
    MPI_CXX_CALL(MPI_Win_lock, type == lock_type::exclusive ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED,
                 mpi::to_rank(rank), assert_, h());
  }
  template <rank_like R>
  void unlock(R const& rank) const {
    MPI_CXX_CALL(MPI_Win_unlock, mpi::to_rank(rank), h());
  }
  void lock_all(int assert_ = 0) const { MPI_CXX_CALL(MPI_Win_lock_all, assert_, h()); }
  void unlock_all() const { MPI_CXX_CALL(MPI_Win_unlock_all, h()); }
  template <rank_like R>
  void flush(R const& rank) const {
    MPI_CXX_CALL(MPI_Win_flush, mpi::to_rank(rank), h());
  }
  void flush_all() const { MPI_CXX_CALL(MPI_Win_flush_all, h()); }
  template <rank_like R>
  void flush_local(R const& rank) const {
    MPI_CXX_CALL(MPI_Win_flush_local, mpi::to_rank(rank), h());
  }
  void flush_local_all() const { MPI_CXX_CALL(MPI_Win_flush_local_all, h()); }
  // Synchronizes the public and private copies of this process's window.
  void sync() const { MPI_CXX_CALL(MPI_Win_sync, h()); }

  // The epoch of lock(type, rank) / lock_all(), ended by the returned guard's destruction or
  // its unlock() (see rma_epoch).
  template <rank_like R>
  [[nodiscard]] rma_epoch lock_guard(R const& rank, lock_type type = lock_type::exclusive, int assert_ = 0) const;
  [[nodiscard]] rma_epoch lock_all_guard(int assert_ = 0) const;

  // --- Shared memory windows ---
  // The memory of `rank`'s part of a window from allocate_shared, addressable directly
  // (load/store) by this process; its size in bytes divided by sizeof(T).
  template <class T = std::byte, rank_like R = int>
  std::span<T> shared_query(R const& rank) const {
    MPI_Aint size = 0;
    int disp_unit = 0;
    void* base = nullptr;
    MPI_CXX_CALL(MPI_Win_shared_query, h(), mpi::to_rank(rank), &size, &disp_unit, &base);
    return {static_cast<T*>(base), static_cast<std::size_t>(size) / sizeof(T)};
  }

  // --- Dynamic windows ---
  // Exposes the buffer's memory in a window from create_dynamic until detach; peers
  // address it by its address (mpi::get_address), passed to them by the program.
  template <data_buffer B>
    requires buffer_outlives_call<B>
  void attach(B&& memory) const {
    MPI_CXX_CALL(MPI_Win_attach, h(), const_cast<void*>(static_cast<void const*>(mpi::ptr(memory))),
                 detail::buffer_bytes(memory, "MPI_Win_attach"));
  }
  template <data_buffer B>
  void detach(B&& memory) const {
    MPI_CXX_CALL(MPI_Win_detach, h(), mpi::ptr(memory));
  }

  // --- Attributes ---
  // This process's window memory: MPI_WIN_BASE, MPI_WIN_SIZE (bytes), MPI_WIN_DISP_UNIT.
  void* base() const {
    void* v = nullptr;
    int flag = 0;
    MPI_CXX_CALL(MPI_Win_get_attr, h(), MPI_WIN_BASE, &v, &flag);
    return flag ? v : nullptr;
  }
  MPI_Aint size() const {
    MPI_Aint* v = nullptr;
    int flag = 0;
    MPI_CXX_CALL(MPI_Win_get_attr, h(), MPI_WIN_SIZE, &v, &flag);
    return flag && v ? *v : 0;
  }
  int disp_unit() const { return *detail::win_int_attr(h(), MPI_WIN_DISP_UNIT, "MPI_WIN_DISP_UNIT"); }
  win_flavor create_flavor() const {
    int const f = *detail::win_int_attr(h(), MPI_WIN_CREATE_FLAVOR, "MPI_WIN_CREATE_FLAVOR");
    if (f == MPI_WIN_FLAVOR_ALLOCATE) return win_flavor::allocate;
    if (f == MPI_WIN_FLAVOR_SHARED) return win_flavor::allocate_shared;
    if (f == MPI_WIN_FLAVOR_DYNAMIC) return win_flavor::dynamic;
    return win_flavor::create;
  }
  win_model model() const {
    int const m = *detail::win_int_attr(h(), MPI_WIN_MODEL, "MPI_WIN_MODEL");
    return m == MPI_WIN_UNIFIED ? win_model::unified : win_model::separate;
  }
  mpi::group group() const {
    MPI_Group g;
    MPI_CXX_CALL(MPI_Win_get_group, h(), &g);
    return mpi::group::from_native(g);
  }
  template <info_handle I>
  void set_info(I const& i) const {
    MPI_CXX_CALL(MPI_Win_set_info, h(), mpi::handle(i));
  }
  mpi::info get_info() const {
    MPI_Info i;
    MPI_CXX_CALL(MPI_Win_get_info, h(), &i);
    return mpi::info::from_native(i);
  }
  std::string name() const {
    char buf[MPI_MAX_OBJECT_NAME + 1] = {};
    int len = 0;
    MPI_CXX_CALL(MPI_Win_get_name, h(), buf, &len);
    return std::string(buf, static_cast<std::size_t>(len));
  }
  void set_name(std::string_view n) const { MPI_CXX_CALL(MPI_Win_set_name, h(), detail::c_string(n)); }
  // A window's handler is its own (MPI_ERRORS_ARE_FATAL when created, whatever the
  // communicator's): set mpi::errors_return to have its errors thrown as mpi_error.
  template <errhandler_handle E>
  void set_errhandler(E const& e) const {
    MPI_CXX_CALL(MPI_Win_set_errhandler, h(), mpi::handle(e));
  }
  errhandler get_errhandler() const {
    MPI_Errhandler e;
    MPI_CXX_CALL(MPI_Win_get_errhandler, h(), &e);
    return errhandler::from_native(e);
  }
};

class win_view : public detail::view_base<detail::win_kind>, public win_ops<win_view> {
public:
  using view_base::view_base;
};

// A window and this process's part of its memory, as allocated by MPI:
//   auto [w, mem] = mpi::win::allocate<int>(4, comm);
template <class T>
struct win_memory;

// An owned window. Freeing it (destructor, free()) is collective over its group and must
// follow the end of every epoch, as MPI_Win_free requires.
class win : public detail::owner_base<detail::win_kind, win, win_view>, public win_ops<win> {
public:
  win() noexcept = default;

  // Exposes `memory` (count elements of its datatype), in units of `disp_unit` bytes, to the
  // processes of `comm`. The memory must outlive the window.
  template <recv_buffer B, info_handle I, comm_handle C>
    requires buffer_outlives_call<B>
  static win create(B&& memory, MPI_Aint disp_unit, I const& info, C const& comm) {
    MPI_Win w = MPI_WIN_NULL;
    detail::call_with(MPI_CXX_COUNTED_FN(MPI_Win_create), static_cast<void*>(mpi::ptr(memory)),
                      detail::buffer_bytes(memory, "MPI_Win_create"), detail::counted{disp_unit},
                      mpi::handle(info), mpi::handle(comm), &w);
    return from_native(w);
  }
  // Displacements in elements: disp_unit is the extent of the buffer's datatype.
  template <recv_buffer B, comm_handle C>
    requires buffer_outlives_call<B>
  static win create(B&& memory, C const& comm) {
    MPI_Aint const unit = datatype_view(detail::type_of(memory)).extent().extent;
    return create(memory, unit, info_view{}, comm);
  }

  // n elements of T per process, allocated by MPI (possibly in memory it can reach faster),
  // uninitialized; displacements in elements (disp_unit = sizeof(T)). T: trivially copyable.
  template <class T, info_handle I, comm_handle C>
    requires std::is_trivially_copyable_v<T>
  static win_memory<T> allocate(MPI_Aint n, I const& info, C const& comm);
  template <class T, comm_handle C>
    requires std::is_trivially_copyable_v<T>
  static win_memory<T> allocate(MPI_Aint n, C const& comm);

  // The same in memory shared by the processes of `comm`, which must all be on one node
  // (split_type(split_kind::shared)): each reaches the others' parts through shared_query.
  template <class T, info_handle I, comm_handle C>
    requires std::is_trivially_copyable_v<T>
  static win_memory<T> allocate_shared(MPI_Aint n, I const& info, C const& comm);
  template <class T, comm_handle C>
    requires std::is_trivially_copyable_v<T>
  static win_memory<T> allocate_shared(MPI_Aint n, C const& comm);

  // A window without memory: attach / detach regions later; targets are addressed by
  // absolute address (mpi::get_address), disp_unit 1.
  template <info_handle I, comm_handle C>
  static win create_dynamic(I const& info, C const& comm) {
    MPI_Win w = MPI_WIN_NULL;
    MPI_CXX_CALL(MPI_Win_create_dynamic, mpi::handle(info), mpi::handle(comm), &w);
    return from_native(w);
  }
  template <comm_handle C>
  static win create_dynamic(C const& comm) {
    return create_dynamic(info_view{}, comm);
  }

private:
  // MPI_Win_allocate and MPI_Win_allocate_shared have the same parameters.
  template <class T, class F, class I, class C>
  static win_memory<T> allocate_with(F const& f, MPI_Aint n, I const& info, C const& comm);
};

template <class T>
struct win_memory {
  win window;
  std::span<T> memory;
};

template <class T, class F, class I, class C>
win_memory<T> win::allocate_with(F const& f, MPI_Aint n, I const& info, C const& comm) {
  MPI_Win w = MPI_WIN_NULL;
  void* base = nullptr;
  detail::call_with(f, detail::element_bytes<T>(n, f.name), detail::counted{static_cast<MPI_Count>(sizeof(T))},
                    mpi::handle(info), mpi::handle(comm), static_cast<void*>(&base), &w);
  return {from_native(w), std::span<T>(static_cast<T*>(base), static_cast<std::size_t>(n))};
}
template <class T, info_handle I, comm_handle C>
  requires std::is_trivially_copyable_v<T>
win_memory<T> win::allocate(MPI_Aint n, I const& info, C const& comm) {
  return allocate_with<T>(MPI_CXX_COUNTED_FN(MPI_Win_allocate), n, info, comm);
}
template <class T, comm_handle C>
  requires std::is_trivially_copyable_v<T>
win_memory<T> win::allocate(MPI_Aint n, C const& comm) {
  return allocate<T>(n, info_view{}, comm);
}
template <class T, info_handle I, comm_handle C>
  requires std::is_trivially_copyable_v<T>
win_memory<T> win::allocate_shared(MPI_Aint n, I const& info, C const& comm) {
  return allocate_with<T>(MPI_CXX_COUNTED_FN(MPI_Win_allocate_shared), n, info, comm);
}
template <class T, comm_handle C>
  requires std::is_trivially_copyable_v<T>
win_memory<T> win::allocate_shared(MPI_Aint n, C const& comm) {
  return allocate_shared<T>(n, info_view{}, comm);
}

// A passive-target epoch: lock(rank) or lock_all() on construction, unlock on unlock() (which
// reports errors) or destruction (which cannot: a failing unlock there calls std::terminate,
// as a failing free does, unless an exception is already unwinding the stack).
class rma_epoch {
public:
  rma_epoch(rma_epoch&& o) noexcept : w_(std::exchange(o.w_, MPI_WIN_NULL)), rank_(o.rank_), all_(o.all_) {}
  rma_epoch(rma_epoch const&) = delete;
  rma_epoch& operator=(rma_epoch const&) = delete;
  rma_epoch& operator=(rma_epoch&&) = delete;
  ~rma_epoch() {
    if (w_ == MPI_WIN_NULL || detail::mpi_finalized()) return;
    if (end(w_) != MPI_SUCCESS && std::uncaught_exceptions() == 0) std::terminate();
  }
  void unlock() {
    if (w_ == MPI_WIN_NULL) return;
    MPI_Win w = std::exchange(w_, MPI_WIN_NULL);
    detail::check(end(w), all() ? "MPI_Win_unlock_all" : "MPI_Win_unlock");
  }

private:
  template <class D>
  friend class win_ops;
  struct all_ranks_t {};
  rma_epoch(MPI_Win w, int rank) noexcept : w_(w), rank_(rank), all_(false) {}
  rma_epoch(MPI_Win w, all_ranks_t) noexcept : w_(w), rank_(MPI_PROC_NULL), all_(true) {}
  bool all() const noexcept { return all_; }
  int end(MPI_Win w) const noexcept { return all() ? MPI_Win_unlock_all(w) : MPI_Win_unlock(rank_, w); }
  MPI_Win w_;
  int rank_;
  bool all_;  // lock_all: no rank can say so, MPI_PROC_NULL being a valid target of MPI_Win_lock
};

template <class D>
template <rank_like R>
rma_epoch win_ops<D>::lock_guard(R const& rank, lock_type type, int assert_) const {
  lock(type, rank, assert_);
  return rma_epoch(h(), mpi::to_rank(rank));
}
template <class D>
rma_epoch win_ops<D>::lock_all_guard(int assert_) const {
  lock_all(assert_);
  return rma_epoch(h(), rma_epoch::all_ranks_t{});
}

}  // namespace mpi
