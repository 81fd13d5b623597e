// MPI-4 sessions and the world model's start and end (sessions.cpp): what the rest of the
// backend asks of anympi's own sessions, where the MPI underneath has none (Open MPI 4.1).
#pragma once
#include "backend.hpp"

namespace anympi::backend {
#if !ANYMPI_NATIVE_HAS_SESSIONS
// raise_error on a session: the native communicator that carries the session's error handler,
// MPI_COMM_NULL when `session` (its native bits) is no live session.
MPI_Comm session_errh_comm(uintptr_t session);
// The session whose error-handler communicator `c` is (the handler's closure, callbacks.cpp).
abi_Session session_of_errh_comm(MPI_Comm c);
#endif
}  // namespace anympi::backend
