// Partitioned communication (MPI-4.0 chapter 4.2) where the MPI underneath lacks it (Open MPI
// 4.1) or its own is defective (MPICH 4.0.2): requests of anympi's own (requests.hpp) over
// persistent point-to-point on a private duplicate of MPI_COMM_WORLD, made when the MPI starts
// (its own matching space: not the one sessions.cpp uses for MPI_Comm_create_group's tags).
//
// Matching.  Partitioned operations match only each other, in the order of their inits, by
// communicator, source and tag.  They travel on the private communicator, so they never meet
// the program's own messages (not even its MPI_ANY_TAG receives).  At init the send side sends
// a small setup message to the peer's world rank with a tag derived from the communicator's
// membership and the program's tag; the receive side posts the matching receive at its init.
// Two inits on the same (communicator, peer, tag) match in order, as the standard says.  Two
// communicators with the same members in the same order (a duplicate) are not told apart: a
// program that inits partitioned operations on both with the same tag towards the same peer
// in different orders on the two sides would have them crossed (docs/runtime.md).
//
// Transfer.  The setup carries the send side's partitioning and a tag of its own for the data;
// each send partition is then a persistent send, started as soon as it and every partition
// before it are ready (so the receive side can post its receives in order, and the MPI's
// non-overtaking rule matches them to the right partition).  The receive side receives each
// send partition where it belongs: straight into the buffer when the receive partitioning is
// the same or the receive datatype is contiguous, else into a packed copy unpacked at the end.
//
// Progress.  A receive side can post its receives only once the setup has come, and nothing of
// the MPI's own progress does that for it: so every test or wait of any partitioned request of
// this process first posts those of every receive whose setup has come (progress_receives).
// Else a program waiting on its send first -- MPI_Waitall({send, recv}), both to and from a
// peer doing the same -- waited forever wherever a partition's send needs the receive posted:
// above the MPI's eager limit, and on MPICH even to itself.  A receive still waiting for its
// setup while the program blocks in a call of the MPI's own (an MPI_Recv of a message the peer
// sends only once its partitioned send is complete) is beyond this (docs/runtime.md).
#include "requests.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_set>
#include <vector>

namespace anympi::backend {

#if !ANYMPI_HAVE_MPI_Psend_init
namespace {
MPI_Comm part_comm = MPI_COMM_NULL;  // the private duplicate of MPI_COMM_WORLD

constexpr int setup_tags = 1 << 20;  // [0, 2^20): setup messages; above: data of one operation
struct setup_msg {
    uint64_t comm_hash;
    int tag, partitions;
    int64_t partition_bytes;
    int data_tag, pad;
};

uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ull; }

// The world ranks of a group, hashed in order.
int hash_group(MPI_Group g, MPI_Group world, uint64_t *h)
{
    int n = 0;
    int rc = MPI_Group_size(g, &n);
    if (rc != MPI_SUCCESS) return rc;
    std::vector<int> in(static_cast<size_t>(n)), out(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) in[size_t(i)] = i;
    rc = MPI_Group_translate_ranks(g, n, in.data(), world, out.data());
    *h = mix(0xcbf29ce484222325ull, uint64_t(n));
    for (int r : out) *h = mix(*h, uint64_t(uint32_t(r)));
    return rc;
}

// What both sides of one operation know alike: the hash of the communicator's membership (both
// groups of an intercommunicator, in an order both sides see alike) and the peer's world rank.
int locate(MPI_Comm comm, int peer, uint64_t *comm_hash, int *world_peer)
{
    MPI_Group world = MPI_GROUP_NULL, local = MPI_GROUP_NULL, remote = MPI_GROUP_NULL;
    int inter = 0;
    int rc = MPI_Comm_test_inter(comm, &inter);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_group(part_comm, &world);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_group(comm, &local);
    if (rc == MPI_SUCCESS && inter) rc = MPI_Comm_remote_group(comm, &remote);
    uint64_t hl = 0, hr = 0;
    if (rc == MPI_SUCCESS) rc = hash_group(local, world, &hl);
    if (rc == MPI_SUCCESS && inter) rc = hash_group(remote, world, &hr);
    *comm_hash = inter ? mix(hl < hr ? hl : hr, hl < hr ? hr : hl) : hl;
    if (rc == MPI_SUCCESS) rc = MPI_Group_translate_ranks(inter ? remote : local, 1, &peer, world, world_peer);
    for (MPI_Group *g : {&world, &local, &remote})
        if (*g != MPI_GROUP_NULL) MPI_Group_free(g);
    return rc;
}
int setup_tag(uint64_t comm_hash, int tag) { return int(mix(comm_hash, uint64_t(uint32_t(tag))) % (setup_tags - 1)); }

// Data tags, one per live send operation of this process (towards any peer), given in turn and
// used again only when the turn comes round (past MPI_TAG_UB), never while their operation lives.
// Not at once after a free: the receiver may post an operation's receives long after its sender
// freed it, so the sender's next operation to that peer would carry the same tag, and the
// receiver, posting that one's receives first, would take the earlier operation's data (data
// crossed so between operations on distinct communicators and tags).
std::mutex tags_mutex;
std::unordered_set<int> live_data_tags;  // guarded
int next_data_tag = setup_tags;          // guarded
int tag_ub = setup_tags;                 // the MPI's MPI_TAG_UB (MPICH: 2^28 - 1), read at start
int take_data_tag()
{
    std::lock_guard<std::mutex> g(tags_mutex);
    while (live_data_tags.size() < size_t(tag_ub - setup_tags) + 1) {
        int t = next_data_tag;
        next_data_tag = t < tag_ub ? t + 1 : setup_tags;
        if (live_data_tags.insert(t).second) return t;
    }
    return -1;
}
void give_data_tag(int t)
{
    std::lock_guard<std::mutex> g(tags_mutex);
    live_data_tags.erase(t);
}

struct partitioned;
void progress_receives(const partitioned *self);

struct partitioned : emulated_request {
    std::mutex m;  // partitions are marked ready and tested from several threads
    const int partitions;
    std::vector<MPI_Request> data;  // one persistent request per send partition
    std::vector<char> done;         // per send partition, this round
    bool proc_null = false;
    explicit partitioned(int n) : emulated_request(true), partitions(n) {}
    ~partitioned() override
    {
        for (auto &r : data) MPI_Request_free(&r);
    }
    int cancel() override { return ABI_ERR_REQUEST; }  // erroneous on an active one
    // The MPI progresses in the tests: each side's test moves what has become ready.
    int wait(MPI_Status *st) override
    {
        for (int flag = 0;;) {
            if (int rc = test(true, &flag, st)) return rc;
            if (flag) return MPI_SUCCESS;
        }
    }
    // Completes what has arrived or gone, without blocking: the number of leading partitions done.
    int progress(int upto)
    {
        for (int i = 0; i < upto; ++i) {
            if (done[size_t(i)]) continue;
            int flag = 0;
            int rc = MPI_Test(&data[size_t(i)], &flag, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) return rc;
            if (!flag) break;
            done[size_t(i)] = 1;
        }
        return MPI_SUCCESS;
    }
    int leading_done() const
    {
        int k = 0;
        while (k < int(done.size()) && done[size_t(k)]) ++k;
        return k;
    }
};

struct psend final : partitioned {
    static constexpr partitioned_side side_v = partitioned_side::send;
    setup_msg setup{};
    MPI_Request setup_req = MPI_REQUEST_NULL;
    std::vector<char> ready;
    int started = 0;  // partitions whose send has begun, in order
    explicit psend(int n) : partitioned(n) { side = side_v; }
    ~psend() override
    {
        MPI_Wait(&setup_req, MPI_STATUS_IGNORE);  // eager: gone long since when the peer is correct
        if (setup.data_tag >= setup_tags) give_data_tag(setup.data_tag);
    }
    int start() override
    {
        std::lock_guard<std::mutex> g(m);
        if (active) return MPI_ERR_REQUEST;
        ready.assign(size_t(partitions), 0);
        done.assign(size_t(partitions), 0);
        started = 0;
        active = true;
        return MPI_SUCCESS;
    }
    // MPI_Pready of one partition: its send and those of the ready ones after it begin.
    int mark(int p)
    {
        ready[size_t(p)] = 1;
        while (started < partitions && ready[size_t(started)]) {
            if (!proc_null)
                if (int rc = MPI_Start(&data[size_t(started)])) return rc;
            ++started;
        }
        return MPI_SUCCESS;
    }
    int test(bool complete, int *flag, MPI_Status *st) override
    {
        progress_receives(this);
        std::lock_guard<std::mutex> g(m);
        if (proc_null) std::fill(done.begin(), done.begin() + started, 1);
        else if (int rc = progress(started)) return rc;
        *flag = leading_done() == partitions;
        if (*flag) empty_status(st);
        if (*flag && complete) active = false;
        return MPI_SUCCESS;
    }
};

struct precv final : partitioned {
    static constexpr partitioned_side side_v = partitioned_side::receive;
    // what the program gave
    void *buf;
    int count, source_rank, tag;
    MPI_Datatype type;
    type_kept keep;
    MPI_Comm comm;
    // what the send side said: received into `landing`, which outlives this request if it is freed
    // before the setup came (the setup receive stays posted then: see ~precv)
    setup_msg setup{};
    std::unique_ptr<setup_msg> landing = std::make_unique<setup_msg>();
    MPI_Request setup_req = MPI_REQUEST_NULL;
    bool have_setup = false;
    int64_t total = 0, my_partition_bytes = 0;
    std::vector<char> staged;  // packed copy, when neither buffer layout allows receiving in place
    bool unpacked = false;
    int source_world = MPI_PROC_NULL;
    int setup_error = MPI_SUCCESS;  // of posting the receives, kept for this request's own test
    bool listed = false;            // in `receives`, for progress_receives
    precv(void *b, int n, int c, abi_Datatype t, int src, int tg, MPI_Comm cm)
        : partitioned(n), buf(b), count(c), source_rank(src), tag(tg), type(to_native(t)), keep(t), comm(cm)
    {
        side = side_v;
    }
    ~precv() override;
    void list();
    // Once the setup has come: one persistent receive per send partition (under m).
    int prepare()
    {
        if (have_setup || proc_null) return setup_error;
        int flag = 0;
        int rc = MPI_Test(&setup_req, &flag, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || !flag) return rc;
        set_up();
        return setup_error = post();
    }
    void set_up();
    int post()
    {
        int rc = MPI_SUCCESS;
        int size = 0;
        MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
        if ((rc = MPI_Type_size(type, &size)) || (rc = MPI_Type_get_extent(type, &lb, &extent)) ||
            (rc = MPI_Type_get_true_extent(type, &true_lb, &true_extent)))
            return rc;
        my_partition_bytes = int64_t(count) * size;
        total = my_partition_bytes * partitions;
        const int64_t theirs = setup.partition_bytes, n = setup.partitions;
        if (theirs * n > total) return MPI_ERR_TRUNCATE;  // more than the receive buffer holds
        const bool contiguous = size == extent && lb == 0 && true_lb == 0 && true_extent == extent;
        const bool same = n == partitions && theirs == my_partition_bytes;
        if (!same && !contiguous) staged.resize(size_t(total > 0 ? total : 1));
        data.assign(size_t(n), MPI_REQUEST_NULL);
        for (int64_t p = 0; p < n && rc == MPI_SUCCESS; ++p) {
            char *at = static_cast<char *>(buf);
            if (same)  // a partition as the program described it
                rc = MPI_Recv_init(at + p * count * extent, count, type, source_world, setup.data_tag, part_comm,
                                   &data[size_t(p)]);
            else  // any message may be received as MPI_PACKED: its bytes, in order
                rc = MPI_Recv_init((contiguous ? at : staged.data()) + p * theirs, int(theirs), MPI_PACKED,
                                   source_world, setup.data_tag, part_comm, &data[size_t(p)]);
        }
        done.assign(size_t(n), 0);
        if (rc == MPI_SUCCESS && active && n) rc = MPI_Startall(int(n), data.data());
        return rc;
    }
    int start() override
    {
        std::lock_guard<std::mutex> g(m);
        if (active) return MPI_ERR_REQUEST;
        active = true;
        unpacked = false;
        std::fill(done.begin(), done.end(), 0);
        if (!have_setup) return prepare();  // posts the receives if the setup has come
        if (!data.empty()) return MPI_Startall(int(data.size()), data.data());
        return MPI_SUCCESS;
    }
    // Whether receive partition q has arrived (and, from a packed copy, been unpacked).
    int arrived(int q, int *flag)
    {
        if (proc_null) return *flag = 1, MPI_SUCCESS;
        if (int rc = prepare()) return rc;
        if (!have_setup) return *flag = 0, MPI_SUCCESS;
        const int n = int(data.size());
        int needed = n;  // the send partitions q's bytes come from
        if (n == partitions) needed = q + 1;
        else if (staged.empty() && setup.partition_bytes > 0)
            needed = int(((q + 1) * my_partition_bytes + setup.partition_bytes - 1) / setup.partition_bytes);
        if (needed > n) needed = n;
        if (int rc = progress(n)) return rc;
        *flag = leading_done() >= needed;
        if (*flag && !staged.empty()) {
            *flag = leading_done() == n;
            if (*flag && !unpacked) {
                int pos = 0;
                if (int rc = MPI_Unpack(staged.data(), int(total), &pos, buf, count * partitions, type, part_comm))
                    return rc;
                unpacked = true;
            }
        }
        return MPI_SUCCESS;
    }
    int test(bool complete, int *flag, MPI_Status *st) override
    {
        progress_receives(this);
        std::lock_guard<std::mutex> g(m);
        if (int rc = arrived(partitions > 0 ? partitions - 1 : 0, flag)) return rc;
        if (*flag && st != MPI_STATUS_IGNORE) {
            st->MPI_SOURCE = proc_null ? MPI_PROC_NULL : source_rank;
            st->MPI_TAG = proc_null ? MPI_ANY_TAG : tag;
            st->MPI_ERROR = MPI_SUCCESS;
            MPI_Status_set_elements_x(st, MPI_BYTE, proc_null ? 0 : total);
            MPI_Status_set_cancelled(st, 0);
        }
        if (*flag && complete) active = false;
        return MPI_SUCCESS;
    }
};

// The receives whose setup may still come.  `awaiting` counts those without it, so that while
// none is, a test costs one relaxed load.
std::mutex receives_mutex;
std::vector<precv *> receives;  // guarded
std::atomic<int> awaiting{0};

// The setup receives of receives freed before their setup came, each with the buffer it lands in.
// They stay posted: natively a freed receive still matches its send's init, so the next receive
// on the same communicator, peer and tag must not take that send's setup (and then wait for data
// that never comes).  Received ones are dropped as they are seen; the rest are cancelled at the end.
struct orphan {
    std::unique_ptr<setup_msg> landing;
    MPI_Request req;
};
std::vector<orphan> orphans;  // guarded by receives_mutex

void reap_orphans()  // under receives_mutex
{
    std::erase_if(orphans, [](orphan &o) {
        int flag = 0;
        if (MPI_Test(&o.req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) flag = 1;
        if (flag) awaiting.fetch_sub(1, std::memory_order_relaxed);
        return flag != 0;
    });
}

void precv::list()
{
    std::lock_guard<std::mutex> g(receives_mutex);
    receives.push_back(this);
    listed = true;
    awaiting.fetch_add(1, std::memory_order_relaxed);
}
void precv::set_up()
{
    setup = *landing;
    have_setup = true;
    if (listed) awaiting.fetch_sub(1, std::memory_order_relaxed);
}
precv::~precv()
{
    if (!listed) return;
    std::lock_guard<std::mutex> g(receives_mutex);
    std::erase(receives, this);
    if (have_setup) return;
    int flag = 0;
    if (MPI_Test(&setup_req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || flag)
        awaiting.fetch_sub(1, std::memory_order_relaxed);
    else  // still awaited, as one of `awaiting`
        orphans.push_back({std::move(landing), setup_req});
}

// Posts the receives of every active receive whose setup has come, but `self`'s (its own test
// does) and those another thread holds (it is testing them). An error is kept for the
// request's own test (setup_error).
void progress_receives(const partitioned *self)
{
    if (awaiting.load(std::memory_order_relaxed) == 0) return;
    std::lock_guard<std::mutex> g(receives_mutex);
    reap_orphans();
    for (precv *q : receives) {
        if (q == self) continue;
        std::unique_lock<std::mutex> l(q->m, std::try_to_lock);
        if (l && q->active && !q->have_setup) q->prepare();
    }
}

// The partitioned request of a handle, of the side wanted (null if it is none such).
template <class Side> Side *lookup_partitioned(abi_Request r)
{
    emulated_request *e = is_emulated(r) ? find_emulated(r) : nullptr;
    return e && e->side == Side::side_v ? static_cast<Side *>(e) : nullptr;
}

int bad_request(const char *fn)
{
    char msg[200];
    std::snprintf(msg, sizeof msg, "%s: request is not a partitioned communication request", fn);
    return raise_error(errh_none(), ABI_ERR_REQUEST, msg);
}
// The peer a rank of the communicator (of its remote group on an intercommunicator), or
// MPI_PROC_NULL: else MPI_ERR_RANK through the communicator's handler, as natively, before
// anything looks the rank up.
int check_peer(const char *fn, const char *arg, abi_Comm comm, int peer)
{
    if (peer == MPI_PROC_NULL) return 0;
    const MPI_Comm c = to_native(comm);
    int inter = 0, n = 0;
    if (MPI_Comm_test_inter(c, &inter) != MPI_SUCCESS) return 0;  // the communicator's own error comes next
    if ((inter ? MPI_Comm_remote_size(c, &n) : MPI_Comm_size(c, &n)) != MPI_SUCCESS) return 0;
    if (peer >= 0 && peer < n) return 0;
    char msg[200];
    std::snprintf(msg, sizeof msg, "%s: %s %d is not a rank of the communicator's %sgroup (%d processes)", fn, arg, peer,
                  inter ? "remote " : "", n);
    return raise_error(errh_of(comm), ABI_ERR_RANK, msg);
}
// The classes MPICH's own gives: MPI_ERR_COUNT, MPI_ERR_TAG (no MPI_ANY_TAG here), MPI_ERR_ARG.
int check_init_args(const char *fn, abi_Comm comm, int partitions, long long count, int tag, abi_Request *request)
{
    struct { bool bad; int cls; const char *what; } const checks[] = {
        {part_comm == MPI_COMM_NULL, ABI_ERR_OTHER, "MPI is not initialized"},
        {!request, ABI_ERR_ARG, "request is NULL"},
        {partitions < 0, ABI_ERR_ARG, "partitions is negative"},
        {count < 0, ABI_ERR_COUNT, "count is negative"},
        {tag < 0 || tag > tag_ub, ABI_ERR_TAG, "tag is not between 0 and MPI_TAG_UB (MPI_ANY_TAG is not allowed)"},
    };
    for (const auto &c : checks)
        if (c.bad) {
            char msg[240];
            std::snprintf(msg, sizeof msg, "%s: %s", fn, c.what);
            return raise_error(errh_of(comm), c.cls, msg);
        }
    return 0;
}
}  // namespace

bool partitioned_receives_pending() { return awaiting.load(std::memory_order_relaxed) != 0; }

void partitioned_world_init()
{
    if (part_comm != MPI_COMM_NULL) return;
    if (MPI_Comm_dup(MPI_COMM_WORLD, &part_comm) != MPI_SUCCESS) return;
    int *ub = nullptr, flag = 0;
    if (MPI_Comm_get_attr(part_comm, MPI_TAG_UB, &ub, &flag) == MPI_SUCCESS && flag && ub) tag_ub = *ub;
}
// Freed just before the native MPI_Finalize, outside it: freed from a delete callback of
// MPI_COMM_SELF inside Open MPI 4.1's MPI_Finalize, it made LeakSanitizer's exit check fault.
void partitioned_world_end()
{
    {
        std::lock_guard<std::mutex> g(receives_mutex);
        for (orphan &o : orphans) {  // their sends never came
            MPI_Cancel(&o.req);
            MPI_Wait(&o.req, MPI_STATUS_IGNORE);
            awaiting.fetch_sub(1, std::memory_order_relaxed);
        }
        orphans.clear();
    }
    if (part_comm != MPI_COMM_NULL) MPI_Comm_free(&part_comm);
}
#else
bool partitioned_receives_pending() { return false; }
void partitioned_world_init() {}
void partitioned_world_end() {}
#endif

}  // namespace anympi::backend

using namespace anympi::backend;

ANYMPI_MANUAL(MPI_Psend_init, fallback, "anympi's own request over persistent sends on a private communicator where the MPI lacks it (partitioned.cpp)")
{
#if ANYMPI_HAVE_MPI_Psend_init
    return err_out(MPI_Psend_init(c_buf(buf), partitions, count, to_native(datatype), c_rank_in(dest), c_tag_in(tag),
                                  to_native(comm), to_native(info), c_hout_persistent(request)));
#else
    (void)info;
    if (int e = check_init_args("MPI_Psend_init", comm, partitions, count, c_tag_in(tag), request)) return e;
    if (int e = check_peer("MPI_Psend_init", "dest", comm, c_rank_in(dest))) return e;
    const MPI_Comm c = to_native(comm);
    auto op = std::make_unique<psend>(partitions);
    const int peer = c_rank_in(dest);
    int size = 0, world_peer = MPI_PROC_NULL;
    MPI_Aint lb = 0, extent = 0;
    int rc = MPI_Type_size(to_native(datatype), &size);
    if (rc == MPI_SUCCESS) rc = MPI_Type_get_extent(to_native(datatype), &lb, &extent);
    if (rc == MPI_SUCCESS && peer == MPI_PROC_NULL) op->proc_null = true;
    else if (rc == MPI_SUCCESS) rc = locate(c, peer, &op->setup.comm_hash, &world_peer);
    if (rc == MPI_SUCCESS && !op->proc_null) {
        op->setup.tag = c_tag_in(tag);
        op->setup.partitions = partitions;
        op->setup.partition_bytes = int64_t(count) * size;
        op->setup.data_tag = take_data_tag();
        if (op->setup.data_tag < 0)
            return raise_error(errh_of(comm), ABI_ERR_INTERN, "MPI_Psend_init: too many partitioned sends alive");
        op->data.assign(size_t(partitions), MPI_REQUEST_NULL);
        const char *at = static_cast<const char *>(c_buf(buf));
        for (int p = 0; p < partitions && rc == MPI_SUCCESS; ++p)
            rc = MPI_Send_init(at + int64_t(p) * count * extent, count, to_native(datatype), world_peer,
                               op->setup.data_tag, part_comm, &op->data[size_t(p)]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Isend(&op->setup, int(sizeof op->setup), MPI_BYTE, world_peer,
                           setup_tag(op->setup.comm_hash, op->setup.tag), part_comm, &op->setup_req);
    }
    if (rc != MPI_SUCCESS) return err_out(rc);
    *request = adopt(std::move(op));
    return 0;
#endif
}

ANYMPI_MANUAL(MPI_Precv_init, fallback, "anympi's own request over persistent receives on a private communicator where the MPI lacks it (partitioned.cpp)")
{
#if ANYMPI_HAVE_MPI_Precv_init
    return err_out(MPI_Precv_init(buf, partitions, count, to_native(datatype), c_rank_in(dest), c_tag_in(tag),
                                  to_native(comm), to_native(info), c_hout_persistent(request)));
#else
    (void)info;
    if (int e = check_init_args("MPI_Precv_init", comm, partitions, count, c_tag_in(tag), request)) return e;
    if (int e = check_peer("MPI_Precv_init", "source", comm, c_rank_in(dest))) return e;
    const MPI_Comm c = to_native(comm);
    const int peer = c_rank_in(dest);
    auto op = std::make_unique<precv>(buf, partitions, count, datatype, peer, c_tag_in(tag), c);
    int rc = MPI_SUCCESS;
    if (peer == MPI_PROC_NULL) {
        op->proc_null = true;
    } else {
        uint64_t h = 0;
        rc = locate(c, peer, &h, &op->source_world);
        if (rc == MPI_SUCCESS)
            rc = MPI_Irecv(op->landing.get(), int(sizeof(setup_msg)), MPI_BYTE, op->source_world,
                           setup_tag(h, c_tag_in(tag)), part_comm, &op->setup_req);
        if (rc == MPI_SUCCESS) op->list();
    }
    if (rc != MPI_SUCCESS) return err_out(rc);
    *request = adopt(std::move(op));
    return 0;
#endif
}

ANYMPI_MANUAL(MPI_Psend_init_c, fallback, "through MPI_Psend_init, the count checked to fit in int, where the MPI lacks it")
{
    if (!c_fits_int(count))
        return raise_error(errh_of(comm), ABI_ERR_COUNT, "MPI_Psend_init_c: count exceeds what the MPI underneath takes (int)");
    return abi_MPI_Psend_init(buf, partitions, int(count), datatype, dest, tag, comm, info, request);
}
ANYMPI_MANUAL(MPI_Precv_init_c, fallback, "through MPI_Precv_init, the count checked to fit in int, where the MPI lacks it")
{
    if (!c_fits_int(count))
        return raise_error(errh_of(comm), ABI_ERR_COUNT, "MPI_Precv_init_c: count exceeds what the MPI underneath takes (int)");
    return abi_MPI_Precv_init(buf, partitions, int(count), datatype, dest, tag, comm, info, request);
}

#if !ANYMPI_HAVE_MPI_Psend_init
namespace {
// MPI_Pready*: each partition in range, not yet ready, of an active send.
int ready(const char *fn, abi_Request request, int n, const int *list, int low)
{
    auto *op = lookup_partitioned<psend>(request);
    if (!op) return bad_request(fn);
    std::lock_guard<std::mutex> g(op->m);
    char msg[200];
    if (!op->active) {
        std::snprintf(msg, sizeof msg, "%s: the request is not active (MPI_Start first)", fn);
        return raise_error(errh_none(), ABI_ERR_REQUEST, msg);
    }
    for (int i = 0; i < n; ++i) {
        const int p = list ? list[i] : low + i;
        if (p < 0 || p >= op->partitions || op->ready[size_t(p)]) {
            std::snprintf(msg, sizeof msg, "%s: partition %d is %s", fn, p,
                          p < 0 || p >= op->partitions ? "out of range" : "already ready");
            return raise_error(errh_none(), ABI_ERR_ARG, msg);
        }
        if (int rc = op->mark(p)) return err_out(rc);
    }
    return 0;
}
}  // namespace
#endif

ANYMPI_MANUAL(MPI_Pready, fallback, "marks a partition of anympi's own partitioned send where the MPI lacks it")
{
#if ANYMPI_HAVE_MPI_Pready
    return err_out(MPI_Pready(partition, to_native(request)));
#else
    return ready("MPI_Pready", request, 1, &partition, 0);
#endif
}
ANYMPI_MANUAL(MPI_Pready_range, fallback, "marks partitions of anympi's own partitioned send where the MPI lacks it")
{
#if ANYMPI_HAVE_MPI_Pready_range
    return err_out(MPI_Pready_range(partition_low, partition_high, to_native(request)));
#else
    return ready("MPI_Pready_range", request, partition_high - partition_low + 1 > 0 ? partition_high - partition_low + 1 : 0,
                 nullptr, partition_low);
#endif
}
ANYMPI_MANUAL(MPI_Pready_list, fallback, "marks partitions of anympi's own partitioned send where the MPI lacks it")
{
#if ANYMPI_HAVE_MPI_Pready_list
    return err_out(MPI_Pready_list(length, c_mut(array_of_partitions), to_native(request)));
#else
    if (length > 0 && !array_of_partitions)
        return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Pready_list: array_of_partitions is NULL");
    return ready("MPI_Pready_list", request, length, array_of_partitions, 0);
#endif
}
ANYMPI_MANUAL(MPI_Parrived, fallback, "tests a partition of anympi's own partitioned receive where the MPI lacks it")
{
#if ANYMPI_HAVE_MPI_Parrived
    return err_out(MPI_Parrived(to_native(request), partition, flag));
#else
    if (!flag) return raise_error(errh_none(), ABI_ERR_ARG, "MPI_Parrived: flag is NULL");
    if (request == reinterpret_cast<abi_Request>(ABI_REQUEST_NULL)) return *flag = 1, 0;  // null: flag true
    auto *op = lookup_partitioned<precv>(request);
    if (!op) return bad_request("MPI_Parrived");
    std::lock_guard<std::mutex> g(op->m);
    if (!op->active) return *flag = 1, 0;  // inactive: flag true (MPI-4.1 5.2.2)
    if (partition < 0 || partition >= op->partitions) {
        char msg[160];
        std::snprintf(msg, sizeof msg, "MPI_Parrived: partition %d is out of range", partition);
        return raise_error(errh_none(), ABI_ERR_ARG, msg);
    }
    return err_out(op->arrived(partition, flag));
#endif
}
