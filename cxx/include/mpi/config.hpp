// Feature detection for the mpi:: core. The core compiles against any mpi.h: anympi's
// MPI-5.0 standard ABI header, native MPICH 4.x or native Open MPI 4.1 (an MPI-3.1 library).
// Each macro can be forced from the command line (-DMPI_CXX_HAS_...=0/1).
#pragma once

// The deprecated MPI-2 C++ bindings that Open MPI and MPICH still ship would be pulled in by
// <mpi.h> in C++ and need an extra library; the core never uses them.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif

#include <mpi.h>

// MPI-4.0 added the large-count "_c" bindings, partitioned communication, persistent
// collectives, sessions, MPI_Isendrecv(_replace), MPI_Comm_idup_with_info and
// MPI_Info_get_string. An MPI that reports MPI_VERSION >= 4 declares all of them.
#if !defined(MPI_VERSION)
#error "mpi.h does not define MPI_VERSION"
#endif

#define MPI_CXX_MPI4_ (MPI_VERSION >= 4)

#ifndef MPI_CXX_HAS_LARGE_COUNT
#define MPI_CXX_HAS_LARGE_COUNT MPI_CXX_MPI4_
#endif
#ifndef MPI_CXX_HAS_PARTITIONED
#define MPI_CXX_HAS_PARTITIONED MPI_CXX_MPI4_
#endif
#ifndef MPI_CXX_HAS_PERSISTENT_COLLECTIVES
#define MPI_CXX_HAS_PERSISTENT_COLLECTIVES MPI_CXX_MPI4_
#endif
#ifndef MPI_CXX_HAS_SESSIONS
#define MPI_CXX_HAS_SESSIONS MPI_CXX_MPI4_
#endif
#ifndef MPI_CXX_HAS_ISENDRECV
#define MPI_CXX_HAS_ISENDRECV MPI_CXX_MPI4_
#endif
#ifndef MPI_CXX_HAS_INFO_GET_STRING
#define MPI_CXX_HAS_INFO_GET_STRING MPI_CXX_MPI4_
#endif
#ifndef MPI_CXX_HAS_COMM_IDUP_WITH_INFO
#define MPI_CXX_HAS_COMM_IDUP_WITH_INFO MPI_CXX_MPI4_
#endif
// MPI-4.1's MPI_Type_get_value_index (MPICH 4.0 and Open MPI 4.1 have none; anympi's ABI does)
#ifndef MPI_CXX_HAS_VALUE_INDEX
#define MPI_CXX_HAS_VALUE_INDEX (MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1))
#endif

// The core's forwarding layers (an operation's public function, its body, the choice of the
// int or _c binding, the buffer's count): forced inline, so that a call costs what the C call
// costs however large the caller is (g++ stops inlining into a large function otherwise, and
// each layer left out of line costs a call, a frame and the argument moves). Error paths stay
// out of line (MPI_CXX_COLD) so the inlined code is only the test that leads to them.
#if defined(__GNUC__) || defined(__clang__)
#define MPI_CXX_ALWAYS_INLINE [[gnu::always_inline]] inline
#define MPI_CXX_COLD [[gnu::cold, gnu::noinline]]
// on a lambda, after its parameters
#define MPI_CXX_ALWAYS_INLINE_LAMBDA __attribute__((always_inline))
#else
#define MPI_CXX_ALWAYS_INLINE inline
#define MPI_CXX_COLD
#define MPI_CXX_ALWAYS_INLINE_LAMBDA
#endif
