// What differs between the native MPIs, in the few places it cannot be read from mpi.h.
// The code for each lives here or in mpich.cpp / openmpi.cpp; everything else is shared.
#pragma once
#include <mpi.h>

#if defined(ANYMPI_BACKEND_MPICH)
#include "have_mpich.h"
#define ANYMPI_NATIVE_HAS_SESSIONS 1
namespace anympi::backend { using native_session = MPI_Session; }
#elif defined(ANYMPI_BACKEND_OPENMPI)
#include "have_openmpi.h"
#define ANYMPI_NATIVE_HAS_SESSIONS 0
namespace anympi::backend { struct no_session; using native_session = no_session *; }
#else
#error "define ANYMPI_BACKEND_MPICH or ANYMPI_BACKEND_OPENMPI"
#endif

namespace anympi::backend {
// The native status's non-public fields (count, cancelled) live in MPI_internal[].  Inline:
// every status a call returns passes through them.
#if defined(ANYMPI_BACKEND_OPENMPI)
// Open MPI's status: the public fields, then _cancelled and a size_t _ucount (24 bytes); the
// two private fields take MPI_internal[0..2].
static_assert(sizeof(MPI_Status) == 24);
inline void save_hidden(const MPI_Status &n, int internal[5])
{
    internal[0] = n._cancelled;
    __builtin_memcpy(&internal[1], &n._ucount, sizeof n._ucount);
}
inline void load_hidden(const int internal[5], MPI_Status &n)
{
    n._cancelled = internal[0];
    __builtin_memcpy(&n._ucount, &internal[1], sizeof n._ucount);
}
#else
// MPICH's status: count_lo, count_hi_and_cancelled, then the public fields.
static_assert(sizeof(MPI_Status) == 20);
inline void save_hidden(const MPI_Status &n, int internal[5])
{
    internal[0] = n.count_lo;
    internal[1] = n.count_hi_and_cancelled;
}
inline void load_hidden(const int internal[5], MPI_Status &n)
{
    n.count_lo = internal[0];
    n.count_hi_and_cancelled = internal[1];
}
#endif
// Handles the native MPI lacks but can stand in for (e.g. MPI_ERRORS_ABORT on Open MPI 4.1).
void native_fixups(uintptr_t pre[0x400]);
// Runs make(), which makes anympi's own native objects when the MPI has just started, so that
// they leave the program the handles it gets natively.  MPICH serves each kind's first few
// objects from a preallocated block ("direct" handles, found in a few instructions); the rest
// are "indirect", about 32 instructions more on every use (MPI_Type_size of a derived type: 76
// against 108).  Natively a program's first derived types, communicators and keyvals are
// direct; made first, anympi's emulated types, private communicator and keyvals would take
// those slots (mpich.cpp).  Open MPI's handles are pointers: make() alone.
void past_direct_handles(void (*make)());
// MPI_<Kind>_toint: the native Fortran integer, moved off the ABI's predefined range.
// Open MPI numbers the codes and classes users add right after its last predefined one (93,
// 94, ...), where the ABI still has predefined values: those move up by err_bias.  MPICH's
// added codes carry bit 30 and never meet the ABI's range.
#if defined(ANYMPI_BACKEND_OPENMPI)
constexpr int err_bias_above = MPI_ERR_LASTCODE;
#else
constexpr int err_bias_above = 0x7fffffff;
#endif
constexpr int err_bias = 0x4000; // ABI's MPI_ERR_LASTCODE + 1
// Whether the native MPI refuses MPI_IN_PLACE at a rank other than the root of a rooted
// reduction, gather (send buffer) or scatter (receive buffer), which is erroneous.  Open MPI
// 4.1 returns MPI_ERR_ARG; MPICH 4.0.2 does not check and copies from its MPI_IN_PLACE,
// (void *)-1, so the backend checks first there (c_in_place_root in backend.hpp).
#if defined(ANYMPI_BACKEND_OPENMPI)
constexpr bool native_checks_in_place_root = true;
#else
constexpr bool native_checks_in_place_root = false;
#endif
// Whether the MPI faults when an MPI_T_finalize after MPI_Finalize releases a tool-interface
// reference taken while the MPI ran (Open MPI 4.1: it closes frameworks MPI_Finalize closed).
#if defined(ANYMPI_BACKEND_OPENMPI)
constexpr bool native_t_finalize_faults_after_finalize = true;
#else
constexpr bool native_t_finalize_faults_after_finalize = false;
#endif
// Whether MPI_File_call_errhandler takes MPI_FILE_NULL, whose handler is the default for files
// (Open MPI 4.1 refuses it with MPI_ERR_ARG, raised on MPI_COMM_WORLD).
#if defined(ANYMPI_BACKEND_OPENMPI)
constexpr bool native_calls_file_null_errhandler = false;
#else
constexpr bool native_calls_file_null_errhandler = true;
#endif
// Added to the MPI's integer for a handle (MPI_X_c2f) to make MPI_X_toint's, which must not
// fall in 0..0x3FF, the ABI's predefined handles: Open MPI's are table indices from 0 and
// MPICH's are its handles, except files, whose MPI_File_c2f gives ROMIO's indices from 1.
constexpr int toint_bias = 0x400;
}
