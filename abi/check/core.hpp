// What every part of the checker shares (core.cpp defines it): the tables, the state's lock,
// the predefined handles' names, the registry of freed handles (one per kind), the communicator
// registry, raising an error, and the argument checks. The signature checks live in check.cpp;
// the generated argument checks of every function in args.gen.cpp (abi/check/gen_arg_checks.py).
#pragma once

#include <mpi.h>

extern "C" {
#include "fn_index.h"
}

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace anympi_check {

extern void* const* g_next;      // the backend's table
extern void* g_table[ANYMPI_NFUNCS];  // ours
extern bool g_signatures;        // ANYMPI_CHECK has "signatures"
extern bool g_args;              // argument checks (implied by "signatures")
extern std::recursive_mutex g_mu;  // guards every map of the checker
extern thread_local bool t_in_decode;  // the types library is decoding: its frees are not the user's

// The next table's slot for f, typed like the standard's PMPI_f.
#define NX(f) (reinterpret_cast<decltype(&P##f)>(g_next[ANYMPI_IX_##f]))

inline std::uintptr_t bits(const void* h) { return reinterpret_cast<std::uintptr_t>(h); }

// Comm, then datatype, then count: the checks every data-moving call starts with.
#define RETURN_IF(e)          \
  do {                        \
    if (int rc_ = (e)) return rc_; \
  } while (0)

// ---- predefined handles, for messages that name the constant
struct handle_name {
  unsigned value;
  const char* name;
  const char* kind;
};
constexpr std::uintptr_t k_predefined_limit = 0x400;  // the ABI's predefined handles are below
const handle_name* predefined(std::uintptr_t v);
std::string hex(std::uintptr_t v);
void init_names();  // fills the by-value index once, at install

// ---- communicators
struct comm_state {
  MPI_Comm shadow = MPI_COMM_NULL;  // MPI_COMM_NULL: not checked (created where we could not dup)
  int rank = 0, size = 0, remote_size = 0;
  bool inter = false;
  std::uint64_t seq = 0;  // creation order, to free shadows in the same order everywhere
};
extern std::unordered_map<MPI_Comm, comm_state> g_comms;
extern std::uint64_t g_comm_seq;
extern std::unordered_map<std::uintptr_t, std::int64_t> g_contents_refs;
void register_comm(MPI_Comm c, bool with_shadow);
comm_state state_of(MPI_Comm c);
std::string comm_words(MPI_Comm c);

// ---- handle kinds, and the freed values of each (guarded by g_mu)
enum class hkind : int { comm, datatype, op, group, info, errhandler, win, file, session, message, request };
constexpr int k_nkinds = 11;
struct kind_info {
  const char* words;         // as gen_handle_names.py names the kind ("error handler")
  std::uintptr_t null_value;  // MPI_X_NULL
  int error_class;
  const char* freed_by;      // what releases one, for the message
  bool counted;              // released only when every handle the MPI handed out is given back
};
const kind_info& info_of(hkind k);
extern std::unordered_set<std::uintptr_t> g_freed[k_nkinds];
// Communicators and datatypes: check.cpp's wrappers mark and unmark these two.
extern std::unordered_set<std::uintptr_t>& g_freed_comms;
extern std::unordered_set<std::uintptr_t>& g_freed_types;
// The MPI handed out v (an OUT handle): valid, whatever it was before.
void created(hkind k, std::uintptr_t v);
// How often the MPI handed out v of a kind that is not counted (communicators, datatypes): a free
// of one marks it only after the MPI freed it, and by then another thread may have got the same
// value from the MPI (MPI_THREAD_MULTIPLE); so it marks v only if this has not changed since
// before the MPI freed it.
std::uint64_t generation(hkind k, std::uintptr_t v);
// The program gave v back through fn (a free, a completion, a matched receive). For the
// counted kinds the value stays valid while the MPI has handed it out more often than it was
// given back (MPICH returns the same group from two MPI_Comm_group calls, the same error
// handler from MPI_Comm_get_errhandler as the one set).
void released(hkind k, std::uintptr_t v, const char* fn);

// ---- where an error goes: the error handler of the call's communicator, window, file or
// session (MPI-4.1 section 9.3), else of MPI_COMM_WORLD: where both MPIs underneath and the
// runtime raise the errors of a call without an object (errh_none, backend.hpp), so that a
// program that sets a handler on MPI_COMM_WORLD alone sees the checker's errors alike
struct where_t {
  hkind kind = hkind::comm;
  std::uintptr_t h = 0;
};
inline where_t at(MPI_Comm c) { return {hkind::comm, bits(c)}; }
inline where_t at(MPI_Win w) { return {hkind::win, bits(w)}; }
inline where_t at(MPI_File f) { return {hkind::file, bits(f)}; }
inline where_t at(MPI_Session s) { return {hkind::session, bits(s)}; }
inline where_t at_none() { return at(MPI_COMM_WORLD); }

// ---- raising an error (a new code of the right class, its string answered by the wrappers)
int raise(MPI_Comm comm, int error_class, const std::string& msg, bool print = true);
int raise_at(where_t w, int error_class, const std::string& msg, bool print = true);
int w_MPI_Error_string(int code, char* s, int* len);
int w_MPI_Error_class(int code, int* cls);

// ---- argument checks: each returns 0 or the error it raised
int check_type(const char* fn, MPI_Datatype t, MPI_Comm where, const char* arg = "datatype");
int check_count(const char* fn, std::int64_t n, MPI_Comm where, const char* arg = "count");
const char* sentinel_name(int v);
int check_tag(const char* fn, const char* arg, int tag, MPI_Comm c, bool recv);

// The same for any kind, reporting through w (the generated checks, args.gen.cpp).
// null_ok: MPI_X_NULL is acceptable here.
// The kind of each predefined handle but the nulls (-1), filled by init_names: the common case,
// a predefined handle of the right kind, costs one load.
extern signed char g_kind_of[k_predefined_limit];
int check_kind_slow(const char* fn, const char* arg, std::uintptr_t v, hkind k, bool null_ok, where_t w);
inline int check_kind(const char* fn, const char* arg, std::uintptr_t v, hkind k, bool null_ok, where_t w) {
  if (v < k_predefined_limit && g_kind_of[v] == static_cast<signed char>(k)) return 0;
  return check_kind_slow(fn, arg, v, k, null_ok, w);
}
int check_count_at(const char* fn, const char* arg, std::int64_t n, int error_class, where_t w);
// The ranks a rank argument may name: n of them (-1: not known here), in a communicator, a
// group, or a size argument.
struct rank_space {
  int n = -1;
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Group group = MPI_GROUP_NULL;
  const char* size_arg = nullptr;
};
rank_space space_of(MPI_Comm c);  // an intercommunicator's ranks are the remote group's
rank_space space_of(MPI_Group g);
rank_space space_of(int n, const char* size_arg);
// root_arg: the argument is a collective's root, reported as MPI_ERR_ROOT (else MPI_ERR_RANK)
enum : unsigned { allow_any_source = 1, allow_proc_null = 2, allow_root = 4, root_arg = 8 };
int check_rank_in(const char* fn, const char* arg, int r, const rank_space& s, unsigned allowed, where_t w);
// What is wrong with a handle ("": nothing), and every entry of an array argument
// ("sendtypes[2]" in the message).
std::string handle_problem(std::uintptr_t v, const char* kind, std::uintptr_t null_value,
                           const std::unordered_set<std::uintptr_t>& freed, const char* free_fn);
std::string indexed(const char* arg, std::int64_t i);
template <class H>
int check_kinds(const char* fn, const char* arg, const H* a, std::int64_t n, hkind k, bool null_ok, where_t w) {
  if (!a) return 0;
  const kind_info& ki = info_of(k);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uintptr_t v = bits(a[i]);
    if ((null_ok && v == ki.null_value) || (v < k_predefined_limit && g_kind_of[v] == static_cast<signed char>(k))) continue;
    if (!handle_problem(v, ki.words, ki.null_value, g_freed[static_cast<int>(k)], "").empty())
      return check_kind(fn, indexed(arg, i).c_str(), v, k, null_ok, w);
  }
  return 0;
}
template <class T>
int check_counts(const char* fn, const char* arg, const T* a, std::int64_t n, int error_class, where_t w) {
  if (!a) return 0;
  for (std::int64_t i = 0; i < n; ++i)
    if (a[i] < 0) return check_count_at(fn, indexed(arg, i).c_str(), static_cast<std::int64_t>(a[i]), error_class, w);
  return 0;
}
inline int check_ranks_in(const char* fn, const char* arg, const int* a, std::int64_t n, const rank_space& s,
                          unsigned allowed, where_t w) {
  if (!a) return 0;
  for (std::int64_t i = 0; i < n; ++i)
    if (a[i] < 0 || (s.n >= 0 && a[i] >= s.n)) RETURN_IF(check_rank_in(fn, indexed(arg, i).c_str(), a[i], s, allowed, w));
  return 0;
}
// What the generated checks ask of a communicator.
bool is_inter(MPI_Comm c);
bool at_root(MPI_Comm c, int root);  // this process is the root (MPI_ROOT on an intercommunicator)
int coll_size(MPI_Comm c);           // the length of a v/w collective's arrays; -1: not known
// The generated wrappers of every function (args.gen.cpp): installed over g_table last, each
// checks its arguments and calls the slot it replaced (the hand-written wrapper or the backend).
void install_arg_checks();


}  // namespace anympi_check
