// The callback mechanism (see callbacks.hpp): closures, records and the native functions
// that call the user's.
#include "callbacks.hpp"
#include "sessions.hpp"

#include <ffi.h>

#include <array>
#include <atomic>
#include <mutex>
#include <new>
#include <unordered_map>
#include <utility>

namespace anympi::backend {

// ---------------------------------------------------------------- closures
// A kind of callback the MPI calls without a context: the native signature and invoke(), which
// calls the user's function (type-erased as void *) with the arguments in the ABI's terms.
// closure_for(kind, fn) gives a native function that calls invoke(fn, ...):
//  - one of `pool_size` trampolines compiled per kind, each reading its function from its
//    slot (a few instructions: the common case, a program's handful of distinct functions);
//  - beyond those, a libffi closure (some 500 instructions per call, but no bound).
namespace {
constexpr int pool_size = 256;

template <class Kind, class Sig> struct kind_base;
template <class Kind, class... A> struct kind_base<Kind, void(A...)> {
    using native_fn = void(A..., ...);  // what the MPI calls through (errhandlers are variadic)
    static constexpr unsigned nargs = sizeof...(A);
    static inline std::atomic<void *> slots[pool_size];
    static inline int used = 0;  // guarded by closure_mutex
    template <int I> static void trampoline(A... a, ...)
    {
        Kind::invoke(slots[I].load(std::memory_order_acquire), a...);
    }
    template <size_t... I> static void ffi_call(void **args, void *fn, std::index_sequence<I...>)
    {
        Kind::invoke(fn, *static_cast<A *>(args[I])...);
    }
    static void ffi_handler(ffi_cif *, void *, void **args, void *fn)
    {
        ffi_call(args, fn, std::index_sequence_for<A...>{});
    }
    template <int... I> static constexpr auto make_pool(std::integer_sequence<int, I...>)
    {
        return std::array<native_fn *, sizeof...(I)>{&trampoline<I>...};
    }
    static inline const std::array<native_fn *, pool_size> pool = make_pool(std::make_integer_sequence<int, pool_size>{});
};

// ---- reduction ops: (in, inout, len, datatype)
struct op_kind : kind_base<op_kind, void(void *, void *, int *, MPI_Datatype *)> {
    static void invoke(void *fn, void *in, void *inout, int *len, MPI_Datatype *dt)
    {
        abi_Datatype t = to_abi<abi_Datatype>(*dt);
        abi_scope s_;
        reinterpret_cast<abi_User_function *>(fn)(in, inout, len, &t);
    }
};
// Large-count ops with the MPI's count type; over an MPI without them (Open MPI 4.1) the
// large-count user function sits behind an int one.
#if ANYMPI_HAVE_MPI_Op_create_c
using native_op_count = MPI_Count;
#else
using native_op_count = int;
#endif
struct op_c_kind : kind_base<op_c_kind, void(void *, void *, native_op_count *, MPI_Datatype *)> {
    static void invoke(void *fn, void *in, void *inout, native_op_count *len, MPI_Datatype *dt)
    {
        abi_Datatype t = to_abi<abi_Datatype>(*dt);
        abi_Count n = *len;
        abi_scope s_;
        reinterpret_cast<abi_User_function_c *>(fn)(in, inout, &n, &t);
    }
};

// ---- error handlers: (object *, code *, ...); the varargs are implementation-specific
template <class A, class Fn> struct errh_kind : kind_base<errh_kind<A, Fn>, void(native_t<A> *, int *)> {
    static void invoke(void *fn, native_t<A> *obj, int *code)
    {
        A h = to_abi<A>(*obj);
        int e = err_out(*code);
        abi_scope s_;
        reinterpret_cast<Fn *>(fn)(&h, &e);
    }
};
using comm_errh_kind = errh_kind<abi_Comm, abi_Comm_errhandler_function>;
using win_errh_kind = errh_kind<abi_Win, abi_Win_errhandler_function>;
using file_errh_kind = errh_kind<abi_File, abi_File_errhandler_function>;
#if ANYMPI_NATIVE_HAS_SESSIONS
using session_errh_kind = errh_kind<abi_Session, abi_Session_errhandler_function>;
#else
// anympi's sessions (sessions.cpp) keep their handler on a communicator of their own.
struct session_errh_kind : kind_base<session_errh_kind, void(MPI_Comm *, int *)> {
    static void invoke(void *fn, MPI_Comm *obj, int *code)
    {
        abi_Session h = session_of_errh_comm(*obj);
        int e = err_out(*code);
        abi_scope s_;
        reinterpret_cast<abi_Session_errhandler_function *>(fn)(&h, &e);
    }
};
#endif

struct closure_key {
    const void *kind;
    void *fn;
    bool operator==(const closure_key &o) const { return kind == o.kind && fn == o.fn; }
};
struct closure_hash {
    size_t operator()(const closure_key &k) const
    {
        return std::hash<const void *>()(k.kind) ^ (std::hash<void *>()(k.fn) * 0x9E3779B97F4A7C15ull);
    }
};
std::mutex closure_mutex;
std::unordered_map<closure_key, void *, closure_hash> closures;  // -> the native function

// The native function that calls `fn` as a `Kind`: made once, kept for the process's life.
template <class Kind> typename Kind::native_fn *closure_for(void *fn)
{
    using native_fn = typename Kind::native_fn;
    if (!fn) return nullptr;  // none: the MPI refuses a null function itself (MPI_ERR_ARG)
    std::lock_guard<std::mutex> g(closure_mutex);
    auto it = closures.find({&Kind::pool, fn});
    if (it != closures.end()) return reinterpret_cast<native_fn *>(it->second);
    void *code = nullptr;
    if (Kind::used < pool_size) {
        const int i = Kind::used++;
        Kind::slots[i].store(fn, std::memory_order_release);
        code = reinterpret_cast<void *>(Kind::pool[i]);
    } else {
        static ffi_cif cif;  // every argument a pointer, nothing returned
        static ffi_type *args[Kind::nargs];
        static const bool ready = [] {
            for (auto &a : args) a = &ffi_type_pointer;
            return ffi_prep_cif(&cif, FFI_DEFAULT_ABI, Kind::nargs, &ffi_type_void, args) == FFI_OK;
        }();
        auto *c = ready ? static_cast<ffi_closure *>(ffi_closure_alloc(sizeof(ffi_closure), &code)) : nullptr;
        if (!c) return nullptr;
        if (ffi_prep_closure_loc(c, &cif, &Kind::ffi_handler, fn, code) != FFI_OK) {
            ffi_closure_free(c);
            return nullptr;
        }
    }
    closures.emplace(closure_key{&Kind::pool, fn}, code);
    return reinterpret_cast<native_fn *>(code);
}

// Why a closure could not be made, in the caller's error: the MPI's class for no memory.
constexpr int no_closure = -1;
// A closure could not be made for a function (a null one has none, and goes to the MPI as null).
template <class Code, class Fn> bool closure_failed(Code *code, Fn *fn) { return !code && fn; }
}  // namespace

int op_create(abi_User_function *fn, int commute, MPI_Op *out)
{
    auto *code = closure_for<op_kind>(reinterpret_cast<void *>(fn));
    if (closure_failed(code, fn)) return no_closure;
    return MPI_Op_create(reinterpret_cast<MPI_User_function *>(code), commute, out);
}
int op_create_c(abi_User_function_c *fn, int commute, MPI_Op *out)
{
    auto *code = closure_for<op_c_kind>(reinterpret_cast<void *>(fn));
    if (closure_failed(code, fn)) return no_closure;
#if ANYMPI_HAVE_MPI_Op_create_c
    return MPI_Op_create_c(reinterpret_cast<MPI_User_function_c *>(code), commute, out);
#else
    return MPI_Op_create(reinterpret_cast<MPI_User_function *>(code), commute, out);
#endif
}

int comm_errhandler_create(abi_Comm_errhandler_function *fn, MPI_Errhandler *out)
{
    auto *code = closure_for<comm_errh_kind>(reinterpret_cast<void *>(fn));
    if (closure_failed(code, fn)) return no_closure;
    return MPI_Comm_create_errhandler(reinterpret_cast<MPI_Comm_errhandler_function *>(code), out);
}
int win_errhandler_create(abi_Win_errhandler_function *fn, MPI_Errhandler *out)
{
    auto *code = closure_for<win_errh_kind>(reinterpret_cast<void *>(fn));
    if (closure_failed(code, fn)) return no_closure;
    return MPI_Win_create_errhandler(reinterpret_cast<MPI_Win_errhandler_function *>(code), out);
}
int file_errhandler_create(abi_File_errhandler_function *fn, MPI_Errhandler *out)
{
    auto *code = closure_for<file_errh_kind>(reinterpret_cast<void *>(fn));
    if (closure_failed(code, fn)) return no_closure;
    auto *native = reinterpret_cast<MPI_File_errhandler_function *>(code);
    const int rc = MPI_File_create_errhandler(native, out);
    if (rc == MPI_SUCCESS) file_errhandler_made(*out, native);
    return rc;
}
int session_errhandler_create(abi_Session_errhandler_function *fn, MPI_Errhandler *out)
{
    auto *code = closure_for<session_errh_kind>(reinterpret_cast<void *>(fn));
    if (closure_failed(code, fn)) return no_closure;
#if ANYMPI_NATIVE_HAS_SESSIONS
    return MPI_Session_create_errhandler(reinterpret_cast<MPI_Session_errhandler_function *>(code), out);
#else
    return MPI_Comm_create_errhandler(reinterpret_cast<MPI_Comm_errhandler_function *>(code), out);
#endif
}

// ---------------------------------------------------------------- attribute callbacks
namespace {
struct keyval_record {
    void *copy, *del, *extra;  // the user's functions (MPI_*_NULL_COPY_FN is 0, *_DUP_FN is 1)
    std::atomic<long> refs{1};  // the keyval + one per attribute stored with it
};
void unref(keyval_record *r)
{
    if (r->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete r;
}

// By native keyval, while the user may still name it (until MPI_*_free_keyval).
std::mutex keyval_mutex;
std::unordered_map<int, keyval_record *> keyvals[3];

thread_local int quiet_depth = 0;  // quiet_copies alive on this thread

template <class A, class Copy, class N> int copy_call(N obj, int kv, void *extra, void *in, void *out, int *flag)
{
    if (quiet_depth) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    auto *r = static_cast<keyval_record *>(extra);
    int rc = MPI_SUCCESS;
    if (reinterpret_cast<uintptr_t>(r->copy) == 1) {  // MPI_*_DUP_FN
        *static_cast<void **>(out) = in;
        *flag = 1;
    } else {
        abi_scope s_;
        rc = err_in(reinterpret_cast<Copy *>(r->copy)(to_abi<A>(obj), kv_out(kv), r->extra, in, out, flag));
    }
    if (rc == MPI_SUCCESS && *flag) r->refs.fetch_add(1, std::memory_order_relaxed);  // a new attribute
    return rc;
}
thread_local int ignore_delete_errors = 0;  // delete_errors_ignored alive on this thread
template <class A, class Del, class N> int delete_call(N obj, int kv, void *val, void *extra)
{
    auto *r = static_cast<keyval_record *>(extra);
    int rc = MPI_SUCCESS;
    if (r->del) {
        abi_scope s_;
        rc = err_in(reinterpret_cast<Del *>(r->del)(to_abi<A>(obj), kv_out(kv), val, r->extra));
        if (ignore_delete_errors) rc = MPI_SUCCESS;
    }
    if (rc == MPI_SUCCESS) unref(r);  // on failure the MPI keeps the attribute
    return rc;
}

int remember(attr_kind k, int rc, int nk, keyval_record *r, int *keyval)
{
    if (rc != MPI_SUCCESS) {
        delete r;
        return rc;
    }
    {
        std::lock_guard<std::mutex> g(keyval_mutex);
        keyvals[int(k)][nk] = r;
    }
    *keyval = kv_out(nk);
    return rc;
}
}  // namespace

quiet_copies::quiet_copies() { ++quiet_depth; }
quiet_copies::~quiet_copies() { --quiet_depth; }
delete_errors_ignored::delete_errors_ignored() { ++ignore_delete_errors; }
delete_errors_ignored::~delete_errors_ignored() { --ignore_delete_errors; }

int keyval_create(attr_kind k, void *copy, void *del, int *keyval, void *extra)
{
    auto *r = new (std::nothrow) keyval_record{copy, del, extra};
    if (!r) return no_closure;
    int nk = MPI_KEYVAL_INVALID, rc = MPI_SUCCESS;
    // the delete callback is always ours, even for MPI_*_NULL_DELETE_FN: it counts attributes
    switch (k) {
    case attr_kind::comm:
        rc = MPI_Comm_create_keyval(copy ? copy_call<abi_Comm, abi_Comm_copy_attr_function, MPI_Comm> : MPI_COMM_NULL_COPY_FN,
                                    delete_call<abi_Comm, abi_Comm_delete_attr_function, MPI_Comm>, &nk, r);
        break;
    case attr_kind::type:
        rc = MPI_Type_create_keyval(
            copy ? copy_call<abi_Datatype, abi_Type_copy_attr_function, MPI_Datatype> : MPI_TYPE_NULL_COPY_FN,
            delete_call<abi_Datatype, abi_Type_delete_attr_function, MPI_Datatype>, &nk, r);
        break;
    case attr_kind::win:
        rc = MPI_Win_create_keyval(copy ? copy_call<abi_Win, abi_Win_copy_attr_function, MPI_Win> : MPI_WIN_NULL_COPY_FN,
                                   delete_call<abi_Win, abi_Win_delete_attr_function, MPI_Win>, &nk, r);
        break;
    }
    return remember(k, rc, nk, r, keyval);
}

int keyval_free(attr_kind k, int *keyval)
{
    int nk = *keyval, rc = MPI_SUCCESS;
    switch (k) {
    case attr_kind::comm: rc = MPI_Comm_free_keyval(keyval); break;
    case attr_kind::type: rc = MPI_Type_free_keyval(keyval); break;
    case attr_kind::win: rc = MPI_Win_free_keyval(keyval); break;
    }
    if (rc != MPI_SUCCESS) return rc;
    keyval_record *r = nullptr;
    {
        std::lock_guard<std::mutex> g(keyval_mutex);
        auto it = keyvals[int(k)].find(nk);
        if (it != keyvals[int(k)].end()) {
            r = it->second;
            keyvals[int(k)].erase(it);
        }
    }
    if (r) unref(r);
    return rc;
}

attr_set_guard::attr_set_guard(attr_kind k, int native_keyval) : record(nullptr)
{
    std::lock_guard<std::mutex> g(keyval_mutex);
    auto it = keyvals[int(k)].find(native_keyval);
    if (it == keyvals[int(k)].end()) return;  // predefined, invalid, or not made through anympi
    it->second->refs.fetch_add(1, std::memory_order_relaxed);
    record = it->second;
}
void attr_set_guard::failed()
{
    if (record) unref(static_cast<keyval_record *>(record));
    record = nullptr;
}

// ---------------------------------------------------------------- generalized requests
namespace {
struct greq_record {
    abi_Grequest_query_function *query;
    abi_Grequest_free_function *free_fn;
    abi_Grequest_cancel_function *cancel;
    void *extra;
};
int greq_query(void *extra, MPI_Status *st)
{
    auto *r = static_cast<greq_record *>(extra);
    abi_Status a{};
    status_out(*st, &a);
    int rc;
    {
        abi_scope s_;
        rc = r->query(r->extra, &a);
    }
    status_in(&a, *st);
    return err_in(rc);
}
int greq_free(void *extra)
{
    auto *r = static_cast<greq_record *>(extra);
    int rc;
    {
        abi_scope s_;
        rc = r->free_fn(r->extra);
    }
    delete r;
    return err_in(rc);
}
int greq_cancel(void *extra, int complete)
{
    auto *r = static_cast<greq_record *>(extra);
    abi_scope s_;
    return err_in(r->cancel(r->extra, complete));
}
}  // namespace

int grequest_start(abi_Grequest_query_function *query, abi_Grequest_free_function *free_fn,
                   abi_Grequest_cancel_function *cancel, void *extra, MPI_Request *out)
{
    auto *r = new (std::nothrow) greq_record{query, free_fn, cancel, extra};
    if (!r) return no_closure;
    int rc = MPI_Grequest_start(greq_query, greq_free, greq_cancel, r, out);
    if (rc != MPI_SUCCESS) delete r;
    return rc;
}

}  // namespace anympi::backend
