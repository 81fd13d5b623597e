// The hand-written functions: every one the generator cannot express, each with its reason.
// The generator reads the ANYMPI_MANUAL(name, forwarded|emulated, "reason") markers (one per
// line, at the start of the line) to skip these functions and to write docs/coverage.md.
// A "forwarded" one whose native function may be missing is wrapped in #if ANYMPI_HAVE_<name>.
#include "backend.hpp"
#include "callbacks.hpp"
#include "requests.hpp"
#include "emulated_types.hpp"
#include "large_counts.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace anympi::backend {
namespace {

// Arrays whose length is the communicator's size (remote size for an intercommunicator).
int comm_peers(MPI_Comm c)
{
    int inter = 0, n = 0;
    MPI_Comm_test_inter(c, &inter);
    if (inter) MPI_Comm_remote_size(c, &n);
    else MPI_Comm_size(c, &n);
    return n;
}

// The values of predefined attributes that are constants: point at the ABI's value instead.
const int abi_rank_consts[] = {ABI_ANY_SOURCE, ABI_PROC_NULL, ABI_ROOT};
const int abi_flavors[] = {ABI_WIN_FLAVOR_CREATE, ABI_WIN_FLAVOR_ALLOCATE, ABI_WIN_FLAVOR_DYNAMIC, ABI_WIN_FLAVOR_SHARED};
const int abi_models[] = {ABI_WIN_SEPARATE, ABI_WIN_UNIFIED};

}  // namespace
// Neighbourhood sizes of a process topology (for the datatype arrays of *_alltoallw).
int neighbor_counts(MPI_Comm c, int *in, int *out)
{
    int topo = MPI_UNDEFINED, rc = MPI_Topo_test(c, &topo);
    if (rc != MPI_SUCCESS) return rc;
    if (topo == MPI_CART) {
        int nd = 0;
        rc = MPI_Cartdim_get(c, &nd);
        *in = *out = 2 * nd;
    } else if (topo == MPI_GRAPH) {
        int r = 0;
        MPI_Comm_rank(c, &r);
        rc = MPI_Graph_neighbors_count(c, r, in);
        *out = *in;
    } else if (topo == MPI_DIST_GRAPH) {
        int w = 0;
        rc = MPI_Dist_graph_neighbors_count(c, in, out, &w);
    } else {
        *in = *out = 0; // the native call reports MPI_ERR_TOPOLOGY
    }
    return rc;
}
namespace {

// One for the process, as natively: the pointer MPI_Comm_get_attr hands out outlives the thread
// that asked (a thread_local one was read dead).  Written atomically: threads may ask at once.
int lastusedcode_value;

// The values of the predefined attributes the standard defines in terms of constants, in the
// ABI's numbering.  Chosen by keyval and object kind, never by value: a user keyval's value
// is the caller's void *, whatever it holds ((void *)42 is legal), and passes untouched, as
// do the predefined values that need no conversion (MPI_TAG_UB, MPI_WIN_BASE, ...).
void *attr_value_out(handle_kind kind, int abi_keyval, void *v)
{
    if (kind == k_comm) {
        if (abi_keyval == ABI_LASTUSEDCODE) { // what the user added, in the ABI's numbering
            __atomic_store_n(&lastusedcode_value, last_used_code(), __ATOMIC_RELAXED);
            return &lastusedcode_value;
        }
        if ((abi_keyval == ABI_HOST || abi_keyval == ABI_IO) && v) {
            int a = rank_out(*static_cast<int *>(v));
            for (const int &c : abi_rank_consts) if (c == a) return const_cast<int *>(&c);
        }
    } else if (kind == k_win && v) {
        if (abi_keyval == ABI_WIN_CREATE_FLAVOR) {
            int a = cout<cat::flavor>(*static_cast<int *>(v));
            for (const int &c : abi_flavors) if (c == a) return const_cast<int *>(&c);
        }
        if (abi_keyval == ABI_WIN_MODEL) {
            int a = cout<cat::model>(*static_cast<int *>(v));
            for (const int &c : abi_models) if (c == a) return const_cast<int *>(&c);
        }
    }
    return v;
}

// A callback registration's result: the native return code, or -1 when anympi could not make
// the callback's record or closure (out of memory).
int callback_made(int rc, const char *fn)
{
    if (rc != -1) return err_out(rc);
    char msg[160];
    std::snprintf(msg, sizeof msg, "%s: out of memory for the callback's record", fn);
    return raise_error(errh_none(), ABI_ERR_NO_MEM, msg);
}

int free_keyval(attr_kind k, int *keyval, const char *fn)
{
    if (!keyval) {
        char msg[160];
        std::snprintf(msg, sizeof msg, "%s: the keyval argument is NULL", fn);
        return raise_error(errh_none(), ABI_ERR_ARG, msg);
    }
    int n = kv_in(*keyval);
    int rc = keyval_free(k, &n);
    if (rc == MPI_SUCCESS) *keyval = kv_out(n);
    return err_out(rc);
}

template <class Set, class N> int set_attr(attr_kind k, Set set, N obj, int keyval, void *value)
{
    int n = kv_in(keyval);
    attr_set_guard counted(k, n);
    int rc = set(obj, n, value);
    if (rc != MPI_SUCCESS) counted.failed();
    return err_out(rc);
}

template <class Get, class N> int get_attr(handle_kind kind, Get get, N obj, int keyval, void *attribute_val, int *flag)
{
    void *v = nullptr;
    int f = 0;
    int rc = get(obj, kv_in(keyval), attribute_val ? static_cast<void *>(&v) : nullptr, flag ? &f : nullptr);
    if (flag) *flag = f;
    if (rc == MPI_SUCCESS && f && attribute_val) *static_cast<void **>(attribute_val) = attr_value_out(kind, keyval, v);
    return err_out(rc);
}

// The integer arguments of MPI_Type_get_contents that are constants, by combiner.  The
// order is always the last integer; a darray's distributions follow its gsizes when those
// are integers (4*ndims+4 of them) and come right after ndims when they are large counts.
void contents_ints_out(int combiner, int *ints, int ni, int max)
{
    if (ni > max || ni < 1) return;
    if (combiner == MPI_COMBINER_SUBARRAY) {
        ints[ni - 1] = cout<cat::order>(ints[ni - 1]);
    } else if (combiner == MPI_COMBINER_DARRAY && ni >= 4) {
        int nd = ints[2];
        int at = ni == 4 * nd + 4 ? 3 + nd : 3;
        for (int i = 0; i < nd && at + nd + i < ni; ++i) {
            ints[at + i] = cout<cat::distribute>(ints[at + i]);
            ints[at + nd + i] = cout<cat::darg>(ints[at + nd + i]);
        }
        ints[ni - 1] = cout<cat::order>(ints[ni - 1]);
    }
}

template <class A, class C2F> int toint(A h, C2F c2f)
{
    uintptr_t v = reinterpret_cast<uintptr_t>(h);
    if (v < 0x400) return int(v); // predefined: the ABI value itself
    return c2f(to_native(h)) + toint_bias;
}
template <class A, class F2C> A fromint(int i, F2C f2c)
{
    if (i >= 0 && i < 0x400) return reinterpret_cast<A>(uintptr_t(i));
    return to_abi<A>(f2c(i - toint_bias));
}

}  // namespace
}  // namespace anympi::backend

using namespace anympi::backend;

// ---------------------------------------------------------------- init and version
ANYMPI_MANUAL(MPI_Get_library_version, emulated, "reports anympi and the MPI underneath")
{
    if (!version || !resultlen) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Get_library_version: version or resultlen is NULL");
    char native[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    int rc = MPI_Get_library_version(native, &len);
    if (rc != MPI_SUCCESS) return err_out(rc);
    while (len > 0 && (native[len - 1] == '\n' || native[len - 1] == ' ')) native[--len] = 0;
    int n = std::snprintf(version, ABI_MAX_LIBRARY_VERSION_STRING, "anympi 0.1.0 (MPI %d.%d, ABI %d.%d) over %s: %s",
                          ABI_VERSION, ABI_SUBVERSION, ABI_ABI_VERSION, ABI_ABI_SUBVERSION, backend_name, native);
    *resultlen = n < ABI_MAX_LIBRARY_VERSION_STRING ? n : ABI_MAX_LIBRARY_VERSION_STRING - 1;
    return 0;
}

ANYMPI_MANUAL(MPI_Abi_get_info, emulated, "sizes of MPI_Aint, MPI_Count, MPI_Offset in a new info")
{
    if (!info) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Abi_get_info: info is NULL");
    MPI_Info i;
    int rc = MPI_Info_create(&i);
    if (rc != MPI_SUCCESS) return err_out(rc);
    MPI_Info_set(i, "mpi_aint_size", "8");
    MPI_Info_set(i, "mpi_count_size", "8");
    MPI_Info_set(i, "mpi_offset_size", "8");
    *info = to_abi<abi_Info>(i);
    return 0;
}

// ---------------------------------------------------------------- object names
// The ABI's MPI_MAX_OBJECT_NAME is 128, Open MPI 4.1's 64: a longer name is kept whole in an
// attribute of anympi's on the object (so it goes when the object goes, and a duplicate does
// not inherit it, as it does not inherit a name), and the MPI keeps what it can.  Where the MPI
// keeps as much as the ABI allows (MPICH), the calls are forwarded as they are.
namespace anympi::backend {
namespace {
constexpr bool names_fit = MPI_MAX_OBJECT_NAME >= ABI_MAX_OBJECT_NAME;
std::mutex names_mutex;

template <class H> int forget_name(H, int, void *value, void *)
{
    delete static_cast<std::string *>(value);
    return MPI_SUCCESS;
}
// What differs between the kinds that have names: their native calls, and the keyval of the
// kind's kept names (made at its first long name).
template <class H, auto set_name_, auto get_name_, auto set_attr_, auto get_attr_, auto create_keyval_, auto null_copy_>
struct named_calls {
    using handle = H;
    static constexpr auto set_name = set_name_;
    static constexpr auto get_name = get_name_;
    static constexpr auto set_attr = set_attr_;
    static constexpr auto get_attr = get_attr_;
    static int create_keyval(int *kv) { return create_keyval_(null_copy_, forget_name<H>, kv, nullptr); }
    static inline int keyval = MPI_KEYVAL_INVALID;
};
template <handle_kind K> struct named;
template <> struct named<k_comm> : named_calls<MPI_Comm, MPI_Comm_set_name, MPI_Comm_get_name, MPI_Comm_set_attr,
                                               MPI_Comm_get_attr, MPI_Comm_create_keyval, MPI_COMM_NULL_COPY_FN> {};
template <> struct named<k_datatype> : named_calls<MPI_Datatype, MPI_Type_set_name, MPI_Type_get_name, MPI_Type_set_attr,
                                                   MPI_Type_get_attr, MPI_Type_create_keyval, MPI_TYPE_NULL_COPY_FN> {};
template <> struct named<k_win> : named_calls<MPI_Win, MPI_Win_set_name, MPI_Win_get_name, MPI_Win_set_attr,
                                              MPI_Win_get_attr, MPI_Win_create_keyval, MPI_WIN_NULL_COPY_FN> {};

template <handle_kind K> int kept_name(typename named<K>::handle h, std::string **out)
{
    *out = nullptr;
    int kv = MPI_KEYVAL_INVALID, flag = 0;
    {
        std::lock_guard<std::mutex> g(names_mutex);
        kv = named<K>::keyval;
    }
    return kv == MPI_KEYVAL_INVALID ? MPI_SUCCESS : named<K>::get_attr(h, kv, out, &flag);
}
template <handle_kind K> int keep_name(typename named<K>::handle h, std::string *whole)
{
    int rc = MPI_SUCCESS;
    {
        std::lock_guard<std::mutex> g(names_mutex);
        if (named<K>::keyval == MPI_KEYVAL_INVALID) rc = named<K>::create_keyval(&named<K>::keyval);
    }
    if (rc == MPI_SUCCESS) rc = named<K>::set_attr(h, named<K>::keyval, whole);
    if (rc != MPI_SUCCESS) delete whole;
    return rc;
}
}  // namespace

template <handle_kind K> int object_set_name(uintptr_t native, const char *name)
{
    const auto h = from_bits<typename named<K>::handle>(native);
    if (names_fit || !name) return named<K>::set_name(h, const_cast<char *>(name));
    const size_t n = strnlen(name, ABI_MAX_OBJECT_NAME - 1);
    char kept[MPI_MAX_OBJECT_NAME];
    std::snprintf(kept, sizeof kept, "%.*s", int(n), name);
    int rc = named<K>::set_name(h, kept);
    std::string *old = nullptr;
    if (rc == MPI_SUCCESS) rc = kept_name<K>(h, &old);
    if (rc != MPI_SUCCESS) return rc;
    if (n < size_t(MPI_MAX_OBJECT_NAME)) {  // fits: the MPI's own is the whole name
        if (old) old->clear();
        return MPI_SUCCESS;
    }
    if (old) {
        old->assign(name, n);
        return MPI_SUCCESS;
    }
    return keep_name<K>(h, new std::string(name, n));
}

// The MPI's answer first (it checks the handle, and raises any error once); only a name as long
// as the MPI keeps may be the start of a longer one.
template <handle_kind K> int object_get_name(uintptr_t native, char *name, int *resultlen)
{
    const auto h = from_bits<typename named<K>::handle>(native);
    const int rc = named<K>::get_name(h, name, resultlen);
    if (names_fit || rc != MPI_SUCCESS || !name || !resultlen || *resultlen < MPI_MAX_OBJECT_NAME - 1) return rc;
    std::string *whole = nullptr;
    if (kept_name<K>(h, &whole) == MPI_SUCCESS && whole && !whole->empty()) {
        std::memcpy(name, whole->c_str(), whole->size() + 1);
        *resultlen = int(whole->size());
    }
    return MPI_SUCCESS;
}
template int object_set_name<k_comm>(uintptr_t, const char *);
template int object_set_name<k_datatype>(uintptr_t, const char *);
template int object_set_name<k_win>(uintptr_t, const char *);
template int object_get_name<k_comm>(uintptr_t, char *, int *);
template int object_get_name<k_datatype>(uintptr_t, char *, int *);
template int object_get_name<k_win>(uintptr_t, char *, int *);

int bad_error_code(const char *fn, int code)
{
    char msg[160];
    std::snprintf(msg, sizeof msg, "%s: errorcode %d is no error code (they are never negative)", fn, code);
    return raise_error(errh_none(), ABI_ERR_ARG, msg);
}
int no_status(const char *fn)
{
    char msg[160];
    std::snprintf(msg, sizeof msg, "%s: status is MPI_STATUS_IGNORE, and this call reads a status", fn);
    return raise_error(errh_none(), ABI_ERR_ARG, msg);
}
}  // namespace anympi::backend

// ---------------------------------------------------------------- completion with outcount
namespace anympi::backend {
// The native paths (requests.cpp calls them on the native part of a mixed array).
int waitsome_native(int incount, abi_Request reqs[], int *outcount, int indices[], abi_Status statuses[])
{
    int out = 0;
    harr_proxy<abi_Request, true, true> req(reqs, incount);
    sts_proxy st(statuses, incount);
    int rc = MPI_Waitsome(incount, req, outcount ? &out : nullptr, indices, st);  // null: the MPI's own error
    if (outcount) *outcount = out;
    st.n = out == MPI_UNDEFINED || out < 0 ? 0 : out;
    return err_out(rc);
}
int testsome_native(int incount, abi_Request reqs[], int *outcount, int indices[], abi_Status statuses[])
{
    int out = 0;
    harr_proxy<abi_Request, true, true> req(reqs, incount);
    sts_proxy st(statuses, incount);
    int rc = MPI_Testsome(incount, req, outcount ? &out : nullptr, indices, st);  // null: the MPI's own error
    if (outcount) *outcount = out;
    st.n = out == MPI_UNDEFINED || out < 0 ? 0 : out;
    return err_out(rc);
}
}  // namespace anympi::backend

ANYMPI_MANUAL(MPI_Waitsome, forwarded, "array_of_indices/statuses have *outcount entries, known after the call; arrays may mix anympi's own requests")
{
    if (any_tracked() && outcount) [[unlikely]]
        return tracked_waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    return waitsome_native(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

ANYMPI_MANUAL(MPI_Testsome, forwarded, "array_of_indices/statuses have *outcount entries, known after the call; arrays may mix anympi's own requests")
{
    if (any_tracked() && outcount) [[unlikely]]
        return tracked_testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    return testsome_native(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

// ---------------------------------------------------------------- arrays sized by the group
ANYMPI_MANUAL(MPI_Alltoallw, forwarded, "the datatype arrays have one entry per peer (communicator size)")
{
    MPI_Comm c = to_native(comm);
    long n = comm_peers(c);
    return err_out(MPI_Alltoallw(c_buf(sendbuf), sendcounts, sdispls, c_harr_in(sendtypes, sendbuf == reinterpret_cast<const void *>(ABI_IN_PLACE) ? 0 : n),
                                 recvbuf, recvcounts, rdispls, c_harr_in(recvtypes, n), c));
}

ANYMPI_MANUAL(MPI_Alltoallw_c, fallback, "the datatype arrays have one entry per peer (communicator size); where the _c form is missing, through MPI_Alltoallw with per-peer datatypes that hold counts and displacements past int (large_counts.cpp)")
{
#if ANYMPI_HAVE_MPI_Alltoallw_c
    MPI_Comm c = to_native(comm);
    long n = comm_peers(c);
    return err_out(MPI_Alltoallw_c(c_buf(sendbuf), c_i64p(sendcounts), c_i64p(sdispls),
                                   c_harr_in(sendtypes, sendbuf == reinterpret_cast<const void *>(ABI_IN_PLACE) ? 0 : n),
                                   recvbuf, c_i64p(recvcounts), c_i64p(rdispls), c_harr_in(recvtypes, n), c));
#else
    return alltoallw_wide(sendbuf, sendcounts, sdispls, sendtypes, nullptr, recvbuf, recvcounts, rdispls, recvtypes, nullptr, comm);
#endif
}

ANYMPI_MANUAL(MPI_Neighbor_alltoallw, forwarded, "the datatype arrays have one entry per neighbour (from the topology)")
{
    MPI_Comm c = to_native(comm);
    int in = 0, out = 0;
    int rc = neighbor_counts(c, &in, &out);
    if (rc != MPI_SUCCESS) return err_out(rc);
    return err_out(MPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, c_harr_in(sendtypes, out), recvbuf, recvcounts,
                                          rdispls, c_harr_in(recvtypes, in), c));
}

ANYMPI_MANUAL(MPI_Neighbor_alltoallw_c, fallback, "the datatype arrays have one entry per neighbour (from the topology); where the _c form is missing, one MPI_Neighbor_alltoallw whose per-neighbour datatypes hold counts past int (large_counts.cpp)")
{
#if ANYMPI_HAVE_MPI_Neighbor_alltoallw_c
    MPI_Comm c = to_native(comm);
    int in = 0, out = 0;
    int rc = neighbor_counts(c, &in, &out);
    if (rc != MPI_SUCCESS) return err_out(rc);
    return err_out(MPI_Neighbor_alltoallw_c(sendbuf, c_i64p(sendcounts), c_i64p(sdispls), c_harr_in(sendtypes, out),
                                            recvbuf, c_i64p(recvcounts), c_i64p(rdispls), c_harr_in(recvtypes, in), c));
#else
    return neighbour_wide(sendbuf, sendcounts, 0, sdispls, sendtypes, nullptr, recvbuf, recvcounts, rdispls, recvtypes,
                          nullptr, comm, {});
#endif
}

// Nonblocking and persistent forms: Open MPI 4.1 reads the datatype arrays again when the
// operation completes (to release the datatypes it retained), so the native arrays are
// staged on the heap and kept for the request until it completes (nonblocking) or is freed
// (persistent): see hold() in backend.hpp.
namespace {
struct staged_types {
    held_block block;
    MPI_Datatype *send = nullptr, *recv = nullptr;
    staged_types(const abi_Datatype *s, long ns, const abi_Datatype *r, long nr) : block(ns + nr)
    {
        if (s) send = block.types();
        if (r) recv = block.types() + ns;
        for (long i = 0; s && i < ns; ++i) send[i] = to_native(s[i]);
        for (long i = 0; r && i < nr; ++i) recv[i] = to_native(r[i]);
    }
    // After the native call that made the request n.
    // persistent: the request of a native MPI_X_init, noted as such (requests.cpp).
    int kept_for(int rc, MPI_Request n, abi_Request *request, bool persistent = false)
    {
        if (request) *request = to_abi<abi_Request>(n);
        if (rc == MPI_SUCCESS && n != MPI_REQUEST_NULL) {
            hold(n, std::move(block));
            if (persistent) persistent_made(bits(n));
        }
        return err_out(rc);
    }
};
bool in_place(const void *buf) { return buf == reinterpret_cast<const void *>(ABI_IN_PLACE); }
// The datatypes of the arrays, kept alive for a persistent request of anympi's (requests.hpp).
[[maybe_unused]] std::vector<type_kept> keep_types(const abi_Datatype *s, long ns, const abi_Datatype *r, long nr)
{
    std::vector<type_kept> kept;
    for (long i = 0; s && i < ns; ++i) kept.emplace_back(s[i]);
    for (long i = 0; r && i < nr; ++i) kept.emplace_back(r[i]);
    return kept;
}
}  // namespace

#define ANYMPI_ALLTOALLW_PEERS                                                                     \
    MPI_Comm c = to_native(comm);                                                                  \
    long n = comm_peers(c);                                                                        \
    staged_types t(in_place(sendbuf) ? nullptr : sendtypes, in_place(sendbuf) ? 0 : n, recvtypes, n); \
    MPI_Request r = MPI_REQUEST_NULL;
#define ANYMPI_ALLTOALLW_NEIGHBORS                                                                 \
    MPI_Comm c = to_native(comm);                                                                  \
    int in = 0, out = 0;                                                                           \
    int rc = neighbor_counts(c, &in, &out);                                                        \
    if (rc != MPI_SUCCESS) return err_out(rc);                                                     \
    staged_types t(sendtypes, out, recvtypes, in);                                                 \
    MPI_Request r = MPI_REQUEST_NULL;

ANYMPI_MANUAL(MPI_Ialltoallw, forwarded, "the datatype arrays have one entry per peer; kept until the request completes (see manual.cpp)")
{
    ANYMPI_ALLTOALLW_PEERS
    int rc = MPI_Ialltoallw(c_buf(sendbuf), sendcounts, sdispls, t.send, recvbuf, recvcounts, rdispls, t.recv, c,
                            request ? &r : nullptr);
    return t.kept_for(rc, r, request);
}
ANYMPI_MANUAL(MPI_Ialltoallw_c, fallback, "the datatype arrays have one entry per peer; kept until the request completes (see manual.cpp); where the _c form is missing, a request of anympi's over one MPI_Ialltoallw whose per-peer datatypes hold counts and displacements past int (large_counts.cpp)")
{
#if ANYMPI_HAVE_MPI_Ialltoallw_c
    ANYMPI_ALLTOALLW_PEERS
    int rc = MPI_Ialltoallw_c(c_buf(sendbuf), c_i64p(sendcounts), c_i64p(sdispls), t.send, recvbuf, c_i64p(recvcounts),
                              c_i64p(rdispls), t.recv, c, request ? &r : nullptr);
    return t.kept_for(rc, r, request);
#else
    return alltoallw_wide(sendbuf, sendcounts, sdispls, sendtypes, nullptr, recvbuf, recvcounts, rdispls, recvtypes, nullptr,
                          comm, wide_to{wide_to::nonblocking, request, errh_of(comm), "MPI_Ialltoallw_c"});
#endif
}
ANYMPI_MANUAL(MPI_Alltoallw_init, fallback, "the datatype arrays have one entry per peer; kept until the request is freed (see manual.cpp); where the MPI lacks it, anympi's persistent request over MPI_Ialltoallw")
{
#if ANYMPI_HAVE_MPI_Alltoallw_init
    ANYMPI_ALLTOALLW_PEERS
    int rc = MPI_Alltoallw_init(c_buf(sendbuf), sendcounts, sdispls, t.send, recvbuf, recvcounts, rdispls, t.recv, c,
                                to_native(info), request ? &r : nullptr);
    return t.kept_for(rc, r, request, true);
#else
    ANYMPI_COLL_COMM
    ANYMPI_ALLTOALLW_PEERS
    (void)info;
    (void)r;
    return persistent_from(request, o_, "MPI_Alltoallw_init", true,
                           [t = std::move(t), kept = keep_types(sendtypes, in_place(sendbuf) ? 0 : n, recvtypes, n),
                            sb = c_buf(sendbuf), sendcounts, sdispls, recvbuf, recvcounts, rdispls,
                            c](MPI_Request *req) {
                               return MPI_Ialltoallw(sb, sendcounts, sdispls, t.send, recvbuf, recvcounts, rdispls,
                                                     t.recv, c, req);
                           });
#endif
}
ANYMPI_MANUAL(MPI_Alltoallw_init_c, fallback, "the datatype arrays have one entry per peer; kept until the request is freed (see manual.cpp); where the MPI lacks it, anympi's persistent request over MPI_Ialltoallw_c, or where that is missing over one MPI_Ialltoallw whose per-peer datatypes hold counts and displacements past int (large_counts.cpp)")
{
#if ANYMPI_HAVE_MPI_Alltoallw_init_c
    ANYMPI_ALLTOALLW_PEERS
    int rc = MPI_Alltoallw_init_c(c_buf(sendbuf), c_i64p(sendcounts), c_i64p(sdispls), t.send, recvbuf,
                                  c_i64p(recvcounts), c_i64p(rdispls), t.recv, c, to_native(info), request ? &r : nullptr);
    return t.kept_for(rc, r, request, true);
#elif ANYMPI_HAVE_MPI_Ialltoallw_c
    ANYMPI_COLL_COMM
    ANYMPI_ALLTOALLW_PEERS
    (void)info;
    (void)r;
    return persistent_from(request, o_, "MPI_Alltoallw_init_c", true,
                           [t = std::move(t), kept = keep_types(sendtypes, in_place(sendbuf) ? 0 : n, recvtypes, n),
                            sb = c_buf(sendbuf), sendcounts, sdispls, recvbuf, recvcounts, rdispls, c](MPI_Request *req) {
                               return MPI_Ialltoallw_c(sb, c_i64p(sendcounts), c_i64p(sdispls), t.send, recvbuf,
                                                       c_i64p(recvcounts), c_i64p(rdispls), t.recv, c, req);
                           });
#else
    ANYMPI_COLL_COMM
    (void)info;
    return alltoallw_wide(sendbuf, sendcounts, sdispls, sendtypes, nullptr, recvbuf, recvcounts, rdispls, recvtypes, nullptr,
                          comm, wide_to{wide_to::persistent, request, o_, "MPI_Alltoallw_init_c"});
#endif
}
ANYMPI_MANUAL(MPI_Ineighbor_alltoallw, forwarded, "the datatype arrays have one entry per neighbour; kept until the request completes (see manual.cpp)")
{
    ANYMPI_ALLTOALLW_NEIGHBORS
    rc = MPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, t.send, recvbuf, recvcounts, rdispls, t.recv, c,
                                 request ? &r : nullptr);
    return t.kept_for(rc, r, request);
}
ANYMPI_MANUAL(MPI_Ineighbor_alltoallw_c, fallback, "the datatype arrays have one entry per neighbour; kept until the request completes (see manual.cpp); where the _c form is missing, a request of anympi's over one MPI_Ineighbor_alltoallw whose per-neighbour datatypes hold counts past int (large_counts.cpp)")
{
#if ANYMPI_HAVE_MPI_Ineighbor_alltoallw_c
    ANYMPI_ALLTOALLW_NEIGHBORS
    rc = MPI_Ineighbor_alltoallw_c(sendbuf, c_i64p(sendcounts), c_i64p(sdispls), t.send, recvbuf, c_i64p(recvcounts),
                                   c_i64p(rdispls), t.recv, c, request ? &r : nullptr);
    return t.kept_for(rc, r, request);
#else
    return neighbour_wide(sendbuf, sendcounts, 0, sdispls, sendtypes, nullptr, recvbuf, recvcounts, rdispls, recvtypes,
                          nullptr, comm, wide_to{wide_to::nonblocking, request, errh_of(comm), "MPI_Ineighbor_alltoallw_c"});
#endif
}
ANYMPI_MANUAL(MPI_Neighbor_alltoallw_init, fallback, "the datatype arrays have one entry per neighbour; kept until the request is freed (see manual.cpp); where the MPI lacks it, anympi's persistent request over MPI_Ineighbor_alltoallw")
{
#if ANYMPI_HAVE_MPI_Neighbor_alltoallw_init
    ANYMPI_ALLTOALLW_NEIGHBORS
    rc = MPI_Neighbor_alltoallw_init(sendbuf, sendcounts, sdispls, t.send, recvbuf, recvcounts, rdispls, t.recv, c,
                                     to_native(info), request ? &r : nullptr);
    return t.kept_for(rc, r, request, true);
#else
    ANYMPI_COLL_COMM
    ANYMPI_ALLTOALLW_NEIGHBORS
    (void)info;
    (void)r;
    return persistent_from(request, o_, "MPI_Neighbor_alltoallw_init", true,
                           [t = std::move(t), kept = keep_types(sendtypes, out, recvtypes, in), sendbuf, sendcounts,
                            sdispls, recvbuf, recvcounts, rdispls, c](MPI_Request *req) {
                               return MPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, t.send, recvbuf,
                                                              recvcounts, rdispls, t.recv, c, req);
                           });
#endif
}
ANYMPI_MANUAL(MPI_Neighbor_alltoallw_init_c, fallback, "the datatype arrays have one entry per neighbour; kept until the request is freed (see manual.cpp); where the MPI lacks it, anympi's persistent request over MPI_Ineighbor_alltoallw_c, or where that is missing over one MPI_Ineighbor_alltoallw whose per-neighbour datatypes hold counts past int (large_counts.cpp)")
{
#if ANYMPI_HAVE_MPI_Neighbor_alltoallw_init_c
    ANYMPI_ALLTOALLW_NEIGHBORS
    rc = MPI_Neighbor_alltoallw_init_c(sendbuf, c_i64p(sendcounts), c_i64p(sdispls), t.send, recvbuf,
                                       c_i64p(recvcounts), c_i64p(rdispls), t.recv, c, to_native(info),
                                       request ? &r : nullptr);
    return t.kept_for(rc, r, request, true);
#elif ANYMPI_HAVE_MPI_Ineighbor_alltoallw_c
    ANYMPI_COLL_COMM
    ANYMPI_ALLTOALLW_NEIGHBORS
    (void)info;
    (void)r;
    return persistent_from(request, o_, "MPI_Neighbor_alltoallw_init_c", true,
                           [t = std::move(t), kept = keep_types(sendtypes, out, recvtypes, in), sendbuf, sendcounts,
                            sdispls, recvbuf, recvcounts, rdispls, c](MPI_Request *req) {
                               return MPI_Ineighbor_alltoallw_c(sendbuf, c_i64p(sendcounts), c_i64p(sdispls), t.send,
                                                                recvbuf, c_i64p(recvcounts), c_i64p(rdispls), t.recv, c, req);
                           });
#else
    ANYMPI_COLL_COMM
    (void)info;
    return neighbour_wide(sendbuf, sendcounts, 0, sdispls, sendtypes, nullptr, recvbuf, recvcounts, rdispls, recvtypes,
                          nullptr, comm, wide_to{wide_to::persistent, request, o_, "MPI_Neighbor_alltoallw_init_c"});
#endif
}
#undef ANYMPI_ALLTOALLW_PEERS
#undef ANYMPI_ALLTOALLW_NEIGHBORS

// A request freed while its operation may still run keeps what is held for it: it is released
// when the native MPI hands the same request value back null from a later completion, which
// it can only do once the freed operation has ended.
ANYMPI_MANUAL(MPI_Request_free, forwarded, "what anympi keeps for the request (staged arrays) outlives a request freed while active")
{
    if (!request) return err_out(MPI_Request_free(nullptr));  // the native MPI's own error class
    if (any_emulated() && is_emulated(*request)) return emulated_free(request);
    if (any_tracked()) persistent_freed(*request);
    MPI_Request n = to_native(*request), before = n;
    bool done = true;
    if (held_requests.load(std::memory_order_relaxed) != 0 && n != MPI_REQUEST_NULL) {
        int flag = 1;
        if (MPI_Request_get_status(n, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS) done = flag != 0;
    }
    int rc = MPI_Request_free(&n);
    if (rc == MPI_SUCCESS) {
        if (done) request_seen<abi_Request>(bits(before), bits(n));
        *request = to_abi<abi_Request>(n);
    }
    return err_out(rc);
}

ANYMPI_MANUAL(MPI_Group_range_incl, forwarded, "ranges[][3] holds plain ranks: passed as they are")
{
    return err_out(MPI_Group_range_incl(to_native(group), n, ranges, c_hout_derived(newgroup, group)));
}
ANYMPI_MANUAL(MPI_Group_range_excl, forwarded, "ranges[][3] holds plain ranks: passed as they are")
{
    return err_out(MPI_Group_range_excl(to_native(group), n, ranges, c_hout_derived(newgroup, group)));
}

ANYMPI_MANUAL(MPI_Dist_graph_create, forwarded, "destinations/weights have sum(degrees) entries, ranks that may be MPI_PROC_NULL; weights may be MPI_UNWEIGHTED")
{
    long edges = 0;  // a negative degree is the MPI's to refuse
    for (int i = 0; degrees && i < n; ++i) edges += std::max(degrees[i], 0);
    return err_out(MPI_Dist_graph_create(to_native(comm_old), n, c_ranks_in(sources, n), degrees,
                                         c_ranks_in(destinations, edges), c_weights(weights), to_native(info), reorder,
                                         c_hout_derived(comm_dist_graph, comm_old)));
}

// ---------------------------------------------------------------- outputs written at completion
// The new communicator derives from comm's session (buffers.cpp) once its handle is known: both
// MPIs write it during the call.
static int idup_made(int rc, abi_Comm comm, abi_Comm *newcomm)
{
    if (rc == MPI_SUCCESS && newcomm && *newcomm && origins_noted.load(std::memory_order_relaxed))
        note_origin(k_comm, bits(to_native(*newcomm)), k_comm, bits(to_native(comm)));
    return err_out(rc);
}
ANYMPI_MANUAL(MPI_Comm_idup, forwarded, "newcomm may be written when the request completes, not during the call")
{
    return idup_made(MPI_Comm_idup(to_native(comm), c_hout_late(newcomm), c_hout(request)), comm, newcomm);
}
ANYMPI_MANUAL(MPI_Comm_idup_with_info, fallback, "newcomm may be written when the request completes, not during the call; where the MPI lacks it, MPI_Comm_idup (an MPI may ignore the hints of info)")
{
#if ANYMPI_HAVE_MPI_Comm_idup_with_info
    return idup_made(MPI_Comm_idup_with_info(to_native(comm), to_native(info), c_hout_late(newcomm), c_hout(request)),
                     comm, newcomm);
#else
    (void)info;
    return abi_MPI_Comm_idup(comm, newcomm, request);
#endif
}

// ---------------------------------------------------------------- attributes
ANYMPI_MANUAL(MPI_Comm_get_attr, forwarded, "predefined attribute values (MPI_HOST, MPI_IO ranks, MPI_LASTUSEDCODE) are converted; user values pass untouched")
{
    return get_attr(k_comm, MPI_Comm_get_attr, to_native(comm), comm_keyval, attribute_val, flag);
}
ANYMPI_MANUAL(MPI_Attr_get, forwarded, "predefined attribute values (MPI_HOST, MPI_IO ranks, MPI_LASTUSEDCODE) are converted; user values pass untouched")
{
    return get_attr(k_comm, MPI_Comm_get_attr, to_native(comm), keyval, attribute_val, flag);
}
ANYMPI_MANUAL(MPI_Win_get_attr, forwarded, "MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL values are converted; user values pass untouched")
{
    return get_attr(k_win, MPI_Win_get_attr, to_native(win), win_keyval, attribute_val, flag);
}
ANYMPI_MANUAL(MPI_Type_get_attr, forwarded, "attribute value out parameter is a void** in disguise")
{
    return get_attr(k_datatype, MPI_Type_get_attr, to_native(datatype), type_keyval, attribute_val, flag);
}

ANYMPI_MANUAL(MPI_Comm_create_keyval, forwarded, "attribute callbacks receive ABI handles through a counted record in extra_state")
{
    if (!comm_keyval) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Comm_create_keyval: comm_keyval is NULL");
    return callback_made(keyval_create(attr_kind::comm, reinterpret_cast<void *>(comm_copy_attr_fn),
                                       reinterpret_cast<void *>(comm_delete_attr_fn), comm_keyval, extra_state),
                         "MPI_Comm_create_keyval");
}
ANYMPI_MANUAL(MPI_Keyval_create, forwarded, "deprecated MPI-1 form of MPI_Comm_create_keyval: same callbacks")
{
    if (!keyval) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Keyval_create: keyval is NULL");
    return callback_made(keyval_create(attr_kind::comm, reinterpret_cast<void *>(copy_fn),
                                       reinterpret_cast<void *>(delete_fn), keyval, extra_state),
                         "MPI_Keyval_create");
}
ANYMPI_MANUAL(MPI_Type_create_keyval, forwarded, "attribute callbacks receive ABI handles through a counted record in extra_state")
{
    if (!type_keyval) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Type_create_keyval: type_keyval is NULL");
    return callback_made(keyval_create(attr_kind::type, reinterpret_cast<void *>(type_copy_attr_fn),
                                       reinterpret_cast<void *>(type_delete_attr_fn), type_keyval, extra_state),
                         "MPI_Type_create_keyval");
}
ANYMPI_MANUAL(MPI_Win_create_keyval, forwarded, "attribute callbacks receive ABI handles through a counted record in extra_state")
{
    if (!win_keyval) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Win_create_keyval: win_keyval is NULL");
    return callback_made(keyval_create(attr_kind::win, reinterpret_cast<void *>(win_copy_attr_fn),
                                       reinterpret_cast<void *>(win_delete_attr_fn), win_keyval, extra_state),
                         "MPI_Win_create_keyval");
}

// Freeing a keyval drops the record's count for it; storing an attribute adds one.
ANYMPI_MANUAL(MPI_Comm_free_keyval, forwarded, "the keyval's record is freed with the last attribute that uses it")
{ return free_keyval(attr_kind::comm, comm_keyval, "MPI_Comm_free_keyval"); }
ANYMPI_MANUAL(MPI_Keyval_free, forwarded, "deprecated MPI-1 form of MPI_Comm_free_keyval")
{ return free_keyval(attr_kind::comm, keyval, "MPI_Keyval_free"); }
ANYMPI_MANUAL(MPI_Type_free_keyval, forwarded, "the keyval's record is freed with the last attribute that uses it")
{ return free_keyval(attr_kind::type, type_keyval, "MPI_Type_free_keyval"); }
ANYMPI_MANUAL(MPI_Win_free_keyval, forwarded, "the keyval's record is freed with the last attribute that uses it")
{ return free_keyval(attr_kind::win, win_keyval, "MPI_Win_free_keyval"); }

ANYMPI_MANUAL(MPI_Comm_set_attr, forwarded, "the attribute is counted in its keyval's record")
{ return set_attr(attr_kind::comm, MPI_Comm_set_attr, to_native(comm), comm_keyval, attribute_val); }
ANYMPI_MANUAL(MPI_Attr_put, forwarded, "deprecated MPI-1 form of MPI_Comm_set_attr")
{ return set_attr(attr_kind::comm, MPI_Comm_set_attr, to_native(comm), keyval, attribute_val); }
ANYMPI_MANUAL(MPI_Type_set_attr, forwarded, "the attribute is counted in its keyval's record")
{ return set_attr(attr_kind::type, MPI_Type_set_attr, to_native(datatype), type_keyval, attribute_val); }
ANYMPI_MANUAL(MPI_Win_set_attr, forwarded, "the attribute is counted in its keyval's record")
{ return set_attr(attr_kind::win, MPI_Win_set_attr, to_native(win), win_keyval, attribute_val); }

// ---------------------------------------------------------------- datatypes
// ---------------------------------------------------------------- callbacks: ops, error handlers
ANYMPI_MANUAL(MPI_Op_create, forwarded, "the user function receives ABI datatypes through a closure (callbacks.hpp)")
{
    if (!op) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Op_create: op is NULL");
    MPI_Op n = MPI_OP_NULL;
    int rc = callback_made(op_create(user_fn, commute, &n), "MPI_Op_create");
    *op = to_abi<abi_Op>(n);
    return rc;
}

ANYMPI_MANUAL(MPI_Op_create_c, fallback, "the user function receives ABI datatypes through a closure; over MPI_Op_create (int counts widened) where the _c form is missing")
{
    if (!op) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Op_create_c: op is NULL");
    MPI_Op n = MPI_OP_NULL;
    int rc = callback_made(op_create_c(user_fn, commute, &n), "MPI_Op_create_c");
    *op = to_abi<abi_Op>(n);
    return rc;
}

ANYMPI_MANUAL(MPI_Comm_create_errhandler, forwarded, "the user handler receives ABI handles and codes through a closure")
{
    if (!errhandler) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Comm_create_errhandler: errhandler is NULL");
    MPI_Errhandler n = MPI_ERRHANDLER_NULL;
    int rc = callback_made(comm_errhandler_create(comm_errhandler_fn, &n), "MPI_Comm_create_errhandler");
    *errhandler = to_abi<abi_Errhandler>(n);
    return rc;
}
ANYMPI_MANUAL(MPI_Win_create_errhandler, forwarded, "the user handler receives ABI handles and codes through a closure")
{
    if (!errhandler) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Win_create_errhandler: errhandler is NULL");
    MPI_Errhandler n = MPI_ERRHANDLER_NULL;
    int rc = callback_made(win_errhandler_create(win_errhandler_fn, &n), "MPI_Win_create_errhandler");
    *errhandler = to_abi<abi_Errhandler>(n);
    return rc;
}
ANYMPI_MANUAL(MPI_File_create_errhandler, forwarded, "the user handler receives ABI handles and codes through a closure")
{
    if (!errhandler) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_File_create_errhandler: errhandler is NULL");
    MPI_Errhandler n = MPI_ERRHANDLER_NULL;
    int rc = callback_made(file_errhandler_create(file_errhandler_fn, &n), "MPI_File_create_errhandler");
    *errhandler = to_abi<abi_Errhandler>(n);
    return rc;
}

ANYMPI_MANUAL(MPI_Grequest_start, forwarded, "query/free/cancel receive ABI statuses and codes through a record in extra_state")
{
    if (!request || !query_fn || !free_fn || !cancel_fn)
        return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Grequest_start: a callback or request is NULL");
    MPI_Request n = MPI_REQUEST_NULL;
    int rc = callback_made(grequest_start(query_fn, free_fn, cancel_fn, extra_state, &n), "MPI_Grequest_start");
    *request = to_abi<abi_Request>(n);
    return rc;
}

// ---------------------------------------------------------------- MPI-5.0: statuses
ANYMPI_MANUAL(MPI_Status_get_source, emulated, "reads the ABI status")
{
    if (!status || !source) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Status_get_source: status or source is NULL");
    *source = status->MPI_SOURCE;
    return 0;
}
ANYMPI_MANUAL(MPI_Status_get_tag, emulated, "reads the ABI status")
{
    if (!status || !tag) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Status_get_tag: status or tag is NULL");
    *tag = status->MPI_TAG;
    return 0;
}
ANYMPI_MANUAL(MPI_Status_get_error, emulated, "reads the ABI status")
{
    if (!status || !error) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Status_get_error: status or error is NULL");
    *error = status->MPI_ERROR;
    return 0;
}
ANYMPI_MANUAL(MPI_Status_set_source, emulated, "writes the ABI status")
{
    if (!status) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Status_set_source: status is NULL");
    status->MPI_SOURCE = source;
    return 0;
}
ANYMPI_MANUAL(MPI_Status_set_tag, emulated, "writes the ABI status")
{
    if (!status) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Status_set_tag: status is NULL");
    status->MPI_TAG = tag;
    return 0;
}
ANYMPI_MANUAL(MPI_Status_set_error, emulated, "writes the ABI status")
{
    if (!status) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Status_set_error: status is NULL");
    status->MPI_ERROR = error;
    return 0;
}

// ---------------------------------------------------------------- error classes and codes
// MPI_LASTUSEDCODE is the largest class or code the user added (in the ABI's numbering),
// never the native MPI's counter, which also counts the classes anympi adds for itself.
//
// MPI-5.0 removes what the user added (MPI_Remove_error_class/code/string); the MPI
// underneath cannot.  anympi records, in the ABI's numbering, the classes, codes and strings
// the user added and has not removed, refuses the removals the standard calls erroneous
// (MPI_ERR_ARG, naming why), and empties a removed string in the MPI.  A value once removed
// is not handed out again: the MPI's next one is new.
namespace anympi::backend {
namespace {
struct added_errors {
    std::mutex m;
    std::unordered_set<int> classes;          // added by MPI_Add_error_class, not removed
    std::unordered_map<int, int> code_class;  // code -> its class, added by MPI_Add_error_code
    std::unordered_set<int> strings;          // codes and classes with a string the user added
};
added_errors &added()
{
    static added_errors *a = new added_errors;  // never destroyed: used until the process ends
    return *a;
}
// Under added().m: the string the user added for `value` becomes empty in the MPI, which
// cannot remove it, and is forgotten.
int drop_string(int value)
{
    int rc = MPI_Add_error_string(err_in(value), const_cast<char *>(""));
    if (rc == MPI_SUCCESS) added().strings.erase(value);
    return rc;
}
int refuse(const char *fn, int value, const char *why)
{
    char msg[200];
    std::snprintf(msg, sizeof msg, "%s: %d %s", fn, value, why);
    return raise_error(errh_none(), ABI_ERR_ARG, msg);
}
}  // namespace
}  // namespace anympi::backend

ANYMPI_MANUAL(MPI_Add_error_class, forwarded, "MPI_LASTUSEDCODE counts the classes the user adds, not anympi's own; the class is recorded for MPI_Remove_error_class")
{
    if (int e = always_available("MPI_Add_error_class")) return e;
    int c = 0;
    int rc = MPI_Add_error_class(errorclass ? &c : nullptr);
    if (rc == MPI_SUCCESS && errorclass) {
        note_user_code(*errorclass = err_out(c));
        std::lock_guard<std::mutex> g(added().m);
        added().classes.insert(*errorclass);
    }
    return err_out(rc);
}
ANYMPI_MANUAL(MPI_Add_error_code, forwarded, "MPI_LASTUSEDCODE counts the codes the user adds, not anympi's own; the code is recorded for MPI_Remove_error_code")
{
    if (int e = always_available("MPI_Add_error_code")) return e;
    int c = 0;
    int rc = MPI_Add_error_code(err_in(errorclass), errorcode ? &c : nullptr);
    if (rc == MPI_SUCCESS && errorcode) {
        note_user_code(*errorcode = err_out(c));
        std::lock_guard<std::mutex> g(added().m);
        added().code_class[*errorcode] = errorclass;
    }
    return err_out(rc);
}
ANYMPI_MANUAL(MPI_Add_error_string, forwarded, "the string is recorded for MPI_Remove_error_string")
{
    if (int e = always_available("MPI_Add_error_string")) return e;
    int rc = MPI_Add_error_string(err_in(errorcode), string);
    if (rc == MPI_SUCCESS) {
        std::lock_guard<std::mutex> g(added().m);
        added().strings.insert(errorcode);
    }
    return err_out(rc);
}
// Each removal decides under the lock and raises its error after it (the handler may call MPI).
ANYMPI_MANUAL(MPI_Remove_error_string, emulated, "the string the user added becomes empty in the MPI underneath, which cannot remove it; refused (MPI_ERR_ARG) for a value without one")
{
    const char *why = nullptr;
    int rc = 0;
    {
        std::lock_guard<std::mutex> g(added().m);
        if (!added().strings.count(errorcode)) why = "has no string added by MPI_Add_error_string";
        else rc = drop_string(errorcode);
    }
    return why ? refuse("MPI_Remove_error_string", errorcode, why) : err_out(rc);
}
ANYMPI_MANUAL(MPI_Remove_error_code, emulated, "anympi forgets the code it recorded (the MPI underneath cannot remove it); refused (MPI_ERR_ARG) for a code not added or whose string is not removed")
{
    const char *why = nullptr;
    {
        std::lock_guard<std::mutex> g(added().m);
        if (!added().code_class.count(errorcode)) why = "was not added by MPI_Add_error_code (or was removed)";
        else if (added().strings.count(errorcode)) why = "still has its string: remove it with MPI_Remove_error_string first";
        else added().code_class.erase(errorcode);
    }
    return why ? refuse("MPI_Remove_error_code", errorcode, why) : 0;
}
ANYMPI_MANUAL(MPI_Remove_error_class, emulated, "anympi forgets the class it recorded (the MPI underneath cannot remove it); refused (MPI_ERR_ARG) for a class not added or with codes not removed")
{
    const char *why = nullptr;
    int rc = 0;
    {
        std::lock_guard<std::mutex> g(added().m);
        const auto &codes = added().code_class;
        if (!added().classes.count(errorclass))
            why = "was not added by MPI_Add_error_class (or was removed)";
        else if (std::any_of(codes.begin(), codes.end(), [&](const auto &e) { return e.second == errorclass; }))
            why = "still has error codes: remove them with MPI_Remove_error_code first";
        else if (!added().strings.count(errorclass) || !(rc = drop_string(errorclass)))
            added().classes.erase(errorclass);
    }
    return why ? refuse("MPI_Remove_error_class", errorclass, why) : err_out(rc);
}

// ---------------------------------------------------------------- MPI-5.0: integer handles
// Predefined handles are their ABI value; others are the native Fortran integer, moved off
// the predefined range where the native one could collide with it.
ANYMPI_MANUAL(MPI_Comm_toint, emulated, "predefined: ABI value; others: the native Fortran handle past 0x3FF")
{ return toint(comm, [](MPI_Comm n) { return int(MPI_Comm_c2f(n)); }); }
ANYMPI_MANUAL(MPI_Comm_fromint, emulated, "inverse of MPI_Comm_toint")
{ return fromint<abi_Comm>(comm, [](int i) { return MPI_Comm_f2c(i); }); }
ANYMPI_MANUAL(MPI_Type_toint, emulated, "predefined: ABI value; others: the native Fortran handle past 0x3FF")
{ return toint(datatype, [](MPI_Datatype n) { return int(MPI_Type_c2f(n)); }); }
ANYMPI_MANUAL(MPI_Type_fromint, emulated, "inverse of MPI_Type_toint")
{ return fromint<abi_Datatype>(datatype, [](int i) { return MPI_Type_f2c(i); }); }
ANYMPI_MANUAL(MPI_Group_toint, emulated, "predefined: ABI value; others: the native Fortran handle past 0x3FF")
{ return toint(group, [](MPI_Group n) { return int(MPI_Group_c2f(n)); }); }
ANYMPI_MANUAL(MPI_Group_fromint, emulated, "inverse of MPI_Group_toint")
{ return fromint<abi_Group>(group, [](int i) { return MPI_Group_f2c(i); }); }
ANYMPI_MANUAL(MPI_Win_toint, emulated, "predefined: ABI value; others: the native Fortran handle past 0x3FF")
{ return toint(win, [](MPI_Win n) { return int(MPI_Win_c2f(n)); }); }
ANYMPI_MANUAL(MPI_Win_fromint, emulated, "inverse of MPI_Win_toint")
{ return fromint<abi_Win>(win, [](int i) { return MPI_Win_f2c(i); }); }
ANYMPI_MANUAL(MPI_File_toint, emulated, "predefined: ABI value; others: the native Fortran handle past 0x3FF")
{ return toint(file, [](MPI_File n) { return int(MPI_File_c2f(n)); }); }
ANYMPI_MANUAL(MPI_File_fromint, emulated, "inverse of MPI_File_toint")
{ return fromint<abi_File>(file, [](int i) { return MPI_File_f2c(i); }); }
ANYMPI_MANUAL(MPI_Info_toint, emulated, "predefined: ABI value; others: the native Fortran handle past 0x3FF")
{ return toint(info, [](MPI_Info n) { return int(MPI_Info_c2f(n)); }); }
ANYMPI_MANUAL(MPI_Info_fromint, emulated, "inverse of MPI_Info_toint")
{ return fromint<abi_Info>(info, [](int i) { return MPI_Info_f2c(i); }); }
ANYMPI_MANUAL(MPI_Op_toint, emulated, "predefined: ABI value; others: the native Fortran handle past 0x3FF")
{ return toint(op, [](MPI_Op n) { return int(MPI_Op_c2f(n)); }); }
ANYMPI_MANUAL(MPI_Op_fromint, emulated, "inverse of MPI_Op_toint")
{ return fromint<abi_Op>(op, [](int i) { return MPI_Op_f2c(i); }); }
ANYMPI_MANUAL(MPI_Errhandler_toint, emulated, "predefined: ABI value; others: the native Fortran handle past 0x3FF")
{ return toint(errhandler, [](MPI_Errhandler n) { return int(MPI_Errhandler_c2f(n)); }); }
ANYMPI_MANUAL(MPI_Errhandler_fromint, emulated, "inverse of MPI_Errhandler_toint")
{ return fromint<abi_Errhandler>(errhandler, [](int i) { return MPI_Errhandler_f2c(i); }); }
ANYMPI_MANUAL(MPI_Request_toint, emulated, "predefined: ABI value; others: the native Fortran handle past 0x3FF (anympi's own requests: a number of anympi's)")
{
    if (any_emulated() && is_emulated(request)) return emulated_toint(request);
    return toint(request, [](MPI_Request n) { return int(MPI_Request_c2f(n)); });
}
ANYMPI_MANUAL(MPI_Request_fromint, emulated, "inverse of MPI_Request_toint")
{
    if (own_request_int(request)) return emulated_fromint(request);
    return fromint<abi_Request>(request, [](int i) { return MPI_Request_f2c(i); });
}
ANYMPI_MANUAL(MPI_Message_toint, emulated, "predefined: ABI value; others: the native Fortran handle past 0x3FF")
{ return toint(message, [](MPI_Message n) { return int(MPI_Message_c2f(n)); }); }
ANYMPI_MANUAL(MPI_Message_fromint, emulated, "inverse of MPI_Message_toint")
{ return fromint<abi_Message>(message, [](int i) { return MPI_Message_f2c(i); }); }

// ---------------------------------------------------------------- dynamic processes
// One error code per process asked for (MPI_ERRCODES_IGNORE is NULL on both sides): the MPI
// writes native codes into the caller's ints, converted in place after the call.  The
// lengths are significant only at the root, but both MPIs fill as many codes as the caller's
// own arguments say, so each process converts that many.  The spawned processes run the
// same program over anympi and follow their launcher, which is the parent's: they load the
// parent's backend.
namespace {
void errcodes_out(int *codes, long n)
{
    for (long i = 0; codes && i < n; ++i) codes[i] = err_out(codes[i]);
}
}  // namespace

ANYMPI_MANUAL(MPI_Comm_spawn, forwarded, "the error codes (one per process asked for) converted after the call; the children load the parent's backend (Debian's MPICH 4.0.2 under Hydra fails every spawn natively, with MPI_ERR_OTHER, and so over anympi)")
{
    int rc = MPI_Comm_spawn(command, argv, maxprocs, to_native(info), root, to_native(comm),
                            c_hout_derived(intercomm, comm), array_of_errcodes);
    errcodes_out(array_of_errcodes, maxprocs);
    return err_out(rc);
}

ANYMPI_MANUAL(MPI_Comm_spawn_multiple, forwarded, "the info array converted; the error codes (one per process asked for) converted after the call; as MPI_Comm_spawn on MPICH")
{
    long total = 0;
    for (int i = 0; array_of_maxprocs && i < count; ++i) total += array_of_maxprocs[i] > 0 ? array_of_maxprocs[i] : 0;
    int rc = MPI_Comm_spawn_multiple(count, array_of_commands, array_of_argv, array_of_maxprocs,
                                     c_harr_in(array_of_info, count), root, to_native(comm), c_hout_derived(intercomm, comm),
                                     array_of_errcodes);
    errcodes_out(array_of_errcodes, total);
    return err_out(rc);
}

// ---------------------------------------------------------------- address arithmetic
// Open MPI 4.1 has these only as macros; the standard defines them as plain address arithmetic.
ANYMPI_MANUAL(MPI_Aint_add, emulated, "address arithmetic (a macro, not a function, in Open MPI 4.1)")
{
    return static_cast<abi_Aint>(reinterpret_cast<uintptr_t>(reinterpret_cast<char *>(base) + disp));
}
ANYMPI_MANUAL(MPI_Aint_diff, emulated, "address arithmetic (a macro, not a function, in Open MPI 4.1)")
{
    return static_cast<abi_Aint>(reinterpret_cast<char *>(addr1) - reinterpret_cast<char *>(addr2));
}

// ---------------------------------------------------------------- topology arrays
ANYMPI_MANUAL(MPI_Graph_create, forwarded, "edges has index[nnodes-1] entries (plain node numbers, passed as they are)")
{
    return err_out(MPI_Graph_create(to_native(comm_old), nnodes, c_mut(indx), c_mut(edges), reorder,
                                    c_hout_derived(comm_graph, comm_old)));
}
// MPICH 4.0.2 writes every neighbour, past maxneighbors: they are staged, and no more than
// maxneighbors given back (what the standard writes, and Open MPI does).
ANYMPI_MANUAL(MPI_Graph_neighbors, forwarded, "neighbors staged for all the node's neighbours (MPICH writes past maxneighbors), at most maxneighbors given back")
{
    const MPI_Comm c = to_native(comm);
    int count = 0;
    if (int rc = MPI_Graph_neighbors_count(c, rank_in(rank), &count)) return err_out(rc);  // raises what is wrong
    const long given = neighbors ? std::min(std::max(maxneighbors, 0), count) : 0;
    ranks_out_proxy out(neighbors, std::max(maxneighbors, count));
    const int rc = MPI_Graph_neighbors(c, rank_in(rank), maxneighbors, out);
    out.n = given;  // written back: no more than these
    return err_out(rc);
}

ANYMPI_MANUAL(MPI_Graph_map, forwarded, "edges has index[nnodes-1] entries (plain node numbers, passed as they are)")
{
    return err_out(MPI_Graph_map(to_native(comm), nnodes, c_mut(indx), c_mut(edges), c_rank_out(newrank)));
}

// ---------------------------------------------------------------- MPI-4.0 info strings
ANYMPI_MANUAL(MPI_Info_get_string, fallback, "MPI-4.0; emulated with MPI_Info_get_valuelen and MPI_Info_get where missing")
{
    if (int e = always_available("MPI_Info_get_string")) return e;
#if ANYMPI_HAVE_MPI_Info_get_string
    return err_out(MPI_Info_get_string(to_native(info), key, buflen, value, flag));
#else
    if (!buflen || !flag || (*buflen > 0 && !value))
        return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Info_get_string: buflen, value or flag is NULL");
    MPI_Info n = to_native(info);
    int len = 0, f = 0;
    int rc = MPI_Info_get_valuelen(n, key, &len, &f);
    if (rc != MPI_SUCCESS) return err_out(rc);
    *flag = f;
    if (!f) return 0;
    if (*buflen > 0) {
        // MPI_Info_get wants valuelen without the terminator and writes at most valuelen+1
        int room = *buflen - 1;
        rc = MPI_Info_get(n, key, room, value, &f);
        if (rc != MPI_SUCCESS) return err_out(rc);
        value[room < len ? room : len] = 0;
    }
    *buflen = len + 1;
    return 0;
#endif
}

ANYMPI_MANUAL(MPI_Info_create_env, fallback, "MPI-4.0; emulated as a copy of MPI_INFO_ENV where missing")
{
    if (int e = always_available("MPI_Info_create_env")) return e;
#if ANYMPI_HAVE_MPI_Info_create_env
    return err_out(MPI_Info_create_env(argc, argv, c_hout(info)));
#else
    (void)argc;
    (void)argv;
    if (!info) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Info_create_env: info is NULL");
    return err_out(MPI_Info_dup(MPI_INFO_ENV, c_hout(info)));
#endif
}

// ---------------------------------------------------------------- value-index pair types (MPI-4.1)
// MPI_Type_get_value_index returns a predefined datatype for a (value, index) pair: one of
// the named pairs (MPI_FLOAT_INT ...) where it matches, otherwise an unnamed predefined one
// whose envelope says MPI_COMBINER_VALUE_INDEX.  Neither MPICH 4.0 nor Open MPI 4.1 has
// them, so anympi builds each pair once as the native struct {value at 0, index where a C
// compiler puts it, extent rounded as the C struct's}, remembers it, and answers for it in
// get_envelope/get_contents/free.  Being predefined, it is never freed by the user: the
// native handles go at MPI_Finalize (a delete callback on MPI_COMM_SELF).  The native MPIs
// refuse MPI_MAXLOC/MPI_MINLOC on a struct, so reductions over one of these types use a
// native user operation with the standard's MAXLOC/MINLOC definition (c_op_in).
namespace anympi::backend {
namespace {

using compare_fn = int (*)(const void *, const void *);
template <class T> int compare_as(const void *a, const void *b)
{
    T x, y;
    std::memcpy(&x, a, sizeof x);
    std::memcpy(&y, b, sizeof y);
    return (x > y) - (x < y);
}

// The C types MPI_MAXLOC/MPI_MINLOC order (values) and index with (integers).
struct pair_member { uintptr_t abi; MPI_Aint size, align; compare_fn compare; bool integer; };
#define ANYMPI_MEMBER(abi, T, integer) pair_member{abi, MPI_Aint(sizeof(T)), MPI_Aint(alignof(T)), &compare_as<T>, integer}
const pair_member pair_members[] = {
    ANYMPI_MEMBER(ABI_FLOAT, float, false),           ANYMPI_MEMBER(ABI_DOUBLE, double, false),
    ANYMPI_MEMBER(ABI_LONG_DOUBLE, long double, false), ANYMPI_MEMBER(ABI_SIGNED_CHAR, signed char, true),
    ANYMPI_MEMBER(ABI_UNSIGNED_CHAR, unsigned char, true), ANYMPI_MEMBER(ABI_SHORT, short, true),
    ANYMPI_MEMBER(ABI_UNSIGNED_SHORT, unsigned short, true), ANYMPI_MEMBER(ABI_INT, int, true),
    ANYMPI_MEMBER(ABI_UNSIGNED, unsigned, true),      ANYMPI_MEMBER(ABI_LONG, long, true),
    ANYMPI_MEMBER(ABI_UNSIGNED_LONG, unsigned long, true), ANYMPI_MEMBER(ABI_LONG_LONG, long long, true),
    ANYMPI_MEMBER(ABI_UNSIGNED_LONG_LONG, unsigned long long, true),
    ANYMPI_MEMBER(ABI_INT8_T, int8_t, true),          ANYMPI_MEMBER(ABI_UINT8_T, uint8_t, true),
    ANYMPI_MEMBER(ABI_INT16_T, int16_t, true),        ANYMPI_MEMBER(ABI_UINT16_T, uint16_t, true),
    ANYMPI_MEMBER(ABI_INT32_T, int32_t, true),        ANYMPI_MEMBER(ABI_UINT32_T, uint32_t, true),
    ANYMPI_MEMBER(ABI_INT64_T, int64_t, true),        ANYMPI_MEMBER(ABI_UINT64_T, uint64_t, true),
    ANYMPI_MEMBER(ABI_AINT, MPI_Aint, true),          ANYMPI_MEMBER(ABI_OFFSET, MPI_Offset, true),
    ANYMPI_MEMBER(ABI_COUNT, MPI_Count, true),
};
#undef ANYMPI_MEMBER

// The named pairs the standard lists for MPI_Type_get_value_index.
struct named_pair { uintptr_t value, index, pair; };
const named_pair named_pairs[] = {
    {ABI_FLOAT, ABI_INT, ABI_FLOAT_INT}, {ABI_DOUBLE, ABI_INT, ABI_DOUBLE_INT},
    {ABI_LONG, ABI_INT, ABI_LONG_INT},   {ABI_INT, ABI_INT, ABI_2INT},
    {ABI_SHORT, ABI_INT, ABI_SHORT_INT}, {ABI_LONG_DOUBLE, ABI_INT, ABI_LONG_DOUBLE_INT},
    {ABI_REAL, ABI_REAL, ABI_2REAL},     {ABI_DOUBLE_PRECISION, ABI_DOUBLE_PRECISION, ABI_2DOUBLE_PRECISION},
    {ABI_INTEGER, ABI_INTEGER, ABI_2INTEGER},
};

const pair_member *member_of(abi_Datatype t)
{
    for (const auto &m : pair_members) if (m.abi == reinterpret_cast<uintptr_t>(t)) return &m;
    return nullptr;
}

struct value_index_type {
    MPI_Datatype pair;  // native, committed
    uintptr_t value, index;  // the ABI's predefined handles
    const pair_member *v, *i;
    MPI_Aint index_disp, extent;
};

std::mutex vi_mutex;
std::vector<value_index_type> vi_types;  // guarded by vi_mutex
std::atomic<bool> vi_any{false};         // no lookups at all until a pair exists
bool vi_contents_copies = false;          // the native get_contents returns copies (Open MPI 4.1)
MPI_Op vi_ops[2] = {MPI_OP_NULL, MPI_OP_NULL};  // MAXLOC, MINLOC over any pair (guarded)

[[gnu::noinline]] bool vi_find_listed(MPI_Datatype n, value_index_type *out)
{
    std::lock_guard<std::mutex> g(vi_mutex);
    for (const auto &e : vi_types)
        if (e.pair == n) { if (out) *out = e; return true; }
    return false;
}
// Inline, as the callers ask of every datatype they see: until a pair exists, one load.
inline bool vi_find(MPI_Datatype n, value_index_type *out = nullptr)
{
    return vi_any.load(std::memory_order_acquire) && vi_find_listed(n, out);
}

// MPI_MAXLOC / MPI_MINLOC as the standard defines them: the larger (smaller) value wins;
// equal values keep the smaller index.
template <bool Max> void vi_loc(void *in, void *inout, int *len, MPI_Datatype *type)
{
    value_index_type e;
    if (!type || !vi_find(*type, &e)) return;  // only ever installed for these types
    auto *a = static_cast<const char *>(in);
    auto *b = static_cast<char *>(inout);
    for (int k = 0; k < *len; ++k, a += e.extent, b += e.extent) {
        int c = e.v->compare(a, b);
        if (!Max) c = -c;
        if (c > 0) std::memcpy(b, a, size_t(e.v->size));
        if (c > 0 || (c == 0 && e.i->compare(a + e.index_disp, b + e.index_disp) < 0))
            std::memcpy(b + e.index_disp, a + e.index_disp, size_t(e.i->size));
    }
}

// At MPI_Finalize (attributes of MPI_COMM_SELF go first): release the native objects.
int vi_release(MPI_Comm, int keyval, void *, void *)
{
    std::lock_guard<std::mutex> g(vi_mutex);
    vi_any.store(false, std::memory_order_release);
    for (auto &e : vi_types) MPI_Type_free(&e.pair);
    vi_types.clear();
    for (auto &op : vi_ops) if (op != MPI_OP_NULL) MPI_Op_free(&op);
    MPI_Comm_free_keyval(&keyval);
    return MPI_SUCCESS;
}

int vi_make(const pair_member *v, const pair_member *i, uintptr_t value, uintptr_t index, MPI_Datatype *out)
{
    std::lock_guard<std::mutex> g(vi_mutex);
    for (const auto &e : vi_types)
        if (e.value == value && e.index == index) { *out = e.pair; return MPI_SUCCESS; }
    if (vi_types.empty()) {  // the first one: arrange for the release at MPI_Finalize
        int keyval = MPI_KEYVAL_INVALID;
        int rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, vi_release, &keyval, nullptr);
        if (rc == MPI_SUCCESS) rc = MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
        if (rc != MPI_SUCCESS) return rc;
    }
    const MPI_Aint disp = (v->size + i->align - 1) / i->align * i->align;
    const MPI_Aint align = v->align > i->align ? v->align : i->align;
    const MPI_Aint extent = (disp + i->size + align - 1) / align * align;
    int blocks[2] = {1, 1};
    MPI_Aint disps[2] = {0, disp};
    MPI_Datatype members[2] = {to_native(reinterpret_cast<abi_Datatype>(value)),
                               to_native(reinterpret_cast<abi_Datatype>(index))};
    MPI_Datatype s = MPI_DATATYPE_NULL, t = MPI_DATATYPE_NULL;
    int rc = MPI_Type_create_struct(2, blocks, disps, members, &s);
    if (rc != MPI_SUCCESS) return rc;
    rc = MPI_Type_create_resized(s, 0, extent, &t);
    MPI_Type_free(&s);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&t);
    // no name, as on MPICH (Open MPI names a resized type "Dup <the struct's name>")
    if (rc == MPI_SUCCESS) rc = MPI_Type_set_name(t, const_cast<char *>(""));
    if (rc != MPI_SUCCESS) return rc;
    if (vi_types.empty()) {  // does the native get_contents return this handle, or a copy?
        MPI_Datatype c = MPI_DATATYPE_NULL, back = MPI_DATATYPE_NULL;
        int one = 0;
        if (MPI_Type_contiguous(1, t, &c) == MPI_SUCCESS) {
            if (MPI_Type_get_contents(c, 1, 0, 1, &one, nullptr, &back) == MPI_SUCCESS) {
                vi_contents_copies = back != t;
                MPI_Type_free(&back);
            }
            MPI_Type_free(&c);
        }
    }
    vi_types.push_back({t, value, index, v, i, disp, extent});
    vi_any.store(true, std::memory_order_release);
    *out = t;
    return MPI_SUCCESS;
}

}  // namespace

// MAXLOC/MINLOC as c_op_in (emulated_types.hpp) sees them: over a value-index type, anympi's
// operation.  Apart, so that c_op_in's common path saves no registers for it.
MPI_Op loc_op_in(abi_Op op, abi_Datatype datatype)
{
    const uintptr_t o = reinterpret_cast<uintptr_t>(op);
    if (!vi_find(to_native(datatype))) return to_native(op);
    std::lock_guard<std::mutex> g(vi_mutex);
    MPI_Op &n = vi_ops[o == ABI_MAXLOC ? 0 : 1];
    if (n == MPI_OP_NULL && MPI_Op_create(o == ABI_MAXLOC ? &vi_loc<true> : &vi_loc<false>, 1, &n) != MPI_SUCCESS)
        return to_native(op);  // the native MPI reports MAXLOC on a struct itself
    return n;
}

}  // namespace anympi::backend

ANYMPI_MANUAL(MPI_Type_get_value_index, emulated, "named pairs as they are; other pairs built once as the C struct {value; index} (see manual.cpp)")
{
    if (!pair_type) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Type_get_value_index: pair_type is NULL");
    if (reinterpret_cast<uintptr_t>(value_type) == ABI_DATATYPE_NULL || reinterpret_cast<uintptr_t>(index_type) == ABI_DATATYPE_NULL)
        return raise_error(errh_none(), ABI_ERR_TYPE, "MPI_Type_get_value_index: value_type or index_type is MPI_DATATYPE_NULL");
    const uintptr_t v = reinterpret_cast<uintptr_t>(value_type), i = reinterpret_cast<uintptr_t>(index_type);
    for (const auto &p : named_pairs)
        if (p.value == v && p.index == i) { *pair_type = reinterpret_cast<abi_Datatype>(p.pair); return 0; }
    const pair_member *vm = member_of(value_type), *im = member_of(index_type);
    if (!vm || !im || !im->integer) {  // no such predefined pair: the standard's answer
        *pair_type = reinterpret_cast<abi_Datatype>(ABI_DATATYPE_NULL);
        return 0;
    }
    MPI_Datatype n = MPI_DATATYPE_NULL;
    int rc = vi_make(vm, im, v, i, &n);
    if (rc != MPI_SUCCESS) return err_out(rc);
    *pair_type = to_abi<abi_Datatype>(n);
    return 0;
}

namespace anympi::backend {
namespace {
// MPI_Type_get_contents needs the type's native envelope (the combiner for its integer
// constants, how many datatypes to fix up), and a program asks MPI_Type_get_envelope of the
// same type right before: the last envelope each thread was given is kept, so that
// get_contents asks the MPI once instead of twice.  A freed handle may be reused, so every
// MPI_Type_free makes the kept envelopes stale.
std::atomic<unsigned> datatypes_freed{0};
struct native_envelope {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    unsigned freed = 0;
    int ni = 0, na = 0, nd = 0, comb = 0;
};
// Initial-exec: the backend is a dlopen'ed module, whose other thread-locals are reached
// through __tls_get_addr (~20 instructions); these 32 bytes come from the static TLS that the
// loader keeps for modules opened later.
thread_local native_envelope last_envelope __attribute__((tls_model("initial-exec")));

[[gnu::noinline]] int envelope_asked(MPI_Datatype t, unsigned freed, native_envelope &last)
{
    native_envelope e;
    int rc = MPI_Type_get_envelope(t, &e.ni, &e.na, &e.nd, &e.comb);
    if (rc != MPI_SUCCESS) return rc;
    e.type = t;
    e.freed = freed;
    last = e;
    return MPI_SUCCESS;
}
// Inline, the MPI asked out of line: the kept envelope costs a few compares.
inline int envelope_of(MPI_Datatype t, native_envelope &e)
{
    const unsigned freed = datatypes_freed.load(std::memory_order_relaxed);
    native_envelope &last = last_envelope;
    if (last.type != t || last.freed != freed || t == MPI_DATATYPE_NULL)
        if (int rc = envelope_asked(t, freed, last)) return rc;
    e = last;
    return MPI_SUCCESS;
}
}  // namespace
}  // namespace anympi::backend

ANYMPI_MANUAL(MPI_Type_get_envelope, forwarded, "types from MPI_Type_get_value_index answer MPI_COMBINER_VALUE_INDEX, emulated predefined ones (MPI_REAL2 ...) MPI_COMBINER_NAMED; a type of anympi's _c constructors is refused (MPI_ERR_TYPE: large counts), as MPICH does")
{
    if (is_emulated_type(datatype)) return emulated_type_envelope(num_integers, num_addresses, num_datatypes, combiner);
    MPI_Datatype t = to_native(datatype);
    const bool outputs = num_integers && num_addresses && num_datatypes && combiner;
    if (vi_find(t)) {
        if (!outputs) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Type_get_envelope: an output argument is NULL");
        *num_integers = *num_addresses = 0;
        *num_datatypes = 2;
        *combiner = ABI_COMBINER_VALUE_INDEX;
        return 0;
    }
    if (made_by_c(t))  // large_count_types
        return raise_error(errh_none(), ABI_ERR_TYPE,
                           "MPI_Type_get_envelope: the datatype was made by a large-count constructor (_c), whose counts "
                           "only MPI_Type_get_envelope_c returns");
    if (!outputs)  // the MPI's own answer to a NULL output
        return err_out(MPI_Type_get_envelope(t, num_integers, num_addresses, num_datatypes, c_cout<cat::combiner>(combiner)));
    native_envelope e;
    int rc = envelope_of(t, e);
    if (rc != MPI_SUCCESS) return err_out(rc);
    *num_integers = e.ni;
    *num_addresses = e.na;
    *num_datatypes = e.nd;
    *combiner = cout<cat::combiner>(e.comb);
    return 0;
}

ANYMPI_MANUAL(MPI_Type_get_envelope_c, fallback, "value-index types answer MPI_COMBINER_VALUE_INDEX; where the _c form is missing, a type of anympi's _c constructors answers the _c call's envelope (large_count_types.cpp), any other MPI_Type_get_envelope's")
{
    if (is_emulated_type(datatype))  // emulated_types
        return emulated_type_envelope_c(num_integers, num_addresses, num_large_counts, num_datatypes, combiner);
#if ANYMPI_HAVE_MPI_Type_get_envelope_c
    MPI_Datatype t = to_native(datatype);
    if (!vi_find(t))
        return err_out(MPI_Type_get_envelope_c(t, c_i64p(num_integers), c_i64p(num_addresses), c_i64p(num_large_counts),
                                               c_i64p(num_datatypes), c_cout<cat::combiner>(combiner)));
#endif
    if (!num_integers || !num_addresses || !num_large_counts || !num_datatypes || !combiner)
        return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Type_get_envelope_c: an output argument is NULL");
#if !ANYMPI_HAVE_MPI_Type_get_envelope_c
    if (made_by_c_envelope(to_native(datatype), num_integers, num_addresses, num_large_counts, num_datatypes, combiner))
        return 0;  // large_count_types
#endif
    int ni = 0, na = 0, nd = 0;
    int rc = abi_MPI_Type_get_envelope(datatype, &ni, &na, &nd, combiner);
    if (rc != 0) return rc;
    *num_integers = ni;
    *num_addresses = na;
    *num_large_counts = 0;  // the int form's contents have none
    *num_datatypes = nd;
    return 0;
}

namespace {
// A value-index type's contents: its value and index types (predefined: nothing to free).
int vi_contents(const value_index_type &e, long long max_datatypes, abi_Datatype *types, const char *fn)
{
    if (max_datatypes < 2 || !types) {
        char msg[160];
        std::snprintf(msg, sizeof msg, "%s: a value-index type has 2 datatypes; max_datatypes is %lld%s", fn,
                      max_datatypes, types ? "" : " or array_of_datatypes is NULL");
        return raise_error(errh_none(), ABI_ERR_ARG, msg);
    }
    types[0] = reinterpret_cast<abi_Datatype>(e.value);
    types[1] = reinterpret_cast<abi_Datatype>(e.index);
    return 0;
}
// Is `n` a copy of a value-index type?  Open MPI 4.1's get_contents returns a duplicate
// of every derived type it returns (not the handle the type was built from), so a
// value-index type comes back as resized(struct({value at 0, index at d})) of its layout.
bool vi_copy_of(MPI_Datatype n, value_index_type *out)
{
    int ni, na, nd, comb;
    if (MPI_Type_get_envelope(n, &ni, &na, &nd, &comb) != MPI_SUCCESS || comb != MPI_COMBINER_RESIZED || ni != 0 ||
        na != 2 || nd != 1)
        return false;
    MPI_Aint bounds[2];
    MPI_Datatype s = MPI_DATATYPE_NULL;
    if (MPI_Type_get_contents(n, 0, 2, 1, nullptr, bounds, &s) != MPI_SUCCESS) return false;
    int ints[3] = {0, 0, 0};
    MPI_Aint disps[2] = {-1, -1};
    MPI_Datatype members[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
    bool ok = MPI_Type_get_envelope(s, &ni, &na, &nd, &comb) == MPI_SUCCESS && comb == MPI_COMBINER_STRUCT &&
              ni == 3 && na == 2 && nd == 2 &&
              MPI_Type_get_contents(s, 3, 2, 2, ints, disps, members) == MPI_SUCCESS;
    MPI_Type_free(&s);  // derived: a reference (or copy) of our own
    if (!ok || ints[0] != 2 || ints[1] != 1 || ints[2] != 1 || disps[0] != 0 || bounds[0] != 0) return false;
    std::lock_guard<std::mutex> g(vi_mutex);
    for (const auto &e : vi_types)
        if (e.extent == bounds[1] && e.index_disp == disps[1] &&
            members[0] == to_native(reinterpret_cast<abi_Datatype>(e.value)) &&
            members[1] == to_native(reinterpret_cast<abi_Datatype>(e.index))) {
            *out = e;
            return true;
        }
    return false;
}

// A value-index type is predefined: the caller of get_contents never frees it, so the
// reference the native get_contents added to it is dropped again, and a native copy of
// it (Open MPI) is replaced by the type itself.
void vi_fix_returned(abi_Datatype *types, long long n)
{
    if (!types || !vi_any.load(std::memory_order_acquire)) return;
    for (long long k = 0; k < n; ++k) {
        MPI_Datatype t = to_native(types[k]);
        value_index_type e;
        if (vi_find(t) || (vi_contents_copies && vi_copy_of(t, &e))) {
            if (!vi_find(t)) types[k] = to_abi<abi_Datatype>(e.pair);
            MPI_Type_free(&t);
        }
    }
}
}  // namespace

namespace anympi::backend {
namespace {
// MPI_Type_get_contents's datatypes: Open MPI 4.1 reads every entry up to max_datatypes (to
// duplicate the derived ones), not only the ones it writes, so the caller's entries go in as
// they are; only those the MPI writes come back, the rest of the array stays as it was.
struct contents_types : harr_proxy<abi_Datatype, true, false> {
    long written;
    contents_types(abi_Datatype *a, long max, long written_) : harr_proxy(a, max), written(written_) {}
    ~contents_types() { for (long i = 0; p && i < written; ++i) p[i] = to_abi<abi_Datatype>(s.ptr[i]); }
};
}  // namespace
}  // namespace anympi::backend

ANYMPI_MANUAL(MPI_Type_get_contents, forwarded, "constants in subarray/darray integers; value-index types answer their two datatypes; a type of anympi's _c constructors is refused (MPI_ERR_TYPE: large counts), as MPICH does")
{
    if (is_emulated_type(datatype))  // emulated_types
        return emulated_type_refuse(datatype, "MPI_Type_get_contents", "which has no contents");
    MPI_Datatype t = to_native(datatype);
    value_index_type e;
    if (vi_find(t, &e)) return vi_contents(e, max_datatypes, array_of_datatypes, "MPI_Type_get_contents");
    if (made_by_c(t))  // large_count_types
        return raise_error(errh_none(), ABI_ERR_TYPE,
                           "MPI_Type_get_contents: the datatype was made by a large-count constructor (_c), whose counts "
                           "only MPI_Type_get_contents_c returns");
    native_envelope env;
    int rc = envelope_of(t, env);
    if (rc != MPI_SUCCESS) return err_out(rc);
    const int nd = env.nd < max_datatypes ? env.nd : max_datatypes;
    rc = MPI_Type_get_contents(t, max_integers, max_addresses, max_datatypes, array_of_integers,
                               c_i64p(array_of_addresses), contents_types(array_of_datatypes, max_datatypes, nd));
    if (rc != MPI_SUCCESS) return err_out(rc);
    if (array_of_integers) contents_ints_out(env.comb, array_of_integers, env.ni, max_integers);
    vi_fix_returned(array_of_datatypes, nd);
    emulated_types_fix_returned(array_of_datatypes, nd);  // emulated_types
    made_by_c_copies(t, array_of_datatypes, nd);          // large_count_types
    return 0;
}

ANYMPI_MANUAL(MPI_Type_get_contents_c, fallback, "as MPI_Type_get_contents; where the _c form is missing, a type of anympi's _c constructors answers the _c call's arguments (large_count_types.cpp), any other through MPI_Type_get_contents (no large counts)")
{
    if (is_emulated_type(datatype))  // emulated_types
        return emulated_type_refuse(datatype, "MPI_Type_get_contents_c", "which has no contents");
    MPI_Datatype t = to_native(datatype);
    value_index_type e;
    if (vi_find(t, &e)) return vi_contents(e, max_datatypes, array_of_datatypes, "MPI_Type_get_contents_c");
#if ANYMPI_HAVE_MPI_Type_get_contents_c
    MPI_Count ni, na, nc, nd;
    int comb;
    int rc = MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb);
    if (rc != MPI_SUCCESS) return err_out(rc);
    if (nd > max_datatypes) nd = max_datatypes;
    rc = MPI_Type_get_contents_c(t, max_integers, max_addresses, max_large_counts, max_datatypes, array_of_integers,
                                 c_i64p(array_of_addresses), c_i64p(array_of_large_counts),
                                 contents_types(array_of_datatypes, max_datatypes, nd));
    if (rc != MPI_SUCCESS) return err_out(rc);
    if (array_of_integers)
        contents_ints_out(comb, array_of_integers, int(ni), max_integers > INT_MAX ? INT_MAX : int(max_integers));
    vi_fix_returned(array_of_datatypes, nd);
    emulated_types_fix_returned(array_of_datatypes, nd);  // emulated_types
    return 0;
#else
    int made_rc = 0;  // large_count_types
    if (made_by_c_contents(t, max_integers, max_addresses, max_large_counts, max_datatypes, array_of_integers,
                           array_of_large_counts, array_of_datatypes, &made_rc))
        return made_rc;
    auto clamp = [](MPI_Count m) { return m < 0 ? 0 : m > INT_MAX ? INT_MAX : int(m); };
    return abi_MPI_Type_get_contents(datatype, clamp(max_integers), clamp(max_addresses), clamp(max_datatypes),
                                     array_of_integers, array_of_addresses, array_of_datatypes);
#endif
}

ANYMPI_MANUAL(MPI_Type_free, forwarded, "a value-index type or an emulated one (MPI_REAL2 ...) is predefined: freeing it is refused like freeing MPI_FLOAT_INT")
{
    datatypes_freed.fetch_add(1, std::memory_order_relaxed);
    if (datatype && is_emulated_type(*datatype))  // emulated_types
        return emulated_type_refuse(*datatype, "MPI_Type_free", "which cannot be freed");
    if (datatype && vi_find(to_native(*datatype)))
        return raise_error(errh_none(), ABI_ERR_TYPE,
                           "MPI_Type_free: the datatype is a predefined value-index type (from MPI_Type_get_value_index), which cannot be freed");
    if (pinned_alive.load(std::memory_order_relaxed) && datatype &&
        free_deferred(k_datatype, bits(to_native(*datatype)))) {  // a persistent request still uses it
        *datatype = reinterpret_cast<abi_Datatype>(ABI_DATATYPE_NULL);
        return 0;
    }
    return err_out(MPI_Type_free(c_hio(datatype)));
}

// ---------------------------------------------------------------- MPI_T events
// Neither MPI underneath has an event: MPICH 4.0.2 counts none, Open MPI 4.1 has no events
// interface.  With none, the faithful answer is an invalid index or handle (no handle can
// exist), which anympi gives without asking the MPI.  An MPI that did report events would
// need its callbacks and datatype arrays translated, which anympi does not do yet: it then
// says so (MPI_T_ERR_NOT_SUPPORTED) rather than guess.
namespace anympi::backend {
namespace {
int no_events_or(int invalid)
{
    if (int rc = t_initialized()) return rc;
#if ANYMPI_HAVE_MPI_T_event_get_num
    int n = 0;
    if (int rc = err_out(MPI_T_event_get_num(&n))) return rc;
    if (n != 0) return ABI_T_ERR_NOT_SUPPORTED;
#endif
    return invalid;
}
}  // namespace
}  // namespace anympi::backend

ANYMPI_MANUAL(MPI_T_event_get_info, emulated, "neither MPI has an event: every index is invalid (manual.cpp)")
{ return no_events_or(ABI_T_ERR_INVALID_INDEX); }
ANYMPI_MANUAL(MPI_T_event_handle_alloc, emulated, "neither MPI has an event: every index is invalid (manual.cpp)")
{ return no_events_or(ABI_T_ERR_INVALID_INDEX); }
ANYMPI_MANUAL(MPI_T_event_handle_free, emulated, "neither MPI has an event, so no event handle exists: every handle is invalid (manual.cpp)")
{ return no_events_or(ABI_T_ERR_INVALID_HANDLE); }
ANYMPI_MANUAL(MPI_T_event_register_callback, emulated, "neither MPI has an event, so no event handle exists: every handle is invalid (manual.cpp)")
{ return no_events_or(ABI_T_ERR_INVALID_HANDLE); }
ANYMPI_MANUAL(MPI_T_event_set_dropped_handler, emulated, "neither MPI has an event, so no event handle exists: every handle is invalid (manual.cpp)")
{ return no_events_or(ABI_T_ERR_INVALID_HANDLE); }

// ---------------------------------------------------------------- tool variables bound to objects
namespace anympi::backend {
namespace {
// MPI_T_{c,p}var_handle_alloc's obj_handle points to a handle of the kind the variable's
// bind names (the call does not say which): the native MPI is given a pointer to the native
// handle of that kind instead.
union native_object {
    MPI_Comm comm;
    MPI_Datatype datatype;
    MPI_Errhandler errhandler;
    MPI_File file;
    MPI_Group group;
    MPI_Op op;
    MPI_Request request;
    MPI_Win win;
    MPI_Message message;
    MPI_Info info;
};
template <class A> void *bound_as(void *obj, native_t<A> &slot)
{
    slot = to_native(*static_cast<A *>(obj));
    return &slot;
}
void *bound_object(int native_bind, void *obj, native_object &o)
{
    if (!obj) return obj;  // the native MPI says what that means
    switch (native_bind) {
    case MPI_T_BIND_MPI_COMM: return bound_as<abi_Comm>(obj, o.comm);
    case MPI_T_BIND_MPI_DATATYPE: return bound_as<abi_Datatype>(obj, o.datatype);
    case MPI_T_BIND_MPI_ERRHANDLER: return bound_as<abi_Errhandler>(obj, o.errhandler);
    case MPI_T_BIND_MPI_FILE: return bound_as<abi_File>(obj, o.file);
    case MPI_T_BIND_MPI_GROUP: return bound_as<abi_Group>(obj, o.group);
    case MPI_T_BIND_MPI_OP: return bound_as<abi_Op>(obj, o.op);
    case MPI_T_BIND_MPI_REQUEST: return bound_as<abi_Request>(obj, o.request);
    case MPI_T_BIND_MPI_WIN: return bound_as<abi_Win>(obj, o.win);
    case MPI_T_BIND_MPI_MESSAGE: return bound_as<abi_Message>(obj, o.message);
    case MPI_T_BIND_MPI_INFO: return bound_as<abi_Info>(obj, o.info);
    default: return obj;  // MPI_T_BIND_NO_OBJECT: not read
    }
}
}  // namespace
}  // namespace anympi::backend

ANYMPI_MANUAL(MPI_T_cvar_handle_alloc, forwarded, "obj_handle points to a handle of the kind the variable's bind (MPI_T_cvar_get_info) names: converted as that kind")
{
    int name_len = 0, desc_len = 0, verbosity = 0, bind = MPI_T_BIND_NO_OBJECT, scope = 0;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    native_object o;
    // An index with no variable: the native MPI answers for it, as natively.
    if (MPI_T_cvar_get_info(cvar_index, nullptr, &name_len, &verbosity, &type, &enumtype, nullptr, &desc_len, &bind,
                            &scope) == MPI_SUCCESS)
        obj_handle = bound_object(bind, obj_handle, o);
    return err_out(MPI_T_cvar_handle_alloc(cvar_index, obj_handle, c_tout(handle), count));
}

ANYMPI_MANUAL(MPI_T_pvar_handle_alloc, forwarded, "obj_handle points to a handle of the kind the variable's bind (MPI_T_pvar_get_info) names: converted as that kind")
{
    int name_len = 0, desc_len = 0, verbosity = 0, var_class = 0, bind = MPI_T_BIND_NO_OBJECT;
    int readonly = 0, continuous = 0, atomic = 0;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    native_object o;
    if (MPI_T_pvar_get_info(pvar_index, nullptr, &name_len, &verbosity, &var_class, &type, &enumtype, nullptr,
                            &desc_len, &bind, &readonly, &continuous, &atomic) == MPI_SUCCESS)
        obj_handle = bound_object(bind, obj_handle, o);
    return err_out(MPI_T_pvar_handle_alloc(c_tin(session), pvar_index, obj_handle, c_tout(handle), count));
}

ANYMPI_MANUAL(MPI_T_enum_get_item, forwarded, "value is the item's int (apis.json gives it the kind of a variable's value)")
{
    return err_out(MPI_T_enum_get_item(c_tin(enumtype), indx, value, name, name_len));
}

// ---------------------------------------------------------------- MPI_T's own start and end
// MPI_T may be started before MPI_Init and ended after MPI_Finalize.  Open MPI 4.1 faults when
// an MPI_T_finalize after MPI_Finalize releases a reference taken while the MPI ran (it closes
// frameworks MPI_Finalize has closed; measured, natively too): there anympi leaves those
// references open -- the process is ending -- and answers MPI_SUCCESS.  A reference taken
// after MPI_Finalize is released as usual.
namespace anympi::backend {
namespace {
std::atomic<int> t_refs_while_running{0};  // references taken before MPI_Finalize, still held
bool native_finalized()
{
    int fin = 0;
    MPI_Finalized(&fin);
    return fin != 0;
}
}  // namespace
}  // namespace anympi::backend

ANYMPI_MANUAL(MPI_T_init_thread, extended, "the references taken before MPI_Finalize are counted: Open MPI 4.1 faults releasing one after it (manual.cpp)")
{
    const int rc = fwd_MPI_T_init_thread(required, provided);
    if (native_t_finalize_faults_after_finalize && rc == 0 && !native_finalized()) ++t_refs_while_running;
    return rc;
}
ANYMPI_MANUAL(MPI_T_finalize, extended, "after MPI_Finalize, a reference taken before it is left open on Open MPI 4.1, which faults releasing it (manual.cpp)")
{
    if (native_t_finalize_faults_after_finalize) {
        const bool after = native_finalized();
        for (int n = t_refs_while_running.load(); n > 0;)
            if (t_refs_while_running.compare_exchange_weak(n, n - 1)) {
                if (after) return 0;
                break;
            }
    }
    return fwd_MPI_T_finalize();
}

ANYMPI_MANUAL(MPI_Comm_set_name, forwarded, "a name longer than the MPI keeps (Open MPI: 63 characters) is kept whole by anympi (manual.cpp)")
{
    return err_out(object_set_name<k_comm>(bits(to_native(comm)), comm_name));
}
ANYMPI_MANUAL(MPI_Comm_get_name, forwarded, "a name longer than the MPI keeps comes back whole (manual.cpp)")
{
    return err_out(object_get_name<k_comm>(bits(to_native(comm)), comm_name, resultlen));
}
ANYMPI_MANUAL(MPI_Win_set_name, forwarded, "a name longer than the MPI keeps (Open MPI: 63 characters) is kept whole by anympi (manual.cpp)")
{
    return err_out(object_set_name<k_win>(bits(to_native(win)), win_name));
}
ANYMPI_MANUAL(MPI_Win_get_name, forwarded, "a name longer than the MPI keeps comes back whole (manual.cpp)")
{
    return err_out(object_get_name<k_win>(bits(to_native(win)), win_name, resultlen));
}
