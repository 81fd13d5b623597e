// The checker's common ground: its state, the names of the predefined handles, the comm
// registry, raising an error, and the argument checks every wrapper starts with (core.hpp).
#include "core.hpp"

#include <cstdio>
#include <cstring>
#include <algorithm>

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
std::unordered_set<std::uintptr_t> g_freed_comms, g_freed_types;
// Both MPIs hand out the constituent's own handle value from get_contents (one more
// reference): freeing that is not freeing the type the user built with it, so each such
// reference is counted here.
std::unordered_map<std::uintptr_t, std::int64_t> g_contents_refs;

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
    MPI_Comm sh = MPI_COMM_NULL;
    if (NX(MPI_Comm_dup)(c, &sh) == MPI_SUCCESS) {
      s.shadow = sh;
      NX(MPI_Comm_set_errhandler)(sh, MPI_ERRORS_RETURN);
    }
  }
  std::lock_guard<std::recursive_mutex> l(g_mu);
  s.seq = ++g_comm_seq;
  g_freed_comms.erase(bits(c));
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
// Raising an error: a new error code of the right class whose string is the message
// (MPI_Error_string gives it back), printed once on stderr, through the handler of `comm`.

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

int raise(MPI_Comm comm, int error_class, const std::string& msg, bool print) {
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
  NX(MPI_Comm_call_errhandler)(comm, code);
  return code;
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

// A handle argument of kind `kind` ("communicator"/"datatype"): 0, another kind's constant,
// a freed one. `null_ok`: MPI_X_NULL is acceptable here.
int check_handle(const char* fn, const char* arg, std::uintptr_t v, const char* kind, std::uintptr_t null_value,
                 const std::unordered_set<std::uintptr_t>& freed, const char* free_fn, int error_class, MPI_Comm where) {
  std::string what;
  if (v == 0) {
    what = "0, an uninitialized handle (not a " + std::string(kind) + ")";
  } else if (v == null_value) {
    auto* p = predefined(v);
    what = std::string(p ? p->name : hex(v).c_str()) + ", the null " + kind;
  } else if (v < k_predefined_limit) {
    auto* p = predefined(v);
    if (p && std::strcmp(p->kind, kind) == 0) return 0;
    if (p) what = std::string(p->name) + " (" + hex(v) + "), " + (p->kind[0] == 'e' || p->kind[0] == 'o' || p->kind[0] == 'i' ? "an " : "a ") + p->kind + ", not a " + kind;
    else what = hex(v) + ", not a predefined handle of any kind";
  } else {
    std::lock_guard<std::recursive_mutex> l(g_mu);
    if (!freed.count(v)) return 0;
    what = std::string("a freed ") + kind + " (" + hex(v) + ", freed by " + free_fn + ")";
  }
  return raise(where, error_class, std::string(fn) + ": argument " + arg + " is " + what);
}

int check_comm(const char* fn, MPI_Comm c, const char* arg) {
  if (!g_args) return 0;
  return check_handle(fn, arg, bits(c), "communicator", bits(MPI_COMM_NULL), g_freed_comms, "MPI_Comm_free", MPI_ERR_COMM,
                      MPI_COMM_SELF);
}
int check_type(const char* fn, MPI_Datatype t, MPI_Comm where, const char* arg) {
  if (!g_args) return 0;
  return check_handle(fn, arg, bits(t), "datatype", bits(MPI_DATATYPE_NULL), g_freed_types, "MPI_Type_free", MPI_ERR_TYPE,
                      where);
}
int check_count(const char* fn, std::int64_t n, MPI_Comm where, const char* arg) {
  if (!g_args || n >= 0) return 0;
  return raise(where, MPI_ERR_COUNT, std::string(fn) + ": argument " + arg + " is " + std::to_string(n) + "; a count is never negative");
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

// A rank argument: `recv` accepts MPI_ANY_SOURCE; MPI_PROC_NULL always.
int check_rank(const char* fn, const char* arg, int r, MPI_Comm c, bool recv, bool root) {
  if (!g_args) return 0;
  const comm_state s = state_of(c);
  const int n = s.inter ? s.remote_size : s.size;
  if (r >= 0 && r < n) return 0;
  if (!root && r == MPI_PROC_NULL) return 0;
  if (recv && r == MPI_ANY_SOURCE) return 0;
  std::string what;
  if (const char* name = sentinel_name(r)) {
    what = std::string(name) + " (" + std::to_string(r) + ")";
    if (r == MPI_ANY_TAG) what += ", a tag wildcard, not a rank";
    else if (r == MPI_ANY_SOURCE) what += ", which only a receive accepts";
    else if (r == MPI_ROOT) what += ", which only an intercommunicator collective accepts";
    else what += ", not a rank here";
  } else {
    what = std::to_string(r) + ", but " + comm_words(c) + " has " + std::to_string(n) + (n == 1 ? " rank" : " ranks") +
           " (0.." + std::to_string(n - 1) + ")";
  }
  return raise(c, MPI_ERR_RANK, std::string(fn) + ": argument " + arg + " is " + what);
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

void init_names() {
  for (const auto& n : k_names) g_by_value[n.value] = &n;
}

}  // namespace anympi_check
