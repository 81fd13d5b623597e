// Large counts (the _c functions) over an MPI whose form takes int counts: a count past
// INT_MAX becomes one element of a datatype that holds all of it, so the MPI moves every byte
// and matches messages by the same type signature; reductions, whose predefined ops take no
// derived datatype, run in int-sized chunks (large_counts.cpp).
#pragma once

#include "backend.hpp"

#include <vector>

namespace anympi::backend {

// n elements of t as one native datatype (same type map, extent n * extent(t)), or the MPI's
// error code.  Built only past INT_MAX; *made is then the caller's to free.
int large_type(MPI_Count n, MPI_Datatype t, MPI_Datatype *made);

// n copies of t, copy i at byte i * stride: MPI_Type_create_hvector(n, 1, stride, t) while n is
// an int, else the same type map in chunks of 2^30, with that hvector's bounds.  Not committed.
int repeat(MPI_Count n, MPI_Aint stride, MPI_Datatype t, MPI_Datatype *out);

// A datatype a _c constructor made where the MPI has none (large_count_types.cpp): its envelope
// and contents are the _c call's.  Each answers false for any other datatype.
#if ANYMPI_HAVE_MPI_Type_contiguous_c
inline bool made_by_c(MPI_Datatype) { return false; }
inline void made_by_c_copies(MPI_Datatype, const abi_Datatype *, long) {}
inline hout_proxy<abi_Datatype, false> c_hout_built(abi_Datatype *p, const abi_Datatype *, long) { return c_hout(p); }
#else
extern std::atomic<bool> made_by_c_any;  // no lookup until such a type exists
bool made_by_c_find(MPI_Datatype t);
inline bool made_by_c(MPI_Datatype t) { return made_by_c_any.load(std::memory_order_acquire) && made_by_c_find(t); }
bool made_by_c_envelope(MPI_Datatype t, abi_Count *ni, abi_Count *na, abi_Count *nc, abi_Count *nd, int *combiner);
// *rc: 0, or the error raised (arrays too short, a duplicate that failed).
bool made_by_c_contents(MPI_Datatype t, abi_Count max_i, abi_Count max_a, abi_Count max_c, abi_Count max_d, int *ints,
                        abi_Count *counts, abi_Datatype *types, int *rc);
// t was built on the n datatypes from (an int constructor, MPI_Type_dup): the copies of them
// that MPI_Type_get_contents of t hands out (made_by_c_copies, after it) answer their records.
void made_by_c_built(MPI_Datatype t, const abi_Datatype *from, long n);
void made_by_c_copies_of(MPI_Datatype t, const abi_Datatype *types, long n);
inline void made_by_c_copies(MPI_Datatype t, const abi_Datatype *types, long n)
{
    if (made_by_c_any.load(std::memory_order_acquire)) made_by_c_copies_of(t, types, n);
}
struct hout_built_proxy : hout_proxy<abi_Datatype, false> {
    const abi_Datatype *from;
    long nfrom;
    ~hout_built_proxy()
    {
        if (p && made_by_c_any.load(std::memory_order_relaxed) && n != MPI_DATATYPE_NULL) made_by_c_built(n, from, nfrom);
    }
};
inline hout_built_proxy c_hout_built(abi_Datatype *p, const abi_Datatype *from, long n) { return {c_hout(p), from, n}; }
#endif

// The (count, datatype) pairs of one call, as the int form takes them: unchanged while the
// count fits, else 1 of large_type.  The types built are freed when the call returns: the
// MPI keeps what a pending operation still needs (a freed datatype stays alive while used).
struct wide_pairs {
    struct pair { int count; MPI_Datatype type; MPI_Datatype made; };
    pair p[3];
    int n = 0, err = MPI_SUCCESS;
    void add(abi_Count c, MPI_Datatype t);
    wide_pairs(abi_Count c0, MPI_Datatype t0) { add(c0, t0); }
    wide_pairs(abi_Count c0, MPI_Datatype t0, abi_Count c1, MPI_Datatype t1) { add(c0, t0); add(c1, t1); }
    wide_pairs(abi_Count c0, MPI_Datatype t0, abi_Count c1, MPI_Datatype t1, abi_Count c2, MPI_Datatype t2)
    { add(c0, t0); add(c1, t1); add(c2, t2); }
    wide_pairs(const wide_pairs &) = delete;
    wide_pairs &operator=(const wide_pairs &) = delete;
    ~wide_pairs();
    int count(int i) const { return p[i].count; }
    MPI_Datatype type(int i) const { return p[i].type; }
};

// A reduction's count in chunks the int form takes: call(send, recv, n) for each, the buffers
// advanced by the elements done (MPI_IN_PLACE stays itself).  Predefined ops apply element by
// element, so chunks give the same result; the first error ends it.
int chunk_extent(MPI_Datatype t, MPI_Aint *extent);
inline constexpr abi_Count reduce_chunk = abi_Count(1) << 30;
// Where the chunk at element off begins (MPI_IN_PLACE stays itself).
inline void *chunk_at(void *p, abi_Count off, MPI_Aint ext)
{
    if (p == MPI_IN_PLACE) return p;
    return reinterpret_cast<void *>(reinterpret_cast<uintptr_t>(p) + uintptr_t(off * ext));
}
template <class F> int reduce_chunked(void *send, void *recv, abi_Count count, MPI_Datatype t, F call)
{
    if (count <= INT_MAX) return call(send, recv, count < INT_MIN ? -1 : int(count));
    MPI_Aint ext = 0;
    if (int rc = chunk_extent(t, &ext)) return rc;
    auto at = [ext](void *p, abi_Count off) { return chunk_at(p, off, ext); };
    for (abi_Count off = 0; off < count; off += reduce_chunk) {
        const abi_Count n = count - off < reduce_chunk ? count - off : reduce_chunk;
        if (int rc = call(at(send, off), at(recv, off), int(n))) return rc;
    }
    return MPI_SUCCESS;
}

// A nonblocking reduction's count in chunks: within int, the native request itself (*native);
// past it, every chunk's native request started now, all in one request of anympi's (*request,
// requests.hpp) that completes when they all have.
int reduce_chunked_nb(abi_Request *request, void *send, void *recv, abi_Count count, MPI_Datatype t,
                      int (*call)(void *ctx, void *s, void *r, int n, MPI_Request *q), void *ctx);
// One chunk's nonblocking call, its request appended to parts when it starts.
template <class F> int start_chunk(std::vector<MPI_Request> &parts, F call)
{
    MPI_Request q = MPI_REQUEST_NULL;
    int rc = call(&q);
    if (rc == MPI_SUCCESS) parts.push_back(q);
    return rc;
}
// A persistent reduction's MPI_Start through NB, the int form's nonblocking call, in chunks
// (one call while the count fits): ANYMPI_PERSISTENT(name, chunked_nb<NB>{}, ...) with the
// arguments of the _c form, kept at init.
template <auto NB> struct chunked_nb {
    using several_calls = void;  // persistent_init (requests.hpp) hands it the requests
    template <class... Rest>
    int operator()(std::vector<MPI_Request> &parts, void *send, void *recv, abi_Count count, MPI_Datatype t,
                   const Rest &...rest) const
    {
        return reduce_chunked(send, recv, count, t, [&](void *s, void *r, int n) {
            return start_chunk(parts, [&](MPI_Request *q) { return NB(s, r, n, t, rest..., q); });
        });
    }
};

// An in-out MPI_Count position through an int one (MPI_Pack_c, MPI_Unpack_c): read, then
// written back.
struct narrow_io_proxy {
    abi_Count *p;
    int n;
    operator int *() { return p ? &n : nullptr; }
    ~narrow_io_proxy() { if (p) *p = n; }
};
template <class T> inline narrow_io_proxy c_narrow_io(T *p)
{
    static_assert(sizeof(T) == 8);
    auto *q = reinterpret_cast<abi_Count *>(p);
    return {q, q ? int(*q) : 0};
}
template <class T> inline bool c_fits_int_at(const T *p) { return !p || c_fits_int(*p); }

// Where a v/w collective's one MPI_Alltoallw goes: run now, or as a request of anympi's,
// nonblocking or persistent (requests.hpp); errh and fn name the call for its errors.
struct wide_to {
    enum mode_t { blocking, nonblocking, persistent } mode = blocking;
    abi_Request *request = nullptr;
    errh_obj errh{};
    const char *fn = "";
};
// MPI_Alltoallw_c (sendtypes, recvtypes) or MPI_Alltoallv_c (sendtype, recvtype) as one
// MPI_Alltoallw whose per-peer datatypes carry the counts and displacements.
int alltoallw_wide(const void *sendbuf, const abi_Count sendcounts[], const abi_Aint sdispls[],
                   const abi_Datatype sendtypes[], abi_Datatype sendtype, void *recvbuf, const abi_Count recvcounts[],
                   const abi_Aint rdispls[], const abi_Datatype recvtypes[], abi_Datatype recvtype, abi_Comm comm,
                   const wide_to &to = {});

// MPI_Neighbor_allgatherv_c (sendcounts null), _alltoallv_c (sendtypes and recvtypes null)
// or _alltoallw_c (sendtype and recvtype unused) as one MPI_Neighbor_alltoallw.
int neighbour_wide(const void *sendbuf, const abi_Count sendcounts[], abi_Count sendcount, const abi_Aint sdispls[],
                   const abi_Datatype sendtypes[], abi_Datatype sendtype, void *recvbuf, const abi_Count recvcounts[],
                   const abi_Aint rdispls[], const abi_Datatype recvtypes[], abi_Datatype recvtype, abi_Comm comm,
                   const wide_to &to);

// MPI_Get_count_c where the MPI has only the int form (which answers MPI_UNDEFINED past it).
int get_count_wide(const abi_Status *status, abi_Datatype datatype, abi_Count *count);

}  // namespace anympi::backend

// A _c function over the int form, with every (count, datatype) pair widened (wide_pairs);
// fits checks the counts that are not in a pair.
#define ANYMPI_WIDE_IF(name, check, base, obj, fits, pairs, args) \
    ANYMPI_WIDE_BODY(ANYMPI_SIG_##name, name, check, base, obj, fits, pairs, args)
// The same as fwd_name, for a name whose generated function handles some cases first (datarep.hpp).
#define ANYMPI_WIDE_AS(name, base, obj, fits, pairs, args) \
    ANYMPI_WIDE_BODY(ANYMPI_SIG_FWD_##name, name, 0, base, obj, fits, pairs, args)
#define ANYMPI_WIDE_BODY(sig, name, check, base, obj, fits, pairs, args)                          \
    sig                                                                                            \
    {                                                                                              \
        if (const int e_ = (check)) return e_;                                                     \
        if (!(fits))                                                                               \
            return ::anympi::backend::raise_error(obj, ABI_ERR_COUNT,                              \
                                                  #name ": a count exceeds what " #base " of the MPI underneath takes (int)"); \
        ::anympi::backend::wide_pairs w_ pairs;                                                    \
        if (w_.err) return ::anympi::backend::err_out(w_.err);                                     \
        return ::anympi::backend::c_ret(base args);                                                \
    }
#define ANYMPI_WIDE(name, base, obj, fits, pairs, args) ANYMPI_WIDE_IF(name, 0, base, obj, fits, pairs, args)
// A blocking reduction's _c form over the int form in chunks: args name s_, r_ and n_.
#define ANYMPI_CHUNKED_IF(name, check, base, send, recv, count, datatype, args)                   \
    ANYMPI_SIG_##name                                                                              \
    {                                                                                              \
        if (const int e_ = (check)) return e_;                                                     \
        return ::anympi::backend::err_out(::anympi::backend::reduce_chunked(                       \
            ::anympi::backend::c_buf(send), ::anympi::backend::c_buf(recv), count,                 \
            ::anympi::backend::c_hin(datatype), [&](void *s_, void *r_, int n_) { return base args; })); \
    }
#define ANYMPI_CHUNKED(name, base, send, recv, count, datatype, args) \
    ANYMPI_CHUNKED_IF(name, 0, base, send, recv, count, datatype, args)
// Its nonblocking form: args name s_, r_, n_ and the native request q_.
#define ANYMPI_CHUNKED_NB_IF(name, check, base, send, recv, count, datatype, args)                \
    ANYMPI_SIG_##name                                                                              \
    {                                                                                              \
        if (const int e_ = (check)) return e_;                                                     \
        auto call_ = [&](void *s_, void *r_, int n_, MPI_Request *q_) { return base args; };       \
        return ::anympi::backend::reduce_chunked_nb(                                               \
            request, ::anympi::backend::c_buf(send), ::anympi::backend::c_buf(recv), count,        \
            ::anympi::backend::c_hin(datatype),                                                    \
            [](void *c_, void *s_, void *r_, int n_, MPI_Request *q_) {                            \
                return (*static_cast<decltype(call_) *>(c_))(s_, r_, n_, q_);                      \
            },                                                                                     \
            &call_);                                                                               \
    }
#define ANYMPI_CHUNKED_NB(name, base, send, recv, count, datatype, args) \
    ANYMPI_CHUNKED_NB_IF(name, 0, base, send, recv, count, datatype, args)
