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
// signatures on the shadow communicator and check the pairs the operation moves data between.
#include <mpi.h>

#include <anympi/types/decode.hpp>

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
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

std::unordered_map<MPI_Datatype, std::shared_ptr<const type_sig>> g_sigs;

std::shared_ptr<const type_sig> sig_of(MPI_Datatype t) {
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

wire make_wire(std::int64_t count, MPI_Datatype t) {
  wire w{};
  auto s = sig_of(t);
  if (!s->known) {
    w.flags = w_unknown;
    return w;
  }
  w.flags = w_valid | (s->packed ? std::uint32_t{w_packed} : 0u);
  const seg all = power(s->inst, count);
  w.hash = all.h;
  w.elements = all.len;
  w.bytes = at::detail::sat_mul(s->bytes, count);
  w.count = count;
  w.nruns = static_cast<std::int32_t>(s->one.runs.size());
  for (int i = 0; i < w.nruns && i < k_wire_runs; ++i) {
    std::snprintf(w.runs[i].type, sizeof w.runs[i].type, "%s", s->one.runs[i].type.c_str());
    w.runs[i].size = s->one.runs[i].size;
    w.runs[i].length = s->one.runs[i].length;
  }
  return w;
}
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
std::string mismatch_recv(const wire& sent, std::int64_t count, MPI_Datatype t, wire& posted) {
  posted = make_wire(count, t);
  if ((sent.flags | posted.flags) & (w_unknown | w_none)) return "";
  if (!((sent.flags | posted.flags) & w_packed) && sent.elements <= posted.elements) {
    auto s = sig_of(t);
    if (prefix(*s, count, sent.elements).h == sent.hash) return "";
  }
  return mismatch(sent, posted, false);
}

// Shadow sends in flight (nonblocking: a shadow never blocks the program's own sends).
struct pending_send {
  MPI_Request req;
  std::unique_ptr<wire> buf;
};
std::vector<pending_send> g_pending;

// ------------------------------------------------------------------------------------------
// Point-to-point signatures

void sweep_pending() {
  // Shadows are tiny and eager on both MPIs: most are complete by the next send.
  std::size_t k = 0;
  for (auto& p : g_pending) {
    int done = 0;
    NX(MPI_Test)(&p.req, &done, MPI_STATUS_IGNORE);
    if (!done) g_pending[k++] = std::move(p);
  }
  g_pending.resize(k);
}

void send_shadow(MPI_Comm c, std::int64_t count, MPI_Datatype t, int dest, int tag) {
  if (!g_signatures || dest == MPI_PROC_NULL) return;
  const comm_state s = state_of(c);
  if (s.shadow == MPI_COMM_NULL) return;
  auto w = std::make_unique<wire>(make_wire(count, t));
  std::lock_guard<std::recursive_mutex> l(g_mu);
  sweep_pending();
  pending_send p{MPI_REQUEST_NULL, std::move(w)};
  if (NX(MPI_Isend)(p.buf.get(), sizeof(wire), MPI_BYTE, dest, tag, s.shadow, &p.req) == MPI_SUCCESS)
    g_pending.push_back(std::move(p));
}

// The receive of (count, t) on c completed with *st: fetch and compare the sender's signature.
// `report`: false when the MPI already failed the receive (truncation...): the shadow is only
// consumed, so that the next pair stays in step.
int recv_shadow(const char* fn, MPI_Comm c, std::int64_t count, MPI_Datatype t, const MPI_Status& st, bool report = true) {
  if (!g_signatures || st.MPI_SOURCE == MPI_PROC_NULL || st.MPI_SOURCE < 0) return MPI_SUCCESS;
  const comm_state s = state_of(c);
  if (s.shadow == MPI_COMM_NULL) return MPI_SUCCESS;
  int cancelled = 0;
  NX(MPI_Test_cancelled)(&st, &cancelled);
  if (cancelled) return MPI_SUCCESS;
  wire sent{};
  if (NX(MPI_Recv)(&sent, sizeof sent, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, s.shadow, MPI_STATUS_IGNORE) != MPI_SUCCESS)
    return MPI_SUCCESS;
  if (!report) return MPI_SUCCESS;
  wire posted;
  std::string why = mismatch_recv(sent, count, t, posted);
  if (why.empty()) return MPI_SUCCESS;
  return raise(c, MPI_ERR_TYPE,
               "rank " + std::to_string(st.MPI_SOURCE) + " sent " + words(sent) + " with tag " + std::to_string(st.MPI_TAG) +
                   " on " + comm_words(c) + ", rank " + std::to_string(s.rank) + " posted " + words(posted) + " (" + fn +
                   "): " + why);
}

// Nonblocking and persistent requests the checker must follow to their completion.
struct req_info {
  enum kind_t { recv, psend, precv } kind = recv;
  const char* fn = "";
  MPI_Comm comm = MPI_COMM_NULL;
  std::int64_t count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int peer = 0, tag = 0;  // persistent sends
  std::uint64_t seq = 0;  // posting order
};
std::unordered_map<MPI_Request, req_info> g_reqs;
std::unordered_map<MPI_Message, MPI_Comm> g_msgs;  // matched probes: the message's communicator
std::uint64_t g_req_seq = 0;

void track(MPI_Request r, req_info i) {
  if (r == MPI_REQUEST_NULL) return;
  std::lock_guard<std::recursive_mutex> l(g_mu);
  i.seq = ++g_req_seq;
  g_reqs[r] = i;
}
bool lookup(MPI_Request r, req_info& out) {
  if (r == MPI_REQUEST_NULL) return false;
  std::lock_guard<std::recursive_mutex> l(g_mu);
  auto it = g_reqs.find(r);
  if (it == g_reqs.end()) return false;
  out = it->second;
  return true;
}
void untrack(MPI_Request r) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  g_reqs.erase(r);
}

// A request completed with st (its handle was `was`): check it, forget it unless persistent.
int completed(MPI_Request was, const req_info& i, const MPI_Status& st, bool ok = true) {
  if (i.kind == req_info::psend) return MPI_SUCCESS;
  if (i.kind == req_info::recv) untrack(was);
  return recv_shadow(i.fn, i.comm, i.count, i.type, st, ok);
}

// ---- wrappers. `C` is int or MPI_Count (the _c forms).
template <class C>
using send_fn = int (*)(const void*, C, MPI_Datatype, int, int, MPI_Comm);
template <class C>
using isend_fn = int (*)(const void*, C, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
template <class C>
using recv_fn = int (*)(void*, C, MPI_Datatype, int, int, MPI_Comm, MPI_Status*);
template <class C>
using irecv_fn = int (*)(void*, C, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);

int p2p_args(const char* fn, std::int64_t n, MPI_Datatype t, int peer, int tag, MPI_Comm c, bool recv) {
  RETURN_IF(check_comm(fn, c));
  RETURN_IF(check_type(fn, t, c));
  RETURN_IF(check_count(fn, n, c));
  RETURN_IF(check_rank(fn, recv ? "source" : "dest", peer, c, recv));
  RETURN_IF(check_tag(fn, "tag", tag, c, recv));
  return 0;
}

template <int Ix, class C>
int send_common(const char* fn, const void* b, C n, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
  RETURN_IF(p2p_args(fn, n, t, dest, tag, c, false));
  int rc = reinterpret_cast<send_fn<C>>(g_next[Ix])(b, n, t, dest, tag, c);
  if (rc == MPI_SUCCESS) send_shadow(c, n, t, dest, tag);
  return rc;
}
template <int Ix, class C>
int isend_common(const char* fn, const void* b, C n, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request* r,
                 bool persistent) {
  RETURN_IF(p2p_args(fn, n, t, dest, tag, c, false));
  int rc = reinterpret_cast<isend_fn<C>>(g_next[Ix])(b, n, t, dest, tag, c, r);
  if (rc != MPI_SUCCESS) return rc;
  if (persistent) track(*r, {req_info::psend, fn, c, static_cast<std::int64_t>(n), t, dest, tag, 0});
  else send_shadow(c, n, t, dest, tag);
  return rc;
}
template <int Ix, class C>
int recv_common(const char* fn, void* b, C n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Status* st) {
  RETURN_IF(p2p_args(fn, n, t, src, tag, c, true));
  MPI_Status local;
  MPI_Status* s = st == MPI_STATUS_IGNORE ? &local : st;
  s->MPI_SOURCE = MPI_ANY_SOURCE;  // stays so when the call fails before receiving anything
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
  RETURN_IF(p2p_args(fn, n, t, src, tag, c, true));
  int rc = reinterpret_cast<irecv_fn<C>>(g_next[Ix])(b, n, t, src, tag, c, r);
  if (rc == MPI_SUCCESS && g_signatures)
    track(*r, {persistent ? req_info::precv : req_info::recv, fn, c, static_cast<std::int64_t>(n), t, 0, 0, 0});
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
  RETURN_IF(check_comm(fn, c));
  RETURN_IF(check_type(fn, stype, c, "sendtype"));
  RETURN_IF(check_type(fn, rtype, c, "recvtype"));
  RETURN_IF(check_count(fn, sn, c, "sendcount"));
  RETURN_IF(check_count(fn, rn, c, "recvcount"));
  RETURN_IF(check_rank(fn, "dest", dest, c, false));
  RETURN_IF(check_rank(fn, "source", src, c, true));
  RETURN_IF(check_tag(fn, "sendtag", stag, c, false));
  RETURN_IF(check_tag(fn, "recvtag", rtag, c, true));
  MPI_Status local;
  MPI_Status* s = st == MPI_STATUS_IGNORE ? &local : st;
  s->MPI_SOURCE = MPI_ANY_SOURCE;  // stays so when the call fails before receiving anything
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
  RETURN_IF(check_comm(fn, c));
  RETURN_IF(check_type(fn, t, c));
  RETURN_IF(check_count(fn, n, c));
  RETURN_IF(check_rank(fn, "dest", dest, c, false));
  RETURN_IF(check_rank(fn, "source", src, c, true));
  RETURN_IF(check_tag(fn, "sendtag", stag, c, false));
  RETURN_IF(check_tag(fn, "recvtag", rtag, c, true));
  MPI_Status local;
  MPI_Status* s = st == MPI_STATUS_IGNORE ? &local : st;
  s->MPI_SOURCE = MPI_ANY_SOURCE;  // stays so when the call fails before receiving anything
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
  RETURN_IF(check_comm("MPI_Mprobe", c));
  RETURN_IF(check_rank("MPI_Mprobe", "source", src, c, true));
  RETURN_IF(check_tag("MPI_Mprobe", "tag", tag, c, true));
  int rc = NX(MPI_Mprobe)(src, tag, c, m, st);
  if (rc == MPI_SUCCESS && *m != MPI_MESSAGE_NO_PROC && *m != MPI_MESSAGE_NULL) {
    std::lock_guard<std::recursive_mutex> l(g_mu);
    g_msgs[*m] = c;
  }
  return rc;
}
int w_MPI_Improbe(int src, int tag, MPI_Comm c, int* flag, MPI_Message* m, MPI_Status* st) {
  RETURN_IF(check_comm("MPI_Improbe", c));
  RETURN_IF(check_rank("MPI_Improbe", "source", src, c, true));
  RETURN_IF(check_tag("MPI_Improbe", "tag", tag, c, true));
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
  RETURN_IF(check_type(fn, t, c == MPI_COMM_NULL ? MPI_COMM_SELF : c));
  RETURN_IF(check_count(fn, n, c == MPI_COMM_NULL ? MPI_COMM_SELF : c));
  MPI_Status local;
  MPI_Status* s = st == MPI_STATUS_IGNORE ? &local : st;
  s->MPI_SOURCE = MPI_ANY_SOURCE;  // stays so when the call fails before receiving anything
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
  RETURN_IF(check_type(fn, t, c == MPI_COMM_NULL ? MPI_COMM_SELF : c));
  RETURN_IF(check_count(fn, n, c == MPI_COMM_NULL ? MPI_COMM_SELF : c));
  using F = int (*)(void*, C, MPI_Datatype, MPI_Message*, MPI_Request*);
  int rc = reinterpret_cast<F>(g_next[Ix])(b, n, t, m, r);
  if (rc == MPI_SUCCESS && c != MPI_COMM_NULL && g_signatures)
    track(*r, {req_info::recv, fn, c, static_cast<std::int64_t>(n), t, 0, 0, 0});
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
  if (lookup(r, i) && i.kind == req_info::psend) send_shadow(i.comm, i.count, i.type, i.peer, i.tag);
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
int w_MPI_Request_free(MPI_Request* r) {
  MPI_Request was = *r;
  int rc = NX(MPI_Request_free)(r);
  if (rc == MPI_SUCCESS) untrack(was);
  return rc;
}

// ---- completion
int w_MPI_Wait(MPI_Request* r, MPI_Status* st) {
  req_info i;
  const MPI_Request was = *r;
  if (!lookup(was, i)) return NX(MPI_Wait)(r, st);
  MPI_Status local;
  MPI_Status* s = st == MPI_STATUS_IGNORE ? &local : st;
  s->MPI_SOURCE = MPI_ANY_SOURCE;  // stays so when the call fails before receiving anything
  int rc = NX(MPI_Wait)(r, s);
  int e = completed(was, i, *s, rc == MPI_SUCCESS);
  return rc != MPI_SUCCESS ? rc : e;
}
int w_MPI_Test(MPI_Request* r, int* flag, MPI_Status* st) {
  req_info i;
  const MPI_Request was = *r;
  if (!lookup(was, i)) return NX(MPI_Test)(r, flag, st);
  MPI_Status local;
  MPI_Status* s = st == MPI_STATUS_IGNORE ? &local : st;
  s->MPI_SOURCE = MPI_ANY_SOURCE;  // stays so when the call fails before receiving anything
  int rc = NX(MPI_Test)(r, flag, s);
  if (!*flag) return rc;
  int e = completed(was, i, *s, rc == MPI_SUCCESS);
  return rc != MPI_SUCCESS ? rc : e;
}

// The tracked requests among rs[0..n), before a multiple completion overwrites the handles.
struct snapshot {
  std::vector<MPI_Request> was;
  std::vector<req_info> info;
  std::vector<char> tracked;
  bool any = false;
  snapshot(int n, const MPI_Request* rs) : was(rs, rs + std::max(n, 0)), info(was.size()), tracked(was.size()) {
    std::lock_guard<std::recursive_mutex> l(g_mu);
    if (g_reqs.empty()) return;
    for (std::size_t k = 0; k < was.size(); ++k)
      if (lookup(was[k], info[k])) tracked[k] = 1, any = true;
  }
  // Check the completed indices in posting order: matching pairs from one source and tag
  // then meet their shadows in the order they were sent.
  int finish(std::vector<int> idx, const MPI_Status* sts, bool sts_by_pos, MPI_Status* user_sts) {
    std::vector<std::pair<std::uint64_t, int>> order;  // (seq, position in idx)
    for (std::size_t p = 0; p < idx.size(); ++p)
      if (idx[p] >= 0 && tracked[idx[p]]) order.push_back({info[idx[p]].seq, static_cast<int>(p)});
    std::sort(order.begin(), order.end());
    int first = MPI_SUCCESS;
    for (auto [seq, p] : order) {
      const int k = idx[p];
      const MPI_Status& st = sts[sts_by_pos ? p : k];
      if (st.MPI_ERROR == MPI_ERR_PENDING) continue;
      int e = completed(was[k], info[k], st, st.MPI_ERROR == MPI_SUCCESS);
      if (e && user_sts != MPI_STATUSES_IGNORE) user_sts[sts_by_pos ? p : k].MPI_ERROR = e;
      if (e && first == MPI_SUCCESS) first = e;
    }
    return first;
  }
};

int w_MPI_Waitall(int n, MPI_Request rs[], MPI_Status sts[]) {
  snapshot s(n, rs);
  if (!s.any) return NX(MPI_Waitall)(n, rs, sts);
  std::vector<MPI_Status> local(sts == MPI_STATUSES_IGNORE ? n : 0);
  MPI_Status* use = sts == MPI_STATUSES_IGNORE ? local.data() : sts;
  if (sts == MPI_STATUSES_IGNORE)
    for (auto& x : local) x.MPI_ERROR = MPI_SUCCESS;
  int rc = NX(MPI_Waitall)(n, rs, use);
  if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) return rc;
  if (rc == MPI_SUCCESS)
    for (int k = 0; k < n; ++k) use[k].MPI_ERROR = MPI_SUCCESS;  // not set by a successful Waitall
  std::vector<int> idx(n);
  for (int k = 0; k < n; ++k) idx[k] = k;
  int e = s.finish(idx, use, false, sts);
  if (rc != MPI_SUCCESS) return rc;
  return e == MPI_SUCCESS ? MPI_SUCCESS : (sts == MPI_STATUSES_IGNORE ? e : MPI_ERR_IN_STATUS);
}
int w_MPI_Testall(int n, MPI_Request rs[], int* flag, MPI_Status sts[]) {
  snapshot s(n, rs);
  if (!s.any) return NX(MPI_Testall)(n, rs, flag, sts);
  std::vector<MPI_Status> local(sts == MPI_STATUSES_IGNORE ? n : 0);
  MPI_Status* use = sts == MPI_STATUSES_IGNORE ? local.data() : sts;
  int rc = NX(MPI_Testall)(n, rs, flag, use);
  if (!*flag || (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS)) return rc;
  if (rc == MPI_SUCCESS)
    for (int k = 0; k < n; ++k) use[k].MPI_ERROR = MPI_SUCCESS;
  std::vector<int> idx(n);
  for (int k = 0; k < n; ++k) idx[k] = k;
  int e = s.finish(idx, use, false, sts);
  if (rc != MPI_SUCCESS) return rc;
  return e == MPI_SUCCESS ? MPI_SUCCESS : (sts == MPI_STATUSES_IGNORE ? e : MPI_ERR_IN_STATUS);
}
int w_MPI_Waitany(int n, MPI_Request rs[], int* index, MPI_Status* st) {
  snapshot s(n, rs);
  if (!s.any) return NX(MPI_Waitany)(n, rs, index, st);
  MPI_Status local;
  MPI_Status* use = st == MPI_STATUS_IGNORE ? &local : st;
  int rc = NX(MPI_Waitany)(n, rs, index, use);
  if (*index == MPI_UNDEFINED || *index < 0) return rc;
  use->MPI_ERROR = MPI_SUCCESS;
  int e = s.finish({*index}, use, true, MPI_STATUSES_IGNORE);
  return rc != MPI_SUCCESS ? rc : e;
}
int w_MPI_Testany(int n, MPI_Request rs[], int* index, int* flag, MPI_Status* st) {
  snapshot s(n, rs);
  if (!s.any) return NX(MPI_Testany)(n, rs, index, flag, st);
  MPI_Status local;
  MPI_Status* use = st == MPI_STATUS_IGNORE ? &local : st;
  int rc = NX(MPI_Testany)(n, rs, index, flag, use);
  if (!*flag || *index == MPI_UNDEFINED || *index < 0) return rc;
  use->MPI_ERROR = MPI_SUCCESS;
  int e = s.finish({*index}, use, true, MPI_STATUSES_IGNORE);
  return rc != MPI_SUCCESS ? rc : e;
}
template <int Ix>
int some_common(int n, MPI_Request rs[], int* outcount, int idx[], MPI_Status sts[]) {
  snapshot s(n, rs);
  using F = int (*)(int, MPI_Request*, int*, int*, MPI_Status*);
  if (!s.any) return reinterpret_cast<F>(g_next[Ix])(n, rs, outcount, idx, sts);
  std::vector<MPI_Status> local(sts == MPI_STATUSES_IGNORE ? n : 0);
  MPI_Status* use = sts == MPI_STATUSES_IGNORE ? local.data() : sts;
  int rc = reinterpret_cast<F>(g_next[Ix])(n, rs, outcount, idx, use);
  if ((rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) || *outcount == MPI_UNDEFINED || *outcount <= 0) return rc;
  if (rc == MPI_SUCCESS)
    for (int k = 0; k < *outcount; ++k) use[k].MPI_ERROR = MPI_SUCCESS;
  int e = s.finish(std::vector<int>(idx, idx + *outcount), use, true, sts);
  if (rc != MPI_SUCCESS) return rc;
  return e == MPI_SUCCESS ? MPI_SUCCESS : (sts == MPI_STATUSES_IGNORE ? e : MPI_ERR_IN_STATUS);
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
enum class rule { root_sends, root_receives, all_equal, all_to_all };

int coll_check(const char* fn, MPI_Comm c, int root, rule how, const wire& send, const wire& recv) {
  if (!g_signatures) return MPI_SUCCESS;
  const comm_state s = state_of(c);
  if (s.shadow == MPI_COMM_NULL || s.inter) return MPI_SUCCESS;  // intercommunicators: not checked
  std::vector<coll_sides> all(static_cast<std::size_t>(s.size));
  coll_sides mine{send, recv};
  if (NX(MPI_Allgather)(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, s.shadow) != MPI_SUCCESS)
    return MPI_SUCCESS;
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
      for (int j = 0; j < n; ++j) pair(root, j);
      break;
    case rule::all_to_all:  // i.send == 0.recv for all i and 0.send == j.recv for all j
      for (int i = 0; i < n; ++i) pair(i, 0);
      for (int j = 0; j < n; ++j) pair(0, j);
      break;
  }
  if (why.empty()) return MPI_SUCCESS;
  std::string msg;
  if (how == rule::all_equal)
    msg = std::string(fn) + " on " + comm_words(c) + ": rank " + std::to_string(from) + " passes " + words(all[from].send) +
          ", rank " + std::to_string(to) + " passes " + words(all[to].recv) + ": " + why;
  else
    msg = std::string(fn) + " on " + comm_words(c) +
          (how == rule::all_to_all ? std::string() : " (root " + std::to_string(root) + ")") + ": rank " +
          std::to_string(from) + " sends " + words(all[from].send) + ", rank " + std::to_string(to) + " receives " +
          words(all[to].recv) + ": " + why;
  return raise(c, MPI_ERR_TYPE, msg, s.rank == to);
}

int coll_args(const char* fn, MPI_Comm c) { return check_comm(fn, c); }

template <int Ix, class C>
int bcast_common(const char* fn, void* b, C n, MPI_Datatype t, int root, MPI_Comm c) {
  RETURN_IF(coll_args(fn, c));
  RETURN_IF(check_type(fn, t, c));
  RETURN_IF(check_count(fn, n, c));
  if (!state_of(c).inter) RETURN_IF(check_rank(fn, "root", root, c, false, true));
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
  RETURN_IF(coll_args(fn, c));
  RETURN_IF(check_type(fn, t, c));
  RETURN_IF(check_count(fn, n, c));
  if (!state_of(c).inter) RETURN_IF(check_rank(fn, "root", root, c, false, true));
  const wire w = g_signatures ? make_wire(n, t) : wire{};
  RETURN_IF(coll_check(fn, c, root, rule::all_equal, w, w));
  using F = int (*)(const void*, void*, C, MPI_Datatype, MPI_Op, int, MPI_Comm);
  return reinterpret_cast<F>(g_next[Ix])(sb, rb, n, t, op, root, c);
}
int w_MPI_Reduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, int r, MPI_Comm c) {
  return reduce_common<ANYMPI_IX_MPI_Reduce, int>("MPI_Reduce", sb, rb, n, t, op, r, c);
}
int w_MPI_Reduce_c(const void* sb, void* rb, MPI_Count n, MPI_Datatype t, MPI_Op op, int r, MPI_Comm c) {
  return reduce_common<ANYMPI_IX_MPI_Reduce_c, MPI_Count>("MPI_Reduce_c", sb, rb, n, t, op, r, c);
}
template <int Ix, class C>
int allreduce_common(const char* fn, const void* sb, void* rb, C n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  RETURN_IF(coll_args(fn, c));
  RETURN_IF(check_type(fn, t, c));
  RETURN_IF(check_count(fn, n, c));
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
  RETURN_IF(coll_args(fn, c));
  if (send_used && sb != MPI_IN_PLACE) {
    RETURN_IF(check_type(fn, st, c, "sendtype"));
    RETURN_IF(check_count(fn, sn, c, "sendcount"));
  }
  if (recv_used && rb != MPI_IN_PLACE) {
    RETURN_IF(check_type(fn, rt, c, "recvtype"));
    RETURN_IF(check_count(fn, rn, c, "recvcount"));
  }
  return 0;
}
template <int Ix, class C>
int rooted_common(const char* fn, bool gather, const void* sb, C sn, MPI_Datatype st, void* rb, C rn, MPI_Datatype rt,
                  int root, MPI_Comm c) {
  const comm_state s = state_of(c);
  const bool at_root = s.inter ? root == MPI_ROOT : s.rank == root;
  // gather: everyone sends, the root receives; scatter: the root sends, everyone receives
  const bool send_used = gather ? true : at_root, recv_used = gather ? at_root : true;
  if (!s.inter && g_args) RETURN_IF(check_rank(fn, "root", root, c, false, true));
  RETURN_IF(moves_args(fn, sb, sn, st, rb, rn, rt, c, send_used, recv_used));
  if (g_signatures && !s.inter) {
    wire ws = send_used && sb != MPI_IN_PLACE ? make_wire(sn, st) : none_wire();
    wire wr = recv_used && rb != MPI_IN_PLACE ? make_wire(rn, rt) : none_wire();
    RETURN_IF(coll_check(fn, c, root, gather ? rule::root_receives : rule::root_sends, ws, wr));
  }
  using F = int (*)(const void*, C, MPI_Datatype, void*, C, MPI_Datatype, int, MPI_Comm);
  return reinterpret_cast<F>(g_next[Ix])(sb, sn, st, rb, rn, rt, root, c);
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

// ------------------------------------------------------------------------------------------
// Handles: freeing (tracked, so that a later use is reported) and creating (a value the MPI
// hands out again is no longer "freed"; a new communicator gets its shadow).

void created(MPI_Comm* c) { register_comm(*c, true); }
void created(MPI_Datatype* t) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  g_freed_types.erase(bits(*t));
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
    g_freed_comms.erase(bits(*c));
    g_comms.erase(*c);
  }
  return rc;
}

int w_MPI_Comm_free(MPI_Comm* c) {
  if (!c) return NX(MPI_Comm_free)(c);
  RETURN_IF(check_comm("MPI_Comm_free", *c));
  if (g_args && (*c == MPI_COMM_WORLD || *c == MPI_COMM_SELF))
    return raise(*c, MPI_ERR_COMM,
                 std::string("MPI_Comm_free: argument comm is ") + predefined(bits(*c))->name +
                     ", a predefined communicator, which cannot be freed");
  const MPI_Comm was = *c;
  comm_state s;
  bool known = false;
  {
    std::lock_guard<std::recursive_mutex> l(g_mu);
    auto it = g_comms.find(was);
    if (it != g_comms.end()) s = it->second, known = true;
  }
  int rc = NX(MPI_Comm_free)(c);
  if (rc != MPI_SUCCESS) return rc;
  // Shadow sends still in flight on it complete later: a freed communicator's pending
  // operations go on (MPI 4.1 section 7.4.3), and g_pending keeps their buffers until then.
  if (known && s.shadow != MPI_COMM_NULL) NX(MPI_Comm_free)(&s.shadow);
  std::lock_guard<std::recursive_mutex> l(g_mu);
  g_comms.erase(was);
  g_freed_comms.insert(bits(was));
  return rc;
}
int w_MPI_Comm_disconnect(MPI_Comm* c) {
  if (!c) return NX(MPI_Comm_disconnect)(c);
  RETURN_IF(check_comm("MPI_Comm_disconnect", *c));
  const MPI_Comm was = *c;
  comm_state s;
  bool known = false;
  {
    std::lock_guard<std::recursive_mutex> l(g_mu);
    auto it = g_comms.find(was);
    if (it != g_comms.end()) s = it->second, known = true;
  }
  if (known && s.shadow != MPI_COMM_NULL) {
    // disconnect waits for the shadow's pending sends; the next sweep frees their requests
    std::lock_guard<std::recursive_mutex> l(g_mu);
    sweep_pending();
    NX(MPI_Comm_disconnect)(&s.shadow);
  }
  int rc = NX(MPI_Comm_disconnect)(c);
  if (rc != MPI_SUCCESS) return rc;
  std::lock_guard<std::recursive_mutex> l(g_mu);
  g_comms.erase(was);
  g_freed_comms.insert(bits(was));
  return rc;
}

int w_MPI_Type_free(MPI_Datatype* t) {
  if (!t) return NX(MPI_Type_free)(t);
  if (t_in_decode) return NX(MPI_Type_free)(t);  // the types library freeing get_contents' handles
  RETURN_IF(check_type("MPI_Type_free", *t, MPI_COMM_SELF));
  if (g_args && bits(*t) < k_predefined_limit)
    return raise(MPI_COMM_SELF, MPI_ERR_TYPE,
                 std::string("MPI_Type_free: argument datatype is ") + predefined(bits(*t))->name +
                     ", a predefined datatype, which cannot be freed");
  const MPI_Datatype was = *t;
  int rc = NX(MPI_Type_free)(t);
  if (rc != MPI_SUCCESS) return rc;
  std::lock_guard<std::recursive_mutex> l(g_mu);
  auto ref = g_contents_refs.find(bits(was));
  if (ref != g_contents_refs.end()) {  // a reference from get_contents: the type lives on
    if (--ref->second == 0) g_contents_refs.erase(ref);
    return rc;
  }
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
    for (auto& p : g_pending) NX(MPI_Wait)(&p.req, MPI_STATUS_IGNORE);
    g_pending.clear();
    std::vector<std::pair<std::uint64_t, MPI_Comm>> shadows;
    for (auto& [c, s] : g_comms)
      if (s.shadow != MPI_COMM_NULL) shadows.push_back({s.seq, s.shadow});
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
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void* const* anympi_check_wrap(void* const* next, const char* spec) {
  if (!next || !parse(spec)) return next;
  g_next = next;
  std::memcpy(g_table, next, sizeof g_table);
  install();
  return g_table;
}
