// The callback mechanism (see callbacks.hpp): records, lookups and trampolines.
#include "callbacks.hpp"

#include <array>
#include <cstdarg>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace anympi::backend {

// ---------------------------------------------------------------- user reduction ops
namespace {
struct op_slot {
    abi_User_function *fn = nullptr;
    abi_User_function_c *fn_c = nullptr;
    uintptr_t native = 0;
    bool used = false;
};
op_slot slots[op_slots];
std::mutex op_mutex;

template <int I> void op_trampoline(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    abi_Datatype a = to_abi<abi_Datatype>(*dt);
    abi_scope s_;
    slots[I].fn(in, inout, len, &a);
}
#if ANYMPI_HAVE_MPI_Op_create_c
template <int I> void op_trampoline_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    abi_Datatype a = to_abi<abi_Datatype>(*dt);
    abi_Count n = *len;
    abi_scope s_;
    slots[I].fn_c(in, inout, &n, &a);
}
#endif
template <int... I> constexpr auto make_pool(std::integer_sequence<int, I...>)
{
    return std::array<MPI_User_function *, sizeof...(I)>{&op_trampoline<I>...};
}
const auto pool = make_pool(std::make_integer_sequence<int, op_slots>{});
#if ANYMPI_HAVE_MPI_Op_create_c
template <int... I> constexpr auto make_pool_c(std::integer_sequence<int, I...>)
{
    return std::array<MPI_User_function_c *, sizeof...(I)>{&op_trampoline_c<I>...};
}
const auto pool_c = make_pool_c(std::make_integer_sequence<int, op_slots>{});
#endif

int claim_slot()
{
    for (int i = 0; i < op_slots; ++i)
        if (!slots[i].used) { slots[i].used = true; return i; }
    return -1;
}
}  // namespace

int op_create(abi_User_function *fn, int commute, MPI_Op *out)
{
    std::lock_guard<std::mutex> g(op_mutex);
    int i = claim_slot();
    if (i < 0) return -1;
    slots[i].fn = fn;
    int rc = MPI_Op_create(pool[i], commute, out);
    if (rc != MPI_SUCCESS) { slots[i].used = false; return rc; }
    slots[i].native = bits(*out);
    return rc;
}
#if ANYMPI_HAVE_MPI_Op_create_c
int op_create_c(abi_User_function_c *fn, int commute, MPI_Op *out)
{
    std::lock_guard<std::mutex> g(op_mutex);
    int i = claim_slot();
    if (i < 0) return -1;
    slots[i].fn_c = fn;
    int rc = MPI_Op_create_c(pool_c[i], commute, out);
    if (rc != MPI_SUCCESS) { slots[i].used = false; return rc; }
    slots[i].native = bits(*out);
    return rc;
}
#endif
void op_release(MPI_Op native)
{
    std::lock_guard<std::mutex> g(op_mutex);
    for (auto &s : slots)
        if (s.used && s.native == bits(native)) { s = op_slot{}; return; }
}

// ---------------------------------------------------------------- error handlers
namespace {
std::mutex errh_mutex;
std::unordered_map<uintptr_t, void *> errh_fn; // native errhandler -> user function

void *errh_lookup(MPI_Errhandler eh)
{
    std::lock_guard<std::mutex> g(errh_mutex);
    auto it = errh_fn.find(bits(eh));
    return it == errh_fn.end() ? nullptr : it->second;
}

void comm_trampoline(MPI_Comm *c, int *code, ...)
{
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(*c, &eh);
    auto fn = reinterpret_cast<abi_Comm_errhandler_function *>(errh_lookup(eh));
    MPI_Errhandler_free(&eh);
    abi_Comm a = to_abi<abi_Comm>(*c);
    int e = err_out(*code);
    abi_scope s_;
    if (fn) fn(&a, &e);
}
void win_trampoline(MPI_Win *w, int *code, ...)
{
    MPI_Errhandler eh;
    MPI_Win_get_errhandler(*w, &eh);
    auto fn = reinterpret_cast<abi_Win_errhandler_function *>(errh_lookup(eh));
    MPI_Errhandler_free(&eh);
    abi_Win a = to_abi<abi_Win>(*w);
    int e = err_out(*code);
    abi_scope s_;
    if (fn) fn(&a, &e);
}
void file_trampoline(MPI_File *f, int *code, ...)
{
    MPI_Errhandler eh;
    MPI_File_get_errhandler(*f, &eh);
    auto fn = reinterpret_cast<abi_File_errhandler_function *>(errh_lookup(eh));
    MPI_Errhandler_free(&eh);
    abi_File a = to_abi<abi_File>(*f);
    int e = err_out(*code);
    abi_scope s_;
    if (fn) fn(&a, &e);
}
#if ANYMPI_NATIVE_HAS_SESSIONS
void session_trampoline(MPI_Session *ss, int *code, ...)
{
    MPI_Errhandler eh;
    MPI_Session_get_errhandler(*ss, &eh);
    auto fn = reinterpret_cast<abi_Session_errhandler_function *>(errh_lookup(eh));
    MPI_Errhandler_free(&eh);
    abi_Session a = to_abi<abi_Session>(*ss);
    int e = err_out(*code);
    abi_scope s_;
    if (fn) fn(&a, &e);
}
#endif
int remember(int rc, MPI_Errhandler *out, void *fn)
{
    if (rc == MPI_SUCCESS) {
        std::lock_guard<std::mutex> g(errh_mutex);
        errh_fn[bits(*out)] = fn;
    }
    return rc;
}
}  // namespace

int comm_errhandler_create(abi_Comm_errhandler_function *fn, MPI_Errhandler *out)
{
    return remember(MPI_Comm_create_errhandler(comm_trampoline, out), out, reinterpret_cast<void *>(fn));
}
int win_errhandler_create(abi_Win_errhandler_function *fn, MPI_Errhandler *out)
{
    return remember(MPI_Win_create_errhandler(win_trampoline, out), out, reinterpret_cast<void *>(fn));
}
int file_errhandler_create(abi_File_errhandler_function *fn, MPI_Errhandler *out)
{
    return remember(MPI_File_create_errhandler(file_trampoline, out), out, reinterpret_cast<void *>(fn));
}

#if ANYMPI_NATIVE_HAS_SESSIONS
int session_errhandler_create(abi_Session_errhandler_function *fn, MPI_Errhandler *out)
{
    return remember(MPI_Session_create_errhandler(session_trampoline, out), out, reinterpret_cast<void *>(fn));
}
#endif

// ---------------------------------------------------------------- attribute callbacks
// The record is the native extra_state; it lives as long as the keyval (never freed: a
// keyval may outlive MPI_*_free_keyval while attributes still use it).
namespace {
template <class Copy, class Del> struct keyval_record {
    Copy *copy;
    Del *del;
    void *extra;
};
using comm_rec = keyval_record<abi_Comm_copy_attr_function, abi_Comm_delete_attr_function>;
using type_rec = keyval_record<abi_Type_copy_attr_function, abi_Type_delete_attr_function>;
using win_rec = keyval_record<abi_Win_copy_attr_function, abi_Win_delete_attr_function>;

template <class A, class Rec, class N> int copy_trampoline(N obj, int kv, void *extra, void *in, void *out, int *flag)
{
    auto *r = static_cast<Rec *>(extra);
    abi_scope s_;
    if (reinterpret_cast<uintptr_t>(r->copy) == 1) { // MPI_*_DUP_FN
        *static_cast<void **>(out) = in;
        *flag = 1;
        return MPI_SUCCESS;
    }
    return err_in(r->copy(to_abi<A>(obj), kv_out(kv), r->extra, in, out, flag));
}
template <class A, class Rec, class N> int delete_trampoline(N obj, int kv, void *val, void *extra)
{
    auto *r = static_cast<Rec *>(extra);
    abi_scope s_;
    return err_in(r->del(to_abi<A>(obj), kv_out(kv), val, r->extra));
}
}  // namespace

int comm_keyval_create(abi_Comm_copy_attr_function *copy, abi_Comm_delete_attr_function *del, int *keyval, void *extra)
{
    auto *r = new comm_rec{copy, del, extra};
    int nk = MPI_KEYVAL_INVALID;
    int rc = MPI_Comm_create_keyval(copy ? copy_trampoline<abi_Comm, comm_rec, MPI_Comm> : MPI_COMM_NULL_COPY_FN,
                                    del ? delete_trampoline<abi_Comm, comm_rec, MPI_Comm> : MPI_COMM_NULL_DELETE_FN,
                                    keyval ? &nk : nullptr, r);
    if (rc != MPI_SUCCESS) { delete r; return rc; }
    if (keyval) *keyval = kv_out(nk);
    return rc;
}
int type_keyval_create(abi_Type_copy_attr_function *copy, abi_Type_delete_attr_function *del, int *keyval, void *extra)
{
    auto *r = new type_rec{copy, del, extra};
    int nk = MPI_KEYVAL_INVALID;
    int rc = MPI_Type_create_keyval(copy ? copy_trampoline<abi_Datatype, type_rec, MPI_Datatype> : MPI_TYPE_NULL_COPY_FN,
                                    del ? delete_trampoline<abi_Datatype, type_rec, MPI_Datatype> : MPI_TYPE_NULL_DELETE_FN,
                                    keyval ? &nk : nullptr, r);
    if (rc != MPI_SUCCESS) { delete r; return rc; }
    if (keyval) *keyval = kv_out(nk);
    return rc;
}
int win_keyval_create(abi_Win_copy_attr_function *copy, abi_Win_delete_attr_function *del, int *keyval, void *extra)
{
    auto *r = new win_rec{copy, del, extra};
    int nk = MPI_KEYVAL_INVALID;
    int rc = MPI_Win_create_keyval(copy ? copy_trampoline<abi_Win, win_rec, MPI_Win> : MPI_WIN_NULL_COPY_FN,
                                   del ? delete_trampoline<abi_Win, win_rec, MPI_Win> : MPI_WIN_NULL_DELETE_FN,
                                   keyval ? &nk : nullptr, r);
    if (rc != MPI_SUCCESS) { delete r; return rc; }
    if (keyval) *keyval = kv_out(nk);
    return rc;
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
    abi_scope s_;
    int rc = r->query(r->extra, &a);
    status_in(&a, *st);
    return err_in(rc);
}
int greq_free(void *extra)
{
    auto *r = static_cast<greq_record *>(extra);
    abi_scope s_;
    int rc = r->free_fn(r->extra);
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
    auto *r = new greq_record{query, free_fn, cancel, extra};
    int rc = MPI_Grequest_start(greq_query, greq_free, greq_cancel, r, out);
    if (rc != MPI_SUCCESS) delete r;
    return rc;
}

}  // namespace anympi::backend
