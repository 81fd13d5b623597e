// Predefined datatypes of the ABI that the MPI underneath lacks (MPI_REAL2, MPI_COMPLEX4,
// MPI_INTEGER16, MPI_LOGICAL16 on both; MPI_LOGICAL1/2/4/8 on MPICH): each is a native
// committed type of the right size, built when the MPI starts (MPI_Init[_thread] or the first
// MPI_Session_init) and released when it stops, mapped both ways like any predefined handle,
// and answered for where a named type differs from a derived one (envelope, name, free,
// contents, match_size).  Reductions over them, and the ones the native MPI computes wrongly
// (MPI_REAL16/MPI_COMPLEX32; MPI_OFFSET's MIN/MAX on Open MPI), use native user operations of
// anympi (emulated_types.cpp).
// The hooks in manual.cpp and backend.cpp are one line each, marked "emulated_types".
#pragma once
#include "backend.hpp"

#include <atomic>
#include <initializer_list>

namespace anympi::backend {

// The ABI's sized Fortran types, LOGICAL1 .. COMPLEX32: every handle anympi may answer for.
constexpr uintptr_t emu_first = ABI_LOGICAL1, emu_last = ABI_COMPLEX32;
extern std::atomic<bool> emu_on[emu_last - emu_first + 1];  // emulated, and built now

inline bool is_emulated_type(abi_Datatype t)
{
    const uintptr_t v = reinterpret_cast<uintptr_t>(t);
    return v - emu_first <= emu_last - emu_first && emu_on[v - emu_first].load(std::memory_order_relaxed);
}

void emulated_types_at_load();     // build_tables: the handles the native MPI lacks
void emulated_types_world_init();  // after_native_init: MPI_Init / MPI_Init_thread
void emulated_types_session_started();             // sessions.cpp: a session was made
void emulated_types_session_ending();              // sessions.cpp: before the native finalize
void emulated_types_session_ended(bool finalized); // sessions.cpp: after it

// c_op_in: a predefined op over one of these types becomes anympi's native user operation
// (or MPI_OP_NULL, so the MPI reports MPI_ERR_OP, where the standard does not define it); so
// does one the native MPI computes wrongly (binary128; MPI_OFFSET's MIN/MAX on Open MPI).
constexpr uintptr_t emu_types_first = 0x200, emu_types_count = 0x100;  // the ABI's datatypes
extern bool emu_has_ops[emu_types_count];  // set at load and when built
bool emulated_op_lookup(uintptr_t op, uintptr_t type, MPI_Op *out);
inline bool emulated_op_in(abi_Op op, abi_Datatype t, MPI_Op *out)
{
    const uintptr_t v = reinterpret_cast<uintptr_t>(t) - emu_types_first;
    return v < emu_types_count && emu_has_ops[v] &&
           emulated_op_lookup(reinterpret_cast<uintptr_t>(op), v + emu_types_first, out);
}
// The op of a reduction, seen with its datatype: MAXLOC/MINLOC over a value-index type
// (loc_op_in, manual.cpp) and the ops over emulated types become anympi's native user
// operations; any other op is converted.  Inline: on the path of every reduction.
MPI_Op loc_op_in(abi_Op op, abi_Datatype datatype);
inline MPI_Op c_op_in(abi_Op op, abi_Datatype datatype)
{
    if (MPI_Op n; emulated_op_in(op, datatype, &n)) return n;
    const uintptr_t o = reinterpret_cast<uintptr_t>(op);
    if (o == ABI_MAXLOC || o == ABI_MINLOC) [[unlikely]] return loc_op_in(op, datatype);
    return to_native(op);
}

// One-sided accumulation (the generated MPI_Accumulate ... MPI_Fetch_and_op): the native MPI
// would apply a predefined op to an emulated type's native stand-in (or to a derived type built
// from one) as to the integers it is made of, so only MPI_REPLACE and MPI_NO_OP are let through;
// anything else is MPI_ERR_TYPE naming the type.  0 where the call may go ahead.
int emulated_acc_refused_slow(const char *fn, errh_obj o, abi_Datatype t);
inline int emulated_acc_refused(const char *fn, errh_obj o, abi_Op op, abi_Datatype a, abi_Datatype b = nullptr,
                                abi_Datatype c = nullptr)
{
    const uintptr_t v = reinterpret_cast<uintptr_t>(op);
    if (v == ABI_REPLACE || v == ABI_NO_OP) return 0;  // the bytes as they are
    for (abi_Datatype t : {a, b, c})  // an emulated type, or a derived one (cached after the first look)
        if (is_emulated_type(t) || reinterpret_cast<uintptr_t>(t) >= 0x400)
            if (int rc = emulated_acc_refused_slow(fn, o, t)) return rc;
    return 0;
}
// What a named type answers (the caller has checked is_emulated_type).
int emulated_type_envelope(int *ni, int *na, int *nd, int *combiner);
int emulated_type_envelope_c(abi_Count *ni, abi_Count *na, abi_Count *nc, abi_Count *nd, int *combiner);
int emulated_type_refuse(abi_Datatype t, const char *fn, const char *why);  // MPI_ERR_TYPE naming it
// After a native MPI_Type_get_contents: the emulated types it returned (MPICH: with a
// reference added; Open MPI: as copies) become the predefined handles again.
// Inline: the usual components, predefined types the MPI has, are passed over without a call
// or a lock; from the first other one on, the rest is fixed out of line.
void emulated_types_fix_returned_from(abi_Datatype *types, long long k, long long n);
inline void emulated_types_fix_returned(abi_Datatype *types, long long n)
{
    if (!types) return;
    long long k = 0;
    while (k < n && !is_emulated_type(types[k]) && reinterpret_cast<uintptr_t>(types[k]) < 0x400) ++k;
    if (k < n) emulated_types_fix_returned_from(types, k, n);
}

}  // namespace anympi::backend
