// Callbacks: the one mechanism for every kind.  A user callback registered through the ABI
// is stored in a record; the native MPI is given a trampoline that finds the record,
// converts the native arguments to ABI ones, and calls the user's function.
//
// How the trampoline finds its record depends on what the native MPI hands it:
//  - error handlers: the native object (comm/win/file) -> its native errhandler -> record
//    (a lookup map, unbounded);
//  - user reduction ops: MPI's C callback gets no context, so a fixed pool of trampolines
//    (one per slot, instantiated from a template) each knows its slot: op_slots live ops
//    at a time; beyond that MPI_Op_create returns MPI_ERR_UNSUPPORTED_OPERATION.  A later
//    version can make this unbounded by pairing the pool with a thread-local "current op"
//    set around blocking reductions, without changing the callers.
#pragma once
#include "backend.hpp"

namespace anympi::backend {

constexpr int op_slots = 128;

// Returns a native op in *out, or MPI_ERR_UNSUPPORTED_OPERATION (ABI) when the pool is full.
int op_create(abi_User_function *fn, int commute, MPI_Op *out);
#if ANYMPI_HAVE_MPI_Op_create_c
int op_create_c(abi_User_function_c *fn, int commute, MPI_Op *out);
#endif
void op_release(MPI_Op native);

// Error handlers of each object kind.
int comm_errhandler_create(abi_Comm_errhandler_function *fn, MPI_Errhandler *out);
int win_errhandler_create(abi_Win_errhandler_function *fn, MPI_Errhandler *out);
int file_errhandler_create(abi_File_errhandler_function *fn, MPI_Errhandler *out);
#if ANYMPI_NATIVE_HAS_SESSIONS
int session_errhandler_create(abi_Session_errhandler_function *fn, MPI_Errhandler *out);
#endif

// Attribute copy/delete callbacks: the record travels as the native extra_state.
int comm_keyval_create(abi_Comm_copy_attr_function *copy, abi_Comm_delete_attr_function *del,
                       int *keyval, void *extra);
int type_keyval_create(abi_Type_copy_attr_function *copy, abi_Type_delete_attr_function *del,
                       int *keyval, void *extra);
int win_keyval_create(abi_Win_copy_attr_function *copy, abi_Win_delete_attr_function *del,
                      int *keyval, void *extra);

// Generalized requests: the record is the native extra_state; freed by the free callback.
int grequest_start(abi_Grequest_query_function *query, abi_Grequest_free_function *free_fn,
                   abi_Grequest_cancel_function *cancel, void *extra, MPI_Request *out);

}  // namespace anympi::backend
