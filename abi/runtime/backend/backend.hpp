// The backend's converters: one per kind of parameter, each used by the generated wrappers
// (backend.gen.cpp) and the hand-written ones (manual.cpp).  This file is compiled once per
// native MPI, against that MPI's own mpi.h; the ABI's types are the renamed abi_* ones.
//
// Direction is expressed by the converter: c_hin(x) converts a value; c_hout(p)/c_hio(p)
// return a proxy that the native call writes through and that converts back into *p when the
// full expression ends (after the call).  Arrays stage in a stack buffer for small n.
#pragma once

#include <mpi.h>

#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>

extern "C" {
#include "abi_types.h"
}
#include "backend_sigs.h"
#include "fn_index.h"
#include "native.hpp"

namespace anympi::backend {

// ---------------------------------------------------------------- the native scope
// The backend is loaded without RTLD_DEEPBIND (which the loader's copy relocations and the
// sanitizers do not survive), so the native MPI's own calls of MPI_* by name -- ROMIO's,
// Open MPI's plugins' -- land in anympi's exports.  The front dispatches through a per-thread
// table (front.h); while the backend runs a native function, this thread's table is the
// native one, so such a call goes straight back to the native MPI unchanged.  User callbacks
// run from inside the native MPI switch back to the process table (abi_scope).
//
// The front's table pointer is an initial-exec TLS variable: at a fixed offset from the
// thread pointer, the same in every thread, which the front hands over at load.
extern long front_tls_offset;
extern void *const *const *front_process_table;  // the front's anympi_table
extern void *native_table[ANYMPI_NFUNCS];        // the native functions, resolved at load
extern const char *const native_names[ANYMPI_NFUNCS];
inline void *const *&thread_table()
{
    return *reinterpret_cast<void *const **>(static_cast<char *>(__builtin_thread_pointer()) + front_tls_offset);
}
struct native_scope {
    void *const *prev = thread_table();
    native_scope() { thread_table() = native_table; }
    ~native_scope() { thread_table() = prev; }
    native_scope(const native_scope &) = delete;
    native_scope &operator=(const native_scope &) = delete;
};
struct abi_scope {
    void *const *prev = thread_table();
    abi_scope() { thread_table() = *front_process_table; }
    ~abi_scope() { thread_table() = prev; }
    abi_scope(const abi_scope &) = delete;
    abi_scope &operator=(const abi_scope &) = delete;
};

// Every MPI_X the backend names is native_call<slot, type of PMPI_X>{} (native_calls.h): the
// function found in the native library at load, called in the native scope.  Converters'
// proxies are arguments, so their conversions back run after the scope has ended.
// A leaf (LEAF_CALLS in the generator: a query that calls no MPI function by name) needs no
// scope.
template <int Slot, class F, bool Leaf = false> struct native_call;
template <int Slot, class R, class... A, bool Leaf> struct native_call<Slot, R (*)(A...), Leaf> {
    R operator()(A... a) const
    {
        if constexpr (Leaf) {
            return reinterpret_cast<R (*)(A...)>(native_table[Slot])(a...);
        } else {
            native_scope s_;
            return reinterpret_cast<R (*)(A...)>(native_table[Slot])(a...);
        }
    }
};
}  // namespace anympi::backend
#include "native_calls.h"

namespace anympi::backend {

// ---------------------------------------------------------------- handles
// A native handle as bits: MPICH's are ints (zero-extended), Open MPI's are pointers.
template <class N> inline uintptr_t bits(N n)
{
    if constexpr (std::is_pointer_v<N>) return reinterpret_cast<uintptr_t>(n);
    else return static_cast<uintptr_t>(static_cast<uint32_t>(n));
}
template <class N> inline N from_bits(uintptr_t b)
{
    if constexpr (std::is_pointer_v<N>) return reinterpret_cast<N>(b);
    else return static_cast<N>(static_cast<uint32_t>(b));
}

enum handle_kind { k_op, k_comm, k_group, k_win, k_file, k_session, k_message, k_info,
                   k_errhandler, k_request, k_datatype, k_count };

template <class A> struct traits;
#define ANYMPI_TRAITS(K, N, KIND)                                                        \
    template <> struct traits<abi_##K> { using native = N; static constexpr handle_kind kind = KIND; \
                                         static constexpr uintptr_t null_abi = ABI_##KIND##_NULL_V; };
constexpr uintptr_t ABI_k_op_NULL_V = ABI_OP_NULL, ABI_k_comm_NULL_V = ABI_COMM_NULL,
                    ABI_k_group_NULL_V = ABI_GROUP_NULL, ABI_k_win_NULL_V = ABI_WIN_NULL,
                    ABI_k_file_NULL_V = ABI_FILE_NULL, ABI_k_session_NULL_V = ABI_SESSION_NULL,
                    ABI_k_message_NULL_V = ABI_MESSAGE_NULL, ABI_k_info_NULL_V = ABI_INFO_NULL,
                    ABI_k_errhandler_NULL_V = ABI_ERRHANDLER_NULL,
                    ABI_k_request_NULL_V = ABI_REQUEST_NULL, ABI_k_datatype_NULL_V = ABI_DATATYPE_NULL;
ANYMPI_TRAITS(Op, MPI_Op, k_op)
ANYMPI_TRAITS(Comm, MPI_Comm, k_comm)
ANYMPI_TRAITS(Group, MPI_Group, k_group)
ANYMPI_TRAITS(Win, MPI_Win, k_win)
ANYMPI_TRAITS(File, MPI_File, k_file)
ANYMPI_TRAITS(Session, native_session, k_session)
ANYMPI_TRAITS(Message, MPI_Message, k_message)
ANYMPI_TRAITS(Info, MPI_Info, k_info)
ANYMPI_TRAITS(Errhandler, MPI_Errhandler, k_errhandler)
ANYMPI_TRAITS(Request, MPI_Request, k_request)
ANYMPI_TRAITS(Datatype, MPI_Datatype, k_datatype)
#undef ANYMPI_TRAITS
template <class A> using native_t = typename traits<A>::native;

// Predefined ABI handles are < 0x400: one table for all kinds (their ranges are disjoint).
extern uintptr_t pre_to_native[0x400];

// native -> ABI for predefined natives: a range check per kind, then a small hash.
struct reverse_index {
    static constexpr unsigned slots = 2048;
    uintptr_t key[slots];
    uint16_t val[slots];
    uint8_t kind[slots]; // MPICH shares values across kinds (MPI_MESSAGE_NULL is MPI_REQUEST_NULL)
    uintptr_t lo[k_count], hi[k_count];
    void insert(handle_kind k, uintptr_t native, uint16_t abi);
    void erase(handle_kind k, uintptr_t native);  // a handle built at init (emulated_types.cpp)
    static unsigned hash(uintptr_t b) { return unsigned((b * 0x9E3779B97F4A7C15ull) >> 53); }
    uintptr_t find(handle_kind k, uintptr_t b) const
    {
        for (unsigned i = hash(b);; i = (i + 1) & (slots - 1)) {
            if (key[i] == b && kind[i] == k) return val[i];
            if (val[i] == 0) return b; // not predefined: a user handle
        }
    }
};
extern reverse_index rev;

template <class A> inline native_t<A> to_native(A a)
{
    uintptr_t v = reinterpret_cast<uintptr_t>(a);
    return from_bits<native_t<A>>(v < 0x400 ? pre_to_native[v] : v);
}
template <class A> inline A to_abi(native_t<A> n)
{
    uintptr_t b = bits(n);
    constexpr handle_kind k = traits<A>::kind;
    // The only predefined request is MPI_REQUEST_NULL, which every completed request becomes:
    // one compare, not the reverse index's probe.
    if constexpr (k == k_request)
        return reinterpret_cast<A>(n == MPI_REQUEST_NULL ? traits<A>::null_abi : b);
    if (b - rev.lo[k] <= rev.hi[k] - rev.lo[k]) b = rev.find(k, b);
    return reinterpret_cast<A>(b);
}

template <class A> inline native_t<A> c_hin(A a) { return to_native(a); }

// Resources anympi keeps for a native request while the MPI may still use them (the staged
// datatype arrays of the nonblocking and persistent alltoallw forms, manual.cpp), released
// when a completion call hands the request back null.  While none is kept, a completion
// pays one relaxed load for it.
extern std::atomic<long> held_requests;
void release_held(uintptr_t native_request);
template <class A> inline void request_seen(uintptr_t before, uintptr_t after)
{
    if constexpr (std::is_same_v<A, abi_Request>)
        if (before != after && held_requests.load(std::memory_order_relaxed) != 0) release_held(before);
}
// A staged array of native datatypes that the MPI may read after the call (manual.cpp): one
// allocation, with room in front for the link by which hold() keeps it.
class held_block {
  public:
    explicit held_block(long n);
    held_block(held_block &&o) noexcept : l_(o.l_) { o.l_ = nullptr; }
    held_block &operator=(held_block &&) = delete;
    ~held_block();
    MPI_Datatype *types() const { return reinterpret_cast<MPI_Datatype *>(l_ + 1); }
    struct link { link *next; uintptr_t request; };  // in front of the datatypes

  private:
    link *l_;
    friend void hold(MPI_Request r, held_block block);
};
// Keeps `block` for the native request r until release_held(r).
void hold(MPI_Request r, held_block block);

// An output handle starts as the native null (what an error leaves behind); an in-out one as
// the caller's, which *p still holds after the call, so what the call made of a request is
// seen without keeping a copy.
template <class A, bool In> struct hout_proxy {
    A *p;
    native_t<A> n;
    operator native_t<A> *() { return p ? &n : nullptr; }
    __attribute__((always_inline)) ~hout_proxy()
    {
        if (!p) return;
        if constexpr (In) request_seen<A>(bits(to_native(*p)), bits(n));
        *p = to_abi<A>(n);
    }
};
template <class A> inline hout_proxy<A, false> c_hout(A *p)
{
    return {p, to_native(reinterpret_cast<A>(traits<A>::null_abi))};
}
template <class A> inline hout_proxy<A, true> c_hio(A *p)
{
    return {p, to_native(p ? *p : reinterpret_cast<A>(traits<A>::null_abi))};
}

// A new request (every nonblocking call) is written by the MPI straight into the caller's
// handle: a user handle's ABI bits are the native handle's (zero-extended: MPICH's int lands
// in the low half of the slot, which starts as the ABI's MPI_REQUEST_NULL, whose high half is
// zero).  Only the native MPI_REQUEST_NULL needs converting after the call; a call that failed
// without writing leaves the ABI's.  No copy through the stack: on the path of every message.
struct req_out_proxy {
    abi_Request *p;
    operator MPI_Request *() const { return reinterpret_cast<MPI_Request *>(p); }
    __attribute__((always_inline)) ~req_out_proxy()
    {
        if (p && *reinterpret_cast<MPI_Request *>(p) == MPI_REQUEST_NULL)
            *p = reinterpret_cast<abi_Request>(ABI_REQUEST_NULL);
    }
};
inline req_out_proxy c_hout(abi_Request *p)
{
    static_assert(sizeof(MPI_Request) <= sizeof(abi_Request) && ABI_REQUEST_NULL <= 0xffffffffu);
    if (p) *p = reinterpret_cast<abi_Request>(ABI_REQUEST_NULL);
    return {p};
}

// A new persistent request (MPI_X_init forwarded to the native MPI): noted as such
// (requests.cpp: native persistent requests), so that whether it is active can be told.
void persistent_made(uintptr_t native_request);
struct hout_persistent_proxy : hout_proxy<abi_Request, false> {
    ~hout_persistent_proxy()
    {
        if (p && n != MPI_REQUEST_NULL) persistent_made(bits(n));
    }
};
inline hout_persistent_proxy c_hout_persistent(abi_Request *p) { return {{p, MPI_REQUEST_NULL}}; }

// Which session a communicator or group derives from, for the session's buffered sends
// (buffers.cpp).  A new communicator or group made from another (c_hout_derived: the generator
// names the first one the function takes) derives from the same session, or from the world
// model; noted only once a session has made a group, before which there is nothing to note.
extern std::atomic<bool> origins_noted;
void note_origin(handle_kind made_kind, uintptr_t made, handle_kind from_kind, uintptr_t from);
template <class A, class P> struct hout_derived_proxy : hout_proxy<A, false> {
    native_t<P> from;
    ~hout_derived_proxy()
    {
        if (this->p && origins_noted.load(std::memory_order_relaxed))
            note_origin(traits<A>::kind, bits(this->n), traits<P>::kind, bits(from));
    }
};
template <class A, class P> inline hout_derived_proxy<A, P> c_hout_derived(A *p, P from)
{
    return {c_hout(p), to_native(from)};
}

// For an output the native MPI may write after the call returns (MPI_Comm_idup's newcomm):
// the native handle is written straight into the user's ABI handle.  Sound because a new
// object is never a predefined one, and a user handle's ABI bits are the native handle's
// (zero-extended: the slot is cleared first, the native int lands in its low half).
template <class A> inline native_t<A> *c_hout_late(A *p)
{
    static_assert(sizeof(native_t<A>) <= sizeof(A));
    if (p) *p = nullptr;
    return reinterpret_cast<native_t<A> *>(p);
}

// Staging for arrays: on the stack up to 16 elements, on the heap above.
template <class T> struct stage {
    T local[16];
    std::unique_ptr<T[]> heap;
    T *ptr = nullptr;
    explicit stage(long n) { if (n > 16) heap.reset(new T[size_t(n)]); ptr = n > 16 ? heap.get() : local; }
};

// In and Out are template parameters so that each use folds its direction at compile time
// without forcing the staging loops inline everywhere.
template <class A, bool In, bool Out> struct harr_proxy {
    A *p;
    long n;
    stage<native_t<A>> s;
    harr_proxy(const A *a, long n_) : p(const_cast<A *>(a)), n(n_ < 0 ? 0 : n_), s(n)
    {
        if constexpr (In)
            if (p) for (long i = 0; i < n; ++i) s.ptr[i] = to_native(p[i]);
    }
    operator native_t<A> *() { return p ? s.ptr : nullptr; }
    ~harr_proxy()
    {
        if constexpr (Out) {
            if (!p) return;
            if constexpr (In && std::is_same_v<A, abi_Request>)
                if (held_requests.load(std::memory_order_relaxed) != 0)
                    for (long i = 0; i < n; ++i) request_seen<A>(bits(to_native(p[i])), bits(s.ptr[i]));
            for (long i = 0; i < n; ++i) p[i] = to_abi<A>(s.ptr[i]);
        }
    }
};
template <class A> inline harr_proxy<A, true, false> c_harr_in(const A *a, long n) { return {a, n}; }
template <class A> inline harr_proxy<A, false, true> c_harr_out(A *a, long n) { return {a, n}; }
template <class A> inline harr_proxy<A, true, true> c_harr_io(A *a, long n) { return {a, n}; }

// Tool-interface handles are opaque pointers on both sides; only the sentinels differ.
struct tin_proxy {
    uintptr_t v;
    template <class T> operator T() const
    {
        if constexpr (std::is_same_v<T, MPI_T_pvar_handle>)
            if (v == ABI_T_PVAR_ALL_HANDLES) return MPI_T_PVAR_ALL_HANDLES;
        return reinterpret_cast<T>(v);
    }
};
template <class A> inline tin_proxy c_tin(A a) { return {reinterpret_cast<uintptr_t>(a)}; }
struct tout_proxy {
    void *p;
    template <class T> operator T *() const { static_assert(sizeof(T) == sizeof(void *)); return static_cast<T *>(p); }
};
template <class A> inline tout_proxy c_tout(A *p) { return {p}; }
template <class A> inline tout_proxy c_tio(A *p) { return {p}; }

// Outputs a call writes only when it sets *flag (MPI_Test, MPI_Iprobe ...: when nothing
// completed or matched, nothing else changed; FLAG_GUARDED in the generator): converted back
// only then, so a pending MPI_Test converts neither its request nor its status.  *flag starts
// true, so a call that fails before it writes flag still converts everything back.
template <class P> struct if_flag : P {
    int *flag;
    template <class... A> __attribute__((always_inline)) if_flag(int *f, A &&...a) : P(std::forward<A>(a)...), flag(f)
    {
        if (f) *f = 1;
    }
    if_flag(const if_flag &) = delete;
    if_flag &operator=(const if_flag &) = delete;
    __attribute__((always_inline)) ~if_flag()
    {
        if (flag && !*flag) this->p = nullptr;  // the converter's own destructor then does nothing
    }
};
template <class A> inline if_flag<hout_proxy<A, true>> c_hio_if(int *flag, A *p)
{
    return {flag, p, to_native(p ? *p : reinterpret_cast<A>(traits<A>::null_abi))};
}
template <class A> inline if_flag<harr_proxy<A, true, true>> c_harr_io_if(int *flag, A *a, long n) { return {flag, a, n}; }

// ---------------------------------------------------------------- integers by meaning
enum class cat { error, rank, tag, undefined, thread, order, distribute, darg, combiner, typeclass,
                 compare, topology, split, lock, flavor, model, seek, keyval, amode, assert_,
                 t_verbosity, t_bind, t_scope, t_pvar_class, t_cb_safety, t_source_order, limit,
                 count_ };
struct const_pair { int abi, native; };
struct const_table { const_pair v[96]; int n = 0; };
extern const_table consts[int(cat::count_)];

template <cat C> inline int cin(int a)
{
    const const_table &t = consts[int(C)];
    for (int i = 0; i < t.n; ++i) if (t.v[i].abi == a) return t.v[i].native;
    return a; // an ordinary value (a darg, a color, a count)
}
template <cat C> inline int cout(int n)
{
    const const_table &t = consts[int(C)];
    for (int i = 0; i < t.n; ++i) if (t.v[i].native == n) return t.v[i].abi;
    return n;
}
// Converts to whatever integer or enum type the native parameter has (MPI_T_cb_safety ...).
struct int_like {
    int v;
    template <class T> operator T() const { static_assert(sizeof(T) == sizeof(int)); return static_cast<T>(v); }
};
template <cat C> inline int_like c_cin(int a) { return {cin<C>(a)}; }

// In-place conversion after the call (the native MPI writes straight into the user's int).
template <cat C> struct cout_proxy {
    int *p;
    template <class T> operator T *() const { static_assert(sizeof(T) == sizeof(int)); return reinterpret_cast<T *>(p); }
    ~cout_proxy() { if (p) *p = cout<C>(*p); }
};
template <cat C> inline cout_proxy<C> c_cout(int *p) { return {p}; }
template <cat C> struct couts_proxy {
    int *p; long n;
    operator int *() const { return p; }
    ~couts_proxy() { if (p) for (long i = 0; i < n; ++i) p[i] = cout<C>(p[i]); }
};
template <cat C> inline couts_proxy<C> c_couts(int *p, long n) { return {p, n}; }
template <cat C> struct cins_proxy {
    stage<int> s; const int *p;
    cins_proxy(const int *a, long n) : s(n < 0 ? 0 : n), p(a) { if (a) for (long i = 0; i < n; ++i) s.ptr[i] = cin<C>(a[i]); }
    operator int *() { return p ? s.ptr : nullptr; }
};
template <cat C> inline cins_proxy<C> c_cins(const int *p, long n) { return {p, n}; }

// Bit masks (file access modes, RMA assertions): bit by bit.
template <cat C> inline int bin(int a)
{
    const const_table &t = consts[int(C)];
    int r = 0, known = 0;
    for (int i = 0; i < t.n; ++i) { known |= t.v[i].abi; if (a & t.v[i].abi) r |= t.v[i].native; }
    return r | (a & ~known);
}
template <cat C> inline int bout(int n)
{
    const const_table &t = consts[int(C)];
    int r = 0;
    for (int i = 0; i < t.n; ++i) if (n & t.v[i].native) r |= t.v[i].abi;
    return r;
}
template <cat C> inline int c_bin(int a) { return bin<C>(a); }
template <cat C> struct bout_proxy {
    int *p;
    operator int *() const { return p; }
    ~bout_proxy() { if (p) *p = bout<C>(*p); }
};
template <cat C> inline bout_proxy<C> c_bout(int *p) { return {p}; }

// A negative value that is no native sentinel: what a bad rank or tag that is one of the MPI's
// sentinels becomes, so that bad input stays bad input natively.
constexpr int invalid_negative = -0x7fff0000;

// The rank sentinels MPI_ANY_SOURCE, MPI_PROC_NULL and MPI_ROOT lie in [-4, -1] in the ABI
// and in both MPIs, each numbered differently; MPI_UNDEFINED is the same everywhere.  A table
// each way for the small negatives: a boundary's MPI_PROC_NULL costs one load, not a chain of
// compares.
constexpr int rank_sentinels_min = -4;
static_assert(ABI_UNDEFINED == MPI_UNDEFINED);
struct rank_table {
    int v[1 - rank_sentinels_min];  // v[-r]: what r in [rank_sentinels_min, -1] becomes
};
// A sentinel outside the range would index past v: not a constant expression, so no build.
template <class Other>
constexpr rank_table rank_map(Other other, std::initializer_list<std::pair<int, int>> from_to)
{
    rank_table t{};
    for (int r = rank_sentinels_min; r < 0; ++r) t.v[-r] = other(r);
    for (auto [from, to] : from_to) t.v[-from] = to;
    return t;
}
constexpr rank_table rank_in_table = rank_map([](int) { return invalid_negative; },
                                              {{ABI_ANY_SOURCE, MPI_ANY_SOURCE}, {ABI_PROC_NULL, MPI_PROC_NULL}, {ABI_ROOT, MPI_ROOT}});
constexpr rank_table rank_out_table = rank_map([](int r) { return r; },
                                               {{MPI_ANY_SOURCE, ABI_ANY_SOURCE}, {MPI_PROC_NULL, ABI_PROC_NULL}, {MPI_ROOT, ABI_ROOT}});
inline int rank_in(int r)
{
    if (r >= 0) return r;
    if (r >= rank_sentinels_min) return rank_in_table.v[-r];
    return r;  // no sentinel of either MPI (MPI_UNDEFINED is the same): bad input as the program gave it
}
inline int rank_out(int r)
{
    if (r >= 0) return r;
    if (r >= rank_sentinels_min) return rank_out_table.v[-r];
    return r;  // MPI_UNDEFINED, or no rank at all: as it is
}
// A bad negative tag goes as it is (the MPI's message shows the program's value), unless it is the
// MPI's own MPI_ANY_TAG, which it must not become.
inline int tag_in(int t) { return t >= 0 ? t : t == ABI_ANY_TAG ? MPI_ANY_TAG : t == MPI_ANY_TAG ? invalid_negative : t; }
inline int tag_out(int t) { return t >= 0 ? t : t == MPI_ANY_TAG ? ABI_ANY_TAG : t; }
inline int c_rank_in(int r) { return rank_in(r); }
inline int c_tag_in(int t) { return tag_in(t); }
// A value no MPI writes as a rank, tag or error: what an output holds until the native call
// writes it, so that only what it wrote is converted (what a failed call did not write stays
// the caller's, as natively).
constexpr int unwritten = INT_MIN + 0x2a5;
struct rank_out_proxy {
    int *p;
    int n = unwritten;
    operator int *() { return p ? &n : nullptr; }
    ~rank_out_proxy() { if (p && n != unwritten) *p = rank_out(n); }
};
inline rank_out_proxy c_rank_out(int *p) { return {p}; }
struct ranks_out_proxy {
    int *p;
    long n;
    stage<int> s;
    ranks_out_proxy(int *a, long n_) : p(a), n(a && n_ > 0 ? n_ : 0), s(n) { for (long i = 0; i < n; ++i) s.ptr[i] = unwritten; }
    operator int *() { return p ? s.ptr : nullptr; }
    ~ranks_out_proxy()
    {
        for (long i = 0; i < n; ++i)
            if (s.ptr[i] != unwritten) p[i] = rank_out(s.ptr[i]);
    }
};
inline ranks_out_proxy c_ranks_out(int *p, long n) { return {p, n}; }
struct ranks_in_proxy {
    stage<int> s; const int *p;
    ranks_in_proxy(const int *a, long n) : s(n < 0 ? 0 : n), p(a) { if (a) for (long i = 0; i < n; ++i) s.ptr[i] = rank_in(a[i]); }
    operator int *() { return p ? s.ptr : nullptr; }
};
inline ranks_in_proxy c_ranks_in(const int *p, long n) { return {p, n}; }

// Attribute keys: predefined ones by table, user ones offset so they never meet the ABI's.
constexpr int keyval_bias = 0x10000;
inline int kv_in(int k)
{
    if (k == ABI_KEYVAL_INVALID) return MPI_KEYVAL_INVALID;
    // The predefined keyvals (abi_consts.inc) lie in [MPI_TAG_UB, MPI_WIN_MODEL]: a user's
    // keyval, the common case of every attribute call, skips the table.
    if (k < ABI_TAG_UB || k > ABI_WIN_MODEL) return k - keyval_bias;
    for (int i = 0; i < consts[int(cat::keyval)].n; ++i)
        if (consts[int(cat::keyval)].v[i].abi == k) return consts[int(cat::keyval)].v[i].native;
    return k - keyval_bias;
}
inline int kv_out(int n)
{
    if (n == MPI_KEYVAL_INVALID) return ABI_KEYVAL_INVALID;
    return n + keyval_bias;
}
inline int c_kv_in(int k) { return kv_in(k); }
struct kv_proxy {
    int *p; int n;
    operator int *() { return p ? &n : nullptr; }
    ~kv_proxy() { if (p) *p = kv_out(n); }
};
inline kv_proxy c_kv_out(int *p) { return {p, MPI_KEYVAL_INVALID}; }
inline kv_proxy c_kv_io(int *p) { return {p, p ? kv_in(*p) : MPI_KEYVAL_INVALID}; }

// ---------------------------------------------------------------- error codes and classes
// Predefined classes by table; every other code (MPICH's detailed codes, user codes) passes
// unchanged, so MPI_Error_string still finds the native message.
extern int native_class_to_abi[256];
extern int abi_class_to_native[1024 + 32];
int err_out_created(int n);
inline int err_out(int n)
{
    if (n == MPI_SUCCESS) return 0;
    if (n > 0 && n < 256 && native_class_to_abi[n] >= 0) return native_class_to_abi[n];
    return err_out_created(n); // a class anympi created, else a code: unchanged
}
inline int err_in(int a)
{
    if (a == 0) return MPI_SUCCESS;
    if (a > 0 && a < 63) return abi_class_to_native[a];
    if (a > 1000 && a < 1019) return abi_class_to_native[a - 1000 + 63];
    if (err_bias_above != 0x7fffffff && a > err_bias && a - err_bias > err_bias_above) return a - err_bias;
    return a;
}
inline int c_errc_in(int a) { return err_in(a); }
// MPI_LASTUSEDCODE: the largest class or code the user added, at least MPI_ERR_LASTCODE.
void note_user_code(int abi_code);
int last_used_code();
struct errc_proxy {
    int *p;
    operator int *() const { return p; }
    ~errc_proxy() { if (p) *p = err_out(*p); }
};
inline errc_proxy c_errc_out(int *p) { return {p}; }

inline int c_ret(int rc) { return err_out(rc); }
inline double c_ret(double d) { return d; }
inline long c_ret(long a) { return a; }
inline long long c_ret(long long a) { return a; }

// ---------------------------------------------------------------- statuses
// The native MPI writes a status only where a request completed or a message was found (not
// for Iprobe/Improbe or a Test that found nothing, nor past Waitsome's outcount), and some
// fields only in some calls (MPI_ERROR: per MPI and per call).  So every field the native MPI
// did not write keeps the caller's ABI value.  A status the call reads is staged from the
// caller's (status_in), and after the call status_back converts the fields that changed; the
// caller's status is untouched during the call, so the staged values are recomputed from it,
// not stored.  A status the call only writes is staged as below.
inline void status_out(const MPI_Status &n, abi_Status *a)
{
    a->MPI_SOURCE = rank_out(n.MPI_SOURCE);
    a->MPI_TAG = tag_out(n.MPI_TAG);
    a->MPI_ERROR = err_out(n.MPI_ERROR);
    save_hidden(n, a->MPI_internal);
}
inline void status_in(const abi_Status *a, MPI_Status &n)
{
    n.MPI_SOURCE = rank_in(a->MPI_SOURCE);
    n.MPI_TAG = tag_in(a->MPI_TAG);
    n.MPI_ERROR = err_in(a->MPI_ERROR);
    load_hidden(a->MPI_internal, n);
}
// After a native call on a status staged by status_in(a, n): *a is still the caller's, so
// each native field is compared with what status_in made of the caller's field.
inline void status_back(const MPI_Status &n, abi_Status *a)
{
    if (n.MPI_SOURCE != rank_in(a->MPI_SOURCE)) a->MPI_SOURCE = rank_out(n.MPI_SOURCE);
    if (n.MPI_TAG != tag_in(a->MPI_TAG)) a->MPI_TAG = tag_out(n.MPI_TAG);
    if (n.MPI_ERROR != err_in(a->MPI_ERROR)) a->MPI_ERROR = err_out(n.MPI_ERROR);
    save_hidden(n, a->MPI_internal); // unchanged hidden fields round-trip to the same bits
}
// An output status (the calls that complete, probe or receive) is staged more cheaply: the
// public fields hold a value no MPI writes there, the hidden ones the caller's; after the call
// each public field the native MPI wrote is converted, the others stay the caller's.  So a
// call that wrote nothing (MPI_Test of a pending request) converts nothing, and one that wrote
// only the count (ROMIO's file statuses) changes only the count.
inline void status_stage_out(const abi_Status *a, MPI_Status &n)
{
    n.MPI_SOURCE = n.MPI_TAG = n.MPI_ERROR = unwritten;
    load_hidden(a->MPI_internal, n);
}
__attribute__((always_inline)) inline void status_written_back(const MPI_Status &n, abi_Status *a)
{
    if (n.MPI_SOURCE != unwritten) a->MPI_SOURCE = rank_out(n.MPI_SOURCE);
    if (n.MPI_TAG != unwritten) a->MPI_TAG = tag_out(n.MPI_TAG);
    if (n.MPI_ERROR != unwritten) [[unlikely]] a->MPI_ERROR = err_out(n.MPI_ERROR);
    save_hidden(n, a->MPI_internal);
}
// in: read by the call (MPI_Get_count); io: read and written (MPI_Status_set_elements), staged
// whole; out: written by the call, staged as above.  Inline: on the path of every completion.
enum class st_use { in, io, out };
template <st_use Use> struct st_proxy {
    abi_Status *p;
    MPI_Status n;
    __attribute__((always_inline)) explicit st_proxy(abi_Status *a) : p(a)
    {
        if (!p) return;
        if constexpr (Use == st_use::out) status_stage_out(p, n);
        else status_in(p, n);
    }
    st_proxy(const st_proxy &) = delete;
    st_proxy &operator=(const st_proxy &) = delete;
    operator MPI_Status *() { return p ? &n : MPI_STATUS_IGNORE; }
    __attribute__((always_inline)) ~st_proxy()
    {
        if (!p) return;
        if constexpr (Use == st_use::out) status_written_back(n, p);
        else if constexpr (Use == st_use::io) status_back(n, p);
    }
};
inline st_proxy<st_use::out> c_st_out(abi_Status *p) { return st_proxy<st_use::out>(p); }
inline if_flag<st_proxy<st_use::out>> c_st_out_if(int *flag, abi_Status *p) { return {flag, p}; }
inline st_proxy<st_use::io> c_st_io(abi_Status *p) { return st_proxy<st_use::io>(p); }
inline st_proxy<st_use::in> c_st_in(const abi_Status *p) { return st_proxy<st_use::in>(const_cast<abi_Status *>(p)); }
// Arrays (output only): every entry staged; n (which Waitsome/Testsome lower to outcount after
// the call) entries converted back.
struct sts_proxy {
    abi_Status *p; long n;
    stage<MPI_Status> s;
    sts_proxy(abi_Status *a, long n_) : p(a), n(n_ < 0 ? 0 : n_), s(a ? n : 0)
    {
        if (p) for (long i = 0; i < n; ++i) status_stage_out(p + i, s.ptr[i]);
    }
    sts_proxy(const sts_proxy &) = delete;
    sts_proxy &operator=(const sts_proxy &) = delete;
    operator MPI_Status *() { return p ? s.ptr : MPI_STATUSES_IGNORE; }
    ~sts_proxy() { if (p) for (long i = 0; i < n; ++i) status_written_back(s.ptr[i], p + i); }
};
inline sts_proxy c_sts_out(abi_Status *p, long n) { return {p, n}; }
inline if_flag<sts_proxy> c_sts_out_if(int *flag, abi_Status *p, long n) { return {flag, p, n}; }

// ---------------------------------------------------------------- buffers and pointers
inline void *c_buf(const void *p)
{
    if (p == reinterpret_cast<const void *>(ABI_IN_PLACE)) return MPI_IN_PLACE;
    return const_cast<void *>(p); // MPI_BOTTOM is 0 everywhere
}
// MPI-4.1 12.4.1 (Table 9): the functions a program may call before MPI starts and after it
// ends (info, error handler free, error classes, codes and strings).  0 when the MPI underneath
// can serve them now -- Open MPI 4.1, which aborts in them before its MPI_Init, is started
// first -- else the error (sessions.cpp).
int always_available(const char *fn);
inline int c_always_available(const char *fn) { return always_available(fn); }
// MPI_Error_string / MPI_Error_class: a negative number is no error code.  MPICH 4.0.2 reads one
// with its dynamic-code bit set as an index into its table of added codes, which anympi's own
// error classes make exist, and faults: MPI_ERR_ARG instead (Open MPI's answer natively).
int bad_error_code(const char *fn, int code);
inline int c_error_code(const char *fn, int code)
{
    if (int e = always_available(fn)) return e;
    return code >= 0 ? 0 : bad_error_code(fn, code);
}
// A status the call reads (MPI_Get_count, MPI_Status_set_elements) must be given: MPI_ERR_ARG
// for MPI_STATUS_IGNORE (MPICH's answer to a null one; it faults on its own ignore value, and
// Open MPI's MPI_Get_count on a null one).
int no_status(const char *fn);
inline int c_status_given(const char *fn, const abi_Status *status) { return status ? 0 : no_status(fn); }
// MPI_X_set_name / MPI_X_get_name of a communicator (k_comm), datatype (k_datatype) or window
// (k_win), for names longer than the MPI underneath keeps (manual.cpp); native return codes.
template <handle_kind K> int object_set_name(uintptr_t native, const char *name);
template <handle_kind K> int object_get_name(uintptr_t native, char *name, int *resultlen);
// The send buffer of a rooted reduction or gather, the receive buffer of a scatter, may be
// MPI_IN_PLACE at the root only.  Where the native MPI does not check that (native.hpp), 0 or
// the error raised through comm's handler, before the native call (ANYMPI_FWD_IF); a compare
// and nothing else unless buf is MPI_IN_PLACE.
int in_place_not_root(const char *fn, const char *arg, int root, abi_Comm comm, int error_class);
inline int c_in_place_root(const char *fn, const char *arg, const void *buf, int root, abi_Comm comm)
{
    if constexpr (native_checks_in_place_root) return 0;
    if (buf != reinterpret_cast<const void *>(ABI_IN_PLACE)) return 0;
    return in_place_not_root(fn, arg, root, comm, ABI_ERR_BUFFER);
}
// The same check for a persistent collective of anympi's, made at init whatever the MPI does:
// the MPI would see the arguments only at MPI_Start.  The class is the one the MPI's own check
// raises (Open MPI: MPI_ERR_ARG), or MPI_ERR_BUFFER.
inline int c_in_place_root_at_init(const char *fn, const char *arg, const void *buf, int root, abi_Comm comm)
{
    if (buf != reinterpret_cast<const void *>(ABI_IN_PLACE)) return 0;
    return in_place_not_root(fn, arg, root, comm, native_checks_in_place_root ? ABI_ERR_ARG : ABI_ERR_BUFFER);
}
inline int *c_weights(const int *p)
{
    if (p == reinterpret_cast<const int *>(ABI_UNWEIGHTED)) return MPI_UNWEIGHTED;
    if (p == reinterpret_cast<const int *>(ABI_WEIGHTS_EMPTY)) return MPI_WEIGHTS_EMPTY;
    return const_cast<int *>(p);
}
// Plain int arrays: some native prototypes lack the const the standard has.
template <class T> inline T *c_mut(const T *p) { return const_cast<T *>(p); }
// MPI_Aint/MPI_Offset/MPI_Count: 64-bit on both sides; only the spelling of the type differs.
struct i64p {
    void *p;
    template <class T> operator T *() const { static_assert(sizeof(T) == 8); return static_cast<T *>(p); }
};
template <class T> inline i64p c_i64p(T *p) { static_assert(sizeof(T) == 8); return {const_cast<void *>(static_cast<const void *>(p))}; }

// An MPI_Count array of a blocking call, as the int array of its int form (ANYMPI_NARROW checks
// first that each fits: c_fits_int_all).  Built in place as the call's argument, so its staging
// lives until the call returns.
struct int_array {
    stage<int> s;
    int_array(const int64_t *a, long n) : s(a ? n : 0)
    {
        for (long i = 0; a && i < n; ++i) s.ptr[i] = int(a[i]);
        if (!a) s.ptr = nullptr;
    }
    int_array(const int_array &) = delete;
    operator int *() { return s.ptr; }
};
template <class C> inline int_array c_narrow_array(const C *a, long long n)
{
    static_assert(sizeof(C) == 8);
    return int_array(reinterpret_cast<const int64_t *>(a), long(n));
}
template <class C> inline bool c_fits_int_all(const C *a, long long n)
{
    for (long long i = 0; a && i < n; ++i)
        if (a[i] < INT_MIN || a[i] > INT_MAX) return false;
    return true;
}

// File view displacements: MPI_DISPLACEMENT_CURRENT differs.
inline MPI_Offset c_disp_in(abi_Offset d) { return d == ABI_DISPLACEMENT_CURRENT ? MPI_DISPLACEMENT_CURRENT : d; }
struct disp_out_proxy {
    abi_Offset *p;
    operator MPI_Offset *() const { return reinterpret_cast<MPI_Offset *>(p); }
    ~disp_out_proxy() { if (p && *p == MPI_DISPLACEMENT_CURRENT) *p = ABI_DISPLACEMENT_CURRENT; }
};
inline disp_out_proxy c_disp_out(abi_Offset *p) { return {p}; }

// Large counts through an int interface: the value must fit; outputs widen after the call.
inline bool c_fits_int(long long v) { return v >= INT_MIN && v <= INT_MAX; }
struct widen_proxy {
    abi_Count *p;
    int n = 0;
    operator int *() { return p ? &n : nullptr; }
    ~widen_proxy() { if (p) *p = n; }
};
template <class T> inline widen_proxy c_widen_out(T *p) { static_assert(sizeof(T) == 8); return {reinterpret_cast<abi_Count *>(p)}; }

// ---------------------------------------------------------------- errors anympi raises itself
// One helper: the error goes through the object's native error handler with a code we
// registered for the standard class, carrying a message that names function and argument.
// The object whose error handler reports an error, named by its ABI kind (MPICH's native
// handles are all ints, so the native type cannot tell a window from a communicator).
struct errh_obj { handle_kind kind; uintptr_t native; };
inline errh_obj errh_of(abi_Comm c) { return {k_comm, bits(to_native(c))}; }
inline errh_obj errh_of(abi_Win w) { return {k_win, bits(to_native(w))}; }
inline errh_obj errh_of(abi_File f) { return {k_file, bits(to_native(f))}; }
inline errh_obj errh_of(abi_Session s) { return {k_session, bits(to_native(s))}; }
// Where an error of a call that names no object goes: MPI_COMM_WORLD (as the program sees it;
// on Open MPI the world model's own: sessions.cpp), where both MPIs underneath raise their own
// such errors, so that a program sees all of them alike. MPI-4.0 names MPI_COMM_SELF; a program
// that sets a handler on MPI_COMM_WORLD alone (the common idiom) would see anympi's errors abort.
inline errh_obj errh_none() { return {k_comm, pre_to_native[ABI_COMM_WORLD]}; }
int raise_error(errh_obj o, int abi_class, const char *msg);
// Whether the MPI underneath runs (initialized and not finalized): no handler can be called else.
bool native_active();

extern void *const dispatch_table[ANYMPI_NFUNCS];

// MPI_T events and sources where the MPI has none (NO_EVENTS in the generator): zero of them.
// MPI_T's state is the MPI's own, read through a call every MPI-3 MPI_T has.
inline int t_initialized()
{
    int n = 0;
    return err_out(MPI_T_category_get_num(&n));
}
inline int t_none_counted(int *num)
{
    if (int rc = t_initialized()) return rc;
    if (!num) return ABI_T_ERR_INVALID;
    *num = 0;
    return 0;
}
inline int t_none_in_category(int cat_index, int *num)
{
    int n = 0;
    if (int rc = err_out(MPI_T_category_get_num(&n))) return rc;
    if (cat_index < 0 || cat_index >= n) return ABI_T_ERR_INVALID_INDEX;
    if (num) *num = 0;
    return 0;
}
inline int t_none_named(const char *name, int *index)
{
    if (int rc = t_initialized()) return rc;
    return !name || !index ? ABI_T_ERR_INVALID : ABI_T_ERR_INVALID_NAME;
}
inline int t_none_at(int)
{
    if (int rc = t_initialized()) return rc;
    return ABI_T_ERR_INVALID_INDEX;
}
inline int t_no_handle()
{
    if (int rc = t_initialized()) return rc;
    return ABI_T_ERR_INVALID_HANDLE;
}

// Neighbourhood sizes of a process topology (manual.cpp): the length of its per-neighbour arrays.
int neighbor_counts(MPI_Comm c, int *in, int *out);
void after_native_init();     // the world model started: native_error_classes, emulated types
void native_error_classes();  // registers the error classes the native MPI lacks (once)
extern const char *const backend_name;

}  // namespace anympi::backend

namespace anympi::backend {
template <class A> void set_null(A *p)
{
    if (p) *p = reinterpret_cast<A>(traits<A>::null_abi);
}
template <class A> A null_of()
{
    if constexpr (std::is_pointer_v<A>) return reinterpret_cast<A>(traits<A>::null_abi);
    else return A{};
}
}  // namespace anympi::backend

#define ANYMPI_FWD(name, args) \
    ANYMPI_SIG_##name { return ::anympi::backend::c_ret(name args); }
// The same as fwd_name, for a hand-written name that handles some cases itself (requests.cpp).
#define ANYMPI_FWD_AS(name, args) \
    ANYMPI_SIG_FWD_##name { return ::anympi::backend::c_ret(name args); }
// The same after a check the native MPI lacks: check is 0, or the error it raised.
#define ANYMPI_FWD_IF(name, check, args)                                                           \
    ANYMPI_SIG_##name                                                                              \
    {                                                                                              \
        if (const int e_ = (check)) return e_;                                                     \
        return ::anympi::backend::c_ret(name args);                                                \
    }
#define ANYMPI_NARROW_IF(name, check, base, obj, fits, args)                                      \
    ANYMPI_SIG_##name                                                                              \
    {                                                                                              \
        if (const int e_ = (check)) return e_;                                                     \
        if (!(fits))                                                                               \
            return ::anympi::backend::raise_error(obj, ABI_ERR_COUNT,                              \
                                                  #name ": a count exceeds what " #base " of the MPI underneath takes (int)"); \
        return ::anympi::backend::c_ret(base args);                                                \
    }
#define ANYMPI_UNSUPPORTED(name, obj, reason) \
    ANYMPI_SIG_##name { return ::anympi::backend::raise_error(obj, ABI_ERR_UNSUPPORTED_OPERATION, #name ": " reason); }
#define ANYMPI_NULL_OUT(p) ::anympi::backend::set_null(p);
#define ANYMPI_UNSUPPORTED_OUT(name, obj, reason, ...)                                             \
    ANYMPI_SIG_##name                                                                              \
    {                                                                                              \
        ANYMPI_FOR_EACH(ANYMPI_NULL_OUT, __VA_ARGS__)                                              \
        return ::anympi::backend::raise_error(obj, ABI_ERR_UNSUPPORTED_OPERATION, #name ": " reason); \
    }
#define ANYMPI_FE_1(m, a) m(a)
#define ANYMPI_FE_2(m, a, ...) m(a) ANYMPI_FE_1(m, __VA_ARGS__)
#define ANYMPI_FE_3(m, a, ...) m(a) ANYMPI_FE_2(m, __VA_ARGS__)
#define ANYMPI_FE_4(m, a, ...) m(a) ANYMPI_FE_3(m, __VA_ARGS__)
#define ANYMPI_FE_PICK(_1, _2, _3, _4, n, ...) n
#define ANYMPI_FOR_EACH(m, ...) ANYMPI_FE_PICK(__VA_ARGS__, ANYMPI_FE_4, ANYMPI_FE_3, ANYMPI_FE_2, ANYMPI_FE_1, 0)(m, __VA_ARGS__)
#define ANYMPI_UNSUPPORTED_RET(name, obj, reason, A)                                              \
    ANYMPI_SIG_##name                                                                              \
    {                                                                                              \
        ::anympi::backend::raise_error(obj, ABI_ERR_UNSUPPORTED_OPERATION, #name ": " reason);     \
        return ::anympi::backend::null_of<A>();                                                    \
    }
// A large-count function for an MPI without the _c one: through its int form (counts checked)
// or its MPI-3 _x twin (same parameters, nothing to check).
#define ANYMPI_NARROW(name, base, obj, fits, args)                                                \
    ANYMPI_SIG_##name                                                                              \
    {                                                                                              \
        if (!(fits))                                                                               \
            return ::anympi::backend::raise_error(obj, ABI_ERR_COUNT,                              \
                                                  #name ": a count exceeds what " #base " of the MPI underneath takes (int)"); \
        return ::anympi::backend::c_ret(base args);                                                \
    }
#define ANYMPI_MANUAL(name, how, reason) ANYMPI_SIG_##name
