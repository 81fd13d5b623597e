// anympi's own requests (requests.hpp): the registry, what persistent requests keep alive,
// MPI_Isendrecv[_replace] where the MPI lacks them, and the completion calls over arrays that
// mix them with native requests.  The generator reads the ANYMPI_MANUAL markers here too.
#include "requests.hpp"
#include "callbacks.hpp"
#include "emulated_types.hpp"

#include <cstdio>
#include <mutex>
#include <ranges>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace anympi::backend {

// Written by manual.cpp: the native paths of the hand-written MPI_Waitsome/MPI_Testsome.
int waitsome_native(int incount, abi_Request reqs[], int *outcount, int indices[], abi_Status statuses[]);
int testsome_native(int incount, abi_Request reqs[], int *outcount, int indices[], abi_Status statuses[]);

std::atomic<long> emulated_alive{0};
std::atomic<long> pinned_alive{0};
std::atomic<long> native_persistent_alive{0};
std::atomic<long> tracked_alive{0};

// ---------------------------------------------------------------- a persistent collective's communicator
namespace {
thread_local MPI_Comm *coll_comm_made = nullptr;  // this thread's coll_comm, until a request takes its duplicate
}
coll_comm::coll_comm(abi_Comm &comm)
{
    quiet_copies q;
    rc = MPI_Comm_dup(to_native(comm), &c);
    if (rc != MPI_SUCCESS) return;
    comm = to_abi<abi_Comm>(c);
    coll_comm_made = &c;
}
coll_comm::~coll_comm()
{
    if (coll_comm_made == &c) coll_comm_made = nullptr;
    free_coll_comm(c);
}
MPI_Comm take_coll_comm()
{
    if (!coll_comm_made) return MPI_COMM_NULL;
    const MPI_Comm c = *coll_comm_made;
    *coll_comm_made = MPI_COMM_NULL;
    coll_comm_made = nullptr;
    return c;
}
void free_coll_comm(MPI_Comm &c)
{
    if (c == MPI_COMM_NULL) return;
    int done = 0;
    MPI_Finalized(&done);  // a request the program never freed goes with the process
    if (!done) MPI_Comm_free(&c);
    c = MPI_COMM_NULL;
}

// ---------------------------------------------------------------- native persistent requests
namespace {
std::mutex persistent_mutex;
std::unordered_map<uintptr_t, bool> persistent_active;  // native request -> active (guarded)
bool is_null(abi_Request r) { return r == reinterpret_cast<abi_Request>(ABI_REQUEST_NULL); }
// Whether r is a native persistent request that is not active.
bool persistent_inactive(abi_Request r)
{
    if (!any_native_persistent() || is_null(r) || is_emulated(r)) return false;
    std::lock_guard<std::mutex> g(persistent_mutex);
    auto it = persistent_active.find(bits(to_native(r)));
    return it != persistent_active.end() && !it->second;
}
}  // namespace

void persistent_made(uintptr_t native_request)
{
    std::lock_guard<std::mutex> g(persistent_mutex);
    if (persistent_active.insert_or_assign(native_request, false).second) tracked_alive.fetch_add(1, std::memory_order_relaxed);
    native_persistent_alive.store(long(persistent_active.size()), std::memory_order_relaxed);
}
void persistent_freed(abi_Request r)
{
    if (is_null(r) || is_emulated(r)) return;
    std::lock_guard<std::mutex> g(persistent_mutex);
    if (persistent_active.erase(bits(to_native(r)))) tracked_alive.fetch_sub(1, std::memory_order_relaxed);
    native_persistent_alive.store(long(persistent_active.size()), std::memory_order_relaxed);
}
void persistent_mark(long count, const abi_Request reqs[], const int *indices, bool active)
{
    if (!reqs || !any_native_persistent()) return;
    std::lock_guard<std::mutex> g(persistent_mutex);
    for (long i = 0; i < count; ++i) {
        abi_Request r = reqs[indices ? indices[i] : i];
        if (is_null(r) || is_emulated(r)) continue;  // a completed nonpersistent one is null now
        auto it = persistent_active.find(bits(to_native(r)));
        if (it != persistent_active.end()) it->second = active;
    }
}

namespace {
std::mutex registry_mutex;
std::unordered_set<emulated_request *> live;  // guarded
std::vector<emulated_request *> zombies;      // freed by the program while active (guarded)
std::vector<emulated_request *> numbered;     // by MPI_Request_toint number (guarded)
std::vector<int> free_numbers;                // (guarded)

emulated_request *untag(abi_Request h)
{
    return reinterpret_cast<emulated_request *>(reinterpret_cast<uintptr_t>(h) & ~emulated_tag);
}
emulated_request *lookup(abi_Request h)
{
    emulated_request *r = untag(h);
    std::lock_guard<std::mutex> g(registry_mutex);
    return live.count(r) ? r : nullptr;
}
void release(emulated_request *r)
{
    {
        std::lock_guard<std::mutex> g(registry_mutex);
        if (live.erase(r)) tracked_alive.fetch_sub(1, std::memory_order_relaxed);
        emulated_alive.store(long(live.size()), std::memory_order_relaxed);
        if (r->number >= 0) {
            numbered[size_t(r->number)] = nullptr;
            free_numbers.push_back(r->number);
        }
    }
    delete r;
}
// A request the program freed while active is completed by whichever completion call comes
// next (its buffers, MPI_Isendrecv_replace's copy, must live until then).
void reap()
{
    std::vector<emulated_request *> done;
    {
        std::lock_guard<std::mutex> g(registry_mutex);
        for (auto it = zombies.begin(); it != zombies.end();) {
            int finished = 0;
            if ((*it)->test(true, &finished, MPI_STATUS_IGNORE) != MPI_SUCCESS || finished) {
                done.push_back(*it);
                it = zombies.erase(it);
            } else {
                ++it;
            }
        }
    }
    for (auto *r : done) release(r);
}

int not_a_request(const char *fn)
{
    char msg[160];
    std::snprintf(msg, sizeof msg, "%s: the request is not a valid request (freed or never made)", fn);
    return raise_error(errh_none(), ABI_ERR_REQUEST, msg);
}


// After a completion: a nonpersistent request is gone, a persistent one inactive.
void finish(abi_Request *h, emulated_request *r)
{
    if (r->persistent) return;
    release(r);
    *h = reinterpret_cast<abi_Request>(ABI_REQUEST_NULL);
}

// The native requests of an array, compacted, with the caller's statuses beside them.
struct native_part {
    std::vector<int> at;  // index in the caller's array
    std::vector<abi_Request> reqs;
    std::vector<abi_Status> statuses;
    native_part(int count, const abi_Request all[], const abi_Status *sts)
    {
        for (int i = 0; i < count; ++i)
            if (!is_emulated(all[i])) {
                at.push_back(i);
                reqs.push_back(all[i]);
                statuses.push_back(sts ? sts[i] : abi_Status{});
            }
    }
    int n() const { return int(at.size()); }
    abi_Status *sts(const abi_Status *caller) { return caller ? statuses.data() : nullptr; }
    void back(abi_Request all[], abi_Status *caller) const
    {
        for (int k = 0; k < n(); ++k) {
            all[at[k]] = reqs[k];
            if (caller) caller[at[k]] = statuses[k];
        }
    }
};

// Completes the active request r (at h) as MPI_Test would; *done when it did.
int test_one(abi_Request *h, emulated_request *r, int *done, abi_Status *status)
{
    st_proxy<st_use::out> st(status);
    int rc = r->test(true, done, st);
    if (*done) finish(h, r);
    return rc;
}
}  // namespace

// The empty status (MPI-4.1 3.7.3): of an inactive persistent request, of a completed collective.
void empty_status(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE) return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
}

// From MPI_BOTTOM: the same data as one element of a type whose displacement takes away the
// address of a real buffer (out), packed from there.
int pack_from(const void *buf, int count, MPI_Datatype t, void *out, int outsize, int *position, MPI_Comm c)
{
    if (buf != MPI_BOTTOM || count <= 0) return MPI_Pack(const_cast<void *>(buf), count, t, out, outsize, position, c);
    MPI_Aint back = -static_cast<MPI_Aint>(reinterpret_cast<uintptr_t>(out));
    MPI_Datatype shifted = MPI_DATATYPE_NULL;
    int rc = MPI_Type_create_struct(1, &count, &back, &t, &shifted);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&shifted);
    if (rc == MPI_SUCCESS) rc = MPI_Pack(out, 1, shifted, out, outsize, position, c);
    if (shifted != MPI_DATATYPE_NULL) MPI_Type_free(&shifted);
    return rc;
}

emulated_request *find_emulated(abi_Request h) { return lookup(h); }

int emulated_toint(abi_Request h)
{
    emulated_request *r = untag(h);
    std::lock_guard<std::mutex> g(registry_mutex);
    if (!live.count(r)) return -1;  // MPI_Request_toint has no error return: no request's number
    if (r->number < 0) {
        if (!free_numbers.empty()) {
            r->number = free_numbers.back();
            free_numbers.pop_back();
        } else {
            r->number = int(numbered.size());
            numbered.push_back(nullptr);
        }
        numbered[size_t(r->number)] = r;
    }
    return own_request_ints + r->number;
}
abi_Request emulated_fromint(int i)
{
    std::lock_guard<std::mutex> g(registry_mutex);
    const size_t k = size_t(i - own_request_ints);
    if (k >= numbered.size() || !numbered[k]) return reinterpret_cast<abi_Request>(ABI_REQUEST_NULL);
    return reinterpret_cast<abi_Request>(reinterpret_cast<uintptr_t>(numbered[k]) | emulated_tag);
}

abi_Request adopt(std::unique_ptr<emulated_request> r)
{
    emulated_request *p = r.release();
    std::lock_guard<std::mutex> g(registry_mutex);
    live.insert(p);
    emulated_alive.store(long(live.size()), std::memory_order_relaxed);
    tracked_alive.fetch_add(1, std::memory_order_relaxed);
    return reinterpret_cast<abi_Request>(reinterpret_cast<uintptr_t>(p) | emulated_tag);
}

// ---------------------------------------------------------------- one request
int emulated_wait(abi_Request *request, abi_Status *status)
{
    reap();
    emulated_request *r = lookup(*request);
    if (!r) return not_a_request("MPI_Wait");
    int rc = MPI_SUCCESS;
    {
        st_proxy<st_use::out> st(status);
        if (r->active) rc = r->wait(st);
        else empty_status(st);
    }
    finish(request, r);
    return err_out(rc);
}

int emulated_test(abi_Request *request, int *flag, abi_Status *status)
{
    reap();
    emulated_request *r = lookup(*request);
    if (!r) return not_a_request("MPI_Test");
    int done = 1, rc = MPI_SUCCESS;
    if (r->active) {
        rc = test_one(request, r, &done, status);
    } else {
        st_proxy<st_use::out> st(status);
        empty_status(st);
    }
    if (flag) *flag = done;
    return err_out(rc);
}

int emulated_get_status(abi_Request request, int *flag, abi_Status *status)
{
    reap();
    emulated_request *r = lookup(request);
    if (!r) return not_a_request("MPI_Request_get_status");
    int done = 1, rc = MPI_SUCCESS;
    st_proxy<st_use::out> st(status);
    if (r->active) rc = r->test(false, &done, st);
    else empty_status(st);
    if (flag) *flag = done;
    return err_out(rc);
}

int emulated_free(abi_Request *request)
{
    reap();
    emulated_request *r = lookup(*request);
    if (!r) return not_a_request("MPI_Request_free");
    *request = reinterpret_cast<abi_Request>(ABI_REQUEST_NULL);
    if (!r->active) {
        release(r);
        return 0;
    }
    std::lock_guard<std::mutex> g(registry_mutex);
    zombies.push_back(r);
    return 0;
}

int emulated_start(abi_Request *request)
{
    reap();
    emulated_request *r = lookup(*request);
    if (!r) return not_a_request("MPI_Start");
    if (!r->persistent || r->active)
        return raise_error(errh_none(), ABI_ERR_REQUEST,
                           r->persistent ? "MPI_Start: the persistent request is active (started and not completed)"
                                         : "MPI_Start: the request is not persistent");
    return err_out(r->start());
}

int emulated_cancel(abi_Request *request)
{
    emulated_request *r = lookup(*request);
    if (!r) return not_a_request("MPI_Cancel");
    if (!r->active) return 0;
    if (int cls = r->cancel())
        return raise_error(errh_none(), cls,
                           r->side == emulated_request::partitioned_side::none
                               ? "MPI_Cancel: a collective operation cannot be cancelled"
                               : "MPI_Cancel: an active partitioned operation cannot be cancelled");
    return 0;
}

init_checks::init_checks(const char *fn_, abi_Comm comm_) : fn(fn_), comm(comm_)
{
    const MPI_Comm c = to_native(comm);
    if (c == MPI_COMM_NULL) return;  // raised by the duplication that follows
    rc = MPI_Comm_test_inter(c, &inter);  // raises what is wrong with comm
    if (rc == MPI_SUCCESS) rc = inter ? MPI_Comm_remote_size(c, &size) : MPI_Comm_size(c, &size);
    rc = err_out(rc);
}
init_checks &init_checks::count(abi_Count n, const char *name)
{
    if (rc || inter || n >= 0) return *this;
    char msg[200];
    std::snprintf(msg, sizeof msg, "%s: %s is negative (%lld)", fn, name, static_cast<long long>(n));
    rc = raise_error(errh_of(comm), ABI_ERR_COUNT, msg);
    return *this;
}
init_checks &init_checks::type(abi_Datatype t, const char *name)
{
    if (rc || inter || bits(t) != ABI_DATATYPE_NULL) return *this;
    char msg[200];
    std::snprintf(msg, sizeof msg, "%s: %s is MPI_DATATYPE_NULL", fn, name);
    rc = raise_error(errh_of(comm), ABI_ERR_TYPE, msg);
    return *this;
}
init_checks &init_checks::op(abi_Op o, abi_Datatype t)
{
    if (rc || inter) return *this;
    char msg[MPI_MAX_ERROR_STRING + 64];
    if (bits(o) == ABI_OP_NULL) {
        std::snprintf(msg, sizeof msg, "%s: op is MPI_OP_NULL", fn);
        rc = raise_error(errh_of(comm), ABI_ERR_OP, msg);
        return *this;
    }
    // A predefined op on a predefined datatype it does not apply to (MPI_BAND on MPI_FLOAT): the
    // MPI's verdict, from a reduction of nothing (both MPIs check the pair first), at init as
    // MPICH's own inits give it.  Derived datatypes are left to the reduction: MPICH reduces
    // those of one basic type with a predefined op, which MPI_Reduce_local refuses.
    if (bits(o) >= 0x400 || bits(t) >= 0x400 || bits(t) == ABI_DATATYPE_NULL) return *this;
    char none[1];
    const int nrc = MPI_Reduce_local(none, none, 0, c_hin(t), c_op_in(o, t));
    if (nrc == MPI_SUCCESS) return *this;
    int cls = MPI_ERR_OP, len = 0;
    char native[MPI_MAX_ERROR_STRING] = "";
    MPI_Error_class(nrc, &cls);
    MPI_Error_string(nrc, native, &len);
    std::snprintf(msg, sizeof msg, "%s: op and datatype: %s", fn, native);
    rc = raise_error(errh_of(comm), err_out(cls), msg);
    return *this;
}
// On an intracommunicator a rank of it; on an intercommunicator MPI_ROOT, MPI_PROC_NULL or a
// rank of the remote group.
init_checks &init_checks::root(int r)
{
    if (rc || size == 0 || (r >= 0 && r < size) || (inter && (r == ABI_ROOT || r == ABI_PROC_NULL))) return *this;
    char msg[240];
    std::snprintf(msg, sizeof msg, "%s: root %d is not %s (%d processes)", fn, r,
                  inter ? "MPI_ROOT, MPI_PROC_NULL or a rank of the remote group" : "a rank of the communicator", size);
    rc = raise_error(errh_of(comm), ABI_ERR_ROOT, msg);
    return *this;
}
init_checks &init_checks::in_place_root(const void *buf, const char *name, int r)
{
    if (!rc) rc = c_in_place_root_at_init(fn, name, buf, r, comm);
    return *this;
}

// ---------------------------------------------------------------- arrays
namespace {
// After a completion of requests, some failed: MPI_ERR_IN_STATUS (both MPIs return it also
// without statuses), with each status's MPI_ERROR set -- anympi's requests' from `own`
// (position in statuses, ABI code), the native ones' (at `native`) by the MPI when nrc is
// MPI_ERR_IN_STATUS, else success. A native error of another class passes as it is.
template <class Positions>
int in_status(int nrc, const std::vector<std::pair<int, int>> &own, const Positions &native, abi_Status statuses[])
{
    bool own_failed = false;
    for (const auto &[at, e] : own) own_failed = own_failed || e;
    if ((nrc && nrc != ABI_ERR_IN_STATUS) || (!nrc && !own_failed)) return nrc;
    if (statuses) {
        for (const auto &[at, e] : own) statuses[at].MPI_ERROR = e;
        if (!nrc)
            for (int at : native) statuses[at].MPI_ERROR = 0;
    }
    return ABI_ERR_IN_STATUS;
}
}  // namespace

int mixed_waitall(int count, abi_Request reqs[], abi_Status statuses[])
{
    reap();
    // A partitioned receive may need this call to post its receives (partitioned.cpp): while
    // one waits for its setup, anympi's requests are looked at in turn until all are complete,
    // not waited on one by one (a wait that blocks in the MPI would never let it post them).
    while (partitioned_receives_pending()) {
        bool all = true;
        for (int i = 0; i < count; ++i) {
            if (!is_emulated(reqs[i])) continue;
            emulated_request *r = lookup(reqs[i]);
            if (!r) return not_a_request("MPI_Waitall");
            int done = 1;
            if (r->active && r->test(false, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) all = false;
        }
        if (all) break;
    }
    // The native part first: a completed request of anympi's becomes MPI_REQUEST_NULL below,
    // and its status must not be overwritten as a null native request's.
    native_part nat(count, reqs, statuses);
    std::vector<std::pair<int, int>> own;
    for (int i = 0; i < count; ++i) {
        if (!is_emulated(reqs[i])) continue;
        emulated_request *r = lookup(reqs[i]);
        if (!r) return not_a_request("MPI_Waitall");
        int e = MPI_SUCCESS;
        {
            st_proxy<st_use::out> st(statuses ? statuses + i : nullptr);
            e = r->active ? r->wait(st) : (empty_status(st), MPI_SUCCESS);
        }
        own.emplace_back(i, err_out(e));
        finish(&reqs[i], r);
    }
    int nrc = nat.n() ? fwd_MPI_Waitall(nat.n(), nat.reqs.data(), nat.sts(statuses)) : 0;
    nat.back(reqs, statuses);
    return in_status(nrc, own, nat.at, statuses);
}

int mixed_testall(int count, abi_Request reqs[], int *flag, abi_Status statuses[])
{
    reap();
    // Nothing completes unless everything has: look at anympi's first, without completing.
    for (int i = 0; i < count; ++i) {
        if (!is_emulated(reqs[i])) continue;
        emulated_request *r = lookup(reqs[i]);
        if (!r) return not_a_request("MPI_Testall");
        int done = 1;
        if (r->active && r->test(false, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) {
            if (flag) *flag = 0;
            return 0;
        }
    }
    native_part nat(count, reqs, statuses);
    int all = 1;
    int nrc = nat.n() ? fwd_MPI_Testall(nat.n(), nat.reqs.data(), &all, nat.sts(statuses)) : 0;
    nat.back(reqs, statuses);
    if (flag) *flag = all;
    if ((nrc && nrc != ABI_ERR_IN_STATUS) || !all) return nrc;
    std::vector<std::pair<int, int>> own;
    for (int i = 0; i < count; ++i) {
        if (!is_emulated(reqs[i])) continue;
        emulated_request *r = lookup(reqs[i]);
        int e = MPI_SUCCESS;
        {
            st_proxy<st_use::out> st(statuses ? statuses + i : nullptr);
            int done = 1;
            if (r->active) e = r->test(true, &done, st);
            else empty_status(st);
        }
        own.emplace_back(i, err_out(e));
        finish(&reqs[i], r);
    }
    return in_status(nrc, own, nat.at, statuses);
}

int mixed_testany(int count, abi_Request reqs[], int *index, int *flag, abi_Status *status)
{
    reap();
    native_part nat(count, reqs, nullptr);
    int idx = ABI_UNDEFINED, found = 1;  // no native request: as if all were inactive
    if (nat.n()) {
        int nrc = fwd_MPI_Testany(nat.n(), nat.reqs.data(), &idx, &found, status);
        nat.back(reqs, nullptr);
        if (nrc) return nrc;
        if (found && idx != ABI_UNDEFINED) {
            if (index) *index = nat.at[size_t(idx)];
            if (flag) *flag = 1;
            return 0;
        }
    }
    bool any_active = !found;
    for (int i = 0; i < count; ++i) {
        if (!is_emulated(reqs[i])) continue;
        emulated_request *r = lookup(reqs[i]);
        if (!r) return not_a_request("MPI_Testany");
        if (!r->active) continue;
        any_active = true;
        int done = 0, rc = test_one(&reqs[i], r, &done, status);
        if (done || rc != MPI_SUCCESS) {
            if (index) *index = i;
            if (flag) *flag = 1;
            return err_out(rc);
        }
    }
    if (index) *index = ABI_UNDEFINED;
    if (flag) *flag = any_active ? 0 : 1;
    if (!any_active) {
        st_proxy<st_use::out> st(status);
        empty_status(st);
    }
    return 0;
}

int mixed_waitany(int count, abi_Request reqs[], int *index, abi_Status *status)
{
    for (;;) {  // the MPI progresses in the native tests; anympi's requests are native ones inside
        int flag = 0;
        if (int rc = mixed_testany(count, reqs, index, &flag, status)) return rc;
        if (flag) return 0;
    }
}

int mixed_testsome(int incount, abi_Request reqs[], int *outcount, int indices[], abi_Status statuses[])
{
    reap();
    native_part nat(incount, reqs, statuses);
    std::vector<int> nidx(size_t(nat.n()));
    int nout = ABI_UNDEFINED, rc = MPI_SUCCESS;
    if (nat.n()) {
        rc = testsome_native(nat.n(), nat.reqs.data(), &nout, nidx.data(), nat.sts(statuses));
        nat.back(reqs, nullptr);
    }
    int out = 0;
    bool any_active = nout != ABI_UNDEFINED;
    for (int k = 0; nout != ABI_UNDEFINED && k < nout; ++k) {
        if (indices) indices[out] = nat.at[size_t(nidx[size_t(k)])];
        if (statuses) statuses[out] = nat.statuses[size_t(k)];
        ++out;
    }
    const int native_out = out;
    std::vector<std::pair<int, int>> own;  // (position in the output, ABI code)
    for (int i = 0; i < incount; ++i) {
        if (!is_emulated(reqs[i])) continue;
        emulated_request *r = lookup(reqs[i]);
        if (!r) return not_a_request("MPI_Testsome");
        if (!r->active) continue;
        any_active = true;
        int done = 0;
        int e = test_one(&reqs[i], r, &done, statuses ? statuses + out : nullptr);
        if (done || e != MPI_SUCCESS) {
            if (indices) indices[out] = i;
            own.emplace_back(out, err_out(e));
            ++out;
        }
    }
    if (outcount) *outcount = any_active ? out : ABI_UNDEFINED;
    return in_status(rc, own, std::views::iota(0, native_out), statuses);
}

int mixed_waitsome(int incount, abi_Request reqs[], int *outcount, int indices[], abi_Status statuses[])
{
    for (;;) {
        int out = 0;
        if (int rc = mixed_testsome(incount, reqs, &out, indices, statuses)) {
            if (outcount) *outcount = out;
            return rc;
        }
        if (out != 0) {
            if (outcount) *outcount = out;
            return 0;
        }
    }
}

int mixed_startall(int count, abi_Request reqs[])
{
    reap();
    for (int i = 0; i < count; ++i)
        if (is_emulated(reqs[i]))
            if (int rc = emulated_start(&reqs[i])) return rc;
    native_part nat(count, reqs, nullptr);
    int rc = nat.n() ? fwd_MPI_Startall(nat.n(), nat.reqs.data()) : 0;
    nat.back(reqs, nullptr);
    return rc;
}

// ---------------------------------------------------------------- what persistent requests keep
namespace {
struct pin {
    long uses = 0;
    bool freed = false;  // the program freed it meanwhile: free it with the last use
};
std::mutex pin_mutex;
std::unordered_map<uintptr_t, pin> pins[2];  // datatypes, ops; by native handle (guarded)

bool pin_native(int kind, uintptr_t n)
{
    std::lock_guard<std::mutex> g(pin_mutex);
    ++pins[kind][n].uses;
    pinned_alive.fetch_add(1, std::memory_order_relaxed);
    return true;
}
// The last use gone and a free deferred: true, and the caller frees it natively.
bool unpin_native(int kind, uintptr_t n)
{
    std::lock_guard<std::mutex> g(pin_mutex);
    auto it = pins[kind].find(n);
    if (it == pins[kind].end()) return false;
    pinned_alive.fetch_sub(1, std::memory_order_relaxed);
    if (--it->second.uses > 0) return false;
    bool freed = it->second.freed;
    pins[kind].erase(it);
    return freed;
}
}  // namespace

type_kept::type_kept(abi_Datatype a) : t(to_native(a))
{
    if (reinterpret_cast<uintptr_t>(a) >= 0x400) pinned = pin_native(0, bits(t));  // predefined ones live on
}
type_kept::~type_kept()
{
    if (pinned && unpin_native(0, bits(t))) MPI_Type_free(&t);
}
op_kept::op_kept(abi_Op a, abi_Datatype datatype) : op(c_op_in(a, datatype))
{
    if (reinterpret_cast<uintptr_t>(a) >= 0x400) pinned = pin_native(1, bits(op));
}
op_kept::~op_kept()
{
    if (pinned && unpin_native(1, bits(op))) MPI_Op_free(&op);
}

bool free_deferred(handle_kind k, uintptr_t native)
{
    const int kind = k == k_datatype ? 0 : 1;
    std::lock_guard<std::mutex> g(pin_mutex);
    auto it = pins[kind].find(native);
    if (it == pins[kind].end() || it->second.freed) return false;
    it->second.freed = true;
    return true;
}

// ---------------------------------------------------------------- MPI_Isendrecv[_replace]
namespace {
// A send and a receive as one request: complete when both are; the status is the receive's.
struct sendrecv final : emulated_request {
    MPI_Request send = MPI_REQUEST_NULL, recv = MPI_REQUEST_NULL;
    MPI_Status recv_status{};
    bool recv_done = false;
    std::unique_ptr<char[]> packed;  // _replace: the data to send, packed before the receive
    sendrecv() : emulated_request(false) {}
    ~sendrecv() override
    {
        if (send != MPI_REQUEST_NULL) MPI_Request_free(&send);
        if (recv != MPI_REQUEST_NULL) MPI_Request_free(&recv);
    }
    int test(bool complete, int *done, MPI_Status *st) override
    {
        int r = recv_done, s = send == MPI_REQUEST_NULL;
        MPI_Status rs = recv_status;
        if (!r) {
            int rc = complete ? MPI_Test(&recv, &r, &rs) : MPI_Request_get_status(recv, &r, &rs);
            if (rc != MPI_SUCCESS) return rc;
        }
        if (!s) {
            int rc = complete ? MPI_Test(&send, &s, MPI_STATUS_IGNORE)
                              : MPI_Request_get_status(send, &s, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) return rc;
        }
        if (complete && r && !recv_done) {  // the receive is gone from the MPI: keep its status
            recv_done = true;
            recv_status = rs;
        }
        *done = r && s;
        if (*done && st != MPI_STATUS_IGNORE) *st = rs;
        if (*done && complete) active = false;
        return MPI_SUCCESS;
    }
    int wait(MPI_Status *st) override
    {
        int rc = recv_done ? MPI_SUCCESS : MPI_Wait(&recv, &recv_status);
        int rs = MPI_Wait(&send, MPI_STATUS_IGNORE);
        recv_done = true;
        active = false;
        if (st != MPI_STATUS_IGNORE) *st = recv_status;
        return rc != MPI_SUCCESS ? rc : rs;
    }
    int cancel() override
    {
        if (recv != MPI_REQUEST_NULL) MPI_Cancel(&recv);
        if (send != MPI_REQUEST_NULL) MPI_Cancel(&send);
        return 0;
    }
};

// The receive half: none from MPI_PROC_NULL, whose status anympi writes (MPICH 4.0.2 completes
// a nonblocking receive from it with source and tag 0 until a blocking one has run).
int post_receive(sendrecv &sr, void *buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm c)
{
    if (source != MPI_PROC_NULL) return MPI_Irecv(buf, count, t, source, tag, c, &sr.recv);
    empty_status(&sr.recv_status);
    sr.recv_status.MPI_SOURCE = MPI_PROC_NULL;
    sr.recv_status.MPI_ERROR = MPI_SUCCESS;
    sr.recv_done = true;
    return MPI_SUCCESS;
}

int start_sendrecv(std::unique_ptr<sendrecv> sr, int rc, abi_Request *request)
{
    if (rc != MPI_SUCCESS) return err_out(rc);
    *request = adopt(std::move(sr));
    return 0;
}
}  // namespace
}  // namespace anympi::backend

using namespace anympi::backend;

ANYMPI_MANUAL(MPI_Isendrecv, fallback, "one request of anympi's over MPI_Irecv and MPI_Isend where the MPI lacks it")
{
#if ANYMPI_HAVE_MPI_Isendrecv
    return err_out(MPI_Isendrecv(sendbuf, sendcount, to_native(sendtype), c_rank_in(dest), c_tag_in(sendtag), recvbuf,
                                 recvcount, to_native(recvtype), c_rank_in(source), c_tag_in(recvtag), to_native(comm),
                                 c_hout(request)));
#else
    if (!request) return raise_error(errh_of(comm), ABI_ERR_ARG, "MPI_Isendrecv: request is NULL");
    auto sr = std::make_unique<sendrecv>();
    const MPI_Comm c = to_native(comm);
    int rc = post_receive(*sr, recvbuf, recvcount, to_native(recvtype), c_rank_in(source), c_tag_in(recvtag), c);
    if (rc == MPI_SUCCESS)
        rc = MPI_Isend(sendbuf, sendcount, to_native(sendtype), c_rank_in(dest), c_tag_in(sendtag), c, &sr->send);
    return start_sendrecv(std::move(sr), rc, request);
#endif
}

ANYMPI_MANUAL(MPI_Isendrecv_replace, fallback, "one request of anympi's over MPI_Irecv and MPI_Isend of a packed copy where the MPI lacks it")
{
#if ANYMPI_HAVE_MPI_Isendrecv_replace
    return err_out(MPI_Isendrecv_replace(buf, count, to_native(datatype), c_rank_in(dest), c_tag_in(sendtag),
                                         c_rank_in(source), c_tag_in(recvtag), to_native(comm), c_hout(request)));
#else
    if (!request) return raise_error(errh_of(comm), ABI_ERR_ARG, "MPI_Isendrecv_replace: request is NULL");
    auto sr = std::make_unique<sendrecv>();
    const MPI_Comm c = to_native(comm);
    const MPI_Datatype t = to_native(datatype);
    int size = 0, pos = 0;
    int rc = MPI_Pack_size(count, t, c, &size);
    if (rc == MPI_SUCCESS) {
        sr->packed.reset(new char[size_t(size > 0 ? size : 1)]);
        // a message sent as MPI_PACKED is received by any matching datatype (MPI-4.1 5.2)
        rc = pack_from(buf, count, t, sr->packed.get(), size, &pos, c);
    }
    if (rc == MPI_SUCCESS) rc = post_receive(*sr, buf, count, t, c_rank_in(source), c_tag_in(recvtag), c);
    if (rc == MPI_SUCCESS)
        rc = MPI_Isend(sr->packed.get(), pos, MPI_PACKED, c_rank_in(dest), c_tag_in(sendtag), c, &sr->send);
    return start_sendrecv(std::move(sr), rc, request);
#endif
}

ANYMPI_MANUAL(MPI_Isendrecv_c, fallback, "as MPI_Isendrecv, counts narrowed to int where the MPI lacks it")
{
#if ANYMPI_HAVE_MPI_Isendrecv_c
    return err_out(MPI_Isendrecv_c(sendbuf, sendcount, to_native(sendtype), c_rank_in(dest), c_tag_in(sendtag), recvbuf,
                                   recvcount, to_native(recvtype), c_rank_in(source), c_tag_in(recvtag),
                                   to_native(comm), c_hout(request)));
#else
    if (!c_fits_int(sendcount) || !c_fits_int(recvcount))
        return raise_error(errh_of(comm), ABI_ERR_COUNT, "MPI_Isendrecv_c: a count exceeds what the MPI underneath takes (int)");
    return abi_MPI_Isendrecv(sendbuf, int(sendcount), sendtype, dest, sendtag, recvbuf, int(recvcount), recvtype,
                             source, recvtag, comm, request);
#endif
}

ANYMPI_MANUAL(MPI_Isendrecv_replace_c, fallback, "as MPI_Isendrecv_replace, count narrowed to int where the MPI lacks it")
{
#if ANYMPI_HAVE_MPI_Isendrecv_replace_c
    return err_out(MPI_Isendrecv_replace_c(buf, count, to_native(datatype), c_rank_in(dest), c_tag_in(sendtag),
                                           c_rank_in(source), c_tag_in(recvtag), to_native(comm), c_hout(request)));
#else
    if (!c_fits_int(count))
        return raise_error(errh_of(comm), ABI_ERR_COUNT, "MPI_Isendrecv_replace_c: count exceeds what the MPI underneath takes (int)");
    return abi_MPI_Isendrecv_replace(buf, int(count), datatype, dest, sendtag, source, recvtag, comm, request);
#endif
}

// ---------------------------------------------------------------- start and completion calls
// While no request of anympi's and no native persistent request exists (any_tracked), each
// call is the generated forward.  Else: anympi's own requests are completed here, and what
// the call did to native persistent requests is noted (persistent_mark).
namespace anympi::backend {
namespace {
bool names_emulated(abi_Request *request) { return any_emulated() && request && is_emulated(*request); }
bool holds_emulated_of(int count, abi_Request reqs[]) { return any_emulated() && reqs && holds_emulated(count, reqs); }
int tracked_wait(abi_Request *request, abi_Status *status)
{
    if (names_emulated(request)) return emulated_wait(request, status);
    int rc = fwd_MPI_Wait(request, status);
    if (rc == 0) persistent_mark(1, request, nullptr, false);
    return rc;
}
int tracked_test(abi_Request *request, int *flag, abi_Status *status)
{
    if (names_emulated(request)) return emulated_test(request, flag, status);
    int rc = fwd_MPI_Test(request, flag, status);
    if (rc == 0 && flag && *flag) persistent_mark(1, request, nullptr, false);
    return rc;
}
int tracked_start(abi_Request *request)
{
    if (names_emulated(request)) return emulated_start(request);
    int rc = fwd_MPI_Start(request);
    if (rc == 0) persistent_mark(1, request, nullptr, true);
    return rc;
}
int tracked_startall(int count, abi_Request reqs[])
{
    int rc = holds_emulated_of(count, reqs) ? mixed_startall(count, reqs) : fwd_MPI_Startall(count, reqs);
    if (rc == 0) persistent_mark(count, reqs, nullptr, true);
    return rc;
}
int tracked_waitall(int count, abi_Request reqs[], abi_Status statuses[])
{
    int rc = holds_emulated_of(count, reqs) ? mixed_waitall(count, reqs, statuses) : fwd_MPI_Waitall(count, reqs, statuses);
    if (rc == 0) persistent_mark(count, reqs, nullptr, false);
    return rc;
}
int tracked_testall(int count, abi_Request reqs[], int *flag, abi_Status statuses[])
{
    int rc = holds_emulated_of(count, reqs) ? mixed_testall(count, reqs, flag, statuses)
                                            : fwd_MPI_Testall(count, reqs, flag, statuses);
    if (rc == 0 && flag && *flag) persistent_mark(count, reqs, nullptr, false);
    return rc;
}
int tracked_waitany(int count, abi_Request reqs[], int *index, abi_Status *status)
{
    int rc = holds_emulated_of(count, reqs) ? mixed_waitany(count, reqs, index, status)
                                            : fwd_MPI_Waitany(count, reqs, index, status);
    if (rc == 0 && index && *index != ABI_UNDEFINED) persistent_mark(1, reqs, index, false);
    return rc;
}
int tracked_testany(int count, abi_Request reqs[], int *index, int *flag, abi_Status *status)
{
    int rc = holds_emulated_of(count, reqs) ? mixed_testany(count, reqs, index, flag, status)
                                            : fwd_MPI_Testany(count, reqs, index, flag, status);
    if (rc == 0 && index && *index != ABI_UNDEFINED) persistent_mark(1, reqs, index, false);
    return rc;
}
}  // namespace
int tracked_waitsome(int incount, abi_Request reqs[], int *outcount, int indices[], abi_Status statuses[])
{
    int rc = holds_emulated_of(incount, reqs) ? mixed_waitsome(incount, reqs, outcount, indices, statuses)
                                              : waitsome_native(incount, reqs, outcount, indices, statuses);
    if (rc == 0 && outcount && *outcount != ABI_UNDEFINED) persistent_mark(*outcount, reqs, indices, false);
    return rc;
}
int tracked_testsome(int incount, abi_Request reqs[], int *outcount, int indices[], abi_Status statuses[])
{
    int rc = holds_emulated_of(incount, reqs) ? mixed_testsome(incount, reqs, outcount, indices, statuses)
                                              : testsome_native(incount, reqs, outcount, indices, statuses);
    if (rc == 0 && outcount && *outcount != ABI_UNDEFINED) persistent_mark(*outcount, reqs, indices, false);
    return rc;
}
}  // namespace anympi::backend

// ---------------------------------------------------------------- completion calls
// Each passes straight to the generated forward (fwd_MPI_X) unless requests are tracked
// (any_tracked: anympi's own, or native persistent ones).
ANYMPI_MANUAL(MPI_Wait, extended, "anympi's own requests (MPI-4 operations the MPI lacks) complete here too")
{
    if (any_tracked()) [[unlikely]] return tracked_wait(request, status);
    return fwd_MPI_Wait(request, status);
}
ANYMPI_MANUAL(MPI_Test, extended, "anympi's own requests (MPI-4 operations the MPI lacks) complete here too")
{
    if (any_tracked()) [[unlikely]] return tracked_test(request, flag, status);
    return fwd_MPI_Test(request, flag, status);
}
ANYMPI_MANUAL(MPI_Request_get_status, extended, "anympi's own requests (MPI-4 operations the MPI lacks) answer here too")
{
    if (any_emulated() && is_emulated(request)) return emulated_get_status(request, flag, status);
    return fwd_MPI_Request_get_status(request, flag, status);
}
namespace {
// The argument checks of MPI_Request_get_status_all/any/some: 0 or the error raised.
int status_arrays_checked(const char *fn, int count, const abi_Request reqs[], const void *out1, const void *out2)
{
    if (count < 0) {
        char msg[120];
        std::snprintf(msg, sizeof msg, "%s: count is negative (%d)", fn, count);
        return raise_error(errh_none(), ABI_ERR_COUNT, msg);
    }
    if (count > 0 && (!reqs || !out1 || !out2)) {
        char msg[120];
        std::snprintf(msg, sizeof msg, "%s: an array or output argument is NULL", fn);
        return raise_error(errh_none(), ABI_ERR_ARG, msg);
    }
    return 0;
}
}  // namespace
ANYMPI_MANUAL(MPI_Request_get_status_all, emulated, "MPI_Request_get_status of each request, which completes nothing: a null or inactive request counts as complete with an empty status, as the standard says; the first error ends it")
{
    if (int e = status_arrays_checked("MPI_Request_get_status_all", count, array_of_requests, flag, flag)) return e;
    int all = 1;
    for (int i = 0; i < count && all; ++i) {  // one incomplete request: the statuses are undefined
        abi_Status *st = array_of_statuses ? &array_of_statuses[i] : nullptr;  // MPI_STATUSES_IGNORE is NULL
        if (int rc = abi_MPI_Request_get_status(array_of_requests[i], &all, st)) return rc;
    }
    if (flag) *flag = all;
    return 0;
}
namespace {
// Whether a request takes part in MPI_Request_get_status_any/some (MPI-5.0): not null and not
// an inactive persistent one.  anympi's own requests know; of native ones anympi has noted
// the persistent ones (persistent_mark).  A handle anympi does not know counts as active, so
// that MPI_Request_get_status raises its error.
bool active_request(abi_Request r)
{
    if (is_null(r)) return false;
    if (is_emulated(r)) {
        emulated_request *e = find_emulated(r);
        return !e || e->active;
    }
    return !persistent_inactive(r);
}
}  // namespace
ANYMPI_MANUAL(MPI_Request_get_status_any, emulated, "MPI_Request_get_status of each active request until one is complete; inactive persistent requests are skipped, anympi's own by their state and native ones as anympi noted them (made by MPI_X_init, active from MPI_Start until completed)")
{
    if (int e = status_arrays_checked("MPI_Request_get_status_any", count, array_of_requests, indx, flag)) return e;
    bool any_active = false;
    for (int i = 0; i < count; ++i) {
        if (!active_request(array_of_requests[i])) continue;
        any_active = true;
        int done = 0;
        if (int rc = abi_MPI_Request_get_status(array_of_requests[i], &done, status)) return rc;
        if (done) {
            *indx = i;
            *flag = 1;
            return 0;
        }
    }
    *indx = ABI_UNDEFINED;
    *flag = any_active ? 0 : 1;  // no active request: true, with an empty status
    if (!any_active) {
        st_proxy<st_use::out> st(status);
        empty_status(st);
    }
    return 0;
}
ANYMPI_MANUAL(MPI_Request_get_status_some, emulated, "MPI_Request_get_status of each active request, the complete ones listed; inactive persistent requests are skipped as in MPI_Request_get_status_any; MPI_UNDEFINED when none is active")
{
    if (int e = status_arrays_checked("MPI_Request_get_status_some", incount, array_of_requests, outcount, array_of_indices))
        return e;
    bool any_active = false;
    int out = 0;
    for (int i = 0; i < incount; ++i) {
        if (!active_request(array_of_requests[i])) continue;
        any_active = true;
        int done = 0;
        abi_Status *st = array_of_statuses ? &array_of_statuses[out] : nullptr;  // MPI_STATUSES_IGNORE is NULL
        if (int rc = abi_MPI_Request_get_status(array_of_requests[i], &done, st)) return rc;
        if (done) array_of_indices[out++] = i;
    }
    if (outcount) *outcount = any_active ? out : ABI_UNDEFINED;
    return 0;
}
ANYMPI_MANUAL(MPI_Start, extended, "anympi's own persistent requests start here too")
{
    if (any_tracked()) [[unlikely]] return tracked_start(request);
    return fwd_MPI_Start(request);
}
ANYMPI_MANUAL(MPI_Cancel, extended, "anympi's own requests cancel here too")
{
    if (any_emulated() && request && is_emulated(*request)) return emulated_cancel(request);
    return fwd_MPI_Cancel(request);
}
ANYMPI_MANUAL(MPI_Waitall, extended, "arrays may mix anympi's own requests with native ones")
{
    if (any_tracked()) [[unlikely]] return tracked_waitall(count, array_of_requests, array_of_statuses);
    return fwd_MPI_Waitall(count, array_of_requests, array_of_statuses);
}
ANYMPI_MANUAL(MPI_Testall, extended, "arrays may mix anympi's own requests with native ones")
{
    if (any_tracked()) [[unlikely]] return tracked_testall(count, array_of_requests, flag, array_of_statuses);
    return fwd_MPI_Testall(count, array_of_requests, flag, array_of_statuses);
}
ANYMPI_MANUAL(MPI_Waitany, extended, "arrays may mix anympi's own requests with native ones")
{
    if (any_tracked()) [[unlikely]] return tracked_waitany(count, array_of_requests, indx, status);
    return fwd_MPI_Waitany(count, array_of_requests, indx, status);
}
ANYMPI_MANUAL(MPI_Testany, extended, "arrays may mix anympi's own requests with native ones")
{
    if (any_tracked()) [[unlikely]] return tracked_testany(count, array_of_requests, indx, flag, status);
    return fwd_MPI_Testany(count, array_of_requests, indx, flag, status);
}
ANYMPI_MANUAL(MPI_Op_free, extended, "an op a persistent request of anympi's still uses is freed with its last use")
{
    if (pinned_alive.load(std::memory_order_relaxed) && op && free_deferred(k_op, bits(to_native(*op)))) {
        *op = reinterpret_cast<abi_Op>(ABI_OP_NULL);
        return 0;
    }
    return fwd_MPI_Op_free(op);
}
ANYMPI_MANUAL(MPI_Startall, extended, "arrays may mix anympi's own persistent requests with native ones")
{
    if (any_tracked()) [[unlikely]] return tracked_startall(count, array_of_requests);
    return fwd_MPI_Startall(count, array_of_requests);
}
