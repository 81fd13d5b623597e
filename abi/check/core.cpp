// The checker's common ground: its state, the names of the predefined handles, the comm
// registry, raising an error, and the argument checks every wrapper starts with (core.hpp).
#include "core.hpp"

#include <cstdio>
#include <cstring>
#include <algorithm>
#include <vector>

namespace anympi_check {

// ------------------------------------------------------------------------------------------
// State

void* const* g_next = nullptr;          // the backend's table
void* g_table[ANYMPI_NFUNCS];           // ours
bool g_signatures = false;              // ANYMPI_CHECK has "signatures"
bool g_args = false;                    // argument checks (implied by "signatures")
std::recursive_mutex g_mu;              // guards every map below
thread_local bool t_in_decode = false;  // the types library is decoding: its frees are not the user's

// ---- predefined handles, for messages that name the constant
const handle_name k_names[] = {
#include "handle_names.inc"
};

// Indexed by value: every argument check looks its handle up here.
const handle_name* g_by_value[k_predefined_limit];
const handle_name* predefined(std::uintptr_t v) { return v < k_predefined_limit ? g_by_value[v] : nullptr; }

std::string hex(std::uintptr_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// ------------------------------------------------------------------------------------------
// Communicators: the shadow of each one, and what the argument checks need.

std::unordered_map<MPI_Comm, comm_state> g_comms;
std::uint64_t g_comm_seq = 0;
std::unordered_set<std::uintptr_t> g_freed[k_nkinds];
std::unordered_set<std::uintptr_t>& g_freed_comms = g_freed[static_cast<int>(hkind::comm)];
std::unordered_set<std::uintptr_t>& g_freed_types = g_freed[static_cast<int>(hkind::datatype)];
// Both MPIs hand out the constituent's own handle value from get_contents (one more
// reference): freeing that is not freeing the type the user built with it, so each such
// reference is counted here.
std::unordered_map<std::uintptr_t, std::int64_t> g_contents_refs;

// A communicator with c's group(s), ranks and topology but none of its attributes: MPI_Comm_dup
// would run the program's attribute copy callbacks (and, at the shadow's free, its delete
// callbacks), which a program can count. So: split (keeps the ranks, works on
// intercommunicators too), then rebuild the topology without reordering, since the
// neighbourhood checks run the same neighbourhood collective on the shadow.
MPI_Comm make_shadow(MPI_Comm c, int rank) {
  MPI_Comm base = MPI_COMM_NULL, sh = MPI_COMM_NULL;
  if (NX(MPI_Comm_split)(c, 0, rank, &base) != MPI_SUCCESS) return MPI_COMM_NULL;
  int topo = MPI_UNDEFINED;
  NX(MPI_Topo_test)(c, &topo);
  int rc = MPI_SUCCESS;
  if (topo == MPI_CART) {
    int nd = 0;
    NX(MPI_Cartdim_get)(c, &nd);
    std::vector<int> dims(static_cast<std::size_t>(nd) + 1), periods(dims.size()), coords(dims.size());
    NX(MPI_Cart_get)(c, nd, dims.data(), periods.data(), coords.data());
    rc = NX(MPI_Cart_create)(base, nd, dims.data(), periods.data(), 0, &sh);
  } else if (topo == MPI_GRAPH) {
    int nnodes = 0, nedges = 0;
    NX(MPI_Graphdims_get)(c, &nnodes, &nedges);
    std::vector<int> index(static_cast<std::size_t>(nnodes) + 1), edges(static_cast<std::size_t>(nedges) + 1);
    NX(MPI_Graph_get)(c, nnodes, nedges, index.data(), edges.data());
    rc = NX(MPI_Graph_create)(base, nnodes, index.data(), edges.data(), 0, &sh);
  } else if (topo == MPI_DIST_GRAPH) {
    int in = 0, out = 0, weighted = 0;
    NX(MPI_Dist_graph_neighbors_count)(c, &in, &out, &weighted);
    std::vector<int> src(static_cast<std::size_t>(in) + 1), sw(src.size()), dst(static_cast<std::size_t>(out) + 1),
        dw(dst.size());
    NX(MPI_Dist_graph_neighbors)(c, in, src.data(), weighted ? sw.data() : MPI_UNWEIGHTED, out, dst.data(),
                                 weighted ? dw.data() : MPI_UNWEIGHTED);
    rc = NX(MPI_Dist_graph_create_adjacent)(base, in, src.data(), weighted ? sw.data() : MPI_UNWEIGHTED, out, dst.data(),
                                            weighted ? dw.data() : MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &sh);
  } else {
    return base;
  }
  NX(MPI_Comm_free)(&base);
  return rc == MPI_SUCCESS ? sh : MPI_COMM_NULL;
}

void register_comm(MPI_Comm c, bool with_shadow) {
  if (c == MPI_COMM_NULL) return;
  comm_state s;
  NX(MPI_Comm_rank)(c, &s.rank);
  NX(MPI_Comm_size)(c, &s.size);
  int inter = 0;
  NX(MPI_Comm_test_inter)(c, &inter);
  s.inter = inter != 0;
  s.remote_size = s.size;
  if (s.inter) NX(MPI_Comm_remote_size)(c, &s.remote_size);
  if (with_shadow && g_signatures) {
    MPI_Comm sh = make_shadow(c, s.rank);
    if (sh != MPI_COMM_NULL) {
      s.shadow = sh;
      NX(MPI_Comm_set_errhandler)(sh, MPI_ERRORS_RETURN);
    }
  }
  std::lock_guard<std::recursive_mutex> l(g_mu);
  s.seq = ++g_comm_seq;
  created(hkind::comm, bits(c));
  g_comms[c] = s;
}

// The state of a communicator the checker did not see created (MPI_Comm_get_parent,
// MPI_Comm_idup...): sizes only, its messages are not checked.
comm_state state_of(MPI_Comm c) {
  {
    std::lock_guard<std::recursive_mutex> l(g_mu);
    auto it = g_comms.find(c);
    if (it != g_comms.end()) return it->second;
  }
  register_comm(c, false);
  std::lock_guard<std::recursive_mutex> l(g_mu);
  return g_comms[c];
}

std::string comm_words(MPI_Comm c) {
  char name[MPI_MAX_OBJECT_NAME + 1] = {};
  int len = 0;
  if (NX(MPI_Comm_get_name)(c, name, &len) == MPI_SUCCESS && len > 0) return std::string(name, static_cast<std::size_t>(len));
  if (auto* p = predefined(bits(c))) return p->name;
  return "communicator " + hex(bits(c));
}

// ------------------------------------------------------------------------------------------
// Handle kinds: what a message calls each, its null, its class, and the registry of values
// the program gave back. In the order of hkind.

// MPI_ERR_ERRHANDLER and MPI_ERR_SESSION are newer than the MPIs underneath; the backend
// registers the classes they lack (after_native_init), so they are raised like any other.
// A matched message has no class of its own in the standard: MPI_ERR_ARG.
const kind_info k_kinds[k_nkinds] = {
    {"communicator", bits(MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Comm_free", false},
    {"datatype", bits(MPI_DATATYPE_NULL), MPI_ERR_TYPE, "MPI_Type_free", false},
    {"operation", bits(MPI_OP_NULL), MPI_ERR_OP, "MPI_Op_free", true},
    {"group", bits(MPI_GROUP_NULL), MPI_ERR_GROUP, "MPI_Group_free", true},
    {"info", bits(MPI_INFO_NULL), MPI_ERR_INFO, "MPI_Info_free", true},
    {"error handler", bits(MPI_ERRHANDLER_NULL), MPI_ERR_ERRHANDLER, "MPI_Errhandler_free", true},
    {"window", bits(MPI_WIN_NULL), MPI_ERR_WIN, "MPI_Win_free", true},
    {"file", bits(MPI_FILE_NULL), MPI_ERR_FILE, "MPI_File_close", true},
    {"session", bits(MPI_SESSION_NULL), MPI_ERR_SESSION, "MPI_Session_finalize", true},
    {"message", bits(MPI_MESSAGE_NULL), MPI_ERR_ARG, "MPI_Mrecv", true},
    {"request", bits(MPI_REQUEST_NULL), MPI_ERR_REQUEST, "MPI_Request_free", true},
};
const kind_info& info_of(hkind k) { return k_kinds[static_cast<int>(k)]; }

// Per counted kind: how many times the MPI handed each live value out; per kind, which call
// released each freed value (for the message).
std::unordered_map<std::uintptr_t, std::int64_t> g_live[k_nkinds];
std::unordered_map<std::uintptr_t, const char*> g_freed_by[k_nkinds];
// Per kind that is not counted: how often the MPI handed each value out (generation()).
std::unordered_map<std::uintptr_t, std::uint64_t> g_generation[k_nkinds];

void created(hkind k, std::uintptr_t v) {
  if (v < k_predefined_limit) return;
  const int i = static_cast<int>(k);
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (g_freed[i].erase(v)) g_freed_by[i].erase(v);
  if (k_kinds[i].counted) ++g_live[i][v];
  else ++g_generation[i][v];
}
std::uint64_t generation(hkind k, std::uintptr_t v) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  const auto& g = g_generation[static_cast<int>(k)];
  auto it = g.find(v);
  return it == g.end() ? 0 : it->second;
}
void released(hkind k, std::uintptr_t v, const char* fn) {
  if (v < k_predefined_limit) return;
  const int i = static_cast<int>(k);
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (k_kinds[i].counted) {
    auto it = g_live[i].find(v);
    if (it != g_live[i].end() && --it->second > 0) return;
    if (it != g_live[i].end()) g_live[i].erase(it);
  }
  g_freed[i].insert(v);
  g_freed_by[i][v] = fn;
}

// ------------------------------------------------------------------------------------------
// Raising an error: a new error code of the right class whose string is the message
// (MPI_Error_string gives it back), printed once on stderr, through the handler of the object.

// The codes come from MPI_Add_error_code (so they are the MPI's own, of the right class), but
// their strings are kept here and answered by the MPI_Error_string wrapper: MPICH 4.0 gives a
// code added to a predefined class no string of its own (it decodes it as one of its
// internal messages).
struct raised {
  int error_class;
  std::string msg;
};
std::unordered_map<int, raised> g_raised;  // code -> what it means
std::unordered_map<int, int> g_last_code;  // class -> last code, reused once we made many

int new_code(int error_class, const std::string& msg, bool print) {
  int code = error_class;
  {
    std::lock_guard<std::recursive_mutex> l(g_mu);
    auto it = g_last_code.find(error_class);
    if (g_raised.size() >= 256 && it != g_last_code.end()) code = it->second;
    else if (NX(MPI_Add_error_code)(error_class, &code) == MPI_SUCCESS) g_last_code[error_class] = code;
    else code = error_class;
    if (code != error_class) g_raised[code] = {error_class, msg};
  }
  if (print) std::fprintf(stderr, "anympi check: %s\n", msg.c_str());
  return code;
}

// The handler of w, as the MPI holds it (not through the generated wrappers: the checker's
// own look-up hands out and takes back nothing the program could see).
MPI_Errhandler handler_of(where_t w) {
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  switch (w.kind) {
    case hkind::win: NX(MPI_Win_get_errhandler)(reinterpret_cast<MPI_Win>(w.h), &eh); break;
    case hkind::file: NX(MPI_File_get_errhandler)(reinterpret_cast<MPI_File>(w.h), &eh); break;
    case hkind::session: NX(MPI_Session_get_errhandler)(reinterpret_cast<MPI_Session>(w.h), &eh); break;
    default: NX(MPI_Comm_get_errhandler)(reinterpret_cast<MPI_Comm>(w.h), &eh); break;
  }
  // a get hands out a reference: give back the program's own handlers (the predefined ones
  // are never freed, which Open MPI would refuse)
  MPI_Errhandler held = eh;
  if (bits(held) >= k_predefined_limit) NX(MPI_Errhandler_free)(&held);
  return eh;
}

void call_handler(where_t w, int code) {
  switch (w.kind) {
    case hkind::win: NX(MPI_Win_call_errhandler)(reinterpret_cast<MPI_Win>(w.h), code); break;
    case hkind::file: NX(MPI_File_call_errhandler)(reinterpret_cast<MPI_File>(w.h), code); break;
    case hkind::session: NX(MPI_Session_call_errhandler)(reinterpret_cast<MPI_Session>(w.h), code); break;
    default: NX(MPI_Comm_call_errhandler)(reinterpret_cast<MPI_Comm>(w.h), code); break;
  }
}

// The classes the checker raises that are newer than the MPIs underneath: the backend adds them
// as classes of the MPI's own, without a string, so a fatal handler would print an empty
// line. Each gets its standard name once, where the MPI has no string for it.
void name_new_class(int error_class) {
  static const struct {
    int cls;
    const char* words;
  } k_new[] = {{MPI_ERR_SESSION, "MPI_ERR_SESSION: invalid session"},
               {MPI_ERR_ERRHANDLER, "MPI_ERR_ERRHANDLER: invalid error handler"}};
  static std::unordered_set<int> named;
  std::lock_guard<std::recursive_mutex> l(g_mu);
  for (const auto& n : k_new) {
    if (n.cls != error_class || !named.insert(error_class).second) continue;
    char s[MPI_MAX_ERROR_STRING] = {};
    int len = 0;
    if (NX(MPI_Error_string)(error_class, s, &len) == MPI_SUCCESS && len == 0)
      NX(MPI_Add_error_string)(error_class, n.words);
  }
}

int raise_at(where_t w, int error_class, const std::string& msg, bool print) {
  const int code = new_code(error_class, msg, print);
  const MPI_Errhandler eh = handler_of(w);
  if (eh != MPI_ERRORS_ARE_FATAL && eh != MPI_ERRORS_ABORT) {
    call_handler(w, code);  // returns, or the program's own handler runs with our code
    return code;
  }
  // A fatal handler is the MPI's own: it prints its rendering of what it is given and ends the
  // run with it. Given our code (added to a predefined class) it would print a string that is
  // not ours (MPICH 4.0 reads the code's index as one of its internal messages: "Network type
  // AF_INET invalid in call to inet_pton"; Open MPI prints a blank line) and exit with the
  // code's low byte (98 on Open MPI). Given the class (which the backend turns into the MPI's
  // own), it renders the error our report just described and exits as for that error of its own.
  name_new_class(error_class);
  call_handler(w, error_class);
  return code;  // not reached with the MPIs underneath
}

int raise(MPI_Comm comm, int error_class, const std::string& msg, bool print) {
  return raise_at(at(comm), error_class, msg, print);
}

int w_MPI_Error_string(int code, char* s, int* len) {
  {
    std::lock_guard<std::recursive_mutex> l(g_mu);
    auto it = g_raised.find(code);
    if (it != g_raised.end() && s && len) {
      const std::size_t n = std::min<std::size_t>(it->second.msg.size(), MPI_MAX_ERROR_STRING - 1);
      std::memcpy(s, it->second.msg.data(), n);
      s[n] = 0;
      *len = static_cast<int>(n);
      return MPI_SUCCESS;
    }
  }
  return NX(MPI_Error_string)(code, s, len);
}
int w_MPI_Error_class(int code, int* cls) {
  {
    std::lock_guard<std::recursive_mutex> l(g_mu);
    auto it = g_raised.find(code);
    if (it != g_raised.end() && cls) {
      *cls = it->second.error_class;
      return MPI_SUCCESS;
    }
  }
  return NX(MPI_Error_class)(code, cls);
}

// ------------------------------------------------------------------------------------------
// Argument checks: one helper per kind, each returns 0 or the error it raised.

// What is wrong with handle v as an argument of kind `kind` ("" when nothing): 0, its null
// (unless null_value is one no handle has), another kind's constant, a freed one.
std::string handle_problem(std::uintptr_t v, const char* kind, std::uintptr_t null_value,
                           const std::unordered_set<std::uintptr_t>& freed, const char* free_fn) {
  const bool vowel = kind[0] == 'e' || kind[0] == 'o' || kind[0] == 'i';
  if (v == 0) return std::string("0, an uninitialized handle (not a") + (vowel ? "n " : " ") + kind + ")";
  if (v == null_value) {
    auto* p = predefined(v);
    return std::string(p ? p->name : hex(v).c_str()) + ", the null " + kind;
  }
  if (v < k_predefined_limit) {
    auto* p = predefined(v);
    if (p && (p->kind == kind || std::strcmp(p->kind, kind) == 0)) return {};
    if (!p) return hex(v) + ", not a predefined handle of any kind";
    const char c = p->kind[0];
    return std::string(p->name) + " (" + hex(v) + "), " + (c == 'e' || c == 'o' || c == 'i' ? "an " : "a ") + p->kind +
           ", not a" + (vowel ? "n " : " ") + kind;
  }
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (freed.empty() || !freed.count(v)) return {};
  return std::string("a freed ") + kind + " (" + hex(v) + ", freed by " + free_fn + ")";
}

std::string indexed(const char* arg, std::int64_t i) { return std::string(arg) + "[" + std::to_string(i) + "]"; }

int check_kind_slow(const char* fn, const char* arg, std::uintptr_t v, hkind k, bool null_ok, where_t w) {
  const int i = static_cast<int>(k);
  const kind_info& ki = k_kinds[i];
  if (null_ok && v == ki.null_value) return 0;
  const char* by = ki.freed_by;
  if (v >= k_predefined_limit) {
    std::lock_guard<std::recursive_mutex> l(g_mu);
    auto it = g_freed_by[i].find(v);
    if (it != g_freed_by[i].end()) by = it->second;
  }
  std::string what = handle_problem(v, ki.words, ki.null_value, g_freed[i], by);
  if (what.empty()) return 0;
  return raise_at(w, ki.error_class, std::string(fn) + ": argument " + arg + " is " + what);
}

int check_type(const char* fn, MPI_Datatype t, MPI_Comm where, const char* arg) {
  if (!g_args) return 0;
  return check_kind(fn, arg, bits(t), hkind::datatype, false, at(where));
}
int check_count(const char* fn, std::int64_t n, MPI_Comm where, const char* arg) {
  if (!g_args || n >= 0) return 0;
  return check_count_at(fn, arg, n, MPI_ERR_COUNT, at(where));
}
int check_count_at(const char* fn, const char* arg, std::int64_t n, int error_class, where_t w) {
  if (n >= 0) return 0;
  return raise_at(w, error_class,
                  std::string(fn) + ": argument " + arg + " is " + std::to_string(n) +
                      (error_class == MPI_ERR_COUNT ? "; a count is never negative" : "; a length is never negative"));
}

const char* sentinel_name(int v) {
  switch (v) {
    case MPI_ANY_SOURCE: return "MPI_ANY_SOURCE";
    case MPI_ANY_TAG: return "MPI_ANY_TAG";
    case MPI_PROC_NULL: return "MPI_PROC_NULL";
    case MPI_ROOT: return "MPI_ROOT";
    case MPI_UNDEFINED: return "MPI_UNDEFINED";
  }
  return nullptr;
}

rank_space space_of(MPI_Comm c) {
  const comm_state s = state_of(c);
  rank_space r;
  r.n = s.inter ? s.remote_size : s.size;
  r.comm = c;
  return r;
}
rank_space space_of(MPI_Group g) {
  rank_space r;
  if (NX(MPI_Group_size)(g, &r.n) != MPI_SUCCESS) r.n = -1;
  r.group = g;
  return r;
}
rank_space space_of(int n, const char* size_arg) {
  rank_space r;
  r.n = n;
  r.size_arg = size_arg;
  return r;
}

int check_rank_in(const char* fn, const char* arg, int r, const rank_space& s, unsigned allowed, where_t w) {
  if (r >= 0 && (s.n < 0 || r < s.n)) return 0;
  if ((allowed & allow_proc_null) && r == MPI_PROC_NULL) return 0;
  if ((allowed & allow_any_source) && r == MPI_ANY_SOURCE) return 0;
  if ((allowed & allow_root) && r == MPI_ROOT) return 0;
  std::string what;
  if (const char* name = sentinel_name(r)) {
    what = std::string(name) + " (" + std::to_string(r) + ")";
    if (r == MPI_ANY_TAG) what += ", a tag wildcard, not a rank";
    else if (r == MPI_ANY_SOURCE) what += ", which only a receive accepts";
    else if (r == MPI_ROOT) what += ", which only an intercommunicator collective accepts";
    else what += ", not a rank here";
  } else if (r < 0) {
    what = std::to_string(r) + "; ranks are never negative";
  } else {
    const std::string in = s.comm != MPI_COMM_NULL ? comm_words(s.comm)
                           : s.group != MPI_GROUP_NULL ? "group " + hex(bits(s.group))
                                                       : std::string("argument ") + s.size_arg;
    what = std::to_string(r) + ", but " + in + (s.size_arg ? " is " + std::to_string(s.n) : " has " + std::to_string(s.n) + (s.n == 1 ? " rank" : " ranks")) +
           " (0.." + std::to_string(s.n - 1) + ")";
  }
  return raise_at(w, (allowed & root_arg) ? MPI_ERR_ROOT : MPI_ERR_RANK, std::string(fn) + ": argument " + arg + " is " + what);
}

bool is_inter(MPI_Comm c) { return state_of(c).inter; }
bool at_root(MPI_Comm c, int root) {
  const comm_state s = state_of(c);
  return s.inter ? root == MPI_ROOT : s.rank == root;
}
int coll_size(MPI_Comm c) {
  const comm_state s = state_of(c);
  return s.inter ? -1 : s.size;
}

int check_tag(const char* fn, const char* arg, int tag, MPI_Comm c, bool recv) {
  if (!g_args || tag >= 0 || (recv && tag == MPI_ANY_TAG)) return 0;
  std::string what = std::to_string(tag);
  if (const char* name = sentinel_name(tag)) {
    what = std::string(name) + " (" + what + ")";
    what += tag == MPI_ANY_TAG ? ", which only a receive accepts" : ", a rank constant, not a tag";
  } else {
    what += "; tags are never negative";
  }
  return raise(c, MPI_ERR_TAG, std::string(fn) + ": argument " + arg + " is " + what);
}

signed char g_kind_of[k_predefined_limit];

void init_names() {
  std::memset(g_kind_of, -1, sizeof g_kind_of);
  for (const auto& n : k_names) {
    g_by_value[n.value] = &n;
    for (int i = 0; i < k_nkinds; ++i)
      if (std::strcmp(n.kind, k_kinds[i].words) == 0 && n.value != k_kinds[i].null_value)
        g_kind_of[n.value] = static_cast<signed char>(i);
  }
}

}  // namespace anympi_check
