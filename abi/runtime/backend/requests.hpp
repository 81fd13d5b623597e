// Requests anympi owns, for the MPI-4 operations the MPI underneath lacks (Open MPI 4.1):
// persistent collectives (MPI_Start starts the nonblocking collective), MPI_Isendrecv[_replace]
// (two native requests).  They mix with native requests in every completion call.
//
// The ABI handle of one is its address with the top bit set, which no native request's ABI
// handle has: a native pointer (Open MPI) is a user-space address, a native integer (MPICH) is
// zero-extended.  While none exists (emulated_alive is 0), the completion calls pay one relaxed
// load for them; an MPI that has all these operations compiles it out.
#pragma once
#include "backend.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

namespace anympi::backend {

#if ANYMPI_HAVE_MPI_Allreduce_init && ANYMPI_HAVE_MPI_Isendrecv
constexpr bool emulates_requests = false;
#else
constexpr bool emulates_requests = true;
#endif
constexpr uintptr_t emulated_tag = uintptr_t(1) << 63;

struct emulated_request {
    explicit emulated_request(bool persistent_) : persistent(persistent_), active(!persistent_) {}
    virtual ~emulated_request() = default;
    emulated_request(const emulated_request &) = delete;
    emulated_request &operator=(const emulated_request &) = delete;
    const bool persistent;
    // A persistent one between MPI_Start and its completion; a nonpersistent one until then.
    // Read by MPI_Request_get_status, which another thread may call while one waits: a wait
    // clears it only once the operation has completed.
    std::atomic<bool> active;
    int number = -1;  // its MPI_Request_toint, once asked (requests.cpp)
    enum class partitioned_side : uint8_t { none, send, receive } side = partitioned_side::none;  // partitioned.cpp
    // The native return code of starting a persistent request.
    virtual int start() { return MPI_ERR_REQUEST; }
    // Whether the operation has completed, without blocking (*done), its status in *st when it
    // has.  complete: as MPI_Test, which completes it; else as MPI_Request_get_status, which
    // only looks.  Called on active requests only.
    virtual int test(bool complete, int *done, MPI_Status *st) = 0;
    virtual int wait(MPI_Status *st) = 0;
    // MPI_Cancel: 0 or the ABI error class (the caller raises it).
    virtual int cancel() = 0;
};

extern std::atomic<long> emulated_alive;
inline bool any_emulated()
{
    if constexpr (emulates_requests) return emulated_alive.load(std::memory_order_relaxed) != 0;
    else return false;
}
inline bool is_emulated(abi_Request r) { return (reinterpret_cast<uintptr_t>(r) & emulated_tag) != 0; }
inline bool holds_emulated(int count, const abi_Request reqs[])
{
    for (int i = 0; i < count; ++i)
        if (is_emulated(reqs[i])) return true;
    return false;
}

// Native persistent requests (MPI_X_init forwarded: c_hout_persistent): whether each is
// active, which a native MPI cannot say (its MPI_Request_get_status answers an inactive one
// as a complete one) and MPI-5.0's MPI_Request_get_status_any/some must know.  Noted at
// MPI_X_init, active from MPI_Start/Startall until a completion call completes it, forgotten
// at MPI_Request_free.  While none exists, each of those calls pays one relaxed load.
extern std::atomic<long> native_persistent_alive;
inline bool any_native_persistent() { return native_persistent_alive.load(std::memory_order_relaxed) != 0; }
// Requests anympi's start and completion calls look at: its own and native persistent ones.
// While none exists, those calls are the generated forwards after one relaxed load.
extern std::atomic<long> tracked_alive;
inline bool any_tracked() { return tracked_alive.load(std::memory_order_relaxed) != 0; }
int tracked_waitsome(int incount, abi_Request reqs[], int *outcount, int indices[], abi_Status statuses[]);
int tracked_testsome(int incount, abi_Request reqs[], int *outcount, int indices[], abi_Status statuses[]);
// reqs[i] for i < count, or reqs[indices[i]] with indices: the native persistent ones among
// them become active or inactive.
void persistent_mark(long count, const abi_Request reqs[], const int *indices, bool active);
void persistent_freed(abi_Request r);

// The handle of a new request of anympi's; the request of a handle (null if none such lives).
abi_Request adopt(std::unique_ptr<emulated_request> r);
emulated_request *find_emulated(abi_Request h);
void empty_status(MPI_Status *st);
// MPI_Pack of a message that anympi sends packed (buffered sends, MPI_Isendrecv_replace), also
// from MPI_BOTTOM, which MPICH 4.0.2's MPI_Pack refuses: native return code.
int pack_from(const void *buf, int count, MPI_Datatype t, void *out, int outsize, int *position, MPI_Comm c);
// Partitioned communication where the MPI lacks it (partitioned.cpp): its private
// communicator, made once the MPI has started.
void partitioned_world_init();
void partitioned_world_end();  // before the native MPI_Finalize (sessions.cpp)
// Buffered sends in anympi's buffers (buffers.cpp): every buffered message sent, before the
// native MPI_Finalize.
void buffers_finalize();
// Before the native MPI_Session_finalize: the session's buffered messages sent, its buffer and
// the origins of what derives from it dropped.  `session`: its native handle.
void buffers_session_finalize(uintptr_t session);
// MPI_Group_from_session_pset made `group` (native) of `session` (native): what is made from it
// derives from the session (buffers.cpp).
void note_session_group(uintptr_t group, uintptr_t session);

// The completion calls over arrays that may hold anympi's requests (requests.cpp): each
// completes those itself and hands the native ones, compacted, to the generated forward.
int emulated_wait(abi_Request *request, abi_Status *status);
int emulated_test(abi_Request *request, int *flag, abi_Status *status);
int emulated_get_status(abi_Request request, int *flag, abi_Status *status);
int emulated_free(abi_Request *request);
int emulated_start(abi_Request *request);
int emulated_cancel(abi_Request *request);
// MPI_Request_toint / fromint of anympi's requests: numbers from own_request_ints up, which no
// native request's integer handle takes (MPICH's are negative or past 0x40000000, its null
// handles below 0x30000000; Open MPI's are small table indices); a freed request's number goes
// to the next request asked for one.
inline constexpr int own_request_ints = 0x30000000;
inline bool own_request_int(int i) { return i >= own_request_ints && i < 0x40000000; }
int emulated_toint(abi_Request request);
abi_Request emulated_fromint(int i);
int mixed_waitall(int count, abi_Request reqs[], abi_Status statuses[]);
int mixed_testall(int count, abi_Request reqs[], int *flag, abi_Status statuses[]);
int mixed_waitany(int count, abi_Request reqs[], int *index, abi_Status *status);
int mixed_testany(int count, abi_Request reqs[], int *index, int *flag, abi_Status *status);
int mixed_waitsome(int incount, abi_Request reqs[], int *outcount, int indices[], abi_Status statuses[]);
int mixed_testsome(int incount, abi_Request reqs[], int *outcount, int indices[], abi_Status statuses[]);
int mixed_startall(int count, abi_Request reqs[]);

// What a persistent request keeps alive: the program may free its datatypes and op after
// MPI_*_init, and they must still work at every MPI_Start.  The native MPI keeps them only
// while an operation runs, so anympi defers such a free (MPI_Type_free, MPI_Op_free) until the
// last request using them is freed.  Predefined ones need nothing.
struct type_kept {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    bool pinned = false;
    explicit type_kept(abi_Datatype a);
    type_kept(type_kept &&o) noexcept : t(o.t), pinned(o.pinned) { o.pinned = false; }
    type_kept &operator=(type_kept &&) = delete;
    ~type_kept();
    operator MPI_Datatype() const { return t; }
};
struct op_kept {
    MPI_Op op = MPI_OP_NULL;
    bool pinned = false;
    op_kept(abi_Op a, abi_Datatype datatype);
    op_kept(op_kept &&o) noexcept : op(o.op), pinned(o.pinned) { o.pinned = false; }
    op_kept &operator=(op_kept &&) = delete;
    ~op_kept();
    operator MPI_Op() const { return op; }
};
inline type_kept c_type_kept(abi_Datatype t) { return type_kept(t); }
inline op_kept c_op_kept(abi_Op op, abi_Datatype t) { return op_kept(op, t); }
// MPI_Type_free / MPI_Op_free of a handle a persistent request keeps: true when the free is
// deferred (the caller then only sets the handle to null).
bool free_deferred(handle_kind k, uintptr_t native);
extern std::atomic<long> pinned_alive;

// A persistent collective's own communicator.  Once initialized, persistent collectives may
// be started in any order, which may differ between processes, and never match the program's
// blocking or nonblocking collectives (MPI-4.1 6.12).  Started as nonblocking collectives on
// the program's communicator they would match in start order, and with the program's own: so
// the init, which is collective and ordered, duplicates the communicator (without the
// program's attributes: quiet_copies), its starts run on the duplicate, and the request frees
// it.  Made where the init begins (ANYMPI_PERSISTENT, the hand-written inits); `comm` then
// names the duplicate, and persistent_from hands it to the request it makes.
struct coll_comm {
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_SUCCESS;
    explicit coll_comm(abi_Comm &comm);
    ~coll_comm();  // frees the duplicate unless a request took it
    coll_comm(const coll_comm &) = delete;
    coll_comm &operator=(const coll_comm &) = delete;
};
MPI_Comm take_coll_comm();  // this thread's coll_comm's duplicate (MPI_COMM_NULL if none)
// A persistent collective's arguments, checked at init as the MPI checks the nonblocking
// collective's when it is called (anympi calls that only at MPI_Start): the first error is
// raised through the communicator's handler, and the chain converts to it (0: none).  Counts,
// datatypes and op only on an intracommunicator, where every process's are significant.
struct init_checks {
    const char *fn;
    abi_Comm comm;
    int rc = 0, size = 0, inter = 0;
    init_checks(const char *fn, abi_Comm comm);
    init_checks &count(abi_Count n, const char *name);
    init_checks &type(abi_Datatype t, const char *name);
    init_checks &op(abi_Op o, abi_Datatype t);
    init_checks &root(int root);
    init_checks &in_place_root(const void *buf, const char *name, int root);
    operator int() const { return rc; }
};
void free_coll_comm(MPI_Comm &c);
// Whether a partitioned receive of anympi's waits for its setup (partitioned.cpp): completion
// calls then look at anympi's requests in turn instead of waiting on one.
bool partitioned_receives_pending();

// A collective of anympi's over native nonblocking calls: start makes them, with the arguments
// converted (and kept) at init -- one call, start(MPI_Request *), or several, as a reduction's
// int-sized chunks, start(std::vector<MPI_Request> &) appending each.  Persistent: MPI_Start
// starts it each time; else (nonblocking_from) it is started once, and what start holds lives
// until it completes.
template <class Start> struct persistent_collective final : emulated_request {
    Start start_nb;
    std::vector<MPI_Request> natives;  // its capacity stays from one start to the next
    MPI_Comm own_comm = MPI_COMM_NULL;  // a persistent one's (coll_comm)
    // While a thread waits, another's MPI_Request_get_status is answered "not yet" here: Open MPI
    // 4.1 answers "complete" for a request a thread waits on (it reads the waiter's mark as done).
    // A look at the native requests holds `look`, so a wait cannot begin during one.
    bool waiting = false;  // (under look)
    std::mutex look;
    explicit persistent_collective(Start s, bool persistent_ = true)
        : emulated_request(persistent_), start_nb(std::move(s)) {}
    ~persistent_collective() override
    {
        for (MPI_Request &q : natives)  // freed while active (erroneous)
            if (q != MPI_REQUEST_NULL) MPI_Request_free(&q);
        free_coll_comm(own_comm);
    }
    int start_natives()
    {
        natives.clear();
        if constexpr (std::is_invocable_v<Start &, std::vector<MPI_Request> &>) return start_nb(natives);
        else return start_nb(&natives.emplace_back(MPI_REQUEST_NULL));
    }
    int start() override
    {
        if (active) return MPI_ERR_REQUEST;
        int rc = start_natives();
        if (rc == MPI_SUCCESS) active = true;
        return rc;
    }
    // What a start leaves to do once its native calls complete (reduce_scatter in place moves
    // the result: large_counts.cpp), where Start has it.
    int finished(int rc)
    {
        if constexpr (requires { start_nb.finish(); })
            if (rc == MPI_SUCCESS) rc = start_nb.finish();
        return rc;
    }
    // One native call gives its own status; several, a collective's empty one.
    int test(bool complete, int *done, MPI_Status *st) override
    {
        int rc = MPI_SUCCESS;
        std::unique_lock<std::mutex> g(look, std::defer_lock);
        if (!complete) {
            g.lock();
            if (waiting) {
                *done = 0;
                return MPI_SUCCESS;
            }
        }
        if (natives.size() == 1) {
            rc = complete ? MPI_Test(&natives[0], done, st) : MPI_Request_get_status(natives[0], done, st);
        } else if (complete) {
            rc = MPI_Testall(int(natives.size()), natives.data(), done, MPI_STATUSES_IGNORE);
            if (rc == MPI_SUCCESS && *done) collective_status(st);
        } else {
            *done = 1;
            for (MPI_Request q : natives)
                if ((rc = MPI_Request_get_status(q, done, MPI_STATUS_IGNORE)) != MPI_SUCCESS || !*done) break;
            if (rc == MPI_SUCCESS && *done) collective_status(st);
        }
        if (rc == MPI_SUCCESS && *done && complete) {
            active = false;
            rc = finished(rc);
        }
        return rc;
    }
    int wait(MPI_Status *st) override
    {
        {
            std::lock_guard<std::mutex> g(look);
            waiting = true;
        }
        int rc;
        if (natives.size() == 1) {
            rc = MPI_Wait(&natives[0], st);
        } else {
            rc = MPI_Waitall(int(natives.size()), natives.data(), MPI_STATUSES_IGNORE);
            collective_status(st);
        }
        rc = finished(rc);
        active = false;
        std::lock_guard<std::mutex> g(look);
        waiting = false;
        return rc;
    }
    int cancel() override { return ABI_ERR_REQUEST; }  // not allowed on a collective
    static void collective_status(MPI_Status *st)
    {
        empty_status(st);
        if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = MPI_SUCCESS;
    }
};

// A persistent collective of anympi's: start(r) starts the nonblocking collective.  A count
// the int form cannot take is refused here, as the native _c form would not be.
template <class Start> int persistent_from(abi_Request *request, errh_obj o, const char *fn, bool fits, Start start)
{
    if (!request) {
        char msg[160];
        std::snprintf(msg, sizeof msg, "%s: request is NULL", fn);
        return raise_error(o, ABI_ERR_ARG, msg);
    }
    if (!fits) {
        char msg[200];
        std::snprintf(msg, sizeof msg, "%s: a count exceeds what the MPI underneath takes (int)", fn);
        return raise_error(o, ABI_ERR_COUNT, msg);
    }
    auto r = std::make_unique<persistent_collective<Start>>(std::move(start));
    r->own_comm = take_coll_comm();
    *request = adopt(std::move(r));
    return 0;
}
// A nonblocking collective of anympi's: start(r) starts the native one now.
template <class Start> int nonblocking_from(abi_Request *request, Start start)
{
    auto r = std::make_unique<persistent_collective<Start>>(std::move(start), false);
    if (int rc = r->start_natives()) return err_out(rc);
    *request = adopt(std::move(r));
    return 0;
}
// MPI_X_init emulated (ANYMPI_PERSISTENT): the arguments are converted, and their datatypes
// and op kept, once here; MPI_Start calls nb with them.
// A start in several calls (chunked_nb, large_counts.hpp) takes the requests' vector first.
template <class NB, class... T>
int persistent_init(abi_Request *request, errh_obj o, const char *fn, bool fits, NB nb, T &&...args)
{
    if constexpr (requires { typename NB::several_calls; })
        return persistent_from(request, o, fn, fits,
                               [nb, ... a = std::forward<T>(args)](std::vector<MPI_Request> &r) { return nb(r, a...); });
    else
        return persistent_from(request, o, fn, fits,
                               [nb, ... a = std::forward<T>(args)](MPI_Request *r) { return nb(a..., r); });
}

}  // namespace anympi::backend

#define ANYMPI_UNPAREN(...) __VA_ARGS__
// The start of a hand-written init of anympi's persistent collective: errors at init go through
// the program's communicator (o_); from here on `comm` names the request's own (coll_comm).
#define ANYMPI_COLL_COMM                                                                           \
    const ::anympi::backend::errh_obj o_ = ::anympi::backend::errh_of(comm);                      \
    ::anympi::backend::coll_comm own_(comm);                                                       \
    if (own_.rc) return ::anympi::backend::err_out(own_.rc);
// Every persistent collective's init: its arguments checked (init_checks), its errors through
// the program's communicator.
#define ANYMPI_PERSISTENT(name, check, nb, fits, args)                                             \
    ANYMPI_SIG_##name                                                                              \
    {                                                                                              \
        (void)info; /* hints only */                                                               \
        if (const int e_ = (check)) return e_;                                                     \
        ANYMPI_COLL_COMM                                                                           \
        return ::anympi::backend::persistent_init(request, o_, #name, fits, nb, ANYMPI_UNPAREN args); \
    }
