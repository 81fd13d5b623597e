// The callback mechanism (see callbacks.hpp): closures, records and the native functions
// that call the user's.
#include "callbacks.hpp"

#include <ffi.h>

#include <atomic>
#include <mutex>
#include <new>
#include <unordered_map>
#include <utility>

namespace anympi::backend {

// ---------------------------------------------------------------- closures
namespace {
// A native callback signature: every argument is a pointer, nothing is returned.
struct signature {
    void (*handler)(ffi_cif *, void *, void **, void *);
    unsigned nargs;
    ffi_cif cif{};
    ffi_type *args[4] = {&ffi_type_pointer, &ffi_type_pointer, &ffi_type_pointer, &ffi_type_pointer};
    bool ready = false;
};

struct closure_key {
    const signature *sig;
    void *fn;
    bool operator==(const closure_key &o) const { return sig == o.sig && fn == o.fn; }
};
struct closure_hash {
    size_t operator()(const closure_key &k) const
    {
        return std::hash<const void *>()(k.sig) ^ (std::hash<void *>()(k.fn) * 0x9E3779B97F4A7C15ull);
    }
};
std::mutex closure_mutex;
std::unordered_map<closure_key, void *, closure_hash> closures;  // -> the native function

// The native function for `fn` with signature `sig`: made once, kept for the process's life.
void *closure_for(signature &sig, void *fn)
{
    std::lock_guard<std::mutex> g(closure_mutex);
    if (!sig.ready) {
        if (ffi_prep_cif(&sig.cif, FFI_DEFAULT_ABI, sig.nargs, &ffi_type_void, sig.args) != FFI_OK) return nullptr;
        sig.ready = true;
    }
    auto it = closures.find({&sig, fn});
    if (it != closures.end()) return it->second;
    void *code = nullptr;
    auto *c = static_cast<ffi_closure *>(ffi_closure_alloc(sizeof(ffi_closure), &code));
    if (!c) return nullptr;
    if (ffi_prep_closure_loc(c, &sig.cif, sig.handler, fn, code) != FFI_OK) {
        ffi_closure_free(c);
        return nullptr;
    }
    closures.emplace(closure_key{&sig, fn}, code);
    return code;
}

template <class T> T arg(void **a, int i) { return *static_cast<T *>(a[i]); }

// ---- reduction ops: (in, inout, len, datatype)
void op_call(ffi_cif *, void *, void **a, void *fn)
{
    abi_Datatype t = to_abi<abi_Datatype>(*arg<MPI_Datatype *>(a, 3));
    abi_scope s_;
    reinterpret_cast<abi_User_function *>(fn)(arg<void *>(a, 0), arg<void *>(a, 1), arg<int *>(a, 2), &t);
}
#if ANYMPI_HAVE_MPI_Op_create_c
void op_call_c(ffi_cif *, void *, void **a, void *fn)
{
    abi_Datatype t = to_abi<abi_Datatype>(*arg<MPI_Datatype *>(a, 3));
    abi_Count n = *arg<MPI_Count *>(a, 2);
    abi_scope s_;
    reinterpret_cast<abi_User_function_c *>(fn)(arg<void *>(a, 0), arg<void *>(a, 1), &n, &t);
}
#else
// The MPI has no large-count ops: a large-count user function behind an int one.
void op_call_c(ffi_cif *, void *, void **a, void *fn)
{
    abi_Datatype t = to_abi<abi_Datatype>(*arg<MPI_Datatype *>(a, 3));
    abi_Count n = *arg<int *>(a, 2);
    abi_scope s_;
    reinterpret_cast<abi_User_function_c *>(fn)(arg<void *>(a, 0), arg<void *>(a, 1), &n, &t);
}
#endif
signature op_sig{&op_call, 4};
signature op_sig_c{&op_call_c, 4};

// ---- error handlers: (object *, code *, ...); the varargs are implementation-specific
template <class A, class Fn> void errh_call(ffi_cif *, void *, void **a, void *fn)
{
    A h = to_abi<A>(*arg<native_t<A> *>(a, 0));
    int e = err_out(*arg<int *>(a, 1));
    abi_scope s_;
    reinterpret_cast<Fn *>(fn)(&h, &e);
}
signature comm_errh_sig{&errh_call<abi_Comm, abi_Comm_errhandler_function>, 2};
signature win_errh_sig{&errh_call<abi_Win, abi_Win_errhandler_function>, 2};
signature file_errh_sig{&errh_call<abi_File, abi_File_errhandler_function>, 2};
#if ANYMPI_NATIVE_HAS_SESSIONS
signature session_errh_sig{&errh_call<abi_Session, abi_Session_errhandler_function>, 2};
#endif

// Why a closure could not be made, in the caller's error: the MPI's class for no memory.
constexpr int no_closure = -1;
}  // namespace

int op_create(abi_User_function *fn, int commute, MPI_Op *out)
{
    void *code = closure_for(op_sig, reinterpret_cast<void *>(fn));
    if (!code) return no_closure;
    return MPI_Op_create(reinterpret_cast<MPI_User_function *>(code), commute, out);
}
int op_create_c(abi_User_function_c *fn, int commute, MPI_Op *out)
{
    void *code = closure_for(op_sig_c, reinterpret_cast<void *>(fn));
    if (!code) return no_closure;
#if ANYMPI_HAVE_MPI_Op_create_c
    return MPI_Op_create_c(reinterpret_cast<MPI_User_function_c *>(code), commute, out);
#else
    return MPI_Op_create(reinterpret_cast<MPI_User_function *>(code), commute, out);
#endif
}

int comm_errhandler_create(abi_Comm_errhandler_function *fn, MPI_Errhandler *out)
{
    void *code = closure_for(comm_errh_sig, reinterpret_cast<void *>(fn));
    return code ? MPI_Comm_create_errhandler(reinterpret_cast<MPI_Comm_errhandler_function *>(code), out) : no_closure;
}
int win_errhandler_create(abi_Win_errhandler_function *fn, MPI_Errhandler *out)
{
    void *code = closure_for(win_errh_sig, reinterpret_cast<void *>(fn));
    return code ? MPI_Win_create_errhandler(reinterpret_cast<MPI_Win_errhandler_function *>(code), out) : no_closure;
}
int file_errhandler_create(abi_File_errhandler_function *fn, MPI_Errhandler *out)
{
    void *code = closure_for(file_errh_sig, reinterpret_cast<void *>(fn));
    return code ? MPI_File_create_errhandler(reinterpret_cast<MPI_File_errhandler_function *>(code), out) : no_closure;
}
#if ANYMPI_NATIVE_HAS_SESSIONS
int session_errhandler_create(abi_Session_errhandler_function *fn, MPI_Errhandler *out)
{
    void *code = closure_for(session_errh_sig, reinterpret_cast<void *>(fn));
    return code ? MPI_Session_create_errhandler(reinterpret_cast<MPI_Session_errhandler_function *>(code), out)
                : no_closure;
}
#endif

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

template <class A, class Copy, class N> int copy_call(N obj, int kv, void *extra, void *in, void *out, int *flag)
{
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
template <class A, class Del, class N> int delete_call(N obj, int kv, void *val, void *extra)
{
    auto *r = static_cast<keyval_record *>(extra);
    int rc = MPI_SUCCESS;
    if (r->del) {
        abi_scope s_;
        rc = err_in(reinterpret_cast<Del *>(r->del)(to_abi<A>(obj), kv_out(kv), val, r->extra));
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
