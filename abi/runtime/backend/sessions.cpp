// MPI-4 sessions, and the world model's start and end that they share the native MPI with.
//
// MPICH 4.0 has sessions: every call is forwarded; only the emulated predefined datatypes are
// built at the first session and released before the last one ends (emulated_types.cpp).
//
// Open MPI 4.1 is an MPI-3.1 and has none, so anympi keeps its own over the world model:
//  - The native MPI is started (MPI_Init_thread) by the first of MPI_Init[_thread] and
//    MPI_Session_init.  Open MPI cannot start again after its MPI_Finalize, and the standard
//    lets a session begin after MPI_Finalize and after every earlier session has ended: so a
//    program that has begun a session keeps the MPI until process exit; one that never did
//    ends it in MPI_Finalize, as natively (a session begun after that is refused).  MPI_Initialized, MPI_Finalized and MPI_Is_thread_main answer
//    for the world model itself.
//  - MPI_Finalize must still run MPI_COMM_SELF's attribute delete callbacks, in the reverse
//    order of setting, while MPI works: so during the world model MPI_COMM_SELF is a native
//    duplicate of MPI_COMM_SELF (named so), which MPI_Finalize frees -- Open MPI then calls
//    the callbacks exactly as its own MPI_Finalize would.
//  - A session is an object of anympi's (native_session is no_session *).  Its error handler
//    sits on a native duplicate of MPI_COMM_SELF of its own: set, get and call go through it,
//    so the MPI keeps the handler's reference count and aborts, returns or calls the user
//    (through a closure that hands the user the session: callbacks.cpp) as for a communicator.
//  - The process sets are mpi://WORLD and mpi://SELF, the groups of the native MPI_COMM_WORLD
//    and MPI_COMM_SELF.  MPI_Comm_create_from_group is MPI_Comm_create_group on anympi's own
//    duplicate of MPI_COMM_WORLD, made when the native MPI starts (the one moment every
//    process is known to take part: Open MPI's start is itself collective); see tag_of for
//    the tag.
#include "backend.hpp"
#include "callbacks.hpp"
#include "emulated_types.hpp"
#include "sessions.hpp"
#include "requests.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <strings.h>
#include <vector>

using namespace anympi::backend;

#if !ANYMPI_NATIVE_HAS_SESSIONS
// ---------------------------------------------------------------- Open MPI: anympi's own objects
namespace anympi::backend {
struct no_session {
    MPI_Comm errh = MPI_COMM_NULL;  // a native duplicate of MPI_COMM_SELF carrying the session's handler
    int number = 0;                 // MPI_Session_toint
};
}  // namespace anympi::backend

namespace {
std::mutex life_mutex;  // the native start, the world model's start and end, the sessions
bool native_up = false;
bool native_ended = false;   // MPI_Finalize ended it: Open MPI cannot start again
bool sessions_used = false;  // a session was begun: the MPI stays until exit
std::atomic<int> world{0};  // 0: before MPI_Init, 1: initialized, 2: finalized
pthread_t world_thread;
MPI_Comm world_self = MPI_COMM_NULL;    // the ABI's MPI_COMM_SELF while the world model is active
MPI_Comm anympi_world = MPI_COMM_NULL;  // MPI_Comm_create_from_group's parent
int half_tag_ub = 16383;                // of anympi_world's MPI_TAG_UB
std::vector<no_session *> live;          // guarded by life_mutex
std::vector<no_session *> numbered;      // MPI_Session_toint's numbers (index + 1); null once finalized
std::vector<std::unique_ptr<no_session>> spare;  // finalized sessions, number kept, begun again
                                                 // first (freed at exit with the vector)

// A finalized session's object and number, else new ones: as MPI reuses a freed handle's value,
// so that a program beginning and ending sessions in a loop runs in constant memory (also
// under ANYMPI_CHECK, which keeps every freed handle value it has seen).  Under life_mutex.
no_session *take_session()
{
    if (!spare.empty()) {
        no_session *s = spare.back().release();
        spare.pop_back();
        return s;
    }
    auto *s = new no_session;
    numbered.push_back(nullptr);
    s->number = int(numbered.size());
    return s;
}

no_session *find(abi_Session s)
{
    no_session *p = to_native(s);
    std::lock_guard<std::mutex> g(life_mutex);
    for (no_session *q : live)
        if (q == p) return p;
    return nullptr;
}

int bad_session(const char *fn)
{
    char msg[160];
    std::snprintf(msg, sizeof msg, "%s: the session is not a live session (MPI_SESSION_NULL, or finalized)", fn);
    return raise_error(errh_none(), ABI_ERR_SESSION, msg);
}
int arg_error(errh_obj o, const char *fn, const char *what)
{
    char msg[200];
    std::snprintf(msg, sizeof msg, "%s: %s", fn, what);
    return raise_error(o, ABI_ERR_ARG, msg);
}
// A native error of a call anympi made on the program's behalf, raised through `o`'s handler
// with its class (anympi_world returns errors rather than calling the program's handler).
int native_error(errh_obj o, int rc, const char *fn)
{
    int cls = MPI_ERR_OTHER, len = 0;
    char native[MPI_MAX_ERROR_STRING] = "", msg[MPI_MAX_ERROR_STRING + 64];
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, native, &len);
    std::snprintf(msg, sizeof msg, "%s: %s", fn, native);
    return raise_error(o, err_out(cls), msg);
}

// The calls given a handler for their own errors (MPI_Session_init, MPI_Comm_create_from_group,
// MPI_Intercomm_create_from_groups: "error handler to invoke in the event that an error is
// encountered during this function call") raise through it, on a communicator of anympi's own
// that holds it for the raise (a session handler is then called with MPI_SESSION_NULL), or
// through MPI_COMM_WORLD's (errh_none) where it is MPI_ERRHANDLER_NULL or the MPI is not running.
std::recursive_mutex given_mutex;    // a handler may itself fail such a call
MPI_Comm given_comm = MPI_COMM_NULL;  // guarded; freed with anympi_world
template <class Raise> int on_given(abi_Errhandler errhandler, Raise raise)
{
    if (reinterpret_cast<uintptr_t>(errhandler) == ABI_ERRHANDLER_NULL || !native_active()) return raise(errh_none());
    std::lock_guard<std::recursive_mutex> g(given_mutex);
    if (given_comm == MPI_COMM_NULL) MPI_Comm_split(MPI_COMM_SELF, 0, 0, &given_comm);  // no attribute copied
    if (given_comm == MPI_COMM_NULL || MPI_Comm_set_errhandler(given_comm, to_native(errhandler)) != MPI_SUCCESS)
        return raise(errh_none());
    return raise(errh_obj{k_comm, bits(given_comm)});
}
int given_native_error(abi_Errhandler errhandler, int rc, const char *fn)
{
    return on_given(errhandler, [&](errh_obj o) { return native_error(o, rc, fn); });
}
void free_given_comm()
{
    std::lock_guard<std::recursive_mutex> g(given_mutex);
    if (given_comm != MPI_COMM_NULL) MPI_Comm_free(&given_comm);
}

// A new info holding one key (the session's own answers).
int info_of_one(abi_Session session, const char *key, const char *value, abi_Info *out, const char *fn)
{
    MPI_Info n = MPI_INFO_NULL;
    int rc = MPI_Info_create(&n);
    if (rc == MPI_SUCCESS) rc = MPI_Info_set(n, const_cast<char *>(key), const_cast<char *>(value));
    if (rc != MPI_SUCCESS) return native_error(errh_of(session), rc, fn);
    *out = to_abi<abi_Info>(n);
    return 0;
}

void native_stop()
{
    // A world model still active at exit is the program's error, which Open MPI reports.
    if (!native_up || world.load() == 1) return;
    int fin = 0;
    MPI_Finalized(&fin);
    if (fin) return;
    if (anympi_world != MPI_COMM_NULL) MPI_Comm_free(&anympi_world);
    free_given_comm();
    buffers_finalize();
    partitioned_world_end();
    MPI_Finalize();
}

// Under life_mutex.  MPI_Init passes its arguments on as they are (by_init).
int native_start(int *argc, char ***argv, int required, int *provided, bool by_init)
{
    if (native_up) return MPI_Query_thread(provided);
    int rc = by_init ? MPI_Init(argc, argv) : MPI_Init_thread(argc, argv, required, provided);
    if (rc != MPI_SUCCESS) return rc;
    if (by_init) MPI_Query_thread(provided);
    native_up = true;
    native_error_classes();
    if (MPI_Comm_dup(MPI_COMM_WORLD, &anympi_world) == MPI_SUCCESS) {
        MPI_Comm_set_errhandler(anympi_world, MPI_ERRORS_RETURN);
        MPI_Comm_set_name(anympi_world, const_cast<char *>("anympi: MPI_Comm_create_from_group"));
        int *ub = nullptr, flag = 0;
        if (MPI_Comm_get_attr(anympi_world, MPI_TAG_UB, &ub, &flag) == MPI_SUCCESS && flag && ub) half_tag_ub = *ub / 2;
    }
    std::atexit(native_stop);
    return MPI_SUCCESS;
}

int world_start(int *argc, char ***argv, int required, int *provided, bool by_init)
{
    int p = MPI_THREAD_SINGLE, rc;
    {
        std::lock_guard<std::mutex> g(life_mutex);
        if (world.load() != 0) rc = -1;
        else rc = native_start(argc, argv, required, &p, by_init);
        if (rc == MPI_SUCCESS) {
            world_thread = pthread_self();
            if (MPI_Comm_dup(MPI_COMM_SELF, &world_self) == MPI_SUCCESS) {
                MPI_Comm_set_name(world_self, const_cast<char *>("MPI_COMM_SELF"));
                pre_to_native[ABI_COMM_SELF] = bits(world_self);
                rev.insert(k_comm, bits(world_self), uint16_t(ABI_COMM_SELF));
            }
            world.store(1);
        }
    }
    if (rc == -1)
        return raise_error(errh_none(), ABI_ERR_OTHER,
                           by_init ? "MPI_Init: the world model was initialized before: it can be initialized once"
                                   : "MPI_Init_thread: the world model was initialized before: it can be initialized once");
    if (rc != MPI_SUCCESS) return err_out(rc);
    if (provided) *provided = cout<cat::thread>(p);
    after_native_init();
    return 0;
}

// The thread level a session asks for: its info's "thread_level", else MPI_THREAD_SINGLE.
int thread_level_of(MPI_Info info)
{
    static const struct { const char *name; int level; } levels[] = {
        {"MPI_THREAD_SINGLE", MPI_THREAD_SINGLE}, {"MPI_THREAD_FUNNELED", MPI_THREAD_FUNNELED},
        {"MPI_THREAD_SERIALIZED", MPI_THREAD_SERIALIZED}, {"MPI_THREAD_MULTIPLE", MPI_THREAD_MULTIPLE}};
    char value[64] = "";
    int flag = 0;
    if (info != MPI_INFO_NULL && MPI_Info_get(info, const_cast<char *>("thread_level"), sizeof value - 1, value, &flag) == MPI_SUCCESS && flag)
        for (const auto &l : levels)
            if (strcasecmp(l.name, value) == 0) return l.level;
    return MPI_THREAD_SINGLE;
}
const char *thread_level_name(int level)
{
    return level == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE" : level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
         : level == MPI_THREAD_FUNNELED ? "MPI_THREAD_FUNNELED" : "MPI_THREAD_SINGLE";
}

// What each process set (sessions.hpp) is made of.
MPI_Comm pset_comm(int i) { return i == pset_world ? MPI_COMM_WORLD : MPI_COMM_SELF; }

// The checks every call on a session makes; 0 or the error raised.
#define ANYMPI_LIVE_SESSION(fn)                  \
    no_session *s = find(session);               \
    if (!s) return bad_session(fn);

// MPI_Comm_create_group's tag for a string tag.  The string (up to the standard's length,
// or longer) becomes a 32-bit FNV-1a hash, folded into [0, MPI_TAG_UB]: even for the
// communicator of MPI_Comm_create_from_group, odd for the leaders' exchange in
// MPI_Intercomm_create_from_groups, so the two never share a tag.  Why a hash may collide
// without harm: anympi_world carries nothing but these calls; calls made one after another
// by a thread are matched in order (MPI's messages do not overtake), and members of
// different groups talk to different processes; so only two calls running at once in
// different threads of one process, with overlapping groups and different string tags of
// the same hash (odds 1 in 2^30 per pair) could take each other's messages -- where the
// standard asks for distinct string tags, it asks them of such calls only.
int tag_of(const char *stringtag, int kind)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = reinterpret_cast<const unsigned char *>(stringtag); *p; ++p) h = (h ^ *p) * 16777619u;
    return int(h % uint32_t(half_tag_ub)) * 2 + kind;
}

// What MPI_Comm_create_from_group and MPI_Intercomm_create_from_groups check first, as MPICH
// does (MPI_ERR_GROUP, MPI_ERR_ARG); 0 or the error raised (through the handler given).
int from_group_checks(const char *fn, std::initializer_list<abi_Group> groups, const char *stringtag,
                      abi_Errhandler errhandler, abi_Comm *newcomm)
{
    if (reinterpret_cast<uintptr_t>(errhandler) == ABI_ERRHANDLER_NULL)
        return arg_error(errh_none(), fn, "errhandler is MPI_ERRHANDLER_NULL");
    for (abi_Group g : groups)
        if (reinterpret_cast<uintptr_t>(g) == ABI_GROUP_NULL) {
            char msg[160];
            std::snprintf(msg, sizeof msg, "%s: the group is MPI_GROUP_NULL", fn);
            return on_given(errhandler, [&](errh_obj o) { return raise_error(o, ABI_ERR_GROUP, msg); });
        }
    if (!stringtag) return on_given(errhandler, [&](errh_obj o) { return arg_error(o, fn, "stringtag is NULL"); });
    if (!newcomm)
        return on_given(errhandler, [&](errh_obj o) { return arg_error(o, fn, "the output communicator is NULL"); });
    bool started;
    {
        std::lock_guard<std::mutex> g(life_mutex);
        started = anympi_world != MPI_COMM_NULL;
    }
    if (started) return 0;
    char msg[160];
    std::snprintf(msg, sizeof msg, "%s: MPI is not initialized (no session, no MPI_Init)", fn);
    return raise_error(errh_none(), ABI_ERR_OTHER, msg);
}

// anympi makes them on its duplicate of MPI_COMM_WORLD, which reaches no other process: a
// group holding a spawned or connected one is refused, collectively (every caller gives the same
// groups), before any communication -- Open MPI faults in MPI_Comm_create_group on it.
int within_world(const char *fn, std::initializer_list<abi_Group> groups, abi_Errhandler errhandler)
{
    MPI_Group world = MPI_GROUP_NULL;
    int rc = MPI_Comm_group(anympi_world, &world), outside = 0;
    for (abi_Group g : groups) {
        int n = 0;
        if (rc == MPI_SUCCESS) rc = MPI_Group_size(to_native(g), &n);
        std::vector<int> ranks(size_t(n > 0 ? n : 0)), at(ranks.size());
        for (int i = 0; i < n; ++i) ranks[size_t(i)] = i;
        if (rc == MPI_SUCCESS && n > 0) rc = MPI_Group_translate_ranks(to_native(g), n, ranks.data(), world, at.data());
        for (int w : at) outside += rc == MPI_SUCCESS && w == MPI_UNDEFINED;
    }
    if (world != MPI_GROUP_NULL) MPI_Group_free(&world);
    if (rc != MPI_SUCCESS) return given_native_error(errhandler, rc, fn);
    if (!outside) return 0;
    char msg[300];
    std::snprintf(msg, sizeof msg,
                  "%s: %d process%s of the group %s outside MPI_COMM_WORLD (spawned or connected): where the MPI "
                  "lacks this function, anympi builds it over MPI_COMM_WORLD, which does not reach them",
                  fn, outside, outside == 1 ? "" : "es", outside == 1 ? "is" : "are");
    return on_given(errhandler, [&](errh_obj o) { return raise_error(o, ABI_ERR_UNSUPPORTED_OPERATION, msg); });
}

// The new communicator gets the caller's error handler and info.
int finish_new_comm(MPI_Comm c, abi_Info info, abi_Errhandler errhandler, abi_Comm *out, const char *fn)
{
    *out = to_abi<abi_Comm>(c);
    if (c == MPI_COMM_NULL) return 0;
    int rc = MPI_Comm_set_errhandler(c, to_native(errhandler));
    if (rc == MPI_SUCCESS && reinterpret_cast<uintptr_t>(info) != ABI_INFO_NULL) rc = MPI_Comm_set_info(c, to_native(info));
    if (rc != MPI_SUCCESS) {
        MPI_Comm_free(&c);
        *out = reinterpret_cast<abi_Comm>(ABI_COMM_NULL);
        return given_native_error(errhandler, rc, fn);
    }
    return 0;
}
}  // namespace

namespace anympi::backend {
MPI_Comm session_errh_comm(uintptr_t session)
{
    no_session *s = find(reinterpret_cast<abi_Session>(session));
    return s ? s->errh : MPI_COMM_NULL;
}
abi_Session session_of_errh_comm(MPI_Comm c)
{
    std::lock_guard<std::mutex> g(life_mutex);
    for (no_session *q : live)
        if (q->errh == c) return to_abi<abi_Session>(q);
    return reinterpret_cast<abi_Session>(ABI_SESSION_NULL);
}

// Open MPI 4.1 aborts in the always-available functions before its MPI_Init ("called before
// MPI_INIT"), so the first of them starts it, as MPI_Session_init would.  At
// MPI_THREAD_MULTIPLE: the level the program will ask for (a session's "thread_level", which
// such an info usually carries, or MPI_Init_thread's) is not known yet, and a level once
// started cannot be raised; asked for less, it answers that it provides MULTIPLE.  After an
// MPI_Finalize that ended the native MPI, nothing can start it again: the error is returned
// (no handler can be called then).
int always_available(const char *fn)
{
    std::lock_guard<std::mutex> g(life_mutex);
    if (native_up) return 0;
    if (native_ended) {
        std::fprintf(stderr, "anympi: %s after MPI_Finalize: Open MPI 4.1 cannot serve it once it has ended\n", fn);
        return ABI_ERR_OTHER;
    }
    int provided = MPI_THREAD_SINGLE;
    return err_out(native_start(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided, false));
}
}  // namespace anympi::backend

#else
// MPICH 4.0 has sessions, so it starts itself where it needs to: they are forwarded as they
// are (it serves the info functions, error classes and strings before its start, and refuses
// MPI_Session_create_errhandler and MPI_Add_error_* then, as natively: runtime.sessions).
int anympi::backend::always_available(const char *) { return 0; }
#endif

ANYMPI_MANUAL(MPI_Init, forwarded, "registers the error classes the MPI underneath lacks after init; where the MPI lacks sessions, the native MPI may have been started by a session (sessions.cpp)")
{
#if ANYMPI_NATIVE_HAS_SESSIONS
    int rc = MPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) after_native_init();
    return err_out(rc);
#else
    return world_start(argc, argv, MPI_THREAD_SINGLE, nullptr, true);
#endif
}

ANYMPI_MANUAL(MPI_Init_thread, forwarded, "registers the error classes the MPI underneath lacks after init; where the MPI lacks sessions, the native MPI may have been started by a session (sessions.cpp)")
{
#if ANYMPI_NATIVE_HAS_SESSIONS
    int p = MPI_THREAD_SINGLE;
    int rc = MPI_Init_thread(argc, argv, cin<cat::thread>(required), provided ? &p : nullptr);
    if (provided) *provided = cout<cat::thread>(p);
    if (rc == MPI_SUCCESS) after_native_init();
    return err_out(rc);
#else
    return world_start(argc, argv, cin<cat::thread>(required), provided, false);
#endif
}

ANYMPI_MANUAL(MPI_Finalize, fallback, "where the MPI lacks sessions, the native MPI stops at exit: MPI_COMM_SELF is the world model's own, freed here (sessions.cpp)")
{
    buffers_finalize();  // MPI_Finalize delivers every buffered message
#if ANYMPI_NATIVE_HAS_SESSIONS
    partitioned_world_end();
    return err_out(MPI_Finalize());
#else
    if (world.load() != 1)
        return raise_error(errh_none(), ABI_ERR_OTHER, "MPI_Finalize: the world model is not initialized, or finalized already");
    // Not under life_mutex: the delete callbacks run now, and may call MPI.  An error one
    // returns ends nothing: Open MPI's finalize ignores them (its MPI_Comm_free raises them).
    MPI_Comm self = world_self;
    if (self != MPI_COMM_NULL) {
        delete_errors_ignored ignored;
        MPI_Comm_free(&self);
    }
    std::lock_guard<std::mutex> g(life_mutex);
    if (world_self != MPI_COMM_NULL) {
        pre_to_native[ABI_COMM_SELF] = bits(MPI_COMM_SELF);
        rev.erase(k_comm, bits(world_self));
        world_self = MPI_COMM_NULL;
    }
    world.store(2);
    // A program that never began a session ends the MPI here, as natively (its threads and
    // resources go now, not at exit); one that did keeps it for sessions to come.
    if (!sessions_used) {
        if (anympi_world != MPI_COMM_NULL) MPI_Comm_free(&anympi_world);
        free_given_comm();
        native_up = false;
        native_ended = true;
        partitioned_world_end();
        return err_out(MPI_Finalize());
    }
    return 0;
#endif
}

ANYMPI_MANUAL(MPI_Initialized, fallback, "where the MPI lacks sessions: the world model's own state (sessions.cpp)")
{
#if ANYMPI_NATIVE_HAS_SESSIONS
    return err_out(MPI_Initialized(flag));
#else
    if (flag) *flag = world.load() != 0;
    return 0;
#endif
}

ANYMPI_MANUAL(MPI_Finalized, fallback, "where the MPI lacks sessions: the world model's own state (sessions.cpp)")
{
#if ANYMPI_NATIVE_HAS_SESSIONS
    return err_out(MPI_Finalized(flag));
#else
    if (flag) *flag = world.load() == 2;
    return 0;
#endif
}

ANYMPI_MANUAL(MPI_Is_thread_main, fallback, "where the MPI lacks sessions: the thread that initialized the world model (sessions.cpp)")
{
#if ANYMPI_NATIVE_HAS_SESSIONS
    return err_out(MPI_Is_thread_main(flag));
#else
    if (!flag) return arg_error(errh_none(), "MPI_Is_thread_main", "flag is NULL");
    if (world.load() == 0) return err_out(MPI_Is_thread_main(flag));
    *flag = pthread_equal(pthread_self(), world_thread) ? 1 : 0;
    return 0;
#endif
}

ANYMPI_MANUAL(MPI_Session_init, fallback, "the first session (or MPI_Init) builds the emulated predefined datatypes (emulated_types.cpp); the error handler attached after (MPICH 4.0.2 ignores it); where the MPI lacks sessions, anympi's own over the world model (sessions.cpp)")
{
#if ANYMPI_NATIVE_HAS_SESSIONS
    int rc = MPI_Session_init(to_native(info), to_native(errhandler), c_hout(session));
    // MPICH 4.0.2 leaves the session with MPI_ERRORS_ARE_FATAL whatever handler it is given;
    // MPI_Session_set_errhandler attaches it.
    if (rc == MPI_SUCCESS) rc = MPI_Session_set_errhandler(to_native(*session), to_native(errhandler));
    if (rc == MPI_SUCCESS) emulated_types_session_started();
    return err_out(rc);
#else
    if (reinterpret_cast<uintptr_t>(errhandler) == ABI_ERRHANDLER_NULL)
        return arg_error(errh_none(), "MPI_Session_init", "errhandler is MPI_ERRHANDLER_NULL");
    if (!session)
        return on_given(errhandler, [](errh_obj o) { return arg_error(o, "MPI_Session_init", "session is NULL"); });
    const int required = thread_level_of(to_native(info));
    no_session *s = nullptr;
    int rc;
    bool ended;  // raised outside life_mutex, which a session handler's lookup takes
    {
        std::lock_guard<std::mutex> g(life_mutex);
        int provided = MPI_THREAD_SINGLE;
        ended = native_ended;
        rc = ended ? MPI_ERR_OTHER : native_start(nullptr, nullptr, required, &provided, false);
        if (rc == MPI_SUCCESS) {
            sessions_used = true;
            s = take_session();
            rc = MPI_Comm_dup(MPI_COMM_SELF, &s->errh);
        }
        if (rc == MPI_SUCCESS) {
            MPI_Comm_set_name(s->errh, const_cast<char *>("MPI_Session (anympi)"));
            rc = MPI_Comm_set_errhandler(s->errh, to_native(errhandler));
            if (rc != MPI_SUCCESS) MPI_Comm_free(&s->errh);
        }
        if (rc == MPI_SUCCESS) {
            live.push_back(s);
            numbered[size_t(s->number - 1)] = s;
        } else if (s) {
            spare.emplace_back(s);
        }
    }
    if (rc != MPI_SUCCESS) {
        *session = reinterpret_cast<abi_Session>(ABI_SESSION_NULL);
        if (ended)  // where no MPI runs: the class returned
            return raise_error(errh_none(), ABI_ERR_OTHER,
                               "MPI_Session_init: Open MPI 4.1 cannot start again after MPI_Finalize ended it (a program "
                               "that begins a session before MPI_Finalize keeps the MPI until exit)");
        return given_native_error(errhandler, rc, "MPI_Session_init");
    }
    emulated_types_session_started();
    *session = to_abi<abi_Session>(s);
    return 0;
#endif
}

ANYMPI_MANUAL(MPI_Session_finalize, fallback, "the last session (when MPI_Init's world is not active) releases the emulated predefined datatypes first; where the MPI lacks sessions, anympi's own, the native MPI stopped at exit (sessions.cpp)")
{
    if (session) buffers_session_finalize(bits(to_native(*session)));
#if ANYMPI_NATIVE_HAS_SESSIONS
    emulated_types_session_ending();
    int rc = MPI_Session_finalize(c_hio(session));
    emulated_types_session_ended(rc == MPI_SUCCESS);
    return err_out(rc);
#else
    if (!session) return arg_error(errh_none(), "MPI_Session_finalize", "session is NULL");
    no_session *s = find(*session);
    if (!s) return bad_session("MPI_Session_finalize");
    {
        std::lock_guard<std::mutex> g(life_mutex);
        for (auto it = live.begin(); it != live.end(); ++it)
            if (*it == s) { live.erase(it); break; }
        numbered[size_t(s->number - 1)] = nullptr;
    }
    MPI_Comm_free(&s->errh);
    {
        std::lock_guard<std::mutex> g(life_mutex);
        spare.emplace_back(s);
    }
    // The types stay: Open MPI reports no leaks, and its objects outlive MPI_Finalize here.
    *session = reinterpret_cast<abi_Session>(ABI_SESSION_NULL);
    return 0;
#endif
}

ANYMPI_MANUAL(MPI_Session_get_num_psets, fallback, "where the MPI lacks sessions: mpi://WORLD and mpi://SELF (sessions.cpp)")
{
#if ANYMPI_NATIVE_HAS_SESSIONS
    return err_out(MPI_Session_get_num_psets(to_native(session), to_native(info), npset_names));
#else
    ANYMPI_LIVE_SESSION("MPI_Session_get_num_psets")
    if (!npset_names) return arg_error(errh_of(session), "MPI_Session_get_num_psets", "npset_names is NULL");
    (void)s;
    (void)info;  // no hints apply
    *npset_names = npsets;
    return 0;
#endif
}

ANYMPI_MANUAL(MPI_Session_get_nth_pset, fallback, "where the MPI lacks sessions: mpi://WORLD, then mpi://SELF (sessions.cpp)")
{
#if ANYMPI_NATIVE_HAS_SESSIONS
    return err_out(MPI_Session_get_nth_pset(to_native(session), to_native(info), n, pset_len, pset_name));
#else
    ANYMPI_LIVE_SESSION("MPI_Session_get_nth_pset")
    (void)s;
    (void)info;
    if (n < 0 || n >= npsets) {
        char msg[128];
        std::snprintf(msg, sizeof msg, "n is %d; the session has %d process sets", n, npsets);
        return arg_error(errh_of(session), "MPI_Session_get_nth_pset", msg);
    }
    if (!pset_len) return arg_error(errh_of(session), "MPI_Session_get_nth_pset", "pset_len is NULL");
    const size_t len = std::strlen(pset_names[n]);
    if (*pset_len == 0) {  // the length asked for, with the terminating null
        *pset_len = int(len) + 1;
        return 0;
    }
    if (*pset_len < 0 || !pset_name)
        return arg_error(errh_of(session), "MPI_Session_get_nth_pset", "pset_len is negative or pset_name is NULL");
    const size_t copied = len < size_t(*pset_len) - 1 ? len : size_t(*pset_len) - 1;  // truncated to the buffer
    std::memcpy(pset_name, pset_names[n], copied);
    pset_name[copied] = '\0';
    return 0;
#endif
}

ANYMPI_MANUAL(MPI_Session_get_pset_info, fallback, "where the MPI lacks sessions: mpi_size of the set (sessions.cpp)")
{
#if ANYMPI_NATIVE_HAS_SESSIONS
    return err_out(MPI_Session_get_pset_info(to_native(session), pset_name, c_hout(info)));
#else
    ANYMPI_LIVE_SESSION("MPI_Session_get_pset_info")
    (void)s;
    if (!pset_name || !info) return arg_error(errh_of(session), "MPI_Session_get_pset_info", "pset_name or info is NULL");
    const int i = pset_index(pset_name);
    if (i < 0) return arg_error(errh_of(session), "MPI_Session_get_pset_info", "no process set has this name");
    int size = 0;
    MPI_Comm_size(pset_comm(i), &size);
    char value[16];
    std::snprintf(value, sizeof value, "%d", size);
    return info_of_one(session, "mpi_size", value, info, "MPI_Session_get_pset_info");
#endif
}

ANYMPI_MANUAL(MPI_Session_get_info, fallback, "where the MPI lacks sessions: thread_level, the level the MPI provides (sessions.cpp)")
{
#if ANYMPI_NATIVE_HAS_SESSIONS
    return err_out(MPI_Session_get_info(to_native(session), c_hout(info_used)));
#else
    ANYMPI_LIVE_SESSION("MPI_Session_get_info")
    (void)s;
    if (!info_used) return arg_error(errh_of(session), "MPI_Session_get_info", "info_used is NULL");
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    return info_of_one(session, "thread_level", thread_level_name(level), info_used, "MPI_Session_get_info");
#endif
}

ANYMPI_MANUAL(MPI_Group_from_session_pset, fallback, "where the MPI lacks sessions: the group of the native MPI_COMM_WORLD or MPI_COMM_SELF (sessions.cpp)")
{
#if ANYMPI_NATIVE_HAS_SESSIONS
    int rc = MPI_Group_from_session_pset(to_native(session), pset_name, c_hout(newgroup));
    if (rc == MPI_SUCCESS) note_session_group(bits(to_native(*newgroup)), bits(to_native(session)));
    return err_out(rc);
#else
    ANYMPI_LIVE_SESSION("MPI_Group_from_session_pset")
    (void)s;
    if (!pset_name || !newgroup)
        return arg_error(errh_of(session), "MPI_Group_from_session_pset", "pset_name or newgroup is NULL");
    const int i = pset_index(pset_name);
    if (i < 0) {
        *newgroup = reinterpret_cast<abi_Group>(ABI_GROUP_NULL);
        char msg[200];
        std::snprintf(msg, sizeof msg, "no process set is named \"%.100s\" (there are mpi://WORLD and mpi://SELF)", pset_name);
        return arg_error(errh_of(session), "MPI_Group_from_session_pset", msg);
    }
    // A group of its own (MPI_Comm_group would return the communicator's, shared with every
    // other caller): what is made from it derives from this session (buffers.cpp).
    MPI_Group whole = MPI_GROUP_NULL, g = MPI_GROUP_NULL;
    int size = 0;
    int rc = MPI_Comm_group(pset_comm(i), &whole);
    if (rc == MPI_SUCCESS) rc = MPI_Group_size(whole, &size);
    int range[1][3] = {{0, size - 1, 1}};
    if (rc == MPI_SUCCESS) rc = MPI_Group_range_incl(whole, 1, range, &g);
    if (whole != MPI_GROUP_NULL) MPI_Group_free(&whole);
    if (rc != MPI_SUCCESS) return native_error(errh_of(session), rc, "MPI_Group_from_session_pset");
    note_session_group(bits(g), bits(to_native(session)));
    *newgroup = to_abi<abi_Group>(g);
    return 0;
#endif
}

ANYMPI_MANUAL(MPI_Session_create_errhandler, fallback, "the user handler receives ABI handles and codes through a closure; where the MPI lacks sessions, a communicator handler for anympi's sessions (sessions.cpp)")
{
    if (int e = always_available("MPI_Session_create_errhandler")) return e;
#if ANYMPI_NATIVE_HAS_SESSIONS
    if (!errhandler || !session_errhandler_fn)
        return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Session_create_errhandler: an argument is NULL");
    MPI_Errhandler n = MPI_ERRHANDLER_NULL;
    int rc = session_errhandler_create(session_errhandler_fn, &n);
    *errhandler = to_abi<abi_Errhandler>(n);
    return rc == -1 ? raise_error(errh_none(), ABI_ERR_NO_MEM, "MPI_Session_create_errhandler: out of memory for the closure")
                    : err_out(rc);
#else
    if (!errhandler || !session_errhandler_fn)
        return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Session_create_errhandler: an argument is NULL");
    MPI_Errhandler n = MPI_ERRHANDLER_NULL;
    int rc = session_errhandler_create(session_errhandler_fn, &n);
    *errhandler = to_abi<abi_Errhandler>(n);
    return rc == -1 ? raise_error(errh_none(), ABI_ERR_NO_MEM, "MPI_Session_create_errhandler: out of memory for the closure")
                    : err_out(rc);
#endif
}

ANYMPI_MANUAL(MPI_Session_set_errhandler, fallback, "where the MPI lacks sessions: kept on anympi's session (sessions.cpp)")
{
#if ANYMPI_NATIVE_HAS_SESSIONS
    return err_out(MPI_Session_set_errhandler(to_native(session), to_native(errhandler)));
#else
    ANYMPI_LIVE_SESSION("MPI_Session_set_errhandler")
    if (reinterpret_cast<uintptr_t>(errhandler) == ABI_ERRHANDLER_NULL)
        return arg_error(errh_of(session), "MPI_Session_set_errhandler", "errhandler is MPI_ERRHANDLER_NULL");
    int rc = MPI_Comm_set_errhandler(s->errh, to_native(errhandler));
    return rc == MPI_SUCCESS ? 0 : native_error(errh_of(session), rc, "MPI_Session_set_errhandler");
#endif
}

ANYMPI_MANUAL(MPI_Session_get_errhandler, fallback, "where the MPI lacks sessions: kept on anympi's session (sessions.cpp)")
{
#if ANYMPI_NATIVE_HAS_SESSIONS
    return err_out(MPI_Session_get_errhandler(to_native(session), c_hout(errhandler)));
#else
    ANYMPI_LIVE_SESSION("MPI_Session_get_errhandler")
    if (!errhandler) return arg_error(errh_of(session), "MPI_Session_get_errhandler", "errhandler is NULL");
    return err_out(MPI_Comm_get_errhandler(s->errh, c_hout(errhandler)));
#endif
}

ANYMPI_MANUAL(MPI_Session_call_errhandler, fallback, "where the MPI lacks sessions: kept on anympi's session (sessions.cpp)")
{
#if ANYMPI_NATIVE_HAS_SESSIONS
    return err_out(MPI_Session_call_errhandler(to_native(session), err_in(errorcode)));
#else
    ANYMPI_LIVE_SESSION("MPI_Session_call_errhandler")
    return err_out(MPI_Comm_call_errhandler(s->errh, err_in(errorcode)));
#endif
}

ANYMPI_MANUAL(MPI_Comm_create_from_group, fallback, "where the MPI lacks it: MPI_Comm_create_group on anympi's duplicate of MPI_COMM_WORLD, the tag a hash of stringtag (sessions.cpp)")
{
#if ANYMPI_NATIVE_HAS_SESSIONS
    return err_out(MPI_Comm_create_from_group(to_native(group), stringtag, to_native(info), to_native(errhandler),
                                              c_hout_derived(newcomm, group)));
#else
    static const char fn[] = "MPI_Comm_create_from_group";
    if (int e = from_group_checks(fn, {group}, stringtag, errhandler, newcomm)) return e;
    if (int e = within_world(fn, {group}, errhandler)) return e;
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_Comm_create_group(anympi_world, to_native(group), tag_of(stringtag, 0), &c);
    if (rc != MPI_SUCCESS) return given_native_error(errhandler, rc, fn);
    if (c != MPI_COMM_NULL && origins_noted.load(std::memory_order_relaxed))
        note_origin(k_comm, bits(c), k_group, bits(to_native(group)));
    return finish_new_comm(c, info, errhandler, newcomm, fn);
#endif
}

ANYMPI_MANUAL(MPI_Intercomm_create_from_groups, fallback, "where the MPI lacks it: MPI_Intercomm_create between two MPI_Comm_create_group communicators over anympi's duplicate of MPI_COMM_WORLD (sessions.cpp)")
{
#if ANYMPI_NATIVE_HAS_SESSIONS
    return err_out(MPI_Intercomm_create_from_groups(to_native(local_group), local_leader, to_native(remote_group),
                                                    rank_in(remote_leader), stringtag, to_native(info),
                                                    to_native(errhandler), c_hout_derived(newintercomm, local_group)));
#else
    static const char fn[] = "MPI_Intercomm_create_from_groups";
    if (int e = from_group_checks(fn, {local_group, remote_group}, stringtag, errhandler, newintercomm)) return e;
    if (int e = within_world(fn, {local_group, remote_group}, errhandler)) return e;
    // The remote leader as a rank of anympi_world, whose group is MPI_COMM_WORLD's.
    MPI_Group world_group = MPI_GROUP_NULL;
    int leader = MPI_UNDEFINED, size = 0;
    int rc = MPI_Comm_group(anympi_world, &world_group);
    if (rc == MPI_SUCCESS) rc = MPI_Group_size(to_native(remote_group), &size);
    if (rc == MPI_SUCCESS && (remote_leader < 0 || remote_leader >= size)) {
        MPI_Group_free(&world_group);
        return on_given(errhandler, [](errh_obj o) {
            return raise_error(o, ABI_ERR_RANK, "MPI_Intercomm_create_from_groups: remote_leader is not a rank of remote_group");
        });
    }
    if (rc == MPI_SUCCESS) rc = MPI_Group_translate_ranks(to_native(remote_group), 1, &remote_leader, world_group, &leader);
    if (world_group != MPI_GROUP_NULL) MPI_Group_free(&world_group);
    MPI_Comm local = MPI_COMM_NULL, inter = MPI_COMM_NULL;
    if (rc == MPI_SUCCESS) rc = MPI_Comm_create_group(anympi_world, to_native(local_group), tag_of(stringtag, 0), &local);
    if (rc == MPI_SUCCESS && local == MPI_COMM_NULL) rc = MPI_ERR_GROUP;  // the caller is not in local_group
    if (rc == MPI_SUCCESS) rc = MPI_Intercomm_create(local, local_leader, anympi_world, leader, tag_of(stringtag, 1), &inter);
    if (local != MPI_COMM_NULL) MPI_Comm_free(&local);
    if (rc != MPI_SUCCESS) return given_native_error(errhandler, rc, fn);
    if (origins_noted.load(std::memory_order_relaxed)) note_origin(k_comm, bits(inter), k_group, bits(to_native(local_group)));
    return finish_new_comm(inter, info, errhandler, newintercomm, fn);
#endif
}

ANYMPI_MANUAL(MPI_Session_toint, emulated, "predefined: ABI value; others: the native Fortran handle past 0x3FF (where the MPI lacks sessions: a number of anympi's)")
{
#if ANYMPI_NATIVE_HAS_SESSIONS
    const uintptr_t v = reinterpret_cast<uintptr_t>(session);
    if (v < 0x400) return int(v);
    return int(MPI_Session_c2f(to_native(session))) + toint_bias;
#else
    const uintptr_t v = reinterpret_cast<uintptr_t>(session);
    if (v < 0x400) return int(v);
    no_session *s = find(session);
    return s ? s->number + toint_bias : -1;
#endif
}

ANYMPI_MANUAL(MPI_Session_fromint, emulated, "inverse of MPI_Session_toint")
{
#if ANYMPI_NATIVE_HAS_SESSIONS
    if (session >= 0 && session < 0x400) return reinterpret_cast<abi_Session>(uintptr_t(session));
    return to_abi<abi_Session>(MPI_Session_f2c(session - toint_bias));
#else
    if (session >= 0 && session < 0x400) return reinterpret_cast<abi_Session>(uintptr_t(session));
    std::lock_guard<std::mutex> g(life_mutex);
    const long i = long(session) - toint_bias - 1;
    if (i < 0 || i >= long(numbered.size()) || !numbered[size_t(i)]) return reinterpret_cast<abi_Session>(ABI_SESSION_NULL);
    return to_abi<abi_Session>(numbered[size_t(i)]);
#endif
}

