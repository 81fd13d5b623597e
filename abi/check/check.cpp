// anympi_check.so: the runtime checking mode (ANYMPI_CHECK=signatures|args).
//
// The front library loads this module only when ANYMPI_CHECK is set and replaces the backend's
// dispatch table by the one anympi_check_wrap returns: a copy of the backend's table with the
// checked functions replaced. With ANYMPI_CHECK unset nothing here is loaded, so the checking
// mode costs nothing when off.
//
// Every wrapper calls the next table's slots (never MPI_X by name for a wrapped X: that would
// come back through the front into this table). Functions the module does not wrap may be
// called by name: the types library decodes datatypes that way.
//
// Signatures: every point-to-point message is followed, with the same tag, by a small "shadow"
// message on a shadow communicator (one per user communicator, duplicated when the user's is
// created) that carries the message's signature: a hash of its basic-type sequence, its length
// and the first runs in words. The receiver fetches it from status.MPI_SOURCE/MPI_TAG once its
// receive completed and compares. Collectives first allgather every rank's (send, receive)
// signatures on the shadow communicator and check the pairs the operation moves data between;
// the v/w and neighbourhood ones move one compact record per block with a collective of their
// own pattern; nonblocking and persistent ones start that exchange and compare at completion;
// one-sided calls are compared at the origin (docs/check.md).
#include <mpi.h>

#include <anympi/types/decode.hpp>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace at = anympi::types;

#include "core.hpp"

using namespace anympi_check;

namespace {

// ------------------------------------------------------------------------------------------
// Signature hashing. A signature is a sequence of basic types; its hash is the polynomial
// sum c(t_i) * B^(n-1-i) mod 2^61-1 over the *expanded* sequence, so that 2 x (double,
// double) and 4 x double hash alike, and any prefix or repetition is computed from the runs
// in O(runs x log n) without expanding anything.

constexpr std::uint64_t k_p = (std::uint64_t{1} << 61) - 1;
constexpr std::uint64_t k_base = 0x1f3a5c7e9b2d4f61ULL % k_p;

std::uint64_t mulm(std::uint64_t a, std::uint64_t b) {
  unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  std::uint64_t lo = static_cast<std::uint64_t>(r & k_p), hi = static_cast<std::uint64_t>(r >> 61);
  std::uint64_t s = lo + hi;
  return s >= k_p ? s - k_p : s;
}
std::uint64_t addm(std::uint64_t a, std::uint64_t b) {
  std::uint64_t s = a + b;
  return s >= k_p ? s - k_p : s;
}

// A hashed segment of a sequence: B^len, the hash, the length. Concatenation is a monoid.
struct seg {
  std::uint64_t pw = 1, h = 0;
  std::int64_t len = 0;
};
seg cat(const seg& a, const seg& b) { return {mulm(a.pw, b.pw), addm(mulm(a.h, b.pw), b.h), a.len + b.len}; }
seg power(seg s, std::int64_t n) {
  seg r;
  while (n > 0) {
    if (n & 1) r = cat(r, s);
    s = cat(s, s);
    n >>= 1;
  }
  return r;
}
std::uint64_t type_code(const std::string& canonical) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char c : canonical) h = (h ^ c) * 1099511628211ULL;
  h %= k_p;
  return h ? h : 1;
}

// What the checker knows of one datatype (cached per handle).
struct type_sig {
  bool known = false;   // decoded (a type map too large to expand is not checked)
  bool packed = false;  // all MPI_PACKED: matched by bytes
  at::signature one;    // one instance, repeat 1
  std::vector<seg> run_segs;
  seg inst;             // one instance
  std::int64_t bytes = 0;
};

// What a pending operation holds: the signature of its datatype as it was when posted. The
// program may free the datatype before the operation completes (MPI-4.1 section 5.1.10: that
// does not affect it), and its handle may then name another type or nothing.
using sig_ptr = std::shared_ptr<const type_sig>;

std::unordered_map<MPI_Datatype, sig_ptr> g_sigs;

sig_ptr sig_of(MPI_Datatype t) {
  {
    std::lock_guard<std::recursive_mutex> l(g_mu);
    auto it = g_sigs.find(t);
    if (it != g_sigs.end()) return it->second;
  }
  auto s = std::make_shared<type_sig>();
  t_in_decode = true;
  try {
    s->one = at::signature_of(t, 1);
    s->known = true;
  } catch (...) {
    s->known = false;
  }
  t_in_decode = false;
  if (s->known) {
    s->packed = !s->one.runs.empty() && s->one.all_of("MPI_PACKED");
    for (const auto& r : s->one.runs) {
      seg e{k_base, type_code(r.type), 1};
      s->run_segs.push_back(power(e, r.length));
      s->inst = cat(s->inst, s->run_segs.back());
    }
    s->bytes = s->one.bytes();
  }
  std::lock_guard<std::recursive_mutex> l(g_mu);
  g_sigs[t] = s;
  return s;
}

// The first n elements of count instances.
seg prefix(const type_sig& s, std::int64_t count, std::int64_t n) {
  const std::int64_t per = s.inst.len;
  if (per == 0 || n <= 0) return {};
  n = std::min(n, at::detail::sat_mul(per, count));
  seg r = power(s.inst, n / per);
  std::int64_t rest = n % per;
  for (std::size_t i = 0; i < s.run_segs.size() && rest > 0; ++i) {
    const std::int64_t take = std::min(rest, s.run_segs[i].len);
    r = cat(r, take == s.run_segs[i].len ? s.run_segs[i] : power(seg{k_base, type_code(s.one.runs[i].type), 1}, take));
    rest -= take;
  }
  return r;
}

// The signature of count instances, in the shape at::signature_of gives it.
at::signature repeat(const at::signature& one, std::int64_t count) {
  at::signature s = one;
  if (count <= 0 || s.runs.empty()) return {};
  if (s.runs.size() == 1) s.runs[0].length = at::detail::sat_mul(s.runs[0].length, count);
  else s.repeat = count;
  return s;
}

// ---- the shadow message
constexpr int k_wire_runs = 6;
struct wire_run {
  char type[40];
  std::int64_t size, length;
};
enum : std::uint32_t { w_valid = 1, w_packed = 2, w_unknown = 4, w_none = 8 };
struct wire {
  std::uint32_t flags = 0;
  std::int32_t nruns = 0;  // runs of one instance (only the first k_wire_runs are carried)
  std::uint64_t hash = 0;
  std::int64_t elements = 0, bytes = 0, count = 0;
  wire_run runs[k_wire_runs];
};

static_assert(sizeof(wire) == 376, "docs/check.md gives the shadow message's size");

// A block's signature without the words: what the v/w and neighbourhood collectives move
// per peer (the words travel only for the one offending pair).
struct crec {
  std::uint32_t flags = w_none;
  std::int32_t rank = -1, idx = 0, pad = 0;  // the sender and its block index
  std::uint64_t hash = 0;
  std::int64_t elements = 0, bytes = 0;
};
static_assert(sizeof(crec) == 40, "docs/check.md gives the compact record's size");

crec compact(std::int64_t count, const type_sig& s, int rank = -1, int idx = 0) {
  crec r;
  r.rank = rank, r.idx = idx;
  if (!s.known) {
    r.flags = w_unknown;
    return r;
  }
  r.flags = w_valid | (s.packed ? std::uint32_t{w_packed} : 0u);
  const seg all = power(s.inst, count);
  r.hash = all.h;
  r.elements = all.len;
  r.bytes = at::detail::sat_mul(s.bytes, count);
  return r;
}
// A block of no elements of MPI_DATATYPE_NULL, which the w collectives take (both MPIs do, and
// programs rely on it): its signature is the empty one, and there is no type to ask.
bool zero_null(std::int64_t count, MPI_Datatype t) { return count == 0 && t == MPI_DATATYPE_NULL; }
const type_sig& sig_for(std::int64_t count, MPI_Datatype t) {
  static const type_sig empty{.known = true};
  return zero_null(count, t) ? empty : *sig_of(t);
}
crec compact(std::int64_t count, MPI_Datatype t, int rank = -1, int idx = 0) {
  return compact(count, sig_for(count, t), rank, idx);
}
// Equal signatures, as a collective needs them (MPI_PACKED: equal bytes).
bool same(const crec& a, const crec& b) {
  if ((a.flags | b.flags) & (w_unknown | w_none)) return true;
  if ((a.flags | b.flags) & w_packed) return a.bytes == b.bytes;
  return a.elements == b.elements && a.hash == b.hash;
}

wire make_wire(std::int64_t count, const type_sig& s) {
  wire w{};
  const crec h = compact(count, s);
  w.flags = h.flags;
  if (h.flags & w_unknown) return w;
  w.hash = h.hash;
  w.elements = h.elements;
  w.bytes = h.bytes;
  w.count = count;
  w.nruns = static_cast<std::int32_t>(s.one.runs.size());
  for (int i = 0; i < w.nruns && i < k_wire_runs; ++i) {
    std::snprintf(w.runs[i].type, sizeof w.runs[i].type, "%s", s.one.runs[i].type.c_str());
    w.runs[i].size = s.one.runs[i].size;
    w.runs[i].length = s.one.runs[i].length;
  }
  return w;
}
wire make_wire(std::int64_t count, MPI_Datatype t) { return make_wire(count, sig_for(count, t)); }
wire none_wire() {
  wire w{};
  w.flags = w_none;
  return w;
}
bool complete(const wire& w) { return w.nruns <= k_wire_runs; }
at::signature sig_of_wire(const wire& w) {
  at::signature one;
  for (int i = 0; i < w.nruns && i < k_wire_runs; ++i) one.runs.push_back({w.runs[i].type, w.runs[i].size, w.runs[i].length});
  return repeat(one, w.count);
}
std::string words(const wire& w) {
  if (w.flags & w_unknown) return "(a datatype too large to check)";
  std::string s = at::to_string(sig_of_wire(w));
  if (!complete(w)) s += ", ... (" + std::to_string(w.elements) + " elements)";
  return s;
}

// Why two signatures do not match, in words ("" when they do). `exact`: a collective, where
// the standard asks for equal signatures; else a receive that may be larger.
std::string mismatch(const wire& send, const wire& recv, bool exact) {
  if ((send.flags | recv.flags) & (w_unknown | w_none)) return "";
  if ((send.flags | recv.flags) & w_packed) {
    if (send.bytes == recv.bytes || (!exact && send.bytes < recv.bytes)) return "";
    return "the message has " + std::to_string(send.bytes) + " bytes, the receive " + std::to_string(recv.bytes);
  }
  if (send.elements == recv.elements && send.hash == recv.hash) return "";
  if (complete(send) && complete(recv)) {
    auto c = at::check(sig_of_wire(send), sig_of_wire(recv));
    if (c.result == at::verdict::mismatch)
      return "mismatch at element " + std::to_string(c.mismatch_element) + " (" + c.send_type + " vs " + c.recv_type + ")";
    if (c.result == at::verdict::truncation)
      return "the message has " + std::to_string(c.send_elements) + " elements, the receive holds " +
             std::to_string(c.recv_elements);
    if (c.result == at::verdict::compatible_spare_capacity && exact)
      return "the lengths differ (" + std::to_string(c.send_elements) + " elements vs " +
             std::to_string(c.recv_elements) + ")";
    if (c.ok()) return "";
  }
  return "the signatures differ (" + std::to_string(send.elements) + " vs " + std::to_string(recv.elements) + " elements)";
}

// A receive of (count, t) against what the sender sent; the receive may be larger.
std::string mismatch_recv(const wire& sent, std::int64_t count, const type_sig& s, wire& posted) {
  posted = make_wire(count, s);
  if ((sent.flags | posted.flags) & (w_unknown | w_none)) return "";
  if (!((sent.flags | posted.flags) & w_packed) && sent.elements <= posted.elements &&
      prefix(s, count, sent.elements).h == sent.hash)
    return "";
  return mismatch(sent, posted, false);
}

// Shadow sends in flight (nonblocking: a shadow never blocks the program's own sends). The
// shadow of a nonblocking or persistent send is *held* until the program completes that
// send: held, it is neither tested nor freed, so that it can still be cancelled if the send
// turns out cancelled (an MPI may complete a small send locally and still cancel it at the
// receiver; a completed request could no longer be cancelled).
struct pending_send {
  MPI_Request req = MPI_REQUEST_NULL;
  wire buf;
  bool held = false;
};
using shadow_ptr = std::shared_ptr<pending_send>;
std::vector<shadow_ptr> g_pending;

// ------------------------------------------------------------------------------------------
// Point-to-point signatures

void sweep_pending() {
  // Shadows are tiny and eager on both MPIs: most are complete by the next send.
  std::size_t k = 0;
  for (auto& p : g_pending) {
    int done = 0;
    if (!p->held) NX(MPI_Test)(&p->req, &done, MPI_STATUS_IGNORE);
    if (!done) g_pending[k++] = std::move(p);
  }
  g_pending.resize(k);
}

// Posts the shadow of a send of (count, s) to dest; held: see pending_send. Returns it, or
// nullptr where nothing was posted.
shadow_ptr send_shadow(MPI_Comm c, std::int64_t count, const type_sig& s, int dest, int tag, bool held = false) {
  if (!g_signatures || dest == MPI_PROC_NULL) return nullptr;
  const comm_state cs = state_of(c);
  if (cs.shadow == MPI_COMM_NULL) return nullptr;
  auto p = std::make_shared<pending_send>();
  p->buf = make_wire(count, s);
  p->held = held;
  std::lock_guard<std::recursive_mutex> l(g_mu);
  sweep_pending();
  if (NX(MPI_Isend)(&p->buf, sizeof(wire), MPI_BYTE, dest, tag, cs.shadow, &p->req) != MPI_SUCCESS) return nullptr;
  g_pending.push_back(p);
  return p;
}
shadow_ptr send_shadow(MPI_Comm c, std::int64_t count, MPI_Datatype t, int dest, int tag, bool held = false) {
  if (!g_signatures || dest == MPI_PROC_NULL) return nullptr;
  return send_shadow(c, count, *sig_of(t), dest, tag, held);
}

// The program's send that a held shadow goes with has completed (st) or was freed: a
// cancelled send's message never arrives, so neither may its shadow (else the next receive
// from this source with this tag would take it, and its own would never be received: a hang
// where the MPI completes a shadow only once it is received, as MPICH does for a message to
// itself). Then the shadow is swept like any other.
void release_shadow(const shadow_ptr& p, const MPI_Status* st) {
  if (!p) return;
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (!p->held) return;
  int cancelled = 0;
  if (st) NX(MPI_Test_cancelled)(st, &cancelled);
  if (cancelled) NX(MPI_Cancel)(&p->req);
  p->held = false;
}

// The receive of (count, s) on c completed with *st: fetch and compare the sender's signature.
// `report`: false when the MPI already failed the receive (truncation...): the shadow is only
// consumed, so that the next pair stays in step.
// cs: c's state when the receive was posted.
int recv_shadow_in(const char* fn, MPI_Comm c, const comm_state& cs, std::int64_t count, const type_sig& s,
                   const MPI_Status& st, bool report) {
  if (!g_signatures || st.MPI_SOURCE == MPI_PROC_NULL || st.MPI_SOURCE < 0) return MPI_SUCCESS;
  if (cs.shadow == MPI_COMM_NULL) return MPI_SUCCESS;
  int cancelled = 0;
  NX(MPI_Test_cancelled)(&st, &cancelled);
  if (cancelled) return MPI_SUCCESS;
  wire sent{};
  if (NX(MPI_Recv)(&sent, sizeof sent, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, cs.shadow, MPI_STATUS_IGNORE) != MPI_SUCCESS)
    return MPI_SUCCESS;
  if (!report) return MPI_SUCCESS;
  wire posted;
  std::string why = mismatch_recv(sent, count, s, posted);
  if (why.empty()) return MPI_SUCCESS;
  return raise(c, MPI_ERR_TYPE,
               "rank " + std::to_string(st.MPI_SOURCE) + " sent " + words(sent) + " with tag " + std::to_string(st.MPI_TAG) +
                   " on " + comm_words(c) + ", rank " + std::to_string(cs.rank) + " posted " + words(posted) + " (" + fn +
                   "): " + why);
}
int recv_shadow(const char* fn, MPI_Comm c, std::int64_t count, const type_sig& s, const MPI_Status& st,
                bool report = true) {
  if (!g_signatures || st.MPI_SOURCE == MPI_PROC_NULL || st.MPI_SOURCE < 0) return MPI_SUCCESS;
  return recv_shadow_in(fn, c, state_of(c), count, s, st, report);
}
// A blocking receive: its datatype is valid throughout the call.
int recv_shadow(const char* fn, MPI_Comm c, std::int64_t count, MPI_Datatype t, const MPI_Status& st, bool report = true) {
  if (!g_signatures || st.MPI_SOURCE == MPI_PROC_NULL || st.MPI_SOURCE < 0) return MPI_SUCCESS;
  return recv_shadow(fn, c, count, *sig_of(t), st, report);
}

// Nonblocking and persistent collectives: the shadow exchange started with them (below).
struct nb_coll;
int finish_coll(nb_coll& k, bool report);
bool coll_ready(nb_coll& k);

// Nonblocking and persistent requests the checker must follow to their completion.
struct req_info {
  // send: a nonblocking send with its held shadow; pprecv: partitioned receive
  enum kind_t { send, recv, psend, precv, pprecv, coll, pcoll } kind = recv;
  const char* fn = "";
  MPI_Comm comm = MPI_COMM_NULL;
  std::int64_t count = 0;
  sig_ptr sig;            // point-to-point: the datatype's signature when posted
  int peer = 0, tag = 0;  // persistent sends, partitioned receives; receives: the posted source
  std::uint64_t seq = 0;  // posting order
  std::shared_ptr<nb_coll> nb;  // coll, pcoll: the signature exchange
  shadow_ptr shadow;            // send, psend: the shadow of the send in progress
  std::uint64_t comm_gen = 0;   // comm's generation when posted (posted_state)
};
std::unordered_map<MPI_Request, req_info> g_reqs;
std::unordered_map<MPI_Message, MPI_Comm> g_msgs;  // matched probes: the message's communicator
std::uint64_t g_req_seq = 0;

void track(MPI_Request r, req_info i) {
  if (r == MPI_REQUEST_NULL) return;
  std::lock_guard<std::recursive_mutex> l(g_mu);
  i.seq = ++g_req_seq;
  i.comm_gen = generation(hkind::comm, bits(i.comm));
  g_reqs[r] = i;
}
// Shadows of communicators freed while receives on them were pending (allowed: MPI-4.1 section
// 7.4.3), by the freed value and its generation (the MPI may hand the value out again at once):
// kept until those receives complete and take their shadow messages from them. Freed at once,
// the checker asked the freed handle at completion (Open MPI faulted, MPICH aborted), and a
// shadow message to oneself left there kept MPICH's MPI_Finalize waiting.
struct retired_shadow {
  comm_state state;
  int receives;  // pending nonblocking receives that will still take a shadow message from it
};
std::map<std::pair<std::uintptr_t, std::uint64_t>, retired_shadow> g_retired;  // guarded by g_mu

// c (generation gen) is being freed: whether its shadow is kept for receives still pending.
bool retire_shadow(MPI_Comm c, std::uint64_t gen) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  int receives = 0;
  for (auto& [r, i] : g_reqs) receives += i.kind == req_info::recv && i.comm == c && i.comm_gen == gen;
  auto it = g_comms.find(c);
  if (!receives || it == g_comms.end()) return false;
  g_retired[{bits(c), gen}] = {it->second, receives};
  return true;
}
// The state of the communicator receive i was posted on: as registered, or its retired shadow's
// (then *free_after is that shadow when this receive was the last to need it); false when it has
// none (a persistent receive outliving the pending ones: not checked).
bool posted_state(const req_info& i, comm_state& cs, MPI_Comm* free_after) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  auto live = g_comms.find(i.comm);
  if (live != g_comms.end() && generation(hkind::comm, bits(i.comm)) == i.comm_gen) {
    cs = live->second;
    return true;
  }
  auto it = g_retired.find({bits(i.comm), i.comm_gen});
  if (it == g_retired.end()) return false;
  cs = it->second.state;
  if (i.kind == req_info::recv && --it->second.receives == 0) {
    *free_after = cs.shadow;
    g_retired.erase(it);
  }
  return true;
}

bool lookup(MPI_Request r, req_info& out) {
  if (r == MPI_REQUEST_NULL) return false;
  std::lock_guard<std::recursive_mutex> l(g_mu);
  auto it = g_reqs.find(r);
  if (it == g_reqs.end()) return false;
  out = it->second;
  return true;
}
// The request i was completed or freed. Once the MPI has let go of it, another thread may get
// the same handle value for a new operation and track that: only the entry that was looked up
// (its posting number) is forgotten, never the newer one.
void untrack(MPI_Request r, const req_info& i) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  auto it = g_reqs.find(r);
  if (it != g_reqs.end() && it->second.seq == i.seq) g_reqs.erase(it);
}

// A request completed with st (its handle was `was`): check it, forget it unless persistent.
int completed(MPI_Request was, const req_info& i, const MPI_Status& st, bool ok = true) {
  if (i.kind == req_info::send || i.kind == req_info::psend) {
    if (i.kind == req_info::send) untrack(was, i);
    release_shadow(i.shadow, &st);
    return MPI_SUCCESS;
  }
  if (i.nb) {
    if (i.kind == req_info::coll) untrack(was, i);
    return finish_coll(*i.nb, ok);
  }
  if (!i.sig) return MPI_SUCCESS;
  if (i.kind == req_info::recv) untrack(was, i);
  comm_state cs;
  MPI_Comm free_after = MPI_COMM_NULL;
  if (!posted_state(i, cs, &free_after)) return MPI_SUCCESS;
  MPI_Status from = st;
  if (i.kind == req_info::pprecv)  // its peer and tag are fixed at the init
    from.MPI_SOURCE = i.peer, from.MPI_TAG = i.tag;
  // from MPI_PROC_NULL nothing came (MPICH 4.0 leaves such a status' MPI_SOURCE unset in the
  // multiple completions)
  const int rc = i.kind != req_info::pprecv && i.peer == MPI_PROC_NULL
                     ? MPI_SUCCESS
                     : recv_shadow_in(i.fn, i.comm, cs, i.count, *i.sig, from, ok);
  if (free_after != MPI_COMM_NULL) NX(MPI_Comm_free)(&free_after);
  return rc;
}

// ---- statuses. The program's status must come back exactly as the MPI leaves it: written only
// where the MPI writes it, field by field (docs/runtime.md, "Statuses"), MPI_STATUS_IGNORE
// never written through. But the checker must know whether the MPI matched a message at all (a
// receive that failed with a truncation still consumed one, and its shadow must go too). So the
// MPI writes into a copy of the program's status whose MPI_SOURCE holds a value no MPI writes;
// when the call is over the copy goes back, with the program's own MPI_SOURCE where the MPI
// left it alone.
constexpr int k_unwritten = INT_MIN;
class status_copy {
 public:
  explicit status_copy(MPI_Status* user) : user_(user) {
    if (user_ != MPI_STATUS_IGNORE) s_ = *user_;
    s_.MPI_SOURCE = k_unwritten;
  }
  status_copy(const status_copy&) = delete;
  status_copy& operator=(const status_copy&) = delete;
  ~status_copy() {
    if (user_ == MPI_STATUS_IGNORE) return;
    const int source = s_.MPI_SOURCE == k_unwritten ? user_->MPI_SOURCE : s_.MPI_SOURCE;
    *user_ = s_;
    user_->MPI_SOURCE = source;
  }
  MPI_Status* get() { return &s_; }  // what the MPI writes; MPI_SOURCE < 0 unless it matched a message
  const MPI_Status& operator*() const { return s_; }

 private:
  MPI_Status* user_;
  MPI_Status s_{};
};

// ---- wrappers. `C` is int or MPI_Count (the _c forms).
template <class C>
using send_fn = int (*)(const void*, C, MPI_Datatype, int, int, MPI_Comm);
template <class C>
using isend_fn = int (*)(const void*, C, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
template <class C>
using recv_fn = int (*)(void*, C, MPI_Datatype, int, int, MPI_Comm, MPI_Status*);
template <class C>
using irecv_fn = int (*)(void*, C, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);

template <int Ix, class C>
int send_common(const char* fn, const void* b, C n, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
  int rc = reinterpret_cast<send_fn<C>>(g_next[Ix])(b, n, t, dest, tag, c);
  if (rc == MPI_SUCCESS) send_shadow(c, n, t, dest, tag);
  return rc;
}
template <int Ix, class C>
int isend_common(const char* fn, const void* b, C n, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request* r,
                 bool persistent) {
  int rc = reinterpret_cast<isend_fn<C>>(g_next[Ix])(b, n, t, dest, tag, c, r);
  if (rc != MPI_SUCCESS) return rc;
  if (!g_signatures || dest == MPI_PROC_NULL) return rc;
  if (persistent) {  // its shadow goes with every start; the datatype may be freed before
    track(*r, {req_info::psend, fn, c, static_cast<std::int64_t>(n), sig_of(t), dest, tag, 0, nullptr, nullptr});
  } else if (auto sh = send_shadow(c, n, t, dest, tag, true)) {
    track(*r, {req_info::send, fn, c, static_cast<std::int64_t>(n), nullptr, dest, tag, 0, nullptr, std::move(sh)});
  }
  return rc;
}
template <int Ix, class C>
int recv_common(const char* fn, void* b, C n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Status* st) {
  status_copy sc(st);
  MPI_Status* s = sc.get();
  int rc = reinterpret_cast<recv_fn<C>>(g_next[Ix])(b, n, t, src, tag, c, s);
  if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
    // The MPI reported the receive (truncation...); the pair must still be consumed.
    if (s->MPI_SOURCE >= 0) recv_shadow(fn, c, n, t, *s, false);
    return rc;
  }
  int e = recv_shadow(fn, c, n, t, *s);
  return e ? e : rc;
}
template <int Ix, class C>
int irecv_common(const char* fn, void* b, C n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Request* r, bool persistent) {
  int rc = reinterpret_cast<irecv_fn<C>>(g_next[Ix])(b, n, t, src, tag, c, r);
  if (rc == MPI_SUCCESS && g_signatures)
    track(*r, {persistent ? req_info::precv : req_info::recv, fn, c, static_cast<std::int64_t>(n), sig_of(t), src, 0, 0,
               nullptr, nullptr});
  return rc;
}

#define SEND(X, C)                                                                      \
  int w_##X(const void* b, C n, MPI_Datatype t, int d, int g, MPI_Comm c) {             \
    return send_common<ANYMPI_IX_##X, C>(#X, b, n, t, d, g, c);                         \
  }
#define ISEND(X, C, P)                                                                  \
  int w_##X(const void* b, C n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request* r) { \
    return isend_common<ANYMPI_IX_##X, C>(#X, b, n, t, d, g, c, r, P);                   \
  }
#define RECV(X, C)                                                                      \
  int w_##X(void* b, C n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Status* st) {    \
    return recv_common<ANYMPI_IX_##X, C>(#X, b, n, t, s, g, c, st);                     \
  }
#define IRECV(X, C, P)                                                                  \
  int w_##X(void* b, C n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Request* r) {    \
    return irecv_common<ANYMPI_IX_##X, C>(#X, b, n, t, s, g, c, r, P);                   \
  }
#define BOTH(M, X, ...) M(X, int __VA_OPT__(,) __VA_ARGS__) M(X##_c, MPI_Count __VA_OPT__(,) __VA_ARGS__)

BOTH(SEND, MPI_Send)
BOTH(SEND, MPI_Ssend)
BOTH(SEND, MPI_Rsend)
BOTH(SEND, MPI_Bsend)
BOTH(ISEND, MPI_Isend, false)
BOTH(ISEND, MPI_Issend, false)
BOTH(ISEND, MPI_Irsend, false)
BOTH(ISEND, MPI_Ibsend, false)
BOTH(ISEND, MPI_Send_init, true)
BOTH(ISEND, MPI_Ssend_init, true)
BOTH(ISEND, MPI_Rsend_init, true)
BOTH(ISEND, MPI_Bsend_init, true)
BOTH(RECV, MPI_Recv)
BOTH(IRECV, MPI_Irecv, false)
BOTH(IRECV, MPI_Recv_init, true)

// After a sendrecv(_replace) returned rc with status s: exchange the shadow signatures.
// A failed receive (truncation...) still sent and matched: the pairs must go on both ways.
template <class C>
int pair_sendrecv_shadows(const char* fn, int rc, MPI_Comm c, C sn, MPI_Datatype stype, int dest, int stag, C rn,
                          MPI_Datatype rtype, MPI_Status const& s) {
  if (rc != MPI_SUCCESS && s.MPI_SOURCE < 0 && s.MPI_SOURCE != MPI_PROC_NULL) return rc;
  send_shadow(c, sn, stype, dest, stag);
  int e = recv_shadow(fn, c, rn, rtype, s, rc == MPI_SUCCESS);
  return rc != MPI_SUCCESS ? rc : e;
}

template <int Ix, class C>
int sendrecv_common(const char* fn, const void* sb, C sn, MPI_Datatype stype, int dest, int stag, void* rb, C rn,
                    MPI_Datatype rtype, int src, int rtag, MPI_Comm c, MPI_Status* st) {
  status_copy sc(st);
  MPI_Status* s = sc.get();
  using F = int (*)(const void*, C, MPI_Datatype, int, int, void*, C, MPI_Datatype, int, int, MPI_Comm, MPI_Status*);
  int rc = reinterpret_cast<F>(g_next[Ix])(sb, sn, stype, dest, stag, rb, rn, rtype, src, rtag, c, s);
  return pair_sendrecv_shadows(fn, rc, c, sn, stype, dest, stag, rn, rtype, *s);
}
int w_MPI_Sendrecv(const void* sb, int sn, MPI_Datatype st, int d, int sg, void* rb, int rn, MPI_Datatype rt, int s, int rg,
                   MPI_Comm c, MPI_Status* status) {
  return sendrecv_common<ANYMPI_IX_MPI_Sendrecv, int>("MPI_Sendrecv", sb, sn, st, d, sg, rb, rn, rt, s, rg, c, status);
}
int w_MPI_Sendrecv_c(const void* sb, MPI_Count sn, MPI_Datatype st, int d, int sg, void* rb, MPI_Count rn, MPI_Datatype rt,
                     int s, int rg, MPI_Comm c, MPI_Status* status) {
  return sendrecv_common<ANYMPI_IX_MPI_Sendrecv_c, MPI_Count>("MPI_Sendrecv_c", sb, sn, st, d, sg, rb, rn, rt, s, rg, c,
                                                              status);
}
template <int Ix, class C>
int sendrecv_replace_common(const char* fn, void* b, C n, MPI_Datatype t, int dest, int stag, int src, int rtag, MPI_Comm c,
                            MPI_Status* st) {
  status_copy sc(st);
  MPI_Status* s = sc.get();
  using F = int (*)(void*, C, MPI_Datatype, int, int, int, int, MPI_Comm, MPI_Status*);
  int rc = reinterpret_cast<F>(g_next[Ix])(b, n, t, dest, stag, src, rtag, c, s);
  return pair_sendrecv_shadows(fn, rc, c, n, t, dest, stag, n, t, *s);
}
int w_MPI_Sendrecv_replace(void* b, int n, MPI_Datatype t, int d, int sg, int s, int rg, MPI_Comm c, MPI_Status* st) {
  return sendrecv_replace_common<ANYMPI_IX_MPI_Sendrecv_replace, int>("MPI_Sendrecv_replace", b, n, t, d, sg, s, rg, c, st);
}
int w_MPI_Sendrecv_replace_c(void* b, MPI_Count n, MPI_Datatype t, int d, int sg, int s, int rg, MPI_Comm c,
                             MPI_Status* st) {
  return sendrecv_replace_common<ANYMPI_IX_MPI_Sendrecv_replace_c, MPI_Count>("MPI_Sendrecv_replace_c", b, n, t, d, sg, s,
                                                                              rg, c, st);
}

// ---- matched probes: remember the message's communicator for MPI_Mrecv / MPI_Imrecv
int w_MPI_Mprobe(int src, int tag, MPI_Comm c, MPI_Message* m, MPI_Status* st) {
  int rc = NX(MPI_Mprobe)(src, tag, c, m, st);
  if (rc == MPI_SUCCESS && *m != MPI_MESSAGE_NO_PROC && *m != MPI_MESSAGE_NULL) {
    std::lock_guard<std::recursive_mutex> l(g_mu);
    g_msgs[*m] = c;
  }
  return rc;
}
int w_MPI_Improbe(int src, int tag, MPI_Comm c, int* flag, MPI_Message* m, MPI_Status* st) {
  int rc = NX(MPI_Improbe)(src, tag, c, flag, m, st);
  if (rc == MPI_SUCCESS && *flag && *m != MPI_MESSAGE_NO_PROC && *m != MPI_MESSAGE_NULL) {
    std::lock_guard<std::recursive_mutex> l(g_mu);
    g_msgs[*m] = c;
  }
  return rc;
}
MPI_Comm take_message(MPI_Message m) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  auto it = g_msgs.find(m);
  if (it == g_msgs.end()) return MPI_COMM_NULL;
  MPI_Comm c = it->second;
  g_msgs.erase(it);
  return c;
}
template <int Ix, class C>
int mrecv_common(const char* fn, void* b, C n, MPI_Datatype t, MPI_Message* m, MPI_Status* st) {
  MPI_Comm c = take_message(*m);
  status_copy sc(st);
  MPI_Status* s = sc.get();
  using F = int (*)(void*, C, MPI_Datatype, MPI_Message*, MPI_Status*);
  int rc = reinterpret_cast<F>(g_next[Ix])(b, n, t, m, s);
  if (c == MPI_COMM_NULL || (rc != MPI_SUCCESS && s->MPI_SOURCE < 0)) return rc;
  int e = recv_shadow(fn, c, n, t, *s, rc == MPI_SUCCESS);
  return rc != MPI_SUCCESS ? rc : e;
}
int w_MPI_Mrecv(void* b, int n, MPI_Datatype t, MPI_Message* m, MPI_Status* st) {
  return mrecv_common<ANYMPI_IX_MPI_Mrecv, int>("MPI_Mrecv", b, n, t, m, st);
}
int w_MPI_Mrecv_c(void* b, MPI_Count n, MPI_Datatype t, MPI_Message* m, MPI_Status* st) {
  return mrecv_common<ANYMPI_IX_MPI_Mrecv_c, MPI_Count>("MPI_Mrecv_c", b, n, t, m, st);
}
template <int Ix, class C>
int imrecv_common(const char* fn, void* b, C n, MPI_Datatype t, MPI_Message* m, MPI_Request* r) {
  MPI_Comm c = take_message(*m);
  using F = int (*)(void*, C, MPI_Datatype, MPI_Message*, MPI_Request*);
  int rc = reinterpret_cast<F>(g_next[Ix])(b, n, t, m, r);
  if (rc == MPI_SUCCESS && c != MPI_COMM_NULL && g_signatures)
    track(*r, {req_info::recv, fn, c, static_cast<std::int64_t>(n), sig_of(t), 0, 0, 0, nullptr, nullptr});
  return rc;
}
int w_MPI_Imrecv(void* b, int n, MPI_Datatype t, MPI_Message* m, MPI_Request* r) {
  return imrecv_common<ANYMPI_IX_MPI_Imrecv, int>("MPI_Imrecv", b, n, t, m, r);
}
int w_MPI_Imrecv_c(void* b, MPI_Count n, MPI_Datatype t, MPI_Message* m, MPI_Request* r) {
  return imrecv_common<ANYMPI_IX_MPI_Imrecv_c, MPI_Count>("MPI_Imrecv_c", b, n, t, m, r);
}

// ---- starting persistent sends: the shadow goes with every start
int started(MPI_Request r) {
  req_info i;
  if (!lookup(r, i) || i.kind != req_info::psend || !i.sig) return MPI_SUCCESS;
  auto sh = send_shadow(i.comm, i.count, *i.sig, i.peer, i.tag, true);
  std::lock_guard<std::recursive_mutex> l(g_mu);
  auto it = g_reqs.find(r);
  if (it != g_reqs.end()) it->second.shadow = std::move(sh);
  return MPI_SUCCESS;
}
int w_MPI_Start(MPI_Request* r) {
  int rc = NX(MPI_Start)(r);
  if (rc == MPI_SUCCESS) started(*r);
  return rc;
}
int w_MPI_Startall(int n, MPI_Request rs[]) {
  int rc = NX(MPI_Startall)(n, rs);
  if (rc == MPI_SUCCESS)
    for (int i = 0; i < n; ++i) started(rs[i]);
  return rc;
}
std::vector<std::shared_ptr<nb_coll>> g_orphans;  // exchanges of freed collective requests
int w_MPI_Request_free(MPI_Request* r) {
  MPI_Request was = *r;
  req_info i;
  const bool known = lookup(was, i);
  int rc = NX(MPI_Request_free)(r);
  if (rc != MPI_SUCCESS || !known) return rc;
  untrack(was, i);
  release_shadow(i.shadow, nullptr);  // a freed send can no longer be cancelled
  if (i.nb && !coll_ready(*i.nb)) {  // its exchange goes on: keep the buffers
    std::lock_guard<std::recursive_mutex> l(g_mu);
    g_orphans.push_back(i.nb);
  }
  return rc;
}

// ---- completion
int w_MPI_Wait(MPI_Request* r, MPI_Status* st) {
  req_info i;
  const MPI_Request was = *r;
  if (!lookup(was, i)) return NX(MPI_Wait)(r, st);
  status_copy sc(st);
  MPI_Status* s = sc.get();
  int rc = NX(MPI_Wait)(r, s);
  int e = completed(was, i, *s, rc == MPI_SUCCESS);
  return rc != MPI_SUCCESS ? rc : e;
}
int w_MPI_Test(MPI_Request* r, int* flag, MPI_Status* st) {
  req_info i;
  const MPI_Request was = *r;
  if (!lookup(was, i)) return NX(MPI_Test)(r, flag, st);
  if (i.nb && !coll_ready(*i.nb)) {  // the collective completes once its signatures are here
    *flag = 0;
    return MPI_SUCCESS;
  }
  status_copy sc(st);
  MPI_Status* s = sc.get();
  int rc = NX(MPI_Test)(r, flag, s);
  if (!*flag) return rc;
  int e = completed(was, i, *s, rc == MPI_SUCCESS);
  return rc != MPI_SUCCESS ? rc : e;
}

// The tracked requests among rs[0..n), before a multiple completion overwrites the handles.
struct snapshot {
  std::vector<MPI_Request> was;
  std::vector<req_info> info;
  std::vector<char> tracked, held;
  std::vector<MPI_Request> pass_copy;
  bool any = false, held_any = false;
  snapshot(int n, const MPI_Request* rs, bool testing = false)
      : was(rs, rs + std::max(n, 0)), info(was.size()), tracked(was.size()), held(was.size()) {
    std::lock_guard<std::recursive_mutex> l(g_mu);
    if (g_reqs.empty()) return;
    for (std::size_t k = 0; k < was.size(); ++k)
      if (lookup(was[k], info[k])) {
        tracked[k] = 1, any = true;
        // a test must not complete a collective whose signatures are still on their way
        if (testing && info[k].nb && !coll_ready(*info[k].nb)) held[k] = 1, held_any = true;
      }
  }
  // The requests a test may complete: the held ones hidden as MPI_REQUEST_NULL.
  MPI_Request* pass(MPI_Request* rs) {
    if (!held_any) return rs;
    pass_copy = was;
    for (std::size_t k = 0; k < was.size(); ++k)
      if (held[k]) pass_copy[k] = MPI_REQUEST_NULL;
    return pass_copy.data();
  }
  void put_back(MPI_Request* rs) {
    if (!held_any) return;
    for (std::size_t k = 0; k < was.size(); ++k)
      if (!held[k]) rs[k] = pass_copy[k];
  }
  // Check the completed indices in posting order: matching pairs from one source and tag
  // then meet their shadows in the order they were sent. `all_ok`: the call succeeded, so
  // every entry did (the MPI need not write MPI_ERROR then); else each entry's MPI_ERROR says.
  // A mismatch goes into the entry's MPI_ERROR.
  int finish(std::vector<int> idx, MPI_Status* sts, bool sts_by_pos, bool all_ok) {
    std::vector<std::pair<std::uint64_t, int>> order;  // (seq, position in idx)
    for (std::size_t p = 0; p < idx.size(); ++p)
      if (idx[p] >= 0 && tracked[idx[p]]) order.push_back({info[idx[p]].seq, static_cast<int>(p)});
    std::sort(order.begin(), order.end());
    int first = MPI_SUCCESS;
    for (auto [seq, p] : order) {
      const int k = idx[p];
      MPI_Status& st = sts[sts_by_pos ? p : k];
      if (!all_ok && st.MPI_ERROR == MPI_ERR_PENDING) continue;
      int e = completed(was[k], info[k], st, all_ok || st.MPI_ERROR == MPI_SUCCESS);
      if (e) st.MPI_ERROR = e;
      if (e && first == MPI_SUCCESS) first = e;
    }
    return first;
  }
};

// The statuses of a multiple completion, as status_copy for one: the MPI writes into copies
// (for MPI_STATUSES_IGNORE, into statuses of the checker's own), which go back to the program
// with its own MPI_SOURCE where the MPI left it alone. Entries the MPI does not write (past
// Waitsome's outcount, all of them when a test found nothing) thus come back as they were.
class statuses_copy {
 public:
  statuses_copy(MPI_Status* user, int n) : user_(user), s_(static_cast<std::size_t>(std::max(n, 0))) {
    for (std::size_t k = 0; k < s_.size(); ++k) {
      if (user_ != MPI_STATUSES_IGNORE) s_[k] = user_[k];
      s_[k].MPI_SOURCE = k_unwritten;
    }
  }
  statuses_copy(const statuses_copy&) = delete;
  statuses_copy& operator=(const statuses_copy&) = delete;
  ~statuses_copy() {
    if (user_ == MPI_STATUSES_IGNORE) return;
    for (std::size_t k = 0; k < s_.size(); ++k) {
      const int source = s_[k].MPI_SOURCE == k_unwritten ? user_[k].MPI_SOURCE : s_[k].MPI_SOURCE;
      user_[k] = s_[k];
      user_[k].MPI_SOURCE = source;
    }
  }
  MPI_Status* get() { return s_.data(); }

 private:
  MPI_Status* user_;
  std::vector<MPI_Status> s_;
};

// What a multiple completion returns once the checker compared: the MPI's error, else a
// mismatch (MPI_ERR_IN_STATUS with the code in the statuses, the code itself without them).
int multiple_rc(int rc, int e, const MPI_Status* sts) {
  if (rc != MPI_SUCCESS) return rc;
  return e == MPI_SUCCESS ? MPI_SUCCESS : (sts == MPI_STATUSES_IGNORE ? e : MPI_ERR_IN_STATUS);
}

int w_MPI_Waitall(int n, MPI_Request rs[], MPI_Status sts[]) {
  snapshot s(n, rs);
  if (!s.any) return NX(MPI_Waitall)(n, rs, sts);
  statuses_copy use(sts, n);
  int rc = NX(MPI_Waitall)(n, rs, use.get());
  if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) return rc;
  std::vector<int> idx(n);
  for (int k = 0; k < n; ++k) idx[k] = k;
  return multiple_rc(rc, s.finish(idx, use.get(), false, rc == MPI_SUCCESS), sts);
}
int w_MPI_Testall(int n, MPI_Request rs[], int* flag, MPI_Status sts[]) {
  snapshot s(n, rs, true);
  if (!s.any) return NX(MPI_Testall)(n, rs, flag, sts);
  if (s.held_any) {  // not all complete yet
    *flag = 0;
    return MPI_SUCCESS;
  }
  statuses_copy use(sts, n);
  int rc = NX(MPI_Testall)(n, rs, flag, use.get());
  if (!*flag || (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS)) return rc;
  std::vector<int> idx(n);
  for (int k = 0; k < n; ++k) idx[k] = k;
  return multiple_rc(rc, s.finish(idx, use.get(), false, rc == MPI_SUCCESS), sts);
}
// Waitany and Testany complete one request: the call's return code is its error (the MPI need
// not write the status's MPI_ERROR), and a mismatch is returned as it is.
int w_MPI_Waitany(int n, MPI_Request rs[], int* index, MPI_Status* st) {
  snapshot s(n, rs);
  if (!s.any) return NX(MPI_Waitany)(n, rs, index, st);
  status_copy use(st);
  int rc = NX(MPI_Waitany)(n, rs, index, use.get());
  if (*index == MPI_UNDEFINED || *index < 0) return rc;
  MPI_Status checked = *use;  // the checker's own: a mismatch is not written into the program's
  checked.MPI_ERROR = rc;
  int e = s.finish({*index}, &checked, true, false);
  return rc != MPI_SUCCESS ? rc : e;
}
int w_MPI_Testany(int n, MPI_Request rs[], int* index, int* flag, MPI_Status* st) {
  snapshot s(n, rs, true);
  if (!s.any) return NX(MPI_Testany)(n, rs, index, flag, st);
  status_copy use(st);
  int rc = NX(MPI_Testany)(n, s.pass(rs), index, flag, use.get());
  s.put_back(rs);
  if (s.held_any && *flag && *index == MPI_UNDEFINED) *flag = 0;  // only held ones are active
  if (!*flag || *index == MPI_UNDEFINED || *index < 0) return rc;
  MPI_Status checked = *use;
  checked.MPI_ERROR = rc;
  int e = s.finish({*index}, &checked, true, false);
  return rc != MPI_SUCCESS ? rc : e;
}
template <int Ix>
int some_common(int n, MPI_Request rs[], int* outcount, int idx[], MPI_Status sts[]) {
  snapshot s(n, rs, Ix == ANYMPI_IX_MPI_Testsome);
  using F = int (*)(int, MPI_Request*, int*, int*, MPI_Status*);
  if (!s.any) return reinterpret_cast<F>(g_next[Ix])(n, rs, outcount, idx, sts);
  statuses_copy use(sts, n);
  int rc = reinterpret_cast<F>(g_next[Ix])(n, s.pass(rs), outcount, idx, use.get());
  s.put_back(rs);
  if (s.held_any && *outcount == MPI_UNDEFINED) *outcount = 0;  // only held ones are active
  if ((rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) || *outcount == MPI_UNDEFINED || *outcount <= 0) return rc;
  return multiple_rc(rc, s.finish(std::vector<int>(idx, idx + *outcount), use.get(), true, rc == MPI_SUCCESS), sts);
}
int w_MPI_Waitsome(int n, MPI_Request rs[], int* oc, int idx[], MPI_Status sts[]) {
  return some_common<ANYMPI_IX_MPI_Waitsome>(n, rs, oc, idx, sts);
}
int w_MPI_Testsome(int n, MPI_Request rs[], int* oc, int idx[], MPI_Status sts[]) {
  return some_common<ANYMPI_IX_MPI_Testsome>(n, rs, oc, idx, sts);
}

// ------------------------------------------------------------------------------------------
// Collectives: one allgather of every rank's (send, receive) signature on the shadow
// communicator, then the same verdict on every rank; on a mismatch every rank raises the
// same MPI_ERR_TYPE and none starts the operation (a half-started collective would hang).

struct coll_sides {
  wire send, recv;
};
// root_equal: a reduction to a root (on an intercommunicator: one group's ranks to the root).
enum class rule { root_sends, root_receives, all_equal, root_equal, all_to_all };

int inter_check(const char* fn, MPI_Comm c, const comm_state& s, int root, rule how, wire send, wire recv);
int coll_verdict(const char* fn, MPI_Comm c, const comm_state& s, int root, rule how, const std::vector<coll_sides>& all);

int coll_check(const char* fn, MPI_Comm c, int root, rule how, const wire& send, const wire& recv) {
  if (!g_signatures) return MPI_SUCCESS;
  const comm_state s = state_of(c);
  if (s.shadow == MPI_COMM_NULL) return MPI_SUCCESS;
  if (s.inter) return inter_check(fn, c, s, root, how, send, recv);
  std::vector<coll_sides> all(static_cast<std::size_t>(s.size));
  coll_sides mine{send, recv};
  if (NX(MPI_Allgather)(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, s.shadow) != MPI_SUCCESS)
    return MPI_SUCCESS;
  return coll_verdict(fn, c, s, root, how, all);
}

// Every rank's (send, receive) is in `all`: every rank finds the same first offending pair.
int coll_verdict(const char* fn, MPI_Comm c, const comm_state& s, int root, rule how, const std::vector<coll_sides>& all) {
  int from = -1, to = -1;
  std::string why;
  auto pair = [&](int i, int j) {  // rank i's send against rank j's receive
    if (!why.empty()) return;
    why = mismatch(all[i].send, all[j].recv, true);
    if (!why.empty()) from = i, to = j;
  };
  const int n = s.size;
  switch (how) {
    case rule::root_sends:
      for (int j = 0; j < n; ++j) pair(root, j);
      break;
    case rule::root_receives:
      for (int i = 0; i < n; ++i) pair(i, root);
      break;
    case rule::all_equal:  // send and receive are the same (count, datatype) on every rank
    case rule::root_equal:
      for (int j = 0; j < n; ++j) pair(root, j);
      break;
    case rule::all_to_all:  // i.send == 0.recv for all i and 0.send == j.recv for all j
      for (int i = 0; i < n; ++i) pair(i, 0);
      for (int j = 0; j < n; ++j) pair(0, j);
      break;
  }
  if (why.empty()) return MPI_SUCCESS;
  std::string msg;
  if (how == rule::all_equal || how == rule::root_equal)
    msg = std::string(fn) + " on " + comm_words(c) + ": rank " + std::to_string(from) + " passes " + words(all[from].send) +
          ", rank " + std::to_string(to) + " passes " + words(all[to].recv) + ": " + why;
  else
    msg = std::string(fn) + " on " + comm_words(c) +
          (how == rule::all_to_all ? std::string() : " (root " + std::to_string(root) + ")") + ": rank " +
          std::to_string(from) + " sends " + words(all[from].send) + ", rank " + std::to_string(to) + " receives " +
          words(all[to].recv) + ": " + why;
  return raise(c, MPI_ERR_TYPE, msg, s.rank == to);
}

// The generated wrapper underneath has checked every argument on an intracommunicator; on an
// intercommunicator it leaves the data arguments to the MPI (which side's count), but the
// signature checks below decode them, so a participating rank's are checked here.
template <class C>
int inter_data_args(const char* fn, MPI_Datatype t, C n, MPI_Comm c, const char* type_arg = "datatype",
                    const char* count_arg = "count") {
  if (!g_args || !state_of(c).inter) return 0;
  RETURN_IF(check_type(fn, t, c, type_arg));
  return check_count(fn, n, c, count_arg);
}

template <int Ix, class C>
int bcast_common(const char* fn, void* b, C n, MPI_Datatype t, int root, MPI_Comm c) {
  RETURN_IF(inter_data_args(fn, t, n, c));
  const wire w = g_signatures ? make_wire(n, t) : wire{};
  RETURN_IF(coll_check(fn, c, root, rule::root_sends, w, w));
  using F = int (*)(void*, C, MPI_Datatype, int, MPI_Comm);
  return reinterpret_cast<F>(g_next[Ix])(b, n, t, root, c);
}
int w_MPI_Bcast(void* b, int n, MPI_Datatype t, int r, MPI_Comm c) {
  return bcast_common<ANYMPI_IX_MPI_Bcast, int>("MPI_Bcast", b, n, t, r, c);
}
int w_MPI_Bcast_c(void* b, MPI_Count n, MPI_Datatype t, int r, MPI_Comm c) {
  return bcast_common<ANYMPI_IX_MPI_Bcast_c, MPI_Count>("MPI_Bcast_c", b, n, t, r, c);
}

template <int Ix, class C>
int reduce_common(const char* fn, const void* sb, void* rb, C n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c) {
  using F = int (*)(const void*, void*, C, MPI_Datatype, MPI_Op, int, MPI_Comm);
  const auto next = reinterpret_cast<F>(g_next[Ix]);
  // MPI_IN_PLACE anywhere but the root's send buffer is refused before anything moves (by Open
  // MPI; by MPICH as the root's receive buffer, and for MPICH by the backend as a non-root's
  // send buffer, docs/runtime.md): such a call takes no part in the reduction, so it must take
  // none in the exchange either, or the other ranks' exchange for their next reduction would
  // meet it and the ranks fall out of step (or wait for it forever). The MPI then gives its
  // own error, of its own class, as without the checker. (The nonblocking and persistent forms
  // call the MPI before their exchange anyway.)
  if (g_signatures && (sb == MPI_IN_PLACE || rb == MPI_IN_PLACE)) {
    const comm_state s = state_of(c);
    if (!s.inter && (s.rank == root ? rb == MPI_IN_PLACE : sb == MPI_IN_PLACE)) return next(sb, rb, n, t, op, root, c);
  }
  RETURN_IF(inter_data_args(fn, t, n, c));
  const wire w = g_signatures ? make_wire(n, t) : wire{};
  RETURN_IF(coll_check(fn, c, root, rule::root_equal, w, w));
  return next(sb, rb, n, t, op, root, c);
}
int w_MPI_Reduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, int r, MPI_Comm c) {
  return reduce_common<ANYMPI_IX_MPI_Reduce, int>("MPI_Reduce", sb, rb, n, t, op, r, c);
}
int w_MPI_Reduce_c(const void* sb, void* rb, MPI_Count n, MPI_Datatype t, MPI_Op op, int r, MPI_Comm c) {
  return reduce_common<ANYMPI_IX_MPI_Reduce_c, MPI_Count>("MPI_Reduce_c", sb, rb, n, t, op, r, c);
}
template <int Ix, class C>
int allreduce_common(const char* fn, const void* sb, void* rb, C n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  RETURN_IF(inter_data_args(fn, t, n, c));
  const wire w = g_signatures ? make_wire(n, t) : wire{};
  RETURN_IF(coll_check(fn, c, 0, rule::all_equal, w, w));
  using F = int (*)(const void*, void*, C, MPI_Datatype, MPI_Op, MPI_Comm);
  return reinterpret_cast<F>(g_next[Ix])(sb, rb, n, t, op, c);
}
#define ALLRED(X)                                                                       \
  int w_##X(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {    \
    return allreduce_common<ANYMPI_IX_##X, int>(#X, sb, rb, n, t, op, c);                \
  }                                                                                     \
  int w_##X##_c(const void* sb, void* rb, MPI_Count n, MPI_Datatype t, MPI_Op op, MPI_Comm c) { \
    return allreduce_common<ANYMPI_IX_##X##_c, MPI_Count>(#X "_c", sb, rb, n, t, op, c);       \
  }
ALLRED(MPI_Allreduce)
ALLRED(MPI_Scan)
ALLRED(MPI_Exscan)

// gather/scatter (rooted) and allgather/alltoall: (sb, sn, st, rb, rn, rt, [root,] comm)
template <class C>
int moves_args(const char* fn, const void* sb, C sn, MPI_Datatype st, const void* rb, C rn, MPI_Datatype rt, MPI_Comm c,
               bool send_used, bool recv_used) {
  if (send_used && sb != MPI_IN_PLACE) RETURN_IF(inter_data_args(fn, st, sn, c, "sendtype", "sendcount"));
  if (recv_used && rb != MPI_IN_PLACE) RETURN_IF(inter_data_args(fn, rt, rn, c, "recvtype", "recvcount"));
  return 0;
}
template <int Ix, class C>
int rooted_common(const char* fn, bool gather, const void* sb, C sn, MPI_Datatype st, void* rb, C rn, MPI_Datatype rt,
                  int root, MPI_Comm c) {
  const comm_state s = state_of(c);
  const bool at_root = s.inter ? root == MPI_ROOT : s.rank == root;
  using F = int (*)(const void*, C, MPI_Datatype, void*, C, MPI_Datatype, int, MPI_Comm);
  const auto next = reinterpret_cast<F>(g_next[Ix]);
  // MPI_IN_PLACE where only the root may pass it (a gather's send buffer, a scatter's receive
  // buffer) is refused before anything moves, by Open MPI and for MPICH by the backend: such a
  // call takes no part in the exchange either (see reduce_common).
  if (g_signatures && !s.inter && !at_root && (gather ? sb : rb) == MPI_IN_PLACE)
    return next(sb, sn, st, rb, rn, rt, root, c);
  // gather: everyone sends, the root receives; scatter: the root sends, everyone receives
  const bool send_used = gather ? true : at_root, recv_used = gather ? at_root : true;
  RETURN_IF(moves_args(fn, sb, sn, st, rb, rn, rt, c, send_used, recv_used));
  if (g_signatures) {  // an intercommunicator's sides are sorted out by inter_check
    wire ws = send_used && sb != MPI_IN_PLACE ? make_wire(sn, st) : none_wire();
    wire wr = recv_used && rb != MPI_IN_PLACE ? make_wire(rn, rt) : none_wire();
    RETURN_IF(coll_check(fn, c, root, gather ? rule::root_receives : rule::root_sends, ws, wr));
  }
  return next(sb, sn, st, rb, rn, rt, root, c);
}
template <int Ix, class C>
int all_common(const char* fn, const void* sb, C sn, MPI_Datatype st, void* rb, C rn, MPI_Datatype rt, MPI_Comm c) {
  RETURN_IF(moves_args(fn, sb, sn, st, rb, rn, rt, c, true, true));
  if (g_signatures) {
    wire wr = make_wire(rn, rt);
    wire ws = sb == MPI_IN_PLACE ? wr : make_wire(sn, st);  // in place: the send is a receive block
    RETURN_IF(coll_check(fn, c, 0, rule::all_to_all, ws, wr));
  }
  using F = int (*)(const void*, C, MPI_Datatype, void*, C, MPI_Datatype, MPI_Comm);
  return reinterpret_cast<F>(g_next[Ix])(sb, sn, st, rb, rn, rt, c);
}
#define ROOTED(X, G)                                                                                          \
  int w_##X(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt, int r, MPI_Comm c) {  \
    return rooted_common<ANYMPI_IX_##X, int>(#X, G, sb, sn, st, rb, rn, rt, r, c);                            \
  }                                                                                                           \
  int w_##X##_c(const void* sb, MPI_Count sn, MPI_Datatype st, void* rb, MPI_Count rn, MPI_Datatype rt, int r, \
                MPI_Comm c) {                                                                                 \
    return rooted_common<ANYMPI_IX_##X##_c, MPI_Count>(#X "_c", G, sb, sn, st, rb, rn, rt, r, c);             \
  }
#define ALLMOVE(X)                                                                                       \
  int w_##X(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt, MPI_Comm c) {    \
    return all_common<ANYMPI_IX_##X, int>(#X, sb, sn, st, rb, rn, rt, c);                                \
  }                                                                                                      \
  int w_##X##_c(const void* sb, MPI_Count sn, MPI_Datatype st, void* rb, MPI_Count rn, MPI_Datatype rt,  \
                MPI_Comm c) {                                                                            \
    return all_common<ANYMPI_IX_##X##_c, MPI_Count>(#X "_c", sb, sn, st, rb, rn, rt, c);                 \
  }
ROOTED(MPI_Gather, true)
ROOTED(MPI_Scatter, false)
ALLMOVE(MPI_Allgather)
ALLMOVE(MPI_Alltoall)

// ---- intercommunicators: the shadow is an intercommunicator too. Each rank gets the other
// group's (send, receive) pairs by one allgather and checks the pairs it is part of (its send
// against every remote receive, every remote send against its receive); two allreduces of a
// flag let both groups agree that somebody found a mismatch.
// Rooted: who takes part follows root (MPI_ROOT, MPI_PROC_NULL in the root's group).
coll_sides inter_sides(int root, rule how, const wire& send, const wire& recv) {
  coll_sides x{send, recv};
  if (how == rule::all_equal || how == rule::all_to_all) return x;
  const bool sends = how == rule::root_sends;  // the root's group sends
  if (root == MPI_PROC_NULL) x.send = x.recv = none_wire();
  else if (root == MPI_ROOT) (sends ? x.recv : x.send) = none_wire();
  else (sends ? x.send : x.recv) = none_wire();
  return x;
}
// The first pair this rank is part of that does not match ("" when none); `receiver`: it is
// the receiving side of that pair (which prints the report).
std::string inter_find(const char* fn, MPI_Comm c, const comm_state& s, const coll_sides& mine,
                       const std::vector<coll_sides>& remote, bool& receiver) {
  const wire &send = mine.send, &recv = mine.recv;
  std::string why, msg;
  const std::string head = std::string(fn) + " on " + comm_words(c) + ", an intercommunicator: ";
  receiver = false;
  for (int j = 0; j < s.remote_size && why.empty(); ++j) {
    if (!(why = mismatch(send, remote[j].recv, true)).empty())
      msg = head + "rank " + std::to_string(s.rank) + " of this group sends " + words(send) + ", rank " +
            std::to_string(j) + " of the other group receives " + words(remote[j].recv) + ": " + why;
    else if (!(why = mismatch(remote[j].send, recv, true)).empty())
      msg = head + "rank " + std::to_string(j) + " of the other group sends " + words(remote[j].send) + ", rank " +
            std::to_string(s.rank) + " of this group receives " + words(recv) + ": " + why, receiver = true;
  }
  return msg;
}
// Whether any rank of either group found a mismatch: an allreduce on an intercommunicator
// gives each group the other's result, so the second round gives everybody's.
bool inter_agree(const comm_state& s, bool found) {
  int flag = found ? 1 : 0, theirs = 0, any = 0;
  NX(MPI_Allreduce)(&flag, &theirs, 1, MPI_INT, MPI_MAX, s.shadow);
  int both = flag | theirs;
  NX(MPI_Allreduce)(&both, &any, 1, MPI_INT, MPI_MAX, s.shadow);
  return any != 0;
}
int inter_check(const char* fn, MPI_Comm c, const comm_state& s, int root, rule how, wire send, wire recv) {
  std::vector<coll_sides> remote(static_cast<std::size_t>(s.remote_size));
  coll_sides mine = inter_sides(root, how, send, recv);
  if (NX(MPI_Allgather)(&mine, sizeof mine, MPI_BYTE, remote.data(), sizeof mine, MPI_BYTE, s.shadow) != MPI_SUCCESS)
    return MPI_SUCCESS;
  bool receiver = false;
  std::string msg = inter_find(fn, c, s, mine, remote, receiver);
  const std::string head = std::string(fn) + " on " + comm_words(c) + ", an intercommunicator: ";
  if (!inter_agree(s, !msg.empty())) return MPI_SUCCESS;
  if (msg.empty()) msg = head + "a signature mismatch between the groups (reported by the ranks concerned)";
  return raise(c, MPI_ERR_TYPE, msg, receiver);
}

// ------------------------------------------------------------------------------------------
// Collectives whose blocks differ per peer (v/w and neighbourhood collectives). Each block's
// signature travels as a compact record (crec) with a collective of the operation's own
// pattern on the shadow, so a rank handles O(P) records; the receiver of each block compares;
// one allreduce agrees on the first offending pair (every rank raises the same error, none
// starts the operation), and only that pair's signatures travel in words.

// One side of a collective: block k (for peer k) is count(k) x type(k); `used` is false where
// the side moves nothing (MPI_IN_PLACE, a non-root's receive...).
struct side {
  bool used = false;
  std::int64_t count1 = 0;
  MPI_Datatype type1 = MPI_DATATYPE_NULL;
  const int* counts = nullptr;
  const MPI_Count* counts_c = nullptr;
  const MPI_Datatype* types = nullptr;
  bool mirror = false;  // MPI_IN_PLACE: the other side's arguments, checked as that side's
  std::int64_t count(int k) const { return counts ? counts[k] : counts_c ? counts_c[k] : count1; }
  MPI_Datatype type(int k) const { return types ? types[k] : type1; }
  crec rec(int k, int rank, int idx) const {
    if (!used) return crec{w_none, rank, idx};
    return compact(count(k), type(k), rank, idx);
  }
  wire full(int k) const { return used ? make_wire(count(k), type(k)) : none_wire(); }
};
side unused() { return {}; }
side mirror_of(side x) {
  x.mirror = true;
  return x;
}
side one_block(std::int64_t n, MPI_Datatype t) { return {true, n, t}; }
template <class C>
side per_peer(const C* n, MPI_Datatype t, const MPI_Datatype* ts = nullptr) {
  side s{true, 0, t};
  if constexpr (sizeof(C) == sizeof(int)) s.counts = reinterpret_cast<const int*>(n);
  else s.counts_c = reinterpret_cast<const MPI_Count*>(n);
  s.types = ts;
  return s;
}

// The operation's pattern: who sends a block to whom.
enum class moves { gather, scatter, allgather, alltoall, nb_allgather, nb_alltoall };
bool neighbourhood(moves m) { return m == moves::nb_allgather || m == moves::nb_alltoall; }

// In- and out-degree of a communicator with a topology (the shadow, a dup, has the same one).
bool degrees(MPI_Comm c, int& in, int& out) {
  int topo = MPI_UNDEFINED;
  if (NX(MPI_Topo_test)(c, &topo) != MPI_SUCCESS) return false;
  if (topo == MPI_CART) {
    int nd = 0;
    NX(MPI_Cartdim_get)(c, &nd);
    in = out = 2 * nd;
    return true;
  }
  if (topo == MPI_GRAPH) {
    int r = 0;
    NX(MPI_Comm_rank)(c, &r);
    NX(MPI_Graph_neighbors_count)(c, r, &in);
    out = in;
    return true;
  }
  if (topo == MPI_DIST_GRAPH) {
    int weighted = 0;
    NX(MPI_Dist_graph_neighbors_count)(c, &in, &out, &weighted);
    return true;
  }
  return false;
}

// The records this rank sends (out) and the slots for those it receives (in, n_in of them),
// for pattern `how`; make(k) is the record of the send block k.
// The root of a rooted collective (an intercommunicator's root passes MPI_ROOT).
bool is_root(const comm_state& s, int root) { return s.inter ? root == MPI_ROOT : s.rank == root; }

template <class R, class Make>
int shape(moves how, const comm_state& s, int root, MPI_Comm c, std::vector<R>& out, std::vector<R>& in, Make make) {
  int n_in = 0, n_out = 0, indeg = 0, outdeg = 0;
  if (neighbourhood(how) && !degrees(c, indeg, outdeg)) return -1;
  const bool at_root = is_root(s, root);
  const int P = s.inter ? s.remote_size : s.size;  // an intercommunicator's peers: the other group
  switch (how) {
    case moves::gather: n_out = 1, n_in = at_root ? P : 0; break;
    case moves::scatter: n_out = at_root ? P : 0, n_in = 1; break;
    case moves::allgather: n_out = 1, n_in = P; break;
    case moves::alltoall: n_out = n_in = P; break;
    case moves::nb_allgather: n_out = 1, n_in = indeg; break;
    case moves::nb_alltoall: n_out = outdeg, n_in = indeg; break;
  }
  if (s.inter && root == MPI_PROC_NULL && (how == moves::gather || how == moves::scatter)) n_out = n_in = 0;
  out.assign(static_cast<std::size_t>(std::max(n_out, 1)), R{});
  for (int k = 0; k < n_out; ++k) out[k] = make(k);
  in.assign(static_cast<std::size_t>(std::max(n_in, 1)), R{});
  return n_in;
}

// The exchange itself, on the shadow: blocking (req == nullptr) or started (nonblocking).
template <class R>
int exchange(moves how, MPI_Comm sh, int root, std::vector<R>& out, std::vector<R>& in, MPI_Request* req) {
  const int b = static_cast<int>(sizeof(R));
  void* o = out.data();
  void* i = in.data();
#define XCHG(IX, X, ...) \
  return req ? NX(IX)(o, b, MPI_BYTE, i, b, MPI_BYTE, __VA_ARGS__, req) : NX(X)(o, b, MPI_BYTE, i, b, MPI_BYTE, __VA_ARGS__)
  switch (how) {
    case moves::gather: XCHG(MPI_Igather, MPI_Gather, root, sh);
    case moves::scatter: XCHG(MPI_Iscatter, MPI_Scatter, root, sh);
    case moves::allgather: XCHG(MPI_Iallgather, MPI_Allgather, sh);
    case moves::alltoall: XCHG(MPI_Ialltoall, MPI_Alltoall, sh);
    case moves::nb_allgather: XCHG(MPI_Ineighbor_allgather, MPI_Neighbor_allgather, sh);
    case moves::nb_alltoall: XCHG(MPI_Ineighbor_alltoall, MPI_Neighbor_alltoall, sh);
  }
#undef XCHG
  return MPI_ERR_INTERN;
}

// `inter`: from is a rank of the other group, to one of this group.
std::string pair_words(const char* fn, MPI_Comm c, moves how, int root, int from, const wire& ws, int to, const wire& wr,
                       const std::string& why, bool inter = false) {
  const bool rooted = how == moves::gather || how == moves::scatter;
  const std::string where = inter ? ", an intercommunicator" : rooted ? " (root " + std::to_string(root) + ")" : "";
  return std::string(fn) + " on " + comm_words(c) + where + ": rank " + std::to_string(from) +
         (inter ? " of the other group" : "") + " sends " + words(ws) + " to rank " + std::to_string(to) +
         (inter ? " of this group" : "") + ", which receives " + words(wr) + ": " + why;
}

struct frec {  // a block's full record with its sender: nonblocking and intercommunicator exchanges
  std::int32_t rank = -1, idx = 0;
  wire w = none_wire();
};

// Full records received (in[0..n_in)) against this rank's receive blocks: the first
// offending block in words, "" when none.
template <class Mine>
std::string blocks_find(const char* fn, MPI_Comm c, const comm_state& s, moves how, int root, const std::vector<frec>& in,
                        int n_in, Mine mine) {
  for (int i = 0; i < n_in; ++i) {
    if (in[i].rank < 0) continue;  // MPI_PROC_NULL neighbour, or nothing sent
    const wire my = mine(i);
    std::string why = mismatch(in[i].w, my, true);
    if (!why.empty()) return pair_words(fn, c, how, root, in[i].rank, in[i].w, s.rank, my, why, s.inter);
  }
  return "";
}

// The first offending pair, as one number every rank can minimize: (to, from, the sender's
// block index); the largest value means none.
constexpr int k_idx_bits = 20;
constexpr std::int64_t k_no_pair = INT64_MAX;
std::int64_t pair_key(int to, int from, int idx, int P) {
  return ((static_cast<std::int64_t>(to) * P + from) << k_idx_bits) | std::min(idx, (1 << k_idx_bits) - 1);
}

// Blocking: exchange, compare, agree; on a mismatch every rank raises the same error.
int blocks_check(const char* fn, MPI_Comm c, moves how, int root, const side& snd, const side& rcv) {
  if (!g_signatures) return MPI_SUCCESS;
  const comm_state s = state_of(c);
  if (s.shadow == MPI_COMM_NULL) return MPI_SUCCESS;
  if (s.inter) {  // the other group's blocks, in full: the receivers know the words; two rounds agree
    std::vector<frec> out, in;
    const int n_in = shape(how, s, root, c, out, in, [&](int k) { return frec{s.rank, k, snd.full(k)}; });
    if (n_in < 0 || exchange<frec>(how, s.shadow, root, out, in, nullptr) != MPI_SUCCESS) return MPI_SUCCESS;
    std::string msg = blocks_find(fn, c, s, how, root, in, rcv.used ? n_in : 0, [&](int k) { return rcv.full(k); });
    if (!inter_agree(s, !msg.empty())) return MPI_SUCCESS;
    const bool mine = !msg.empty();
    if (!mine) msg = std::string(fn) + " on " + comm_words(c) + ", an intercommunicator: a signature mismatch between the groups (reported by the receiving rank)";
    return raise(c, MPI_ERR_TYPE, msg, mine);
  }
  std::vector<crec> out, in;
  const int n_in = shape(how, s, root, c, out, in, [&](int k) { return snd.rec(k, s.rank, k); });
  if (n_in < 0 || exchange<crec>(how, s.shadow, root, out, in, nullptr) != MPI_SUCCESS) return MPI_SUCCESS;
  std::int64_t key = k_no_pair;
  int my_k = -1;
  for (int k = 0; k < n_in && rcv.used; ++k) {
    if (in[k].rank < 0 || same(in[k], rcv.rec(k, s.rank, k))) continue;  // rank < 0: MPI_PROC_NULL neighbour
    const std::int64_t x = pair_key(s.rank, in[k].rank, in[k].idx, s.size);
    if (x < key) key = x, my_k = k;
  }
  std::int64_t first = key;
  if (NX(MPI_Allreduce)(&key, &first, 1, MPI_INT64_T, MPI_MIN, s.shadow) != MPI_SUCCESS || first == k_no_pair)
    return MPI_SUCCESS;
  const int idx = static_cast<int>(first & ((1 << k_idx_bits) - 1));
  const int to = static_cast<int>((first >> k_idx_bits) / s.size), from = static_cast<int>((first >> k_idx_bits) % s.size);
  // only the offending pair's signatures travel in words
  wire ws = s.rank == from ? snd.full(idx) : wire{}, wr = s.rank == to ? rcv.full(my_k) : wire{};
  NX(MPI_Bcast)(&ws, sizeof ws, MPI_BYTE, from, s.shadow);
  NX(MPI_Bcast)(&wr, sizeof wr, MPI_BYTE, to, s.shadow);
  std::string why = mismatch(ws, wr, true);
  if (why.empty()) why = "the signatures differ";
  return raise(c, MPI_ERR_TYPE, pair_words(fn, c, how, root, from, ws, to, wr, why), s.rank == to);
}

// MPI_Reduce_scatter: the same datatype and the same recvcounts on every rank. The signature
// of the whole contribution (sum of recvcounts x datatype) goes by coll_check; the counts
// themselves by a hash, and on a difference both arrays are compared.
template <class C>
int counts_check(const char* fn, MPI_Comm c, const C* rc) {
  if (!g_signatures) return MPI_SUCCESS;
  const comm_state s = state_of(c);
  if (s.shadow == MPI_COMM_NULL || s.inter) return MPI_SUCCESS;
  std::vector<std::int64_t> mine(rc, rc + s.size);
  std::uint64_t h = 1469598103934665603ULL;
  for (auto v : mine) h = (h ^ static_cast<std::uint64_t>(v)) * 1099511628211ULL;
  std::vector<std::uint64_t> all(static_cast<std::size_t>(s.size));
  if (NX(MPI_Allgather)(&h, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, s.shadow) != MPI_SUCCESS) return MPI_SUCCESS;
  int j = 1;
  while (j < s.size && all[j] == all[0]) ++j;
  if (j == s.size) return MPI_SUCCESS;
  std::vector<std::int64_t> a = mine, b = mine;
  NX(MPI_Bcast)(a.data(), s.size, MPI_INT64_T, 0, s.shadow);
  NX(MPI_Bcast)(b.data(), s.size, MPI_INT64_T, j, s.shadow);
  int k = 0;
  while (k < s.size - 1 && a[k] == b[k]) ++k;
  return raise(c, MPI_ERR_TYPE,
               std::string(fn) + " on " + comm_words(c) + ": rank 0 passes recvcounts[" + std::to_string(k) +
                   "] = " + std::to_string(a[k]) + ", rank " + std::to_string(j) + " passes recvcounts[" +
                   std::to_string(k) + "] = " + std::to_string(b[k]) + ": recvcounts must be equal on every rank",
               s.rank == j);
}

// ------------------------------------------------------------------------------------------
// Nonblocking and persistent collectives. The call cannot block (a rank may post the
// collective, then send to a rank that posts it only after receiving), so the exchange is
// started nonblockingly on the shadow with the full records (the words travel: there is no
// second round), kept with the user's request, and compared when that request completes.
// Nonblocking collectives on one communicator are started in the same order everywhere, so
// the shadow exchanges match. The receiver of an offending block reports it (uniform
// collectives: every rank, as the blocking ones do). A test does not complete the user's
// request before the exchange is in (a test may always say "not yet").

struct nb_coll {
  const char* fn = "";
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Request req = MPI_REQUEST_NULL;  // the shadow exchange
  bool uniform = false, ready = false, checked = false;
  // guards req, ready and checked: the thread that completes the user's request and one that
  // frees its communicator (settle_exchanges) may both finish the exchange
  std::mutex mu;
  int root = 0;
  rule how_u = rule::all_equal;        // uniform collectives: allgathered (send, receive)
  coll_sides mine_u;
  std::vector<coll_sides> all_u;
  moves how_b = moves::gather;         // per-block collectives
  std::vector<frec> out, in;
  std::vector<wire> mine;              // this rank's receive blocks
  int n_in = 0;
};

// Never blocks (it is asked under the checker's lock): while another thread is finishing the
// exchange, "not yet".
bool coll_ready(nb_coll& k) {
  std::unique_lock<std::mutex> l(k.mu, std::try_to_lock);
  if (!l.owns_lock()) return false;
  if (k.ready) return true;
  int done = 0;
  NX(MPI_Test)(&k.req, &done, MPI_STATUS_IGNORE);
  return k.ready = done != 0;
}

int finish_coll(nb_coll& k, bool report) {
  {
    std::lock_guard<std::mutex> l(k.mu);
    if (!k.ready) NX(MPI_Wait)(&k.req, MPI_STATUS_IGNORE), k.ready = true;
    if (k.checked || !report) return MPI_SUCCESS;
    k.checked = true;  // a persistent collective is checked at its first completion
  }
  {
    // freed before the completion (allowed): its handle names nothing to report on
    std::lock_guard<std::recursive_mutex> l(g_mu);
    if (!g_comms.count(k.comm)) return MPI_SUCCESS;
  }
  const comm_state s = state_of(k.comm);
  if (k.uniform && s.inter) {  // only the ranks concerned know; no agreement without blocking
    bool receiver = false;
    const std::string msg = inter_find(k.fn, k.comm, s, k.mine_u, k.all_u, receiver);
    return msg.empty() ? MPI_SUCCESS : raise(k.comm, MPI_ERR_TYPE, msg, receiver);
  }
  if (k.uniform) return coll_verdict(k.fn, k.comm, s, k.root, k.how_u, k.all_u);
  const std::string msg = blocks_find(k.fn, k.comm, s, k.how_b, k.root, k.in, k.n_in, [&](int i) { return k.mine[i]; });
  return msg.empty() ? MPI_SUCCESS : raise(k.comm, MPI_ERR_TYPE, msg);
}

void follow(MPI_Request r, std::shared_ptr<nb_coll> k, bool persistent, const char* fn, MPI_Comm c) {
  req_info i;
  i.kind = persistent ? req_info::pcoll : req_info::coll;
  i.fn = fn, i.comm = c, i.nb = std::move(k);
  track(r, i);
}

// Start the exchange of a per-block collective whose user request is r.
void start_blocks(const char* fn, MPI_Comm c, moves how, int root, const side& snd, const side& rcv, MPI_Request r,
                  bool persistent) {
  const comm_state s = state_of(c);
  if (s.shadow == MPI_COMM_NULL || r == MPI_REQUEST_NULL) return;
  auto k = std::make_shared<nb_coll>();
  k->fn = fn, k->comm = c, k->root = root, k->how_b = how;
  k->n_in = shape(how, s, root, c, k->out, k->in, [&](int b) { return frec{s.rank, b, snd.full(b)}; });
  if (k->n_in < 0) return;
  if (!rcv.used) k->n_in = 0;
  for (int i = 0; i < k->n_in; ++i) k->mine.push_back(rcv.full(i));
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (exchange<frec>(how, s.shadow, root, k->out, k->in, &k->req) == MPI_SUCCESS) follow(r, k, persistent, fn, c);
}
// ... and of a uniform one (the rules of the blocking collectives above).
void start_uniform(const char* fn, MPI_Comm c, rule how, int root, const wire& ws, const wire& wr, MPI_Request r,
                   bool persistent) {
  const comm_state s = state_of(c);
  if (s.shadow == MPI_COMM_NULL || r == MPI_REQUEST_NULL) return;
  auto k = std::make_shared<nb_coll>();
  k->fn = fn, k->comm = c, k->root = root, k->uniform = true, k->how_u = how;
  k->mine_u = s.inter ? inter_sides(root, how, ws, wr) : coll_sides{ws, wr};
  k->all_u.resize(static_cast<std::size_t>(s.inter ? s.remote_size : s.size));
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (NX(MPI_Iallgather)(&k->mine_u, sizeof(coll_sides), MPI_BYTE, k->all_u.data(), sizeof(coll_sides), MPI_BYTE, s.shadow,
                         &k->req) == MPI_SUCCESS)
    follow(r, k, persistent, fn, c);
}

// ------------------------------------------------------------------------------------------
// The wrappers of every collective the checker adds, blocking, nonblocking (I...) and
// persistent (..._init), int and _c: one template per family, which reads its arguments by
// position; the arity tells the form (the family's own arguments, + request, + info and
// request).

template <std::size_t N>
struct name_t {
  char s[N];
  constexpr name_t(const char (&a)[N]) { std::copy(a, a + N, s); }
};

// What a family's arguments say: its pattern and its two sides.
struct plan {
  bool uniform = false;
  moves how = moves::gather;
  rule how_u = rule::all_equal;
  int root = 0;
  side snd, rcv;                  // uniform: block 0 of each is the (count, datatype)
  const void* rcounts = nullptr;  // MPI_Reduce_scatter's recvcounts
  bool rcounts_c = false;
  bool refused = false;  // MPI_IN_PLACE where only the root may pass it (see rooted_common)
};

int side_args(const char* fn, const side& x, int n, MPI_Comm c, const char* type_arg, const char* count_arg) {
  if (!g_args || !x.used || x.mirror) return 0;
  for (int k = 0; k < (x.types || x.counts || x.counts_c ? n : 1); ++k) {
    if (!zero_null(x.count(k), x.type(k))) RETURN_IF(check_type(fn, x.type(k), c, type_arg));
    RETURN_IF(check_count(fn, x.count(k), c, count_arg));
  }
  return 0;
}

template <name_t Name, int Ix, int Base, class Fam, class F>
struct coll_w;
template <name_t Name, int Ix, int Base, class Fam, class... A>
struct coll_w<Name, Ix, Base, Fam, int (*)(A...)> {
  static int fn(A... a) {
    constexpr int extra = static_cast<int>(sizeof...(A)) - Base;  // 0 blocking, 1 nonblocking, 2 persistent
    static_assert(extra >= 0 && extra <= 2, "family and function disagree");
    const char* fn = Name.s;
    auto next = reinterpret_cast<int (*)(A...)>(g_next[Ix]);
    auto t = std::forward_as_tuple(a...);
    const MPI_Comm c = std::get<Base - 1>(t);  // checked by the generated wrapper underneath
    const comm_state s = state_of(c);
    if (!g_signatures) return next(a...);  // their argument checks are the generated ones
    const plan p = Fam::describe(t, s);
    if (p.refused) return next(a...);  // takes no part, here as in the MPI (rooted_common)
    if (!neighbourhood(p.how)) {
      const int n = s.inter ? s.remote_size : s.size;
      RETURN_IF(side_args(fn, p.snd, n, c, p.snd.types ? "sendtypes" : "sendtype", p.snd.counts || p.snd.counts_c ? "sendcounts" : "sendcount"));
      RETURN_IF(side_args(fn, p.rcv, n, c, p.rcv.types ? "recvtypes" : "recvtype", p.rcv.counts || p.rcv.counts_c ? "recvcounts" : "recvcount"));
    }
    const wire ws = p.uniform ? p.snd.full(0) : wire{}, wr = p.uniform ? p.rcv.full(0) : wire{};
    if constexpr (extra == 0) {
      if (p.uniform) RETURN_IF(coll_check(fn, c, p.root, p.how_u, ws, wr));
      else RETURN_IF(blocks_check(fn, c, p.how, p.root, p.snd, p.rcv));
      if (p.rcounts) {
        if (p.rcounts_c) RETURN_IF(counts_check(fn, c, static_cast<const MPI_Count*>(p.rcounts)));
        else RETURN_IF(counts_check(fn, c, static_cast<const int*>(p.rcounts)));
      }
      return next(a...);
    } else {
      const int rc = next(a...);
      if (rc != MPI_SUCCESS) return rc;
      MPI_Request r = *std::get<sizeof...(A) - 1>(t);
      if (p.uniform) start_uniform(fn, c, p.how_u, p.root, ws, wr, r, extra == 2);
      else start_blocks(fn, c, p.how, p.root, p.snd, p.rcv, r, extra == 2);
      return rc;
    }
  }
};

#define ARG(k) std::get<k>(t)
#define IN_PLACE(k) (static_cast<const void*>(ARG(k)) == MPI_IN_PLACE)
#define FAMILY(name, base, ...)                                   \
  struct name {                                                   \
    static constexpr int nargs = base;                            \
    template <class T>                                            \
    static plan describe(const T& t, const comm_state& s) {       \
      plan p;                                                     \
      (void)s;                                                    \
      __VA_ARGS__;                                                \
      return p;                                                   \
    }                                                             \
  };

// (sb, sn, st, rb, rcounts, displs, rt, root, comm)
FAMILY(f_gatherv, 9, p.how = moves::gather; p.root = ARG(7);
       p.snd = IN_PLACE(0) ? unused() : one_block(ARG(1), ARG(2));
       p.rcv = is_root(s, p.root) ? per_peer(ARG(4), ARG(6)) : unused();
       p.refused = IN_PLACE(0) && !s.inter && !is_root(s, p.root))
// (sb, scounts, displs, st, rb, rn, rt, root, comm)
FAMILY(f_scatterv, 9, p.how = moves::scatter; p.root = ARG(7);
       p.snd = is_root(s, p.root) ? per_peer(ARG(1), ARG(3)) : unused();
       p.rcv = IN_PLACE(4) ? unused() : one_block(ARG(5), ARG(6));
       p.refused = IN_PLACE(4) && !s.inter && !is_root(s, p.root))
// (sb, sn, st, rb, rcounts, displs, rt, comm); in place, rank i's send is its own block
FAMILY(f_allgatherv, 8, p.how = moves::allgather; p.rcv = per_peer(ARG(4), ARG(6));
       p.snd = IN_PLACE(0) ? mirror_of(one_block(p.rcv.count(s.rank), ARG(6))) : one_block(ARG(1), ARG(2)))
// (sb, scounts, sdispls, st, rb, rcounts, rdispls, rt, comm); in place, the sends are the receive blocks
FAMILY(f_alltoallv, 9, p.how = moves::alltoall; p.rcv = per_peer(ARG(5), ARG(7));
       p.snd = IN_PLACE(0) ? mirror_of(p.rcv) : per_peer(ARG(1), ARG(3)))
// (sb, scounts, sdispls, sts, rb, rcounts, rdispls, rts, comm)
FAMILY(f_alltoallw, 9, p.how = moves::alltoall; p.rcv = per_peer(ARG(5), MPI_DATATYPE_NULL, ARG(7));
       p.snd = IN_PLACE(0) ? mirror_of(p.rcv) : per_peer(ARG(1), MPI_DATATYPE_NULL, ARG(3)))
// (sb, sn, st, rb, rn, rt, comm)
FAMILY(f_nb_allgather, 7, p.how = moves::nb_allgather; p.snd = one_block(ARG(1), ARG(2)); p.rcv = one_block(ARG(4), ARG(5)))
// (sb, sn, st, rb, rcounts, displs, rt, comm)
FAMILY(f_nb_allgatherv, 8, p.how = moves::nb_allgather; p.snd = one_block(ARG(1), ARG(2)); p.rcv = per_peer(ARG(4), ARG(6)))
FAMILY(f_nb_alltoall, 7, p.how = moves::nb_alltoall; p.snd = one_block(ARG(1), ARG(2)); p.rcv = one_block(ARG(4), ARG(5)))
FAMILY(f_nb_alltoallv, 9, p.how = moves::nb_alltoall; p.snd = per_peer(ARG(1), ARG(3)); p.rcv = per_peer(ARG(5), ARG(7)))
FAMILY(f_nb_alltoallw, 9, p.how = moves::nb_alltoall; p.snd = per_peer(ARG(1), MPI_DATATYPE_NULL, ARG(3));
       p.rcv = per_peer(ARG(5), MPI_DATATYPE_NULL, ARG(7)))
// (sb, rb, recvcounts, datatype, op, comm): the whole contribution, then the counts
FAMILY(f_reduce_scatter, 6, p.uniform = true; std::int64_t total = 0;
       for (int k = 0; k < s.size && !s.inter; ++k) total += ARG(2)[k];
       p.snd = p.rcv = s.inter ? unused() : one_block(total, ARG(3)); p.rcounts = s.inter ? nullptr : ARG(2);
       p.rcounts_c = sizeof(*ARG(2)) != sizeof(int))
// (sb, rb, recvcount, datatype, op, comm)
FAMILY(f_reduce_scatter_block, 6, p.uniform = true; p.snd = p.rcv = s.inter ? unused() : one_block(ARG(2), ARG(3)))
// the uniform collectives' nonblocking and persistent forms (blocking: the wrappers above)
// (buffer, count, datatype, root, comm)
FAMILY(f_bcast, 5, p.uniform = true; p.how_u = rule::root_sends; p.root = ARG(3); p.snd = p.rcv = one_block(ARG(1), ARG(2)))
// (sb, rb, count, datatype, op, root, comm)
FAMILY(f_reduce, 7, p.uniform = true; p.how_u = rule::root_equal; p.root = ARG(5); p.snd = p.rcv = one_block(ARG(2), ARG(3)))
// (sb, rb, count, datatype, op, comm)
FAMILY(f_allreduce, 6, p.uniform = true; p.snd = p.rcv = one_block(ARG(2), ARG(3)))
// (sb, sn, st, rb, rn, rt, root, comm)
FAMILY(f_gather, 8, p.uniform = true; p.how_u = rule::root_receives; p.root = ARG(6);
       p.snd = IN_PLACE(0) ? unused() : one_block(ARG(1), ARG(2));
       p.rcv = is_root(s, p.root) ? one_block(ARG(4), ARG(5)) : unused())
FAMILY(f_scatter, 8, p.uniform = true; p.how_u = rule::root_sends; p.root = ARG(6);
       p.snd = is_root(s, p.root) ? one_block(ARG(1), ARG(2)) : unused();
       p.rcv = IN_PLACE(3) ? unused() : one_block(ARG(4), ARG(5)))
// (sb, sn, st, rb, rn, rt, comm)
FAMILY(f_allgather, 7, p.uniform = true; p.how_u = rule::all_to_all; p.rcv = one_block(ARG(4), ARG(5));
       p.snd = IN_PLACE(0) ? mirror_of(p.rcv) : one_block(ARG(1), ARG(2)))

#define COLL(X, FAM) g_table[ANYMPI_IX_##X] = reinterpret_cast<void*>(&coll_w<#X, ANYMPI_IX_##X, FAM::nargs, FAM, decltype(&P##X)>::fn)
#define COLL_C(X, FAM) COLL(X, FAM), COLL(X##_c, FAM)
// X, IX (nonblocking) and X_init (persistent), each with its _c form
#define COLL_ALL(X, IX, FAM) COLL_C(X, FAM), COLL_C(IX, FAM), COLL_C(X##_init, FAM)
#define COLL_NB(IX, X, FAM) COLL_C(IX, FAM), COLL_C(X##_init, FAM)

void install_collectives() {
  COLL_ALL(MPI_Gatherv, MPI_Igatherv, f_gatherv);
  COLL_ALL(MPI_Scatterv, MPI_Iscatterv, f_scatterv);
  COLL_ALL(MPI_Allgatherv, MPI_Iallgatherv, f_allgatherv);
  COLL_ALL(MPI_Alltoallv, MPI_Ialltoallv, f_alltoallv);
  COLL_ALL(MPI_Alltoallw, MPI_Ialltoallw, f_alltoallw);
  COLL_ALL(MPI_Neighbor_allgather, MPI_Ineighbor_allgather, f_nb_allgather);
  COLL_ALL(MPI_Neighbor_allgatherv, MPI_Ineighbor_allgatherv, f_nb_allgatherv);
  COLL_ALL(MPI_Neighbor_alltoall, MPI_Ineighbor_alltoall, f_nb_alltoall);
  COLL_ALL(MPI_Neighbor_alltoallv, MPI_Ineighbor_alltoallv, f_nb_alltoallv);
  COLL_ALL(MPI_Neighbor_alltoallw, MPI_Ineighbor_alltoallw, f_nb_alltoallw);
  COLL_ALL(MPI_Reduce_scatter, MPI_Ireduce_scatter, f_reduce_scatter);
  COLL_ALL(MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, f_reduce_scatter_block);
  COLL_NB(MPI_Ibcast, MPI_Bcast, f_bcast);
  COLL_NB(MPI_Ireduce, MPI_Reduce, f_reduce);
  COLL_NB(MPI_Iallreduce, MPI_Allreduce, f_allreduce);
  COLL_NB(MPI_Iscan, MPI_Scan, f_allreduce);
  COLL_NB(MPI_Iexscan, MPI_Exscan, f_allreduce);
  COLL_NB(MPI_Igather, MPI_Gather, f_gather);
  COLL_NB(MPI_Iscatter, MPI_Scatter, f_scatter);
  COLL_NB(MPI_Iallgather, MPI_Allgather, f_allgather);
  COLL_NB(MPI_Ialltoall, MPI_Alltoall, f_allgather);
}

// ------------------------------------------------------------------------------------------
// One-sided communication: the origin knows both sides (origin and target count and datatype),
// so the check is local, at the call. A put or accumulate moves the origin's data into the
// target's (count, datatype), a get the target's into the origin's, as a send into a receive
// (the receiving side may be larger); accumulates need the same basic types, which equal
// signatures imply. Reported through the window's error handler.

int raise_win(MPI_Win win, const std::string& msg) { return raise_at(anympi_check::at(win), MPI_ERR_TYPE, msg); }

int rma_check(const char* fn, MPI_Win win, int target, const char* what, std::int64_t sn, MPI_Datatype st,
              std::int64_t rn, MPI_Datatype rt) {
  if (target == MPI_PROC_NULL) return MPI_SUCCESS;
  wire posted;
  const wire sent = make_wire(sn, st);
  const std::string why = mismatch_recv(sent, rn, *sig_of(rt), posted);
  if (why.empty()) return MPI_SUCCESS;
  int me = -1;
  MPI_Group g;
  if (NX(MPI_Win_get_group)(win, &g) == MPI_SUCCESS) NX(MPI_Group_rank)(g, &me), NX(MPI_Group_free)(&g);
  return raise_win(win, std::string(fn) + " on window " + hex(bits(win)) + " (rank " + std::to_string(me) + ", target rank " +
                            std::to_string(target) + "): " + what + " " + words(sent) + " into " + words(posted) + ": " + why);
}

// Put/Rput/Accumulate/Raccumulate (origin 0-2, target 3, 5, 6), Get/Rget (the other way),
// Get_accumulate/Rget_accumulate (origin 0-2, result 3-5, target 6, 8, 9, op 10).
enum class rma { put, get, get_acc };
template <name_t Name, int Ix, rma Kind, int Win, class F>
struct rma_w;
template <name_t Name, int Ix, rma Kind, int Win, class... A>
struct rma_w<Name, Ix, Kind, Win, int (*)(A...)> {
  static int fn(A... a) {
    auto t = std::forward_as_tuple(a...);
    if (g_signatures) {
      if constexpr (Kind == rma::put)
        RETURN_IF(rma_check(Name.s, ARG(Win), ARG(3), "the origin's", ARG(1), ARG(2), ARG(5), ARG(6)));
      else if constexpr (Kind == rma::get)
        RETURN_IF(rma_check(Name.s, ARG(Win), ARG(3), "the target's", ARG(5), ARG(6), ARG(1), ARG(2)));
      else {
        if (ARG(10) != MPI_NO_OP) RETURN_IF(rma_check(Name.s, ARG(Win), ARG(6), "the origin's", ARG(1), ARG(2), ARG(8), ARG(9)));
        RETURN_IF(rma_check(Name.s, ARG(Win), ARG(6), "the target's", ARG(8), ARG(9), ARG(4), ARG(5)));
      }
    }
    return reinterpret_cast<int (*)(A...)>(g_next[Ix])(a...);
  }
};
// W: the position of the window argument
#define RMA(X, K, W) g_table[ANYMPI_IX_##X] = reinterpret_cast<void*>(&rma_w<#X, ANYMPI_IX_##X, K, W, decltype(&P##X)>::fn)
#define RMA_C(X, K, W) RMA(X, K, W), RMA(X##_c, K, W)

// Partitioned (MPI-4; MPICH): a persistent message of partitions x count x datatype. A send
// carries its shadow from every MPI_Start, like a persistent send; a receive (whose source
// and tag are fixed, no wildcards) takes it at every completion.
template <name_t Name, int Ix, bool Send, class F>
struct part_w;
template <name_t Name, int Ix, bool Send, class... A>
struct part_w<Name, Ix, Send, int (*)(A...)> {
  static int fn(A... a) {
    auto t = std::forward_as_tuple(a...);
    const int rc = reinterpret_cast<int (*)(A...)>(g_next[Ix])(a...);
    if (rc != MPI_SUCCESS || !g_signatures || ARG(4) == MPI_PROC_NULL) return rc;
    req_info i;
    i.kind = Send ? req_info::psend : req_info::pprecv;
    i.fn = Name.s, i.comm = ARG(6), i.sig = sig_of(ARG(3)), i.peer = ARG(4), i.tag = ARG(5);
    i.count = at::detail::sat_mul(static_cast<std::int64_t>(ARG(1)), static_cast<std::int64_t>(ARG(2)));
    track(*ARG(8), i);
    return rc;
  }
};
#define PART(X, S) g_table[ANYMPI_IX_##X] = reinterpret_cast<void*>(&part_w<#X, ANYMPI_IX_##X, S, decltype(&P##X)>::fn)

void install_rma() {
  PART(MPI_Psend_init, true), PART(MPI_Psend_init_c, true), PART(MPI_Precv_init, false), PART(MPI_Precv_init_c, false);
  RMA_C(MPI_Put, rma::put, 7), RMA_C(MPI_Rput, rma::put, 7), RMA_C(MPI_Get, rma::get, 7), RMA_C(MPI_Rget, rma::get, 7);
  RMA_C(MPI_Accumulate, rma::put, 8), RMA_C(MPI_Raccumulate, rma::put, 8);
  RMA_C(MPI_Get_accumulate, rma::get_acc, 11), RMA_C(MPI_Rget_accumulate, rma::get_acc, 11);
}

// ------------------------------------------------------------------------------------------
// Handles: freeing (tracked, so that a later use is reported) and creating (a value the MPI
// hands out again is no longer "freed"; a new communicator gets its shadow).

void created(MPI_Comm* c) { register_comm(*c, true); }
void created(MPI_Datatype* t) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  anympi_check::created(hkind::datatype, bits(*t));
  g_sigs.erase(*t);
}

template <int Ix, class F>
struct creator;
template <int Ix, class... A>
struct creator<Ix, int (*)(A...)> {
  static int fn(A... a) {
    int rc = reinterpret_cast<int (*)(A...)>(g_next[Ix])(a...);
    if (rc == MPI_SUCCESS) created(std::get<sizeof...(A) - 1>(std::forward_as_tuple(a...)));
    return rc;
  }
};
// MPI_Comm_idup[_with_info]: the new communicator is not usable before the request completes,
// so it gets no shadow (its messages are not checked); its value is no longer "freed".
template <int Ix, class... A>
int idup(A... a) {
  int rc = reinterpret_cast<int (*)(A...)>(g_next[Ix])(a...);
  if (rc == MPI_SUCCESS) {
    MPI_Comm* c = std::get<sizeof...(A) - 2>(std::forward_as_tuple(a...));
    std::lock_guard<std::recursive_mutex> l(g_mu);
    anympi_check::created(hkind::comm, bits(*c));
    g_comms.erase(*c);
  }
  return rc;
}

// The signature exchanges of c's pending collectives, completed before its shadow goes (Open
// MPI 4.1 crashes completing a collective on a freed communicator). Every rank started them
// before this collective free, so they complete.
// They are waited for outside the checker's lock: another thread of this process may have to
// send (which takes the lock) before some rank starts its part (MPI_THREAD_MULTIPLE).
void settle_exchanges(MPI_Comm c) {
  std::vector<std::shared_ptr<nb_coll>> pending;
  {
    std::lock_guard<std::recursive_mutex> l(g_mu);
    for (auto& [r, i] : g_reqs)
      if (i.nb && i.comm == c) pending.push_back(i.nb);
    for (auto& k : g_orphans)
      if (k->comm == c) pending.push_back(k);
  }
  for (auto& k : pending) finish_coll(*k, false);
}

// The shadow of a communicator the checker registered; MPI_COMM_NULL for one it did not (or
// made none for).
MPI_Comm registered_shadow(MPI_Comm c) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  auto it = g_comms.find(c);
  return it == g_comms.end() ? MPI_COMM_NULL : it->second.shadow;
}
// c was freed or disconnected: a later use of its value is reported until the MPI hands it out
// again. `gen`: its generation before the MPI freed it; if another thread has got the value
// since, it is that thread's communicator now.
void forget_comm(MPI_Comm c, std::uint64_t gen) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (generation(hkind::comm, bits(c)) != gen) return;
  g_comms.erase(c);
  g_freed_comms.insert(bits(c));
}

// The comm argument itself was checked by the generated wrapper underneath.
int w_MPI_Comm_free(MPI_Comm* c) {
  if (!c) return NX(MPI_Comm_free)(c);
  if (g_args && (*c == MPI_COMM_WORLD || *c == MPI_COMM_SELF))
    return raise(*c, MPI_ERR_COMM,
                 std::string("MPI_Comm_free: argument comm is ") + predefined(bits(*c))->name +
                     ", a predefined communicator, which cannot be freed");
  const MPI_Comm was = *c;
  MPI_Comm shadow = registered_shadow(was);
  const std::uint64_t gen = generation(hkind::comm, bits(was));
  int rc = NX(MPI_Comm_free)(c);
  if (rc != MPI_SUCCESS) return rc;
  if (shadow != MPI_COMM_NULL) {
    settle_exchanges(was);
    // Shadow sends still in flight on it complete later: a freed communicator's pending
    // operations go on (MPI 4.1 section 7.4.3), and g_pending keeps their buffers until then.
    if (!retire_shadow(was, gen)) NX(MPI_Comm_free)(&shadow);
  }
  forget_comm(was, gen);
  return rc;
}
int w_MPI_Comm_disconnect(MPI_Comm* c) {
  if (!c) return NX(MPI_Comm_disconnect)(c);
  const MPI_Comm was = *c;
  MPI_Comm shadow = registered_shadow(was);
  const std::uint64_t gen = generation(hkind::comm, bits(was));
  if (shadow != MPI_COMM_NULL) {
    // disconnect waits for the shadow's pending sends; the next sweep frees their requests.
    // Not under the lock: it waits for the other ranks, which may first need a shadow that
    // another thread of this process is about to send (MPI_THREAD_MULTIPLE).
    {
      std::lock_guard<std::recursive_mutex> l(g_mu);
      sweep_pending();
    }
    NX(MPI_Comm_disconnect)(&shadow);
  }
  int rc = NX(MPI_Comm_disconnect)(c);
  if (rc != MPI_SUCCESS) return rc;
  forget_comm(was, gen);
  return rc;
}

int w_MPI_Type_free(MPI_Datatype* t) {
  if (!t) return NX(MPI_Type_free)(t);
  if (t_in_decode) return NX(MPI_Type_free)(t);  // the types library freeing get_contents' handles
  // the datatype argument itself was checked by the generated wrapper underneath
  if (g_args && bits(*t) < k_predefined_limit)
    return raise_at(at_none(), MPI_ERR_TYPE,
                 std::string("MPI_Type_free: argument datatype is ") + predefined(bits(*t))->name +
                     ", a predefined datatype, which cannot be freed");
  const MPI_Datatype was = *t;
  const std::uint64_t gen = generation(hkind::datatype, bits(was));
  int rc = NX(MPI_Type_free)(t);
  if (rc != MPI_SUCCESS) return rc;
  std::lock_guard<std::recursive_mutex> l(g_mu);
  auto ref = g_contents_refs.find(bits(was));
  if (ref != g_contents_refs.end()) {  // a reference from get_contents: the type lives on
    if (--ref->second == 0) g_contents_refs.erase(ref);
    return rc;
  }
  // another thread got the value from the MPI since it freed it: its type now (created() has
  // dropped the freed type's signature)
  if (generation(hkind::datatype, bits(was)) != gen) return rc;
  g_sigs.erase(was);
  g_freed_types.insert(bits(was));
  return rc;
}

// get_contents hands out live handles (possibly ones the user freed, kept alive by the type
// built from them): they are valid again.
void contents_returned(std::int64_t n, const MPI_Datatype* ts) {
  if (t_in_decode || !ts) return;
  std::lock_guard<std::recursive_mutex> l(g_mu);
  for (std::int64_t k = 0; k < n; ++k) {
    if (bits(ts[k]) < k_predefined_limit) continue;
    g_freed_types.erase(bits(ts[k]));
    ++g_contents_refs[bits(ts[k])];
  }
}
int w_MPI_Type_get_contents(MPI_Datatype t, int ni, int na, int nd, int is[], MPI_Aint as[], MPI_Datatype ds[]) {
  int rc = NX(MPI_Type_get_contents)(t, ni, na, nd, is, as, ds);
  if (rc == MPI_SUCCESS) contents_returned(nd, ds);
  return rc;
}
int w_MPI_Type_get_contents_c(MPI_Datatype t, MPI_Count ni, MPI_Count na, MPI_Count nc, MPI_Count nd, int is[], MPI_Aint as[],
                              MPI_Count cs[], MPI_Datatype ds[]) {
  int rc = NX(MPI_Type_get_contents_c)(t, ni, na, nc, nd, is, as, cs, ds);
  if (rc == MPI_SUCCESS) contents_returned(nd, ds);
  return rc;
}

// ------------------------------------------------------------------------------------------
// Initialization and finalization

void setup_world() {
  register_comm(MPI_COMM_WORLD, true);
  register_comm(MPI_COMM_SELF, true);
}
int w_MPI_Init(int* argc, char*** argv) {
  int rc = NX(MPI_Init)(argc, argv);
  if (rc == MPI_SUCCESS) setup_world();
  return rc;
}
int w_MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  int rc = NX(MPI_Init_thread)(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) setup_world();
  return rc;
}
int w_MPI_Finalize() {
  {
    std::lock_guard<std::recursive_mutex> l(g_mu);
    for (auto& p : g_pending) NX(MPI_Wait)(&p->req, MPI_STATUS_IGNORE);
    g_pending.clear();
    for (auto& k : g_orphans) finish_coll(*k, false);
    g_orphans.clear();
    std::vector<std::pair<std::uint64_t, MPI_Comm>> shadows;
    for (auto& [c, s] : g_comms)
      if (s.shadow != MPI_COMM_NULL) shadows.push_back({s.seq, s.shadow});
    for (auto& [key, r] : g_retired) shadows.push_back({r.state.seq, r.state.shadow});
    g_retired.clear();
    std::sort(shadows.begin(), shadows.end());  // the same order on every rank
    for (auto& [seq, sh] : shadows) NX(MPI_Comm_free)(&sh);
    g_comms.clear();
    g_sigs.clear();
    g_reqs.clear();
    g_msgs.clear();
  }
  return NX(MPI_Finalize)();
}

// ------------------------------------------------------------------------------------------

bool parse(const char* spec) {
  g_signatures = g_args = false;
  if (!spec) return false;
  std::string s(spec);
  std::size_t pos = 0;
  while (pos <= s.size()) {
    std::size_t end = s.find_first_of(",: ", pos);
    if (end == std::string::npos) end = s.size();
    std::string w = s.substr(pos, end - pos);
    for (auto& ch : w) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (w == "signatures" || w == "signature" || w == "all" || w == "1" || w == "on" || w == "yes")
      g_signatures = g_args = true;
    else if (w == "args" || w == "arguments")
      g_args = true;
    else if (!w.empty() && w != "0" && w != "off" && w != "no" && w != "none")
      std::fprintf(stderr, "anympi check: ignoring '%s' in ANYMPI_CHECK='%s' (known: signatures, args)\n", w.c_str(), spec);
    pos = end + 1;
  }
  return g_signatures || g_args;
}

#define SET(X) g_table[ANYMPI_IX_##X] = reinterpret_cast<void*>(&w_##X)
#define SET_BOTH(X) SET(X), SET(X##_c)
#define CREATOR(X) g_table[ANYMPI_IX_##X] = reinterpret_cast<void*>(&creator<ANYMPI_IX_##X, decltype(&P##X)>::fn)
#define CREATOR_BOTH(X) CREATOR(X), CREATOR(X##_c)

void install() {
  init_names();
  SET(MPI_Init), SET(MPI_Init_thread), SET(MPI_Finalize), SET(MPI_Error_string), SET(MPI_Error_class);
  SET_BOTH(MPI_Send), SET_BOTH(MPI_Ssend), SET_BOTH(MPI_Rsend), SET_BOTH(MPI_Bsend);
  SET_BOTH(MPI_Isend), SET_BOTH(MPI_Issend), SET_BOTH(MPI_Irsend), SET_BOTH(MPI_Ibsend);
  SET_BOTH(MPI_Send_init), SET_BOTH(MPI_Ssend_init), SET_BOTH(MPI_Rsend_init), SET_BOTH(MPI_Bsend_init);
  SET_BOTH(MPI_Recv), SET_BOTH(MPI_Irecv), SET_BOTH(MPI_Recv_init);
  SET_BOTH(MPI_Sendrecv), SET_BOTH(MPI_Sendrecv_replace);
  SET(MPI_Mprobe), SET(MPI_Improbe), SET_BOTH(MPI_Mrecv), SET_BOTH(MPI_Imrecv);
  SET(MPI_Start), SET(MPI_Startall), SET(MPI_Request_free);
  SET(MPI_Wait), SET(MPI_Test), SET(MPI_Waitall), SET(MPI_Testall), SET(MPI_Waitany), SET(MPI_Testany);
  SET(MPI_Waitsome), SET(MPI_Testsome);
  SET_BOTH(MPI_Bcast), SET_BOTH(MPI_Reduce), SET_BOTH(MPI_Allreduce), SET_BOTH(MPI_Scan), SET_BOTH(MPI_Exscan);
  SET_BOTH(MPI_Gather), SET_BOTH(MPI_Scatter), SET_BOTH(MPI_Allgather), SET_BOTH(MPI_Alltoall);
  SET(MPI_Comm_free), SET(MPI_Comm_disconnect), SET(MPI_Type_free), SET_BOTH(MPI_Type_get_contents);
  install_collectives();  // v/w, reduce-scatter, neighbourhood; nonblocking and persistent forms
  install_rma();          // one-sided: origin against target, at the origin; partitioned
  // every call that hands out a new communicator or datatype as its last argument
  CREATOR(MPI_Comm_dup), CREATOR(MPI_Comm_dup_with_info), CREATOR(MPI_Comm_split), CREATOR(MPI_Comm_split_type);
  CREATOR(MPI_Comm_create), CREATOR(MPI_Comm_create_group), CREATOR(MPI_Comm_create_from_group);
  CREATOR(MPI_Cart_create), CREATOR(MPI_Cart_sub), CREATOR(MPI_Graph_create), CREATOR(MPI_Dist_graph_create);
  CREATOR(MPI_Dist_graph_create_adjacent), CREATOR(MPI_Intercomm_create), CREATOR(MPI_Intercomm_create_from_groups);
  CREATOR(MPI_Intercomm_merge), CREATOR(MPI_Comm_accept), CREATOR(MPI_Comm_connect), CREATOR(MPI_Comm_join);
  g_table[ANYMPI_IX_MPI_Comm_idup] = reinterpret_cast<void*>(&idup<ANYMPI_IX_MPI_Comm_idup, MPI_Comm, MPI_Comm*, MPI_Request*>);
  g_table[ANYMPI_IX_MPI_Comm_idup_with_info] =
      reinterpret_cast<void*>(&idup<ANYMPI_IX_MPI_Comm_idup_with_info, MPI_Comm, MPI_Info, MPI_Comm*, MPI_Request*>);
  CREATOR_BOTH(MPI_Type_contiguous), CREATOR_BOTH(MPI_Type_vector), CREATOR_BOTH(MPI_Type_create_hvector);
  CREATOR_BOTH(MPI_Type_indexed), CREATOR_BOTH(MPI_Type_create_hindexed), CREATOR_BOTH(MPI_Type_create_indexed_block);
  CREATOR_BOTH(MPI_Type_create_hindexed_block), CREATOR_BOTH(MPI_Type_create_struct);
  CREATOR_BOTH(MPI_Type_create_subarray), CREATOR_BOTH(MPI_Type_create_darray), CREATOR_BOTH(MPI_Type_create_resized);
  CREATOR(MPI_Type_dup);
  install_arg_checks();  // last: every function's generated argument checks, then the slot above (core.hpp)
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void* const* anympi_check_wrap(void* const* next, const char* spec) {
  if (!next || !parse(spec)) return next;
  g_next = next;
  std::memcpy(g_table, next, sizeof g_table);
  install();
  return g_table;
}
