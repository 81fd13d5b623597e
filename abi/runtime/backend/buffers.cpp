// Buffered sends in anympi's own buffers: the process's (MPI_Buffer_attach), a communicator's
// (MPI_Comm_attach_buffer), a session's (MPI_Session_attach_buffer) and MPI_BUFFER_AUTOMATIC for
// any of them, with their flushes (MPI-4.1/5.0).  The MPIs underneath have only the process's
// buffer, no automatic buffering and no flush, so anympi keeps every buffered send itself -- one
// mechanism for all of them.  The message is packed into the buffer the standard names (the
// communicator's if it has one, else that of the session the communicator derives from if it
// has one, else the process's) and sent from there by a native MPI_Isend of MPI_PACKED bytes,
// which any receive whose type signature matches takes.  Its space is reused once that send has
// completed (found by testing at the next buffered send, flush or detach); detach and flush wait
// for the sends still in the buffer, as MPI_Finalize and MPI_Session_finalize do for all of them
// (a session's: its own).  MPI_Ibsend's request is complete as soon as the message is in the
// buffer; MPI_Bsend_init's buffers it again at each MPI_Start.
//
// Which session a communicator derives from is visible through no MPI, so anympi notes it (the
// origins below): a group made by MPI_Group_from_session_pset belongs to its session; a
// communicator or group made from another belongs to that one's session (c_hout_derived in
// backend.hpp: every generated or hand-written function that makes one, MPI_Comm_create_from_group
// and MPI_Intercomm_create_from_groups from their (local) group); everything else to the world
// model.  Noting starts with the first session's first group and costs the others one load.
#include "backend.hpp"
#include "large_counts.hpp"
#include "requests.hpp"
#include "sessions.hpp"

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace anympi::backend {

// ---------------------------------------------------------------- origins
// (kind, native handle) -> the session (its native bits) it derives from; absent: the world
// model.  A group's entry stays when the program frees it: groups are reference-counted natively
// (MPI_Comm_group returns the same handle each time), so freeing one handle says nothing of
// another; a new group or communicator with that handle overwrites the entry when made (all but
// a window's or file's group, made from neither).
std::atomic<bool> origins_noted{false};
namespace {
std::mutex origins_mutex;
std::unordered_map<uint64_t, uintptr_t> origins;  // guarded
uint64_t origin_key(handle_kind k, uintptr_t h) { return uint64_t(k) << 56 ^ h; }
}  // namespace

void note_origin(handle_kind made_kind, uintptr_t made, handle_kind from_kind, uintptr_t from)
{
    std::lock_guard<std::mutex> g(origins_mutex);
    const auto it = origins.find(origin_key(from_kind, from));
    if (it != origins.end()) origins[origin_key(made_kind, made)] = it->second;
    else origins.erase(origin_key(made_kind, made));
}
void note_session_group(uintptr_t group, uintptr_t session)
{
    std::lock_guard<std::mutex> g(origins_mutex);
    origins[origin_key(k_group, group)] = session;
    origins_noted.store(true, std::memory_order_relaxed);
}
namespace {
// The session communicator c derives from; 0: the world model.
uintptr_t session_of(MPI_Comm c)
{
    std::lock_guard<std::mutex> g(origins_mutex);
    const auto it = origins.find(origin_key(k_comm, bits(c)));
    return it == origins.end() ? 0 : it->second;
}
void forget_comm(MPI_Comm c)
{
    if (!origins_noted.load(std::memory_order_relaxed)) return;
    std::lock_guard<std::mutex> g(origins_mutex);
    origins.erase(origin_key(k_comm, bits(c)));
}

// A message in a buffer until its native send completes: its bytes at [offset, offset + size)
// of the attached buffer, or in storage of its own under MPI_BUFFER_AUTOMATIC.
struct buffered_message {
    size_t offset = 0, size = 0;
    std::unique_ptr<char[]> automatic;
    MPI_Request send = MPI_REQUEST_NULL;
    unsigned long number = 0;  // in the order the buffer took them (what an iflush waits for)
};

struct send_buffer {
    char *base = nullptr;  // null under MPI_BUFFER_AUTOMATIC
    size_t size = 0;
    bool automatic = false;
    std::vector<buffered_message> messages;  // by offset
    unsigned long taken = 0;                 // messages buffered so far

    // Drops the messages whose sends have completed; with wait_until, first waits for those
    // numbered below it.  The native return code of the first failure.
    int settle(unsigned long wait_until = 0)
    {
        int rc = MPI_SUCCESS;
        for (auto it = messages.begin(); it != messages.end();) {
            int done = 0, e;
            if (it->number < wait_until) e = MPI_Wait(&it->send, MPI_STATUS_IGNORE), done = 1;
            else e = MPI_Test(&it->send, &done, MPI_STATUS_IGNORE);
            if (e != MPI_SUCCESS && rc == MPI_SUCCESS) rc = e;
            it = done || e != MPI_SUCCESS ? messages.erase(it) : it + 1;
        }
        return rc;
    }
    int flush() { return settle(taken); }
    bool holds_any_before(unsigned long number) const
    {
        for (const auto &m : messages)
            if (m.number < number) return true;
        return false;
    }
    // Room for `need` bytes: the first gap between the messages still in the buffer.
    bool place(size_t need, buffered_message &m)
    {
        if (automatic) {
            m.automatic.reset(new char[need ? need : 1]);
            m.size = need;
            return true;
        }
        const size_t align = 16;
        size_t at = 0;
        auto it = messages.begin();
        for (;; ++it) {
            const size_t end = it == messages.end() ? size : it->offset;
            if (at <= end && end - at >= need) break;
            if (it == messages.end()) return false;
            at = (it->offset + it->size + align - 1) / align * align;
        }
        m.offset = at;
        m.size = need;
        return true;
    }
    char *bytes(buffered_message &m) { return automatic ? m.automatic.get() : base + m.offset; }
    void keep(buffered_message m)
    {
        m.number = taken++;
        auto at = messages.begin();
        while (at != messages.end() && at->offset <= m.offset) ++at;
        messages.insert(automatic ? messages.end() : at, std::move(m));
    }
};

// Every buffer, under one lock (taken before origins_mutex): the process's, each communicator's
// and each session's (by native handle).  A detach or flush waits with the lock held, so another
// thread's buffered send waits for it.
std::mutex buffers_mutex;
std::shared_ptr<send_buffer> process_buffer;                        // guarded
std::map<uintptr_t, std::shared_ptr<send_buffer>> comm_buffers;     // guarded
std::map<uintptr_t, std::shared_ptr<send_buffer>> session_buffers;  // guarded
std::atomic<bool> comm_buffers_exist{false};  // MPI_Comm_free pays one load until one is attached
std::atomic<bool> session_buffers_exist{false};

// Whose buffer: the process's, a communicator's or a session's (key: its native handle).
struct owner {
    enum { process, comm, session } kind;
    uintptr_t key;
    const char *name() const { return kind == process ? "process" : kind == comm ? "communicator" : "session"; }
};
constexpr owner the_process{owner::process, 0};
owner comm_owner(abi_Comm c) { return {owner::comm, bits(to_native(c))}; }
owner session_owner(abi_Session s) { return {owner::session, bits(to_native(s))}; }

// The error of a call given a bad argument: "<function>: <what is wrong>".
int bad_argument(errh_obj o, int abi_class, const char *fn, const char *what)
{
    char msg[200];
    std::snprintf(msg, sizeof msg, "%s: %s", fn, what);
    return raise_error(o, abi_class, msg);
}

// A session argument first: MPI_SESSION_NULL, or where the sessions are anympi's one that is not
// live, is MPI_ERR_SESSION on MPI_COMM_WORLD's handler (no session's handler can be called).
template <class F> int session_checked(abi_Session session, const char *fn, F call)
{
    bool live = reinterpret_cast<uintptr_t>(session) != ABI_SESSION_NULL;
#if !ANYMPI_NATIVE_HAS_SESSIONS
    live = live && session_errh_comm(reinterpret_cast<uintptr_t>(session)) != MPI_COMM_NULL;
#endif
    if (!live) return bad_argument(errh_none(), ABI_ERR_SESSION, fn, "session is not a live session");
    return call();
}

std::map<uintptr_t, std::shared_ptr<send_buffer>> &buffers_of(owner o)
{
    return o.kind == owner::comm ? comm_buffers : session_buffers;
}
// The owner's slot, made if `make`; null if it has none.
std::shared_ptr<send_buffer> *slot_of(owner o, bool make)
{
    if (o.kind == owner::process) return &process_buffer;
    auto &m = buffers_of(o);
    if (make) return &m[o.key];
    const auto it = m.find(o.key);
    return it == m.end() ? nullptr : &it->second;
}

int attach(owner who, errh_obj o, void *buffer, abi_Count size, const char *fn)
{
    char msg[200];
    const bool automatic = buffer == reinterpret_cast<void *>(ABI_BUFFER_AUTOMATIC);
    if (!automatic && (size < 0 || (size > 0 && !buffer)))
        return bad_argument(o, ABI_ERR_ARG, fn, size < 0 ? "size is negative" : "buffer is NULL");
    std::unique_lock<std::mutex> g(buffers_mutex);
    std::shared_ptr<send_buffer> &slot = *slot_of(who, true);
    if (slot) {
        g.unlock();  // the program's handler may call MPI_Buffer_detach
        std::snprintf(msg, sizeof msg, "%s: a buffer is already attached to the %s (detach it first)", fn, who.name());
        return raise_error(o, ABI_ERR_BUFFER, msg);
    }
    slot = std::make_shared<send_buffer>();
    slot->automatic = automatic;
    slot->base = automatic ? nullptr : static_cast<char *>(buffer);
    slot->size = automatic ? 0 : size_t(size);
    if (who.kind == owner::comm) comm_buffers_exist.store(true, std::memory_order_relaxed);
    if (who.kind == owner::session) session_buffers_exist.store(true, std::memory_order_relaxed);
    return 0;
}

// Detaches after the messages in it are sent; no buffer attached: NULL and 0, as the MPIs answer.
template <class Size> int detach(owner who, void *buffer_addr, Size *size, const char *fn, errh_obj o)
{
    if (!buffer_addr || !size) return bad_argument(o, ABI_ERR_ARG, fn, "buffer_addr or size is NULL");
    std::lock_guard<std::mutex> g(buffers_mutex);
    std::shared_ptr<send_buffer> b;
    if (std::shared_ptr<send_buffer> *slot = slot_of(who, false)) b = std::move(*slot);
    if (who.kind != owner::process) buffers_of(who).erase(who.key);
    if (!b) {
        *static_cast<void **>(buffer_addr) = nullptr;
        *size = 0;
        return 0;
    }
    int rc = b->flush();
    *static_cast<void **>(buffer_addr) = b->automatic ? reinterpret_cast<void *>(ABI_BUFFER_AUTOMATIC) : b->base;
    *size = Size(b->size);
    return err_out(rc);
}

int flush(owner who)
{
    std::lock_guard<std::mutex> g(buffers_mutex);
    std::shared_ptr<send_buffer> *slot = slot_of(who, false);
    return slot && *slot ? err_out((*slot)->flush()) : 0;
}

// MPI_*_iflush*: complete once the messages in the buffer at the call have been sent.  The
// buffer lives while the request does (a detach may come first: it sends them all).
struct flush_request final : emulated_request {
    std::shared_ptr<send_buffer> buffer;
    unsigned long until;
    flush_request(std::shared_ptr<send_buffer> b, unsigned long u) : emulated_request(false), buffer(std::move(b)), until(u) {}
    int test(bool complete, int *done, MPI_Status *st) override
    {
        int rc = MPI_SUCCESS;
        {
            std::lock_guard<std::mutex> g(buffers_mutex);
            if (buffer) {
                rc = buffer->settle();
                *done = !buffer->holds_any_before(until);
            } else {
                *done = 1;
            }
        }
        if (*done) {
            empty_status(st);
            if (complete) active = false;
        }
        return rc;
    }
    int wait(MPI_Status *st) override
    {
        int rc = MPI_SUCCESS;
        {
            std::lock_guard<std::mutex> g(buffers_mutex);
            if (buffer) rc = buffer->settle(until);
        }
        active = false;
        empty_status(st);
        return rc;
    }
    int cancel() override { return 0; }  // nothing to cancel: it completes on its own
};

int iflush(owner who, abi_Request *request, errh_obj o, const char *fn)
{
    if (!request) return bad_argument(o, ABI_ERR_ARG, fn, "request is NULL");
    std::shared_ptr<send_buffer> b;
    unsigned long until = 0;
    {
        std::lock_guard<std::mutex> g(buffers_mutex);
        if (std::shared_ptr<send_buffer> *slot = slot_of(who, false)) b = *slot;
        if (b) until = b->taken;
    }
    *request = adopt(std::make_unique<flush_request>(std::move(b), until));
    return 0;
}

// The MPI's own checks of a send's arguments (rank, tag, count, datatype, communicator), which
// a buffered send makes natively before it looks at any buffer: a persistent send made and
// freed, never started. 0 or the ABI error class, raised by the MPI through the handler.
int send_arguments(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    if (int rc = MPI_Send_init(c_buf(buf), count, t, dest, tag, c, &r)) return err_out(rc);
    return err_out(MPI_Request_free(&r));
}

// One buffered send: packed into the communicator's buffer, else its session's, else the
// process's, and sent from there.  0 or the ABI error class, raised through the communicator's
// handler.
int buffered_send(const void *buf, abi_Count count, abi_Datatype datatype, int dest, int tag, abi_Comm comm,
                  const char *fn)
{
    const MPI_Comm c = to_native(comm);
    const MPI_Datatype t = to_native(datatype);
    char msg[240];
    if (count < 0) {
        std::snprintf(msg, sizeof msg, "%s: count is negative (%lld)", fn, static_cast<long long>(count));
        return raise_error(errh_of(comm), ABI_ERR_COUNT, msg);
    }
    wide_pairs w(count, t);
    if (w.err) return err_out(w.err);
    int need = 0;
    if (int rc = MPI_Pack_size(w.count(0), w.type(0), c, &need)) return err_out(rc);
    if (rank_in(dest) == MPI_PROC_NULL) return 0;  // no message: no buffer needed or used, as natively
    std::unique_lock<std::mutex> g(buffers_mutex);
    send_buffer *b = nullptr;
    if (comm_buffers_exist.load(std::memory_order_relaxed))
        if (auto it = comm_buffers.find(bits(c)); it != comm_buffers.end()) b = it->second.get();
    if (!b && session_buffers_exist.load(std::memory_order_relaxed))
        if (const uintptr_t s = session_of(c))
            if (auto it = session_buffers.find(s); it != session_buffers.end()) b = it->second.get();
    if (!b) b = process_buffer.get();
    // Without room, an erroneous argument is the error, as natively (the MPI checks them first).
    // Either is raised without the lock: the program's handler may attach a buffer, or detach one.
    auto argument_error = [&] { return send_arguments(buf, w.count(0), w.type(0), rank_in(dest), tag_in(tag), c); };
    if (!b) {
        g.unlock();
        if (int abi = argument_error()) return abi;
        std::snprintf(msg, sizeof msg,
                      "%s: no buffer is attached (MPI_Buffer_attach, MPI_Comm_attach_buffer or, for a communicator "
                      "derived from a session, MPI_Session_attach_buffer) for a message of %d bytes",
                      fn, need);
        return raise_error(errh_of(comm), ABI_ERR_BUFFER, msg);
    }
    buffered_message m;
    if (!b->place(size_t(need), m)) {
        b->settle();
        if (!b->place(size_t(need), m)) {
            size_t used = 0;
            for (const auto &k : b->messages) used += k.size;
            std::snprintf(msg, sizeof msg,
                          "%s: the attached buffer of %zu bytes has no room for a message of %d bytes (%zu bytes in "
                          "%zu messages not yet sent)",
                          fn, b->size, need, used, b->messages.size());
            g.unlock();
            if (int abi = argument_error()) return abi;
            return raise_error(errh_of(comm), ABI_ERR_BUFFER, msg);
        }
    }
    int position = 0;
    int rc = pack_from(c_buf(buf), w.count(0), w.type(0), b->bytes(m), need, &position, c);
    if (rc == MPI_SUCCESS)
        rc = MPI_Isend(b->bytes(m), position, MPI_PACKED, rank_in(dest), tag_in(tag), c, &m.send);
    if (rc != MPI_SUCCESS) return err_out(rc);
    b->keep(std::move(m));
    return 0;
}

// MPI_Ibsend's request (complete once buffered) and MPI_Bsend_init's (buffers at each start).
struct buffered_request final : emulated_request {
    const void *buf = nullptr;
    abi_Count count = 0;
    abi_Datatype datatype = nullptr;
    type_kept kept;  // the program may free the datatype after MPI_Bsend_init
    int dest = 0, tag = 0;
    abi_Comm comm = nullptr;
    buffered_request(bool persistent_, const void *b, abi_Count n, abi_Datatype t, int d, int g, abi_Comm c)
        : emulated_request(persistent_), buf(b), count(n), datatype(t), kept(t), dest(d),
          tag(g), comm(c)
    {
    }
    int start() override
    {
        if (active) return MPI_ERR_REQUEST;
        // buffered_send raised any error through the handler already: its class, as native
        const int abi = buffered_send(buf, count, datatype, dest, tag, comm, "MPI_Start");
        if (abi != 0) return err_in(abi);
        active = true;
        return MPI_SUCCESS;
    }
    int test(bool complete, int *done, MPI_Status *st) override
    {
        *done = 1;
        empty_status(st);
        if (complete) active = false;
        return MPI_SUCCESS;
    }
    int wait(MPI_Status *st) override
    {
        active = false;
        empty_status(st);
        return MPI_SUCCESS;
    }
    int cancel() override { return 0; }  // buffered already: like a completed send, not cancelled
};

int ibsend(const void *buf, abi_Count count, abi_Datatype datatype, int dest, int tag, abi_Comm comm,
           abi_Request *request, const char *fn)
{
    if (!request) return bad_argument(errh_of(comm), ABI_ERR_ARG, fn, "request is NULL");
    if (int rc = buffered_send(buf, count, datatype, dest, tag, comm, fn)) return rc;
    *request = adopt(std::make_unique<buffered_request>(false, buf, count, datatype, dest, tag, comm));
    return 0;
}

int bsend_init(const void *buf, abi_Count count, abi_Datatype datatype, int dest, int tag, abi_Comm comm,
               abi_Request *request, const char *fn)
{
    if (!request || count < 0)
        return bad_argument(errh_of(comm), request ? ABI_ERR_COUNT : ABI_ERR_ARG, fn,
                            request ? "count is negative" : "request is NULL");
    wide_pairs w(count, to_native(datatype));
    if (w.err) return err_out(w.err);
    if (int abi = send_arguments(buf, w.count(0), w.type(0), rank_in(dest), tag_in(tag), to_native(comm))) return abi;
    *request = adopt(std::make_unique<buffered_request>(true, buf, count, datatype, dest, tag, comm));
    return 0;
}

// A communicator's buffer and origin go with it (its messages sent first): its handle may be
// reused.
int comm_released(abi_Comm *comm)
{
    if (comm) forget_comm(to_native(*comm));
    if (!comm || !comm_buffers_exist.load(std::memory_order_relaxed)) return MPI_SUCCESS;
    std::lock_guard<std::mutex> g(buffers_mutex);
    auto it = comm_buffers.find(bits(to_native(*comm)));
    if (it == comm_buffers.end()) return MPI_SUCCESS;
    int rc = it->second ? it->second->flush() : MPI_SUCCESS;
    comm_buffers.erase(it);
    return rc;
}

}  // namespace

// Before the native MPI_Finalize (sessions.cpp): every buffered message is sent.
void buffers_finalize()
{
    std::lock_guard<std::mutex> g(buffers_mutex);
    if (process_buffer) process_buffer->flush();
    for (auto &[c, b] : comm_buffers)
        if (b) b->flush();
    comm_buffers.clear();
}

// Before the native MPI_Session_finalize (sessions.cpp): the session's buffered messages are
// sent, its buffer and its communicators' and groups' origins dropped (its handle may be reused).
void buffers_session_finalize(uintptr_t session)
{
    {
        std::lock_guard<std::mutex> g(buffers_mutex);
        if (auto it = session_buffers.find(session); it != session_buffers.end()) {
            if (it->second) it->second->flush();
            session_buffers.erase(it);
        }
    }
    std::lock_guard<std::mutex> g(origins_mutex);
    for (auto it = origins.begin(); it != origins.end();)
        it = it->second == session ? origins.erase(it) : std::next(it);
}

}  // namespace anympi::backend

using namespace anympi::backend;

// ---------------------------------------------------------------- attach, detach, flush
ANYMPI_MANUAL(MPI_Buffer_attach, emulated, "anympi's own buffer, as for every buffered send (buffers.cpp); MPI_BUFFER_AUTOMATIC allocates per message")
{ return attach(the_process, errh_none(), buffer, size, "MPI_Buffer_attach"); }
ANYMPI_MANUAL(MPI_Buffer_attach_c, emulated, "as MPI_Buffer_attach (buffers.cpp)")
{ return attach(the_process, errh_none(), buffer, size, "MPI_Buffer_attach_c"); }
ANYMPI_MANUAL(MPI_Buffer_detach, emulated, "waits for the messages in anympi's buffer to be sent (buffers.cpp)")
{ return detach(the_process, buffer_addr, size, "MPI_Buffer_detach", errh_none()); }
ANYMPI_MANUAL(MPI_Buffer_detach_c, emulated, "as MPI_Buffer_detach (buffers.cpp)")
{ return detach(the_process, buffer_addr, size, "MPI_Buffer_detach_c", errh_none()); }
ANYMPI_MANUAL(MPI_Buffer_flush, emulated, "waits for the messages in anympi's process buffer to be sent (buffers.cpp)")
{ return flush(the_process); }
ANYMPI_MANUAL(MPI_Buffer_iflush, emulated, "a request of anympi's, complete once the messages in the process buffer at the call are sent (buffers.cpp)")
{ return iflush(the_process, request, errh_none(), "MPI_Buffer_iflush"); }

ANYMPI_MANUAL(MPI_Comm_attach_buffer, emulated, "anympi's buffer for the communicator's buffered sends (buffers.cpp)")
{ return attach(comm_owner(comm), errh_of(comm), buffer, size, "MPI_Comm_attach_buffer"); }
ANYMPI_MANUAL(MPI_Comm_attach_buffer_c, emulated, "as MPI_Comm_attach_buffer (buffers.cpp)")
{ return attach(comm_owner(comm), errh_of(comm), buffer, size, "MPI_Comm_attach_buffer_c"); }
ANYMPI_MANUAL(MPI_Comm_detach_buffer, emulated, "waits for the messages in the communicator's buffer to be sent (buffers.cpp)")
{ return detach(comm_owner(comm), buffer_addr, size, "MPI_Comm_detach_buffer", errh_of(comm)); }
ANYMPI_MANUAL(MPI_Comm_detach_buffer_c, emulated, "as MPI_Comm_detach_buffer (buffers.cpp)")
{ return detach(comm_owner(comm), buffer_addr, size, "MPI_Comm_detach_buffer_c", errh_of(comm)); }
ANYMPI_MANUAL(MPI_Comm_flush_buffer, emulated, "waits for the messages in the communicator's buffer to be sent (buffers.cpp)")
{ return flush(comm_owner(comm)); }
ANYMPI_MANUAL(MPI_Comm_iflush_buffer, emulated, "a request of anympi's, complete once the messages in the communicator's buffer at the call are sent (buffers.cpp)")
{ return iflush(comm_owner(comm), request, errh_of(comm), "MPI_Comm_iflush_buffer"); }

ANYMPI_MANUAL(MPI_Session_attach_buffer, emulated, "anympi's buffer for the buffered sends on the communicators derived from the session (buffers.cpp)")
{ return session_checked(session, "MPI_Session_attach_buffer", [&] { return attach(session_owner(session), errh_of(session), buffer, size, "MPI_Session_attach_buffer"); }); }
ANYMPI_MANUAL(MPI_Session_attach_buffer_c, emulated, "as MPI_Session_attach_buffer (buffers.cpp)")
{ return session_checked(session, "MPI_Session_attach_buffer_c", [&] { return attach(session_owner(session), errh_of(session), buffer, size, "MPI_Session_attach_buffer_c"); }); }
ANYMPI_MANUAL(MPI_Session_detach_buffer, emulated, "waits for the messages in the session's buffer to be sent (buffers.cpp)")
{ return session_checked(session, "MPI_Session_detach_buffer", [&] { return detach(session_owner(session), buffer_addr, size, "MPI_Session_detach_buffer", errh_of(session)); }); }
ANYMPI_MANUAL(MPI_Session_detach_buffer_c, emulated, "as MPI_Session_detach_buffer (buffers.cpp)")
{ return session_checked(session, "MPI_Session_detach_buffer_c", [&] { return detach(session_owner(session), buffer_addr, size, "MPI_Session_detach_buffer_c", errh_of(session)); }); }
ANYMPI_MANUAL(MPI_Session_flush_buffer, emulated, "waits for the messages in the session's buffer to be sent (buffers.cpp)")
{ return session_checked(session, "MPI_Session_flush_buffer", [&] { return flush(session_owner(session)); }); }
ANYMPI_MANUAL(MPI_Session_iflush_buffer, emulated, "a request of anympi's, complete once the messages in the session's buffer at the call are sent (buffers.cpp)")
{ return session_checked(session, "MPI_Session_iflush_buffer", [&] { return iflush(session_owner(session), request, errh_of(session), "MPI_Session_iflush_buffer"); }); }

// ---------------------------------------------------------------- buffered sends
ANYMPI_MANUAL(MPI_Bsend, emulated, "packed into anympi's buffer (the communicator's, else its session's, else the process's) and sent from there by MPI_Isend (buffers.cpp)")
{ return buffered_send(buf, count, datatype, dest, tag, comm, "MPI_Bsend"); }
ANYMPI_MANUAL(MPI_Bsend_c, emulated, "as MPI_Bsend (buffers.cpp)")
{ return buffered_send(buf, count, datatype, dest, tag, comm, "MPI_Bsend_c"); }
ANYMPI_MANUAL(MPI_Ibsend, emulated, "as MPI_Bsend; the request, anympi's, is complete once the message is buffered (buffers.cpp)")
{ return ibsend(buf, count, datatype, dest, tag, comm, request, "MPI_Ibsend"); }
ANYMPI_MANUAL(MPI_Ibsend_c, emulated, "as MPI_Ibsend (buffers.cpp)")
{ return ibsend(buf, count, datatype, dest, tag, comm, request, "MPI_Ibsend_c"); }
ANYMPI_MANUAL(MPI_Bsend_init, emulated, "a persistent request of anympi's: each MPI_Start buffers the message as MPI_Bsend (buffers.cpp)")
{ return bsend_init(buf, count, datatype, dest, tag, comm, request, "MPI_Bsend_init"); }
ANYMPI_MANUAL(MPI_Bsend_init_c, emulated, "as MPI_Bsend_init (buffers.cpp)")
{ return bsend_init(buf, count, datatype, dest, tag, comm, request, "MPI_Bsend_init_c"); }

ANYMPI_MANUAL(MPI_Comm_free, forwarded, "a buffer attached to the communicator is detached first, its messages sent (buffers.cpp)")
{
    if (int rc = comm_released(comm)) return err_out(rc);
    return err_out(MPI_Comm_free(c_hio(comm)));
}
ANYMPI_MANUAL(MPI_Comm_disconnect, forwarded, "a buffer attached to the communicator is detached first, its messages sent (buffers.cpp)")
{
    if (int rc = comm_released(comm)) return err_out(rc);
    return err_out(MPI_Comm_disconnect(c_hio(comm)));
}
