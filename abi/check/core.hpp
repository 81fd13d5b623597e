// What every part of the checker shares (core.cpp defines it): the tables, the state's lock,
// the predefined handles' names, the communicator registry, raising an error, and the argument
// checks. The signature checks live in check.cpp.
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
extern std::unordered_set<std::uintptr_t> g_freed_comms, g_freed_types;
extern std::unordered_map<std::uintptr_t, std::int64_t> g_contents_refs;
void register_comm(MPI_Comm c, bool with_shadow);
comm_state state_of(MPI_Comm c);
std::string comm_words(MPI_Comm c);

// ---- raising an error (a new code of the right class, its string answered by the wrappers)
int raise(MPI_Comm comm, int error_class, const std::string& msg, bool print = true);
int w_MPI_Error_string(int code, char* s, int* len);
int w_MPI_Error_class(int code, int* cls);

// ---- argument checks: each returns 0 or the error it raised
int check_handle(const char* fn, const char* arg, std::uintptr_t v, const char* kind, std::uintptr_t null_value,
                 const std::unordered_set<std::uintptr_t>& freed, const char* free_fn, int error_class, MPI_Comm where);
int check_comm(const char* fn, MPI_Comm c, const char* arg = "comm");
int check_type(const char* fn, MPI_Datatype t, MPI_Comm where, const char* arg = "datatype");
int check_count(const char* fn, std::int64_t n, MPI_Comm where, const char* arg = "count");
const char* sentinel_name(int v);
int check_rank(const char* fn, const char* arg, int r, MPI_Comm c, bool recv, bool root = false);
int check_tag(const char* fn, const char* arg, int tag, MPI_Comm c, bool recv);

// Comm, then datatype, then count: the checks every data-moving call starts with.
#define RETURN_IF(e)          \
  do {                        \
    if (int rc_ = (e)) return rc_; \
  } while (0)

}  // namespace anympi_check
