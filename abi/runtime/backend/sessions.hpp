// MPI-4 sessions and the world model's start and end (sessions.cpp): what the rest of the
// backend asks of anympi's own sessions, where the MPI underneath has none (Open MPI 4.1).
#pragma once
#include "backend.hpp"

#include <strings.h>

namespace anympi::backend {
// The process sets anympi names itself: those of its own sessions (Open MPI 4.1) and of the
// MPI_COMM_TYPE_RESOURCE_GUIDED split (both MPIs, hw_resources.cpp).  Matched without regard to
// case, as MPICH matches them.
inline constexpr const char *pset_names[] = {"mpi://WORLD", "mpi://SELF"};
inline constexpr int npsets = 2, pset_world = 0, pset_self = 1;
inline int pset_index(const char *name)
{
    for (int i = 0; i < npsets; ++i)
        if (strcasecmp(name, pset_names[i]) == 0) return i;
    return -1;
}
#if !ANYMPI_NATIVE_HAS_SESSIONS
// raise_error on a session: the native communicator that carries the session's error handler,
// MPI_COMM_NULL when `session` (its native bits) is no live session.
MPI_Comm session_errh_comm(uintptr_t session);
// The session whose error-handler communicator `c` is (the handler's closure, callbacks.cpp).
abi_Session session_of_errh_comm(MPI_Comm c);
#endif
}  // namespace anympi::backend
