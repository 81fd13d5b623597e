// The backend's tables (built once, when the module is loaded), statuses, and the one
// error-raising helper.  Shared by every native MPI; see native.hpp for what differs.
#include "backend.hpp"
#include "callbacks.hpp"
#include "requests.hpp"
#include "emulated_types.hpp"
#include "sessions.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace anympi::backend {

// Strings the native MPI writes into the user's buffers: the ABI's sizes must hold them.
constexpr bool is_limit(cat c) { return c == cat::limit; }
#define ANYMPI_HANDLE(K, abi, native)
#define ANYMPI_CONST(c, abi, native) \
    static_assert(!is_limit(cat::c) || (native) <= (abi), #native ": the native MPI's value exceeds the ABI's");
#include "abi_consts.inc"
#undef ANYMPI_HANDLE
#undef ANYMPI_CONST

uintptr_t pre_to_native[0x400];
reverse_index rev;
const_table consts[int(cat::count_)];
int native_class_to_abi[256];
int abi_class_to_native[1024 + 32];


void reverse_index::insert(handle_kind k, uintptr_t native, uint16_t abi)
{
    if (native < lo[k]) lo[k] = native;
    if (native > hi[k]) hi[k] = native;
    for (unsigned i = hash(native);; i = (i + 1) & (slots - 1)) {
        if (val[i] == 0) { key[i] = native; val[i] = abi; kind[i] = uint8_t(k); return; }
        if (key[i] == native && kind[i] == k) return; // an alias (e.g. MPI_INTEGER16 is MPI_DATATYPE_NULL): first wins
    }
}

// A tombstone: the slot keeps a value (so later keys stay reachable) under no kind.
void reverse_index::erase(handle_kind k, uintptr_t native)
{
    for (unsigned i = hash(native);; i = (i + 1) & (slots - 1)) {
        if (val[i] == 0) return;
        if (key[i] == native && kind[i] == k) { kind[i] = uint8_t(k_count); return; }
    }
}

static void add_const(cat c, int abi, int native)
{
    const_table &t = consts[int(c)];
    if (t.n == int(sizeof t.v / sizeof t.v[0])) {
        std::fprintf(stderr, "anympi: internal error: constant table %d is full\n", int(c));
        std::abort();
    }
    t.v[t.n++] = {abi, native};
}

static handle_kind kind_of_name(const char *k)
{
    static const char *const names[k_count] = {"Op", "Comm", "Group", "Win", "File", "Session",
                                               "Message", "Info", "Errhandler", "Request", "Datatype"};
    for (int i = 0; i < k_count; ++i) if (std::strcmp(names[i], k) == 0) return handle_kind(i);
    return k_count;
}

static void build_tables()
{
    for (int k = 0; k < k_count; ++k) { rev.lo[k] = UINTPTR_MAX; rev.hi[k] = 0; }
    for (int &v : native_class_to_abi) v = -1;
    for (int &v : abi_class_to_native) v = MPI_ERR_UNKNOWN;
#define ANYMPI_HANDLE(K, abi, native)                                                      \
    pre_to_native[abi] = bits(native);                                                      \
    rev.insert(kind_of_name(#K), bits(native), uint16_t(abi));
#define ANYMPI_CONST(c, abi, native) add_const(cat::c, abi, native);
#include "abi_consts.inc"
#undef ANYMPI_HANDLE
#undef ANYMPI_CONST
    native_fixups(pre_to_native);
    emulated_types_at_load();  // emulated_types: the datatypes the native MPI lacks
    for (int i = 0; i < consts[int(cat::error)].n; ++i) {
        const_pair p = consts[int(cat::error)].v[i];
        if (p.native > 0 && p.native < 256 && native_class_to_abi[p.native] < 0) native_class_to_abi[p.native] = p.abi;
        int slot = p.abi < 63 ? p.abi : p.abi - 1000 + 63;
        if (slot >= 0 && slot < int(sizeof abi_class_to_native / sizeof(int))) abi_class_to_native[slot] = p.native;
    }
}

// Native classes anympi created (Add_error_class), by ABI class: for the ABI classes the
// native MPI lacks (MPI_ERR_ABI ...) and to carry anympi's own messages (MPICH garbles the
// string of a code added to a predefined class, so every raised code gets a class of ours).
// Read without the lock by err_out_created, from any thread: atomic.
static std::atomic<int> created_class[64];
static std::mutex created_mutex;

int err_out_created(int n)
{
    for (int a = 1; a < 64; ++a)
        if (n != 0 && created_class[a].load(std::memory_order_relaxed) == n) return a;
    if (n > err_bias_above && n <= err_bias_above + err_bias) return n + err_bias;
    return n;
}

// What the user added, in the ABI's numbering (anympi's own classes and codes never count).
static std::atomic<int> user_last_code{ABI_ERR_LASTCODE};
void note_user_code(int abi_code)
{
    int was = user_last_code.load(std::memory_order_relaxed);
    while (abi_code > was && !user_last_code.compare_exchange_weak(was, abi_code, std::memory_order_relaxed)) {}
}
int last_used_code() { return user_last_code.load(std::memory_order_relaxed); }

static int created_class_for(int abi_class)
{
    std::lock_guard<std::mutex> g(created_mutex);
    if (created_class[abi_class].load(std::memory_order_relaxed) == 0) {
        int c = 0;
        if (MPI_Add_error_class(&c) != MPI_SUCCESS) return 0;
        created_class[abi_class].store(c, std::memory_order_relaxed);  // err_out_created finds it
    }
    return created_class[abi_class].load(std::memory_order_relaxed);
}

void native_error_classes()
{
    static std::once_flag once;
    std::call_once(once, [] {
        for (int a = 1; a < 63; ++a) {
            bool native_has = false;
            for (int i = 0; i < consts[int(cat::error)].n; ++i)
                if (consts[int(cat::error)].v[i].abi == a) native_has = true;
            if (!native_has && created_class_for(a)) abi_class_to_native[a] = created_class[a].load(std::memory_order_relaxed);
        }
    });
}

void after_native_init()
{
    native_error_classes();
    past_direct_handles([] {
        emulated_types_world_init();  // emulated_types: build the datatypes the native MPI lacks
        partitioned_world_init();     // partitioned.cpp: its private communicator, where the MPI lacks it
    });
}

// ---------------------------------------------------------------- what is held for requests
// Blocks in lists by request, hashed into a fixed number of buckets: nothing is allocated to
// hold one but the block itself.
std::atomic<long> held_requests{0};
namespace {
std::mutex held_mutex;
constexpr unsigned held_buckets = 256;
held_block::link *held[held_buckets];  // guarded: each bucket's list
long held_count = 0;                   // guarded
unsigned held_bucket(uintptr_t r) { return unsigned((r * 0x9E3779B97F4A7C15ull) >> 56); }
}  // namespace

held_block::held_block(long n) : l_(static_cast<link *>(::operator new(sizeof(link) + size_t(n) * sizeof(MPI_Datatype))))
{
    l_->next = nullptr;
    l_->request = 0;
}
held_block::~held_block() { ::operator delete(l_); }

void hold(MPI_Request r, held_block block)
{
    held_block::link *l = block.l_;
    block.l_ = nullptr;
    l->request = bits(r);
    std::lock_guard<std::mutex> g(held_mutex);
    held_block::link *&head = held[held_bucket(l->request)];
    l->next = head;
    head = l;
    held_requests.store(++held_count, std::memory_order_relaxed);
}

void release_held(uintptr_t r)
{
    held_block::link *gone = nullptr;  // freed outside the lock
    {
        std::lock_guard<std::mutex> g(held_mutex);
        held_block::link **at = &held[held_bucket(r)];
        while (held_block::link *l = *at) {
            if (l->request != r) {
                at = &l->next;
                continue;
            }
            *at = l->next;
            l->next = gone;
            gone = l;
            --held_count;
        }
        held_requests.store(held_count, std::memory_order_relaxed);
    }
    while (gone) ::operator delete(std::exchange(gone, gone->next));
}

// ---------------------------------------------------------------- raising errors
// Held while the handler runs, so that the message stays its code's string until then (one code
// per class); recursive, as a program's handler may make a call that raises again.
static std::recursive_mutex raise_mutex;

bool native_active()
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    return init && !fin;
}

// A native error code of the right standard class whose string is our message.
static int code_for(int abi_class, const char *msg)
{
    static int codes[64];
    int slot = abi_class > 0 && abi_class < 63 ? abi_class : ABI_ERR_OTHER;
    if (codes[slot] == 0) {
        int cls = created_class_for(slot), c = 0;
        if (!cls || MPI_Add_error_code(cls, &c) != MPI_SUCCESS) return err_in(abi_class);
        codes[slot] = c;
    }
    MPI_Add_error_string(codes[slot], const_cast<char *>(msg));
    return codes[slot];
}

template <class Obj, class Call> static int raise_with(Obj o, int abi_class, const char *msg, Call call)
{
    if (!native_active()) return abi_class; // no handler before init or after finalize
    std::lock_guard<std::recursive_mutex> g(raise_mutex);
    int code = code_for(abi_class, msg);
    call(o, code);
    return err_out(code);
}

static std::mutex file_errh_mutex;
static std::unordered_map<MPI_Errhandler, MPI_File_errhandler_function *> file_errh_code;  // (guarded)
void file_errhandler_made(MPI_Errhandler h, MPI_File_errhandler_function *fn)
{
    // a handle the MPI gives again once the old one is gone is the new handler's
    std::lock_guard<std::mutex> g(file_errh_mutex);
    file_errh_code[h] = fn;
}
MPI_File_errhandler_function *file_errhandler_function(MPI_Errhandler h)
{
    std::lock_guard<std::mutex> g(file_errh_mutex);
    auto it = file_errh_code.find(h);
    return it == file_errh_code.end() ? nullptr : it->second;
}

// MPI_FILE_NULL's handler called as MPI_File_call_errhandler would, where the MPI refuses
// that (native_calls_file_null_errhandler): a program's through its closure; a predefined one,
// which applies to objects of any kind, on a duplicate of MPI_COMM_SELF.
static void call_file_null_errhandler(int code)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    if (MPI_File_get_errhandler(MPI_FILE_NULL, &eh) != MPI_SUCCESS) return;
    if (MPI_File_errhandler_function *fn = file_errhandler_function(eh)) {
        MPI_File f = MPI_FILE_NULL;
        fn(&f, &code);
    } else if (MPI_Comm c; eh != MPI_ERRORS_RETURN && MPI_Comm_dup(MPI_COMM_SELF, &c) == MPI_SUCCESS) {
        MPI_Comm_set_errhandler(c, eh);
        MPI_Comm_call_errhandler(c, code);
        MPI_Comm_free(&c);
    }
    MPI_Errhandler_free(&eh);
}

int raise_error(errh_obj o, int abi_class, const char *msg)
{
    switch (o.kind) {
    case k_win:
        if (from_bits<MPI_Win>(o.native) != MPI_WIN_NULL)
            return raise_with(from_bits<MPI_Win>(o.native), abi_class, msg,
                              [](MPI_Win w, int code) { MPI_Win_call_errhandler(w, code); });
        break;
    case k_file: // MPI_FILE_NULL carries the default file error handler
        if (!native_calls_file_null_errhandler && from_bits<MPI_File>(o.native) == MPI_FILE_NULL)
            return raise_with(MPI_FILE_NULL, abi_class, msg, [](MPI_File, int code) { call_file_null_errhandler(code); });
        return raise_with(from_bits<MPI_File>(o.native), abi_class, msg,
                          [](MPI_File f, int code) { MPI_File_call_errhandler(f, code); });
#if ANYMPI_NATIVE_HAS_SESSIONS
    case k_session:
        if (from_bits<MPI_Session>(o.native) != MPI_SESSION_NULL)
            return raise_with(from_bits<MPI_Session>(o.native), abi_class, msg,
                              [](MPI_Session s, int code) { MPI_Session_call_errhandler(s, code); });
        break;
#else
    case k_session:  // anympi's own (sessions.cpp): its handler sits on a communicator of its own
        if (MPI_Comm c = session_errh_comm(o.native); c != MPI_COMM_NULL)
            return raise_with(c, abi_class, msg, [](MPI_Comm s, int code) { MPI_Comm_call_errhandler(s, code); });
        break;
#endif
    case k_comm:
        if (from_bits<MPI_Comm>(o.native) != MPI_COMM_NULL)
            return raise_with(from_bits<MPI_Comm>(o.native), abi_class, msg,
                              [](MPI_Comm c, int code) { MPI_Comm_call_errhandler(c, code); });
        break;
    default:
        break;
    }
    // a null object: where errors of no object go (errh_none)
    return raise_with(from_bits<MPI_Comm>(errh_none().native), abi_class, msg,
                      [](MPI_Comm c, int code) { MPI_Comm_call_errhandler(c, code); });
}

// MPI_IN_PLACE as a rooted reduction's send buffer (c_in_place_root): fine at the root, left
// to the native MPI on an intercommunicator, with an invalid root and when the communicator
// cannot be asked (it reports those itself); anywhere else MPI_ERR_BUFFER, the class MPICH
// gives every misplaced MPI_IN_PLACE it does check ("recvbuf cannot be MPI_IN_PLACE").
int in_place_not_root(const char *fn, const char *arg, int root, abi_Comm comm, int error_class)
{
    const MPI_Comm c = to_native(comm);
    int inter = 0, rank = -1, size = 0;
    if (c == MPI_COMM_NULL || MPI_Comm_test_inter(c, &inter) != MPI_SUCCESS || inter ||
        MPI_Comm_rank(c, &rank) != MPI_SUCCESS || MPI_Comm_size(c, &size) != MPI_SUCCESS ||
        root < 0 || root >= size || rank == root)
        return 0;
    char msg[256];
    std::snprintf(msg, sizeof msg,
                  "%s: %s is MPI_IN_PLACE at rank %d, which is not the root (%d): only the root may "
                  "pass it", fn, arg, rank, root);
    return raise_error(errh_of(comm), error_class, msg);
}

}  // namespace anympi::backend

// The module's one export: the dispatch table, in fn_index.h order.  The front hands over
// where its per-thread table lives (an offset from the thread pointer) and its process table.
namespace anympi::backend {
long front_tls_offset;
void *const *const *front_process_table;
void *native_table[ANYMPI_NFUNCS];

static int native_missing()
{
    std::fprintf(stderr, "anympi: the native MPI called an MPI function by name that it does not provide\n");
    std::abort();
}

// The native functions are looked up among this module's own dependencies -- the native MPI
// library it is linked to -- never in the global scope, where anympi's exports (or a tool's)
// would answer first.
static bool resolve_native()
{
    Dl_info self{};
    if (!dladdr(reinterpret_cast<void *>(&resolve_native), &self) || !self.dli_fname) return false;
    void *h = dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (!h) return false;
    for (int i = 0; i < ANYMPI_NFUNCS; ++i) {
        void *f = dlsym(h, native_names[i]);
        native_table[i] = f ? f : reinterpret_cast<void *>(&native_missing);
    }
    dlclose(h);  // only drops the reference taken above: the front holds the module
    return true;
}
}  // namespace anympi::backend

extern "C" __attribute__((visibility("default"))) void *const *
anympi_backend_table(int version, long tls_offset, void *const *const *process_table)
{
    using namespace anympi::backend;
    if (version != ANYMPI_TABLE_VERSION || !process_table) return nullptr;
    static std::once_flag once;
    static bool ok = false;
    std::call_once(once, [&] {
        front_tls_offset = tls_offset;
        front_process_table = process_table;
        ok = resolve_native();
        if (ok) build_tables();
    });
    return ok ? dispatch_table : nullptr;
}
