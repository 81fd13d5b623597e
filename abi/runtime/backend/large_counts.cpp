// Large counts over an MPI whose forms take int counts (Open MPI 4.1 has no _c function): see
// large_counts.hpp.  The generator writes ANYMPI_WIDE / ANYMPI_CHUNKED for the _c functions
// whose counts come in (count, datatype) pairs; the ones with count and displacement arrays
// are here, each as one MPI_Alltoallw whose per-peer datatypes carry the large counts and
// displacements (its own arrays are int).
#include "large_counts.hpp"
#include "requests.hpp"
#include "emulated_types.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

namespace anympi::backend {

namespace {
// Chunks of 2^30 elements: the largest power of two an int count takes, so the chunk count
// stays an int up to 2^61 elements.
constexpr MPI_Count chunk = MPI_Count(1) << 30;
}  // namespace

int chunk_extent(MPI_Datatype t, MPI_Aint *extent)
{
    MPI_Aint lb = 0;
    return MPI_Type_get_extent(t, &lb, extent);
}

int repeat(MPI_Count n, MPI_Aint stride, MPI_Datatype t, MPI_Datatype *out)
{
    *out = MPI_DATATYPE_NULL;
    if (n <= INT_MAX) return MPI_Type_create_hvector(int(n), 1, stride, t, out);
    MPI_Aint lb = 0, ext = 0;
    int rc = MPI_Type_get_extent(t, &lb, &ext);
    if (rc != MPI_SUCCESS) return rc;
    const MPI_Count q = n / chunk, r = n % chunk;
    MPI_Datatype part = MPI_DATATYPE_NULL, body = MPI_DATATYPE_NULL, rest = MPI_DATATYPE_NULL, all = MPI_DATATYPE_NULL;
    if ((rc = MPI_Type_create_hvector(int(chunk), 1, stride, t, &part)) != MPI_SUCCESS) return rc;
    rc = MPI_Type_create_hvector(int(q), 1, MPI_Aint(chunk) * stride, part, &body);
    MPI_Type_free(&part);
    if (rc != MPI_SUCCESS) return rc;
    if (r == 0) {
        all = body;
    } else {
        if ((rc = MPI_Type_create_hvector(int(r), 1, stride, t, &rest)) != MPI_SUCCESS) {
            MPI_Type_free(&body);
            return rc;
        }
        int lens[2] = {1, 1};
        MPI_Aint disps[2] = {0, MPI_Aint(q * chunk) * stride};
        MPI_Datatype types[2] = {body, rest};
        rc = MPI_Type_create_struct(2, lens, disps, types, &all);
        MPI_Type_free(&body);
        MPI_Type_free(&rest);
        if (rc != MPI_SUCCESS) return rc;
    }
    // A struct may be padded to its members' alignment; the hvector is not.
    const MPI_Aint span = MPI_Aint(n - 1) * stride;
    const MPI_Aint low = lb + (span < 0 ? span : 0), high = lb + ext + (span > 0 ? span : 0);
    rc = MPI_Type_create_resized(all, low, high - low, out);
    MPI_Type_free(&all);
    return rc;
}

int large_type(MPI_Count n, MPI_Datatype t, MPI_Datatype *made)
{
    *made = MPI_DATATYPE_NULL;
    MPI_Aint lb = 0, ext = 0;
    int rc = MPI_Type_get_extent(t, &lb, &ext);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Datatype all = MPI_DATATYPE_NULL;
    if ((rc = repeat(n, ext, t, &all)) != MPI_SUCCESS) return rc;
    // n contiguous elements span n extents whichever way the extent points.  The extent matters
    // where blocks follow one another (a gather's receive buffer).
    const MPI_Aint low = ext >= 0 ? lb : lb + MPI_Aint(n - 1) * ext;
    rc = MPI_Type_create_resized(all, low, MPI_Aint(n) * (ext >= 0 ? ext : -ext), made);
    MPI_Type_free(&all);
    if (rc != MPI_SUCCESS) return rc;
    if ((rc = MPI_Type_commit(made)) != MPI_SUCCESS) MPI_Type_free(made);
    return rc;
}

void wide_pairs::add(abi_Count c, MPI_Datatype t)
{
    pair &q = p[n++];
    q = {c < INT_MIN ? -1 : int(c), t, MPI_DATATYPE_NULL};
    if (c <= INT_MAX || err) return;
    if ((err = large_type(c, t, &q.made)) == MPI_SUCCESS) q = {1, q.made, q.made};
}

wide_pairs::~wide_pairs()
{
    for (int i = 0; i < n; ++i)
        if (p[i].made != MPI_DATATYPE_NULL) MPI_Type_free(&p[i].made);
}

int get_count_wide(const abi_Status *status, abi_Datatype datatype, abi_Count *count)
{
    MPI_Count bytes = 0, size = 0;
    int c = 0;
    // The int form answers MPI_UNDEFINED past INT_MAX; the bytes received do not overflow.
    int rc = MPI_Get_elements_x(c_st_in(status), MPI_BYTE, &bytes);
    if (rc == MPI_SUCCESS && bytes != MPI_UNDEFINED && bytes > INT_MAX)
        rc = MPI_Type_size_x(c_hin(datatype), &size);
    if (rc != MPI_SUCCESS || size <= 0) {
        rc = MPI_Get_count(c_st_in(status), c_hin(datatype), &c);
        if (rc == MPI_SUCCESS && count) *count = c;
        return err_out(rc);
    }
    if (count) *count = bytes % size ? MPI_UNDEFINED : bytes / size;
    return MPI_SUCCESS;
}

namespace {

// MPI_Alltoallw's arrays for a collective with large counts or displacements: one entry per
// peer; one that does not fit int becomes count 1 of a struct holding the byte displacement
// and large_type.  Entries that fit are passed as they are (no datatype made).
struct wide_w {
    std::vector<int> counts, displs;
    std::vector<MPI_Datatype> types, made;
    int err = MPI_SUCCESS;
    // Open MPI 4.1.4's MPI_Alltoallw at one process (coll/self) scales the byte displacements
    // by the datatypes' extents: there every displacement goes into the datatype.
    bool embed;
    explicit wide_w(long n) : counts(size_t(n), 0), displs(size_t(n), 0), types(size_t(n), MPI_BYTE), embed(n == 1) {}
    wide_w(const wide_w &) = delete;
    wide_w &operator=(const wide_w &) = delete;
    ~wide_w()
    {
        for (MPI_Datatype &t : made) MPI_Type_free(&t);
    }
    // Peer i gets n elements of t at byte displacement d.
    void set(long i, MPI_Count n, MPI_Aint d, MPI_Datatype t)
    {
        if (err || n == 0) return;
        if (c_fits_int(n) && c_fits_int(d) && !(embed && d != 0)) {
            counts[size_t(i)] = int(n), displs[size_t(i)] = int(d), types[size_t(i)] = t;
            return;
        }
        // the same block for several peers (an allgatherv's own block) is built once
        if (!made.empty() && last_n == n && last_d == d && last_t == t) {
            counts[size_t(i)] = 1, types[size_t(i)] = made.back();
            return;
        }
        MPI_Datatype big = MPI_DATATYPE_NULL, one = MPI_DATATYPE_NULL;
        int len = int(n);
        if (!c_fits_int(n)) {
            if ((err = large_type(n, t, &big)) != MPI_SUCCESS) return;
            len = 1;
        }
        MPI_Datatype inner = big != MPI_DATATYPE_NULL ? big : t;
        err = MPI_Type_create_struct(1, &len, &d, &inner, &one);
        if (big != MPI_DATATYPE_NULL) MPI_Type_free(&big);
        if (err == MPI_SUCCESS && (err = MPI_Type_commit(&one)) != MPI_SUCCESS) MPI_Type_free(&one);
        if (err != MPI_SUCCESS) return;
        made.push_back(one);
        last_n = n, last_d = d, last_t = t;
        counts[size_t(i)] = 1, types[size_t(i)] = one;
    }
    MPI_Count last_n = 0;
    MPI_Aint last_d = 0;
    MPI_Datatype last_t = MPI_DATATYPE_NULL;
};

struct peers_of {
    MPI_Comm c;
    int inter = 0, me = 0;
    long n = 0;
    int rc;
    explicit peers_of(MPI_Comm c_) : c(c_)
    {
        int s = 0;
        rc = MPI_Comm_test_inter(c, &inter);
        if (rc == MPI_SUCCESS) rc = inter ? MPI_Comm_remote_size(c, &s) : MPI_Comm_size(c, &s);
        if (rc == MPI_SUCCESS) rc = MPI_Comm_rank(c, &me);
        n = s;
    }
};

bool in_place(const void *p) { return p == reinterpret_cast<const void *>(ABI_IN_PLACE); }

// The one MPI_Alltoallw of a v/w collective: its buffers and per-peer arrays.
struct wide_plan {
    MPI_Comm c;
    void *s = nullptr, *r = nullptr;
    std::unique_ptr<wide_w> sw, rw;
    bool send_as_recv = false;    // alltoall in place: each peer's data comes from where its receive goes
    bool keep_types;              // persistent: the program may free its datatypes after init
    std::vector<type_kept> kept;
    wide_plan(MPI_Comm c_, long n, bool keep)
        : c(c_), sw(std::make_unique<wide_w>(n)), rw(std::make_unique<wide_w>(n)), keep_types(keep) {}
    MPI_Datatype type(abi_Datatype t)
    {
        if (keep_types) kept.emplace_back(t);
        return c_hin(t);
    }
    const wide_w &send() const { return send_as_recv ? *rw : *sw; }
    int err() const { return sw->err ? sw->err : rw->err; }
    int run() const
    {
        const wide_w &w = send();
        return MPI_Alltoallw(s, w.counts.data(), w.displs.data(), w.types.data(), r, rw->counts.data(),
                             rw->displs.data(), rw->types.data(), c);
    }
    int start(MPI_Request *q) const
    {
        const wide_w &w = send();
        return MPI_Ialltoallw(s, w.counts.data(), w.displs.data(), w.types.data(), r, rw->counts.data(),
                              rw->displs.data(), rw->types.data(), c, q);
    }
};

// Runs the plan (blocking), starts it as a request of anympi's that keeps its arrays until it
// completes (nonblocking), or makes a persistent request of anympi's that starts it each time.
template <class Plan> int go(std::unique_ptr<Plan> p, const wide_to &to)
{
    if (int e = p->err()) return err_out(e);
    if (to.mode == wide_to::blocking) return err_out(p->run());
    if (!to.request) {
        char msg[160];
        std::snprintf(msg, sizeof msg, "%s: request is NULL", to.fn);
        return raise_error(to.errh, ABI_ERR_ARG, msg);
    }
    std::shared_ptr<const Plan> sp(std::move(p));
    auto start = [sp](MPI_Request *q) { return sp->start(q); };
    return to.mode == wide_to::persistent ? persistent_from(to.request, to.errh, to.fn, true, std::move(start))
                         : nonblocking_from(to.request, std::move(start));
}

}  // namespace

// Which rank receives in a rooted collective (intracommunicator: root; intercommunicator:
// the one given MPI_ROOT), and to whom the others send (root; nobody for MPI_PROC_NULL).
int gatherv_wide(const void *sendbuf, abi_Count sendcount, abi_Datatype sendtype, void *recvbuf,
                 const abi_Count recvcounts[], const abi_Aint displs[], abi_Datatype recvtype, int root, abi_Comm comm,
                 const wide_to &to = {})
{
    peers_of p(to_native(comm));
    if (p.rc) return err_out(p.rc);
    const int r = c_rank_in(root);
    const bool is_root = p.inter ? r == MPI_ROOT : r == p.me;
    const bool own = !p.inter && is_root && in_place(sendbuf);  // the root's block is in place
    auto plan = std::make_unique<wide_plan>(p.c, p.n, to.mode == wide_to::persistent);
    if (!own && r >= 0) plan->sw->set(r, sendcount, 0, plan->type(sendtype));
    if (is_root) {
        MPI_Aint ext = 0;
        const MPI_Datatype t = plan->type(recvtype);
        if (int rc = chunk_extent(t, &ext)) return err_out(rc);
        for (long i = 0; i < p.n; ++i)
            if (!(own && i == p.me)) plan->rw->set(i, recvcounts[i], MPI_Aint(displs[i]) * ext, t);
    }
    plan->s = in_place(sendbuf) ? recvbuf : c_buf(sendbuf), plan->r = recvbuf;
    return go(std::move(plan), to);
}

int scatterv_wide(const void *sendbuf, const abi_Count sendcounts[], const abi_Aint displs[], abi_Datatype sendtype,
                  void *recvbuf, abi_Count recvcount, abi_Datatype recvtype, int root, abi_Comm comm,
                  const wide_to &to = {})
{
    peers_of p(to_native(comm));
    if (p.rc) return err_out(p.rc);
    const int r = c_rank_in(root);
    const bool is_root = p.inter ? r == MPI_ROOT : r == p.me;
    const bool own = !p.inter && is_root && in_place(recvbuf);
    auto plan = std::make_unique<wide_plan>(p.c, p.n, to.mode == wide_to::persistent);
    if (is_root) {
        MPI_Aint ext = 0;
        const MPI_Datatype t = plan->type(sendtype);
        if (int rc = chunk_extent(t, &ext)) return err_out(rc);
        for (long i = 0; i < p.n; ++i)
            if (!(own && i == p.me)) plan->sw->set(i, sendcounts[i], MPI_Aint(displs[i]) * ext, t);
    }
    if (!own && r >= 0) plan->rw->set(r, recvcount, 0, plan->type(recvtype));
    plan->s = const_cast<void *>(sendbuf), plan->r = own ? plan->s : recvbuf;
    return go(std::move(plan), to);
}

int allgatherv_wide(const void *sendbuf, abi_Count sendcount, abi_Datatype sendtype, void *recvbuf,
                    const abi_Count recvcounts[], const abi_Aint displs[], abi_Datatype recvtype, abi_Comm comm,
                    const wide_to &to = {})
{
    peers_of p(to_native(comm));
    if (p.rc) return err_out(p.rc);
    const bool own = !p.inter && in_place(sendbuf);
    auto plan = std::make_unique<wide_plan>(p.c, p.n, to.mode == wide_to::persistent);
    const MPI_Datatype rt = plan->type(recvtype), st = own ? rt : plan->type(sendtype);
    MPI_Aint ext = 0;
    if (int rc = chunk_extent(rt, &ext)) return err_out(rc);
    for (long i = 0; i < p.n; ++i) {
        if (!own) plan->sw->set(i, sendcount, 0, st);
        else if (i != p.me) plan->sw->set(i, recvcounts[p.me], MPI_Aint(displs[p.me]) * ext, rt);
        if (!(own && i == p.me)) plan->rw->set(i, recvcounts[i], MPI_Aint(displs[i]) * ext, rt);
    }
    plan->s = own ? recvbuf : c_buf(sendbuf), plan->r = recvbuf;
    return go(std::move(plan), to);
}

// sendtypes/recvtypes: one per peer (alltoallw) or null for the one type of alltoallv, whose
// displacements count its extents rather than bytes.
int alltoallw_wide(const void *sendbuf, const abi_Count sendcounts[], const abi_Aint sdispls[],
                   const abi_Datatype sendtypes[], abi_Datatype sendtype, void *recvbuf, const abi_Count recvcounts[],
                   const abi_Aint rdispls[], const abi_Datatype recvtypes[], abi_Datatype recvtype, abi_Comm comm,
                   const wide_to &to)
{
    peers_of p(to_native(comm));
    if (p.rc) return err_out(p.rc);
    const bool own = in_place(sendbuf);
    auto plan = std::make_unique<wide_plan>(p.c, p.n, to.mode == wide_to::persistent);
    MPI_Aint sext = 1, rext = 1;
    MPI_Datatype rt = MPI_DATATYPE_NULL, st = MPI_DATATYPE_NULL;
    if (!recvtypes) {
        rt = plan->type(recvtype);
        if (int rc = chunk_extent(rt, &rext)) return err_out(rc);
        if (!own) {
            st = plan->type(sendtype);
            if (int rc = chunk_extent(st, &sext)) return err_out(rc);
        }
    }
    for (long i = 0; i < p.n; ++i) {
        plan->rw->set(i, recvcounts[i], MPI_Aint(rdispls[i]) * rext, recvtypes ? plan->type(recvtypes[i]) : rt);
        if (!own) plan->sw->set(i, sendcounts[i], MPI_Aint(sdispls[i]) * sext, sendtypes ? plan->type(sendtypes[i]) : st);
    }
    // in place, the MPI takes each peer's data from where that peer's receive goes
    plan->s = own ? MPI_IN_PLACE : c_buf(sendbuf), plan->r = recvbuf, plan->send_as_recv = own;
    return go(std::move(plan), to);
}

}  // namespace anympi::backend

using namespace anympi::backend;

ANYMPI_MANUAL(MPI_Get_count_c, fallback, "where the _c form is missing: bytes received (MPI_Get_elements_x on MPI_BYTE) over the datatype's size, past what MPI_Get_count's int holds")
{
    if (int e = c_status_given("MPI_Get_count_c", status)) return e;
#if ANYMPI_HAVE_MPI_Get_count_c
    return err_out(MPI_Get_count_c(c_st_in(status), c_hin(datatype), c_i64p(count)));
#else
    return get_count_wide(status, datatype, count);
#endif
}

// Open MPI 4.1 computes a packed size as the count times the packed size of one element (its
// convertor's local size, or remote size for external32) and casts it to int: past INT_MAX the
// int form answers a wrapped number.  Past int, anympi multiplies as Open MPI does, in MPI_Count,
// after the int form with one element has checked the arguments.
namespace anympi::backend {
namespace {
int times_count(MPI_Count one, abi_Count incount, abi_Count *size, errh_obj errh, const char *fn)
{
    if (incount < 0 || (one > 0 && incount > std::numeric_limits<MPI_Count>::max() / one)) {
        char msg[160];
        std::snprintf(msg, sizeof msg, "%s: incount %lld is negative or its packed size exceeds MPI_Count", fn, (long long)incount);
        return raise_error(errh, ABI_ERR_COUNT, msg);
    }
    if (size) *size = one * incount;
    return MPI_SUCCESS;
}
}  // namespace
}  // namespace anympi::backend

ANYMPI_MANUAL(MPI_Pack_size_c, fallback, "where the _c form is missing: MPI_Pack_size while the size fits in int, else the datatype's size (MPI_Type_size_x) times incount, as Open MPI computes it (large_counts.cpp)")
{
#if ANYMPI_HAVE_MPI_Pack_size_c
    return err_out(MPI_Pack_size_c(incount, c_hin(datatype), c_hin(comm), c_i64p(size)));
#else
    int one = 0;
    MPI_Count bytes = 0;
    if (int rc = MPI_Pack_size(1, c_hin(datatype), c_hin(comm), &one)) return err_out(rc);
    if (int rc = MPI_Type_size_x(c_hin(datatype), &bytes)) return err_out(rc);
    if (incount >= 0 && incount <= INT_MAX && (incount == 0 || bytes <= INT_MAX / incount)) {
        int n = 0;
        int rc = MPI_Pack_size(int(incount), c_hin(datatype), c_hin(comm), &n);
        if (rc == MPI_SUCCESS && size) *size = n;
        return err_out(rc);
    }
    return times_count(bytes, incount, size, errh_of(comm), "MPI_Pack_size_c");
#endif
}

ANYMPI_MANUAL(MPI_Pack_external_size_c, fallback, "where the _c form is missing: MPI_Pack_external_size while incount fits in int, else the size of one element times incount, as Open MPI computes it (large_counts.cpp)")
{
#if ANYMPI_HAVE_MPI_Pack_external_size_c
    return err_out(MPI_Pack_external_size_c(datarep, incount, c_hin(datatype), c_i64p(size)));
#else
    MPI_Aint one = 0;
    if (c_fits_int(incount)) return err_out(MPI_Pack_external_size(datarep, int(incount), c_hin(datatype), c_i64p(size)));
    if (int rc = MPI_Pack_external_size(datarep, 1, c_hin(datatype), &one)) return err_out(rc);
    return times_count(one, incount, size, errh_none(), "MPI_Pack_external_size_c");
#endif
}

ANYMPI_MANUAL(MPI_Gatherv_c, fallback, "where the _c form is missing: one MPI_Alltoallw whose per-peer datatypes hold counts and displacements past int (large_counts.cpp)")
{
    if (const int e = c_in_place_root("MPI_Gatherv_c", "sendbuf", sendbuf, root, comm)) return e;
#if ANYMPI_HAVE_MPI_Gatherv_c
    return err_out(MPI_Gatherv_c(c_buf(sendbuf), sendcount, c_hin(sendtype), c_buf(recvbuf), c_i64p(recvcounts), c_i64p(displs),
                                 c_hin(recvtype), c_rank_in(root), c_hin(comm)));
#else
    return gatherv_wide(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
#endif
}

ANYMPI_MANUAL(MPI_Scatterv_c, fallback, "where the _c form is missing: one MPI_Alltoallw whose per-peer datatypes hold counts and displacements past int (large_counts.cpp)")
{
    if (const int e = c_in_place_root("MPI_Scatterv_c", "recvbuf", recvbuf, root, comm)) return e;
#if ANYMPI_HAVE_MPI_Scatterv_c
    return err_out(MPI_Scatterv_c(c_buf(sendbuf), c_i64p(sendcounts), c_i64p(displs), c_hin(sendtype), c_buf(recvbuf), recvcount,
                                  c_hin(recvtype), c_rank_in(root), c_hin(comm)));
#else
    return scatterv_wide(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
#endif
}

ANYMPI_MANUAL(MPI_Allgatherv_c, fallback, "where the _c form is missing: one MPI_Alltoallw whose per-peer datatypes hold counts and displacements past int (large_counts.cpp)")
{
#if ANYMPI_HAVE_MPI_Allgatherv_c
    return err_out(MPI_Allgatherv_c(c_buf(sendbuf), sendcount, c_hin(sendtype), c_buf(recvbuf), c_i64p(recvcounts), c_i64p(displs),
                                    c_hin(recvtype), c_hin(comm)));
#else
    return allgatherv_wide(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
#endif
}

ANYMPI_MANUAL(MPI_Alltoallv_c, fallback, "where the _c form is missing: one MPI_Alltoallw whose per-peer datatypes hold counts and displacements past int (large_counts.cpp)")
{
#if ANYMPI_HAVE_MPI_Alltoallv_c
    return err_out(MPI_Alltoallv_c(c_buf(sendbuf), c_i64p(sendcounts), c_i64p(sdispls), c_hin(sendtype), c_buf(recvbuf),
                                   c_i64p(recvcounts), c_i64p(rdispls), c_hin(recvtype), c_hin(comm)));
#else
    return alltoallw_wide(sendbuf, sendcounts, sdispls, nullptr, sendtype, recvbuf, recvcounts, rdispls, nullptr, recvtype, comm);
#endif
}

// ---------------------------------------------------------------- nonblocking and persistent v forms
// Where the MPI lacks the _c form, the same one MPI_Alltoallw as the blocking form, started
// as a request of anympi's (requests.hpp) that keeps its arrays (and, persistent, the
// program's datatypes) until it completes or is freed.
#define ANYMPI_WIDE_NB(fn, comm) wide_to{wide_to::nonblocking, request, errh_of(comm), fn}
#define ANYMPI_WIDE_INIT(fn, comm) wide_to{wide_to::persistent, request, o_, fn}  // o_: ANYMPI_COLL_COMM

ANYMPI_MANUAL(MPI_Igatherv_c, fallback, "where the _c form is missing: a request of anympi's over one MPI_Ialltoallw whose per-peer datatypes hold counts and displacements past int (large_counts.cpp)")
{
    if (const int e = c_in_place_root("MPI_Igatherv_c", "sendbuf", sendbuf, root, comm)) return e;
#if ANYMPI_HAVE_MPI_Igatherv_c
    return err_out(MPI_Igatherv_c(c_buf(sendbuf), sendcount, c_hin(sendtype), c_buf(recvbuf), c_i64p(recvcounts), c_i64p(displs),
                                  c_hin(recvtype), c_rank_in(root), c_hin(comm), c_hout(request)));
#else
    return gatherv_wide(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                        ANYMPI_WIDE_NB("MPI_Igatherv_c", comm));
#endif
}

ANYMPI_MANUAL(MPI_Iscatterv_c, fallback, "where the _c form is missing: a request of anympi's over one MPI_Ialltoallw whose per-peer datatypes hold counts and displacements past int (large_counts.cpp)")
{
    if (const int e = c_in_place_root("MPI_Iscatterv_c", "recvbuf", recvbuf, root, comm)) return e;
#if ANYMPI_HAVE_MPI_Iscatterv_c
    return err_out(MPI_Iscatterv_c(c_buf(sendbuf), c_i64p(sendcounts), c_i64p(displs), c_hin(sendtype), c_buf(recvbuf), recvcount,
                                   c_hin(recvtype), c_rank_in(root), c_hin(comm), c_hout(request)));
#else
    return scatterv_wide(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                         ANYMPI_WIDE_NB("MPI_Iscatterv_c", comm));
#endif
}

ANYMPI_MANUAL(MPI_Iallgatherv_c, fallback, "where the _c form is missing: a request of anympi's over one MPI_Ialltoallw whose per-peer datatypes hold counts and displacements past int (large_counts.cpp)")
{
#if ANYMPI_HAVE_MPI_Iallgatherv_c
    return err_out(MPI_Iallgatherv_c(c_buf(sendbuf), sendcount, c_hin(sendtype), c_buf(recvbuf), c_i64p(recvcounts),
                                     c_i64p(displs), c_hin(recvtype), c_hin(comm), c_hout(request)));
#else
    return allgatherv_wide(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                           ANYMPI_WIDE_NB("MPI_Iallgatherv_c", comm));
#endif
}

ANYMPI_MANUAL(MPI_Ialltoallv_c, fallback, "where the _c form is missing: a request of anympi's over one MPI_Ialltoallw whose per-peer datatypes hold counts and displacements past int (large_counts.cpp)")
{
#if ANYMPI_HAVE_MPI_Ialltoallv_c
    return err_out(MPI_Ialltoallv_c(c_buf(sendbuf), c_i64p(sendcounts), c_i64p(sdispls), c_hin(sendtype), c_buf(recvbuf),
                                    c_i64p(recvcounts), c_i64p(rdispls), c_hin(recvtype), c_hin(comm), c_hout(request)));
#else
    return alltoallw_wide(sendbuf, sendcounts, sdispls, nullptr, sendtype, recvbuf, recvcounts, rdispls, nullptr, recvtype,
                          comm, ANYMPI_WIDE_NB("MPI_Ialltoallv_c", comm));
#endif
}

// The persistent ones: over the MPI's nonblocking _c form where it has one (MPICH, whose own
// persistent collectives are defective: DEFECTS in the generator), else the wide route.
ANYMPI_MANUAL(MPI_Gatherv_init_c, fallback, "anympi's persistent request: MPI_Start starts MPI_Igatherv_c, or where that is missing one MPI_Ialltoallw whose per-peer datatypes hold counts and displacements past int (large_counts.cpp)")
{
    (void)info;  // hints only
    if (const int e = init_checks("MPI_Gatherv_init_c", comm).root(root).in_place_root(sendbuf, "sendbuf", root)) return e;
    ANYMPI_COLL_COMM
#if ANYMPI_HAVE_MPI_Igatherv_c
    return persistent_init(request, o_, "MPI_Gatherv_init_c", true, MPI_Igatherv_c, c_buf(sendbuf), sendcount,
                           c_type_kept(sendtype), c_buf(recvbuf), c_i64p(recvcounts), c_i64p(displs), c_type_kept(recvtype),
                           c_rank_in(root), c_hin(comm));
#else
    return gatherv_wide(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                        ANYMPI_WIDE_INIT("MPI_Gatherv_init_c", comm));
#endif
}

ANYMPI_MANUAL(MPI_Scatterv_init_c, fallback, "anympi's persistent request: MPI_Start starts MPI_Iscatterv_c, or where that is missing one MPI_Ialltoallw whose per-peer datatypes hold counts and displacements past int (large_counts.cpp)")
{
    (void)info;
    if (const int e = init_checks("MPI_Scatterv_init_c", comm).root(root).in_place_root(recvbuf, "recvbuf", root)) return e;
    ANYMPI_COLL_COMM
#if ANYMPI_HAVE_MPI_Iscatterv_c
    return persistent_init(request, o_, "MPI_Scatterv_init_c", true, MPI_Iscatterv_c, c_buf(sendbuf),
                           c_i64p(sendcounts), c_i64p(displs), c_type_kept(sendtype), c_buf(recvbuf), recvcount,
                           c_type_kept(recvtype), c_rank_in(root), c_hin(comm));
#else
    return scatterv_wide(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                         ANYMPI_WIDE_INIT("MPI_Scatterv_init_c", comm));
#endif
}

ANYMPI_MANUAL(MPI_Allgatherv_init_c, fallback, "anympi's persistent request: MPI_Start starts MPI_Iallgatherv_c, or where that is missing one MPI_Ialltoallw whose per-peer datatypes hold counts and displacements past int (large_counts.cpp)")
{
    (void)info;
    ANYMPI_COLL_COMM
#if ANYMPI_HAVE_MPI_Iallgatherv_c
    return persistent_init(request, o_, "MPI_Allgatherv_init_c", true, MPI_Iallgatherv_c, c_buf(sendbuf),
                           sendcount, c_type_kept(sendtype), c_buf(recvbuf), c_i64p(recvcounts), c_i64p(displs),
                           c_type_kept(recvtype), c_hin(comm));
#else
    return allgatherv_wide(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                           ANYMPI_WIDE_INIT("MPI_Allgatherv_init_c", comm));
#endif
}

ANYMPI_MANUAL(MPI_Alltoallv_init_c, fallback, "anympi's persistent request: MPI_Start starts MPI_Ialltoallv_c, or where that is missing one MPI_Ialltoallw whose per-peer datatypes hold counts and displacements past int (large_counts.cpp)")
{
    (void)info;
    ANYMPI_COLL_COMM
#if ANYMPI_HAVE_MPI_Ialltoallv_c
    return persistent_init(request, o_, "MPI_Alltoallv_init_c", true, MPI_Ialltoallv_c, c_buf(sendbuf),
                           c_i64p(sendcounts), c_i64p(sdispls), c_type_kept(sendtype), c_buf(recvbuf), c_i64p(recvcounts),
                           c_i64p(rdispls), c_type_kept(recvtype), c_hin(comm));
#else
    return alltoallw_wide(sendbuf, sendcounts, sdispls, nullptr, sendtype, recvbuf, recvcounts, rdispls, nullptr, recvtype,
                          comm, ANYMPI_WIDE_INIT("MPI_Alltoallv_init_c", comm));
#endif
}

// ---------------------------------------------------------------- neighbourhood v/w forms
// Where the MPI lacks the _c form: one MPI_(I)Neighbor_alltoallw (whose displacements are
// MPI_Aint already) with a count past INT_MAX as 1 of large_type, per neighbour.
namespace anympi::backend {
namespace {
struct neighbour_w {
    std::vector<int> counts;
    std::vector<MPI_Aint> displs;
    std::vector<MPI_Datatype> types, made;
    int err = MPI_SUCCESS;
    explicit neighbour_w(int n) : counts(size_t(n), 0), displs(size_t(n), 0), types(size_t(n), MPI_BYTE) {}
    neighbour_w(const neighbour_w &) = delete;
    neighbour_w &operator=(const neighbour_w &) = delete;
    ~neighbour_w()
    {
        for (MPI_Datatype &t : made) MPI_Type_free(&t);
    }
    void set(int i, MPI_Count n, MPI_Aint d, MPI_Datatype t)
    {
        displs[size_t(i)] = d, types[size_t(i)] = t, counts[size_t(i)] = n < 0 ? -1 : int(n);
        if (err || n <= INT_MAX) return;
        MPI_Datatype big = MPI_DATATYPE_NULL;
        if ((err = large_type(n, t, &big)) != MPI_SUCCESS) return;
        made.push_back(big);
        counts[size_t(i)] = 1, types[size_t(i)] = big;
    }
};

struct neighbour_plan {
    MPI_Comm c;
    const void *s = nullptr;
    void *r = nullptr;
    std::unique_ptr<neighbour_w> sw, rw;
    bool keep_types;
    std::vector<type_kept> kept;
    neighbour_plan(MPI_Comm c_, int in, int out, bool keep)
        : c(c_), sw(std::make_unique<neighbour_w>(out)), rw(std::make_unique<neighbour_w>(in)), keep_types(keep) {}
    MPI_Datatype type(abi_Datatype t)
    {
        if (keep_types) kept.emplace_back(t);
        return c_hin(t);
    }
    int err() const { return sw->err ? sw->err : rw->err; }
    int run() const
    {
        return MPI_Neighbor_alltoallw(s, sw->counts.data(), sw->displs.data(), sw->types.data(), r, rw->counts.data(),
                                      rw->displs.data(), rw->types.data(), c);
    }
    int start(MPI_Request *q) const
    {
        return MPI_Ineighbor_alltoallw(s, sw->counts.data(), sw->displs.data(), sw->types.data(), r,
                                       rw->counts.data(), rw->displs.data(), rw->types.data(), c, q);
    }
};
}  // namespace

// Neighbor_allgatherv (sendcounts null: sendcount to every out-neighbour), _alltoallv (one
// type each side, displacements in its extents) or _alltoallw (types per neighbour,
// displacements in bytes).
int neighbour_wide(const void *sendbuf, const abi_Count sendcounts[], abi_Count sendcount, const abi_Aint sdispls[],
                   const abi_Datatype sendtypes[], abi_Datatype sendtype, void *recvbuf, const abi_Count recvcounts[],
                   const abi_Aint rdispls[], const abi_Datatype recvtypes[], abi_Datatype recvtype, abi_Comm comm,
                   const wide_to &to)
{
    const MPI_Comm c = to_native(comm);
    int in = 0, out = 0;
    if (int rc = neighbor_counts(c, &in, &out)) return err_out(rc);
    auto plan = std::make_unique<neighbour_plan>(c, in, out, to.mode == wide_to::persistent);
    MPI_Aint sext = 1, rext = 1;
    const MPI_Datatype st = sendtypes ? MPI_DATATYPE_NULL : plan->type(sendtype);
    const MPI_Datatype rt = recvtypes ? MPI_DATATYPE_NULL : plan->type(recvtype);
    if (!sendtypes && sdispls)
        if (int rc = chunk_extent(st, &sext)) return err_out(rc);
    if (!recvtypes)
        if (int rc = chunk_extent(rt, &rext)) return err_out(rc);
    for (int i = 0; i < out; ++i)
        plan->sw->set(i, sendcounts ? sendcounts[i] : sendcount, sdispls ? MPI_Aint(sdispls[i]) * sext : 0,
                      sendtypes ? plan->type(sendtypes[i]) : st);
    for (int i = 0; i < in; ++i)
        plan->rw->set(i, recvcounts[i], MPI_Aint(rdispls[i]) * rext, recvtypes ? plan->type(recvtypes[i]) : rt);
    plan->s = c_buf(sendbuf), plan->r = recvbuf;
    return go(std::move(plan), to);
}

// ---------------------------------------------------------------- reduce_scatter
}  // namespace anympi::backend
ANYMPI_SIG_MPI_Reduce_c;  // anympi's, in chunks where the MPI lacks it (backend.gen.cpp)
namespace anympi::backend {
namespace {
// Predefined ops take no derived datatype, so the counts go to the int form while each fits
// (the nonblocking and persistent forms keep the int array).  One with a count past INT_MAX is
// one reduction per process, to it, of its block, in chunks of 2^30 elements: the same op per
// element.  In place, process i reduces its block where it lies and then moves the result to
// the start of its buffer, after every block has been reduced (the blocks after its own still
// serve the later roots).  On an intercommunicator a count past INT_MAX is refused (its reduce
// has no such roots).

// Moves `count` elements of `datatype` from `base + offset` down to `base` (offset: one extent
// or more) in chunks through a bounce buffer (MPI_Pack, MPI_Unpack: a datatype's holes stay
// untouched), each chunk no longer than the offset, so it never lands on elements still to be read.
int copy_down(char *base, MPI_Aint offset, abi_Count count, MPI_Datatype t)
{
    MPI_Aint lb = 0, extent = 0;
    MPI_Count size = 0;
    if (int rc = MPI_Type_get_extent(t, &lb, &extent)) return err_out(rc);
    if (int rc = MPI_Type_size_x(t, &size)) return err_out(rc);
    const abi_Count per = std::max<abi_Count>(1, std::min<abi_Count>(offset / extent, (abi_Count(1) << 26) / std::max<MPI_Count>(size, 1)));
    std::vector<char> bounce(size_t(std::min(per, count) * size));
    for (abi_Count k = 0; k < count; k += per) {
        const int m = int(std::min(per, count - k));
        int pos = 0;
        if (int rc = MPI_Pack(base + offset + k * extent, m, t, bounce.data(), int(bounce.size()), &pos, MPI_COMM_SELF)) return err_out(rc);
        pos = 0;
        if (int rc = MPI_Unpack(bounce.data(), int(bounce.size()), &pos, base + k * extent, m, t, MPI_COMM_SELF)) return err_out(rc);
    }
    return MPI_SUCCESS;
}

int reduce_scatter_by_roots(const void *sendbuf, void *recvbuf, const abi_Count recvcounts[], abi_Datatype datatype,
                            abi_Op op, abi_Comm comm)
{
    const MPI_Comm c = to_native(comm);
    int n = 0, rank = 0;
    if (int rc = MPI_Comm_size(c, &n)) return err_out(rc);
    if (int rc = MPI_Comm_rank(c, &rank)) return err_out(rc);
    MPI_Aint lb = 0, extent = 0;
    if (int rc = MPI_Type_get_extent(c_hin(datatype), &lb, &extent)) return err_out(rc);
    const bool in_place = sendbuf == reinterpret_cast<const void *>(ABI_IN_PLACE);
    auto at = [&](const void *base, abi_Count i) { return static_cast<const char *>(base) + i * extent; };
    abi_Count first = 0, mine = 0;
    for (int i = 0; i < n; ++i) {
        const void *s = in_place ? (i == rank ? sendbuf : at(recvbuf, first)) : at(sendbuf, first);
        void *r = i != rank ? nullptr : const_cast<char *>(in_place ? at(recvbuf, first) : at(recvbuf, 0));
        if (i == rank) mine = first;
        if (int rc = abi_MPI_Reduce_c(s, r, recvcounts[i], datatype, op, i, comm)) return rc;
        first += recvcounts[i];
    }
    if (!in_place || mine == 0 || recvcounts[rank] == 0) return MPI_SUCCESS;
    return copy_down(static_cast<char *>(recvbuf), mine * extent, recvcounts[rank], c_hin(datatype));
}

// The nonblocking and persistent forms of the same: every root's reduction started at once,
// each in int-sized chunks (every process starts them alike, so they match in order); in place,
// the move once they have all completed (finish: persistent_collective, requests.hpp).  T and O
// are the native datatype and op, or for a persistent request the ones it keeps.
template <class T, class O> struct reduce_scatter_roots {
    std::shared_ptr<const std::vector<abi_Count>> counts;
    const void *send;  // the program's: ABI_IN_PLACE or a buffer
    void *recv;
    T t;
    O o;
    MPI_Comm c;
    int rank;
    MPI_Aint extent;
    bool in_place() const { return send == reinterpret_cast<const void *>(ABI_IN_PLACE); }
    abi_Count mine() const
    {
        abi_Count first = 0;
        for (int i = 0; i < rank; ++i) first += (*counts)[size_t(i)];
        return first;
    }
    int operator()(std::vector<MPI_Request> &parts)
    {
        const MPI_Datatype nt = t;
        const MPI_Op no = o;
        char *const blocks = static_cast<char *>(in_place() ? recv : const_cast<void *>(send));
        abi_Count first = 0;
        for (int i = 0; i < int(counts->size()); ++i) {
            char *const block = blocks + first * extent;
            void *const s = in_place() && i == rank ? MPI_IN_PLACE : block;
            void *const r = i != rank ? nullptr : in_place() ? block : recv;
            const int rc = reduce_chunked(s, r, (*counts)[size_t(i)], nt, [&](void *cs, void *cr, int cn) {
                return start_chunk(parts, [&](MPI_Request *q) { return MPI_Ireduce(cs, cr, cn, nt, no, i, c, q); });
            });
            if (rc != MPI_SUCCESS) return rc;
            first += (*counts)[size_t(i)];
        }
        return MPI_SUCCESS;
    }
    int finish()
    {
        const abi_Count at = mine();
        if (!in_place() || at == 0 || (*counts)[size_t(rank)] == 0) return MPI_SUCCESS;
        return copy_down(static_cast<char *>(recv), at * extent, (*counts)[size_t(rank)], t);
    }
};
}  // namespace

int reduce_scatter_narrow(const void *sendbuf, void *recvbuf, const abi_Count recvcounts[], abi_Datatype datatype,
                          abi_Op op, abi_Comm comm, const wide_to &to)
{
    const MPI_Comm c = to_native(comm);
    int n = 0;
    if (int rc = MPI_Comm_size(c, &n)) return err_out(rc);
    auto counts = std::make_shared<std::vector<int>>(size_t(n));
    bool fits = true;
    auto intra = [c] {
        int inter = 1;
        MPI_Comm_test_inter(c, &inter);
        return !inter;
    };
    for (int i = 0; i < n; ++i) {
        if (!c_fits_int(recvcounts[i]) && (!fits || intra())) {
            fits = false;
            continue;
        }
        if (!c_fits_int(recvcounts[i])) {
            char msg[200];
            std::snprintf(msg, sizeof msg, "%s: recvcounts[%d] exceeds what MPI_Reduce_scatter of the MPI underneath takes (int)",
                          to.fn, i);
            return raise_error(errh_of(comm), ABI_ERR_COUNT, msg);
        }
        (*counts)[size_t(i)] = int(recvcounts[i]);
    }
    void *s = c_buf(sendbuf);
    if (to.mode == wide_to::blocking && !fits)
        return reduce_scatter_by_roots(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    if (to.mode == wide_to::blocking)
        return err_out(MPI_Reduce_scatter(s, recvbuf, counts->data(), c_hin(datatype), c_op_in(op, datatype), c));
    if (!to.request) {
        char msg[160];
        std::snprintf(msg, sizeof msg, "%s: request is NULL", to.fn);
        return raise_error(to.errh, ABI_ERR_ARG, msg);
    }
    if (!fits) {
        int rank = 0;
        MPI_Aint lb = 0, extent = 0;
        if (int rc = MPI_Comm_rank(c, &rank)) return err_out(rc);
        if (int rc = MPI_Type_get_extent(c_hin(datatype), &lb, &extent)) return err_out(rc);
        auto wide = std::make_shared<const std::vector<abi_Count>>(recvcounts, recvcounts + n);
        if (to.mode == wide_to::nonblocking)
            return nonblocking_from(to.request, reduce_scatter_roots<MPI_Datatype, MPI_Op>{
                                                    wide, sendbuf, recvbuf, c_hin(datatype), c_op_in(op, datatype), c, rank, extent});
        return persistent_from(to.request, to.errh, to.fn, true,
                               reduce_scatter_roots<type_kept, op_kept>{wide, sendbuf, recvbuf, c_type_kept(datatype),
                                                                        c_op_kept(op, datatype), c, rank, extent});
    }
    if (to.mode == wide_to::nonblocking)
        return nonblocking_from(to.request, [counts, s, recvbuf, t = c_hin(datatype), o = c_op_in(op, datatype), c](MPI_Request *q) {
            return MPI_Ireduce_scatter(s, recvbuf, counts->data(), t, o, c, q);
        });
    return persistent_from(to.request, to.errh, to.fn, true,
                           [counts, s, recvbuf, t = c_type_kept(datatype), o = c_op_kept(op, datatype), c](MPI_Request *q) {
                               return MPI_Ireduce_scatter(s, recvbuf, counts->data(), t, o, c, q);
                           });
}
}  // namespace anympi::backend

ANYMPI_MANUAL(MPI_Neighbor_allgatherv_c, fallback, "where the _c form is missing: one MPI_Neighbor_alltoallw whose per-neighbour datatypes hold counts past int (large_counts.cpp)")
{
#if ANYMPI_HAVE_MPI_Neighbor_allgatherv_c
    return err_out(MPI_Neighbor_allgatherv_c(c_buf(sendbuf), sendcount, c_hin(sendtype), c_buf(recvbuf), c_i64p(recvcounts),
                                             c_i64p(displs), c_hin(recvtype), c_hin(comm)));
#else
    return neighbour_wide(sendbuf, nullptr, sendcount, nullptr, nullptr, sendtype, recvbuf, recvcounts, displs, nullptr,
                          recvtype, comm, {});
#endif
}
ANYMPI_MANUAL(MPI_Ineighbor_allgatherv_c, fallback, "where the _c form is missing: a request of anympi's over one MPI_Ineighbor_alltoallw whose per-neighbour datatypes hold counts past int (large_counts.cpp)")
{
#if ANYMPI_HAVE_MPI_Ineighbor_allgatherv_c
    return err_out(MPI_Ineighbor_allgatherv_c(c_buf(sendbuf), sendcount, c_hin(sendtype), c_buf(recvbuf), c_i64p(recvcounts),
                                              c_i64p(displs), c_hin(recvtype), c_hin(comm), c_hout(request)));
#else
    return neighbour_wide(sendbuf, nullptr, sendcount, nullptr, nullptr, sendtype, recvbuf, recvcounts, displs, nullptr,
                          recvtype, comm, ANYMPI_WIDE_NB("MPI_Ineighbor_allgatherv_c", comm));
#endif
}
ANYMPI_MANUAL(MPI_Neighbor_allgatherv_init_c, fallback, "anympi's persistent request: MPI_Start starts MPI_Ineighbor_allgatherv_c, or where that is missing one MPI_Ineighbor_alltoallw whose per-neighbour datatypes hold counts past int (large_counts.cpp)")
{
    (void)info;
    ANYMPI_COLL_COMM
#if ANYMPI_HAVE_MPI_Ineighbor_allgatherv_c
    return persistent_init(request, o_, "MPI_Neighbor_allgatherv_init_c", true, MPI_Ineighbor_allgatherv_c,
                           c_buf(sendbuf), sendcount, c_type_kept(sendtype), c_buf(recvbuf), c_i64p(recvcounts),
                           c_i64p(displs), c_type_kept(recvtype), c_hin(comm));
#else
    return neighbour_wide(sendbuf, nullptr, sendcount, nullptr, nullptr, sendtype, recvbuf, recvcounts, displs, nullptr,
                          recvtype, comm, ANYMPI_WIDE_INIT("MPI_Neighbor_allgatherv_init_c", comm));
#endif
}

ANYMPI_MANUAL(MPI_Neighbor_alltoallv_c, fallback, "where the _c form is missing: one MPI_Neighbor_alltoallw whose per-neighbour datatypes hold counts past int (large_counts.cpp)")
{
#if ANYMPI_HAVE_MPI_Neighbor_alltoallv_c
    return err_out(MPI_Neighbor_alltoallv_c(c_buf(sendbuf), c_i64p(sendcounts), c_i64p(sdispls), c_hin(sendtype), c_buf(recvbuf),
                                            c_i64p(recvcounts), c_i64p(rdispls), c_hin(recvtype), c_hin(comm)));
#else
    return neighbour_wide(sendbuf, sendcounts, 0, sdispls, nullptr, sendtype, recvbuf, recvcounts, rdispls, nullptr, recvtype,
                          comm, {});
#endif
}
ANYMPI_MANUAL(MPI_Ineighbor_alltoallv_c, fallback, "where the _c form is missing: a request of anympi's over one MPI_Ineighbor_alltoallw whose per-neighbour datatypes hold counts past int (large_counts.cpp)")
{
#if ANYMPI_HAVE_MPI_Ineighbor_alltoallv_c
    return err_out(MPI_Ineighbor_alltoallv_c(c_buf(sendbuf), c_i64p(sendcounts), c_i64p(sdispls), c_hin(sendtype),
                                             c_buf(recvbuf), c_i64p(recvcounts), c_i64p(rdispls), c_hin(recvtype),
                                             c_hin(comm), c_hout(request)));
#else
    return neighbour_wide(sendbuf, sendcounts, 0, sdispls, nullptr, sendtype, recvbuf, recvcounts, rdispls, nullptr, recvtype,
                          comm, ANYMPI_WIDE_NB("MPI_Ineighbor_alltoallv_c", comm));
#endif
}
ANYMPI_MANUAL(MPI_Neighbor_alltoallv_init_c, fallback, "anympi's persistent request: MPI_Start starts MPI_Ineighbor_alltoallv_c, or where that is missing one MPI_Ineighbor_alltoallw whose per-neighbour datatypes hold counts past int (large_counts.cpp)")
{
    (void)info;
    ANYMPI_COLL_COMM
#if ANYMPI_HAVE_MPI_Ineighbor_alltoallv_c
    return persistent_init(request, o_, "MPI_Neighbor_alltoallv_init_c", true, MPI_Ineighbor_alltoallv_c,
                           c_buf(sendbuf), c_i64p(sendcounts), c_i64p(sdispls), c_type_kept(sendtype), c_buf(recvbuf),
                           c_i64p(recvcounts), c_i64p(rdispls), c_type_kept(recvtype), c_hin(comm));
#else
    return neighbour_wide(sendbuf, sendcounts, 0, sdispls, nullptr, sendtype, recvbuf, recvcounts, rdispls, nullptr, recvtype,
                          comm, ANYMPI_WIDE_INIT("MPI_Neighbor_alltoallv_init_c", comm));
#endif
}

// The block forms: the int form while the count fits, else the same route with n equal counts.
namespace anympi::backend {
namespace {
int reduce_scatter_blocks(const void *sendbuf, void *recvbuf, abi_Count recvcount, abi_Datatype datatype, abi_Op op,
                          abi_Comm comm, const wide_to &to)
{
    int n = 0;
    if (int rc = MPI_Comm_size(c_hin(comm), &n)) return err_out(rc);
    const std::vector<abi_Count> counts(size_t(n), recvcount);
    return reduce_scatter_narrow(sendbuf, recvbuf, counts.data(), datatype, op, comm, to);
}
}  // namespace
}  // namespace anympi::backend
ANYMPI_MANUAL(MPI_Reduce_scatter_c, fallback, "where the _c form is missing: MPI_Reduce_scatter while every count fits in int, else one MPI_Reduce_c per process, of its block (large_counts.cpp)")
{
#if ANYMPI_HAVE_MPI_Reduce_scatter_c
    return err_out(MPI_Reduce_scatter_c(c_buf(sendbuf), c_buf(recvbuf), c_i64p(recvcounts), c_hin(datatype),
                                        c_op_in(op, datatype), c_hin(comm)));
#else
    return reduce_scatter_narrow(sendbuf, recvbuf, recvcounts, datatype, op, comm,
                                 wide_to{wide_to::blocking, nullptr, errh_of(comm), "MPI_Reduce_scatter_c"});
#endif
}
ANYMPI_MANUAL(MPI_Reduce_scatter_block_c, fallback, "where the _c form is missing: MPI_Reduce_scatter_block while the count fits in int, else one MPI_Reduce_c per process, of its block (large_counts.cpp)")
{
#if ANYMPI_HAVE_MPI_Reduce_scatter_block_c
    return err_out(MPI_Reduce_scatter_block_c(c_buf(sendbuf), c_buf(recvbuf), recvcount, c_hin(datatype),
                                              c_op_in(op, datatype), c_hin(comm)));
#else
    if (c_fits_int(recvcount))
        return err_out(MPI_Reduce_scatter_block(c_buf(sendbuf), c_buf(recvbuf), int(recvcount), c_hin(datatype),
                                                c_op_in(op, datatype), c_hin(comm)));
    return reduce_scatter_blocks(sendbuf, recvbuf, recvcount, datatype, op, comm,
                                 wide_to{wide_to::blocking, nullptr, errh_of(comm), "MPI_Reduce_scatter_block_c"});
#endif
}
ANYMPI_MANUAL(MPI_Ireduce_scatter_block_c, fallback, "where the _c form is missing: MPI_Ireduce_scatter_block while the count fits in int, else one MPI_Ireduce per process and 2^30 elements of its block (large_counts.cpp)")
{
#if ANYMPI_HAVE_MPI_Ireduce_scatter_block_c
    return err_out(MPI_Ireduce_scatter_block_c(c_buf(sendbuf), c_buf(recvbuf), recvcount, c_hin(datatype),
                                               c_op_in(op, datatype), c_hin(comm), c_hout(request)));
#else
    if (c_fits_int(recvcount))
        return err_out(MPI_Ireduce_scatter_block(c_buf(sendbuf), c_buf(recvbuf), int(recvcount), c_hin(datatype),
                                                 c_op_in(op, datatype), c_hin(comm), c_hout(request)));
    return reduce_scatter_blocks(sendbuf, recvbuf, recvcount, datatype, op, comm,
                                 ANYMPI_WIDE_NB("MPI_Ireduce_scatter_block_c", comm));
#endif
}
ANYMPI_MANUAL(MPI_Reduce_scatter_block_init_c, fallback, "anympi's persistent request: MPI_Start starts MPI_Ireduce_scatter_block_c, or where that is missing MPI_Ireduce_scatter_block while the count fits in int, else one MPI_Ireduce per process and 2^30 elements of its block (large_counts.cpp)")
{
    (void)info;
#if ANYMPI_HAVE_MPI_Reduce_scatter_block_init_c
    return err_out(MPI_Reduce_scatter_block_init_c(c_buf(sendbuf), c_buf(recvbuf), recvcount, c_hin(datatype),
                                                   c_op_in(op, datatype), c_hin(comm), c_hin(info), c_hout_persistent(request)));
#elif ANYMPI_HAVE_MPI_Ireduce_scatter_block_c
    if (const int e = init_checks("MPI_Reduce_scatter_block_init_c", comm).count(recvcount, "recvcount").type(datatype, "datatype").op(op, datatype))
        return e;
    ANYMPI_COLL_COMM
    return persistent_init(request, o_, "MPI_Reduce_scatter_block_init_c", true, MPI_Ireduce_scatter_block_c,
                           c_buf(sendbuf), c_buf(recvbuf), recvcount, c_type_kept(datatype), c_op_kept(op, datatype),
                           c_hin(comm));
#else
    if (const int e = init_checks("MPI_Reduce_scatter_block_init_c", comm).count(recvcount, "recvcount").type(datatype, "datatype").op(op, datatype))
        return e;
    ANYMPI_COLL_COMM
    if (c_fits_int(recvcount))
        return persistent_init(request, o_, "MPI_Reduce_scatter_block_init_c", true, MPI_Ireduce_scatter_block,
                               c_buf(sendbuf), c_buf(recvbuf), int(recvcount), c_type_kept(datatype),
                               c_op_kept(op, datatype), c_hin(comm));
    return reduce_scatter_blocks(sendbuf, recvbuf, recvcount, datatype, op, comm,
                                 ANYMPI_WIDE_INIT("MPI_Reduce_scatter_block_init_c", comm));
#endif
}
ANYMPI_MANUAL(MPI_Ireduce_scatter_c, fallback, "where the _c form is missing: a request of anympi's over MPI_Ireduce_scatter while every count fits in int, else over one MPI_Ireduce per process and 2^30 elements of its block (large_counts.cpp)")
{
#if ANYMPI_HAVE_MPI_Ireduce_scatter_c
    return err_out(MPI_Ireduce_scatter_c(c_buf(sendbuf), c_buf(recvbuf), c_i64p(recvcounts), c_hin(datatype),
                                         c_op_in(op, datatype), c_hin(comm), c_hout(request)));
#else
    return reduce_scatter_narrow(sendbuf, recvbuf, recvcounts, datatype, op, comm,
                                 ANYMPI_WIDE_NB("MPI_Ireduce_scatter_c", comm));
#endif
}
ANYMPI_MANUAL(MPI_Reduce_scatter_init_c, fallback, "anympi's persistent request: MPI_Start starts MPI_Ireduce_scatter_c, or where that is missing MPI_Ireduce_scatter while every count fits in int, else one MPI_Ireduce per process and 2^30 elements of its block (large_counts.cpp)")
{
    (void)info;
    if (const int e = init_checks("MPI_Reduce_scatter_init_c", comm).type(datatype, "datatype").op(op, datatype)) return e;
    ANYMPI_COLL_COMM
#if ANYMPI_HAVE_MPI_Ireduce_scatter_c
    return persistent_init(request, o_, "MPI_Reduce_scatter_init_c", true, MPI_Ireduce_scatter_c, c_buf(sendbuf),
                           c_buf(recvbuf), c_i64p(recvcounts), c_type_kept(datatype), c_op_kept(op, datatype), c_hin(comm));
#else
    return reduce_scatter_narrow(sendbuf, recvbuf, recvcounts, datatype, op, comm,
                                 ANYMPI_WIDE_INIT("MPI_Reduce_scatter_init_c", comm));
#endif
}

// ---------------------------------------------------------------- nonblocking reductions
namespace anympi::backend {
int reduce_chunked_nb(abi_Request *request, void *send, void *recv, abi_Count count, MPI_Datatype t,
                      int (*call)(void *ctx, void *s, void *r, int n, MPI_Request *q), void *ctx)
{
    if (count <= INT_MAX || !request) {  // the native call itself (which judges a null request)
        MPI_Request n = MPI_REQUEST_NULL;
        int rc = call(ctx, send, recv, count < INT_MIN ? -1 : count > INT_MAX ? INT_MAX : int(count), request ? &n : nullptr);
        if (request) *request = to_abi<abi_Request>(n);
        return err_out(rc);
    }
    // Every chunk started now (every rank chunks alike, so they match in order), all in one
    // request of anympi's; ctx is used only here.
    return nonblocking_from(request, [=](std::vector<MPI_Request> &parts) {
        return reduce_chunked(send, recv, count, t, [&](void *s, void *r, int n) {
            return start_chunk(parts, [&](MPI_Request *q) { return call(ctx, s, r, n, q); });
        });
    });
}
}  // namespace anympi::backend
