// Callbacks: the one mechanism for every kind.  A user function registered through the ABI
// is kept in a record; the native MPI is given a native function that finds the record,
// converts the native arguments to the ABI's, and calls the user in the process's table
// (abi_scope).  How the native function finds its record:
//  - where the MPI passes a context (attribute callbacks' and generalized requests'
//    extra_state, datarep's extra_state, MPI_T's user_data): the record is the context;
//  - where it passes none (reduction ops, error handlers): a closure, a native function that
//    carries its record -- one of the trampolines compiled per signature, or beyond those a
//    closure made at run time (libffi).  There is one closure per user function and
//    signature, made on first use and kept for the life of the process: freeing an op or an
//    error handler never frees it, so an operation still pending on a freed op keeps calling
//    the right function, and creating and freeing in a loop reuses the same closure.  Their
//    number is bounded by the number of distinct functions, not by the handles alive.
#pragma once
#include "backend.hpp"

namespace anympi::backend {

// User reduction ops: the native op calls the user's function with ABI datatypes and counts.
// MPI_Op_create_c works everywhere: over an MPI without it the closure widens the int count.
int op_create(abi_User_function *fn, int commute, MPI_Op *out);
int op_create_c(abi_User_function_c *fn, int commute, MPI_Op *out);

// Error handlers of each object kind.
int comm_errhandler_create(abi_Comm_errhandler_function *fn, MPI_Errhandler *out);
int win_errhandler_create(abi_Win_errhandler_function *fn, MPI_Errhandler *out);
int file_errhandler_create(abi_File_errhandler_function *fn, MPI_Errhandler *out);
// The native function of a file error handler made by file_errhandler_create (null for any
// other), to call it where the MPI will not (see native_calls_file_null_errhandler); kept in
// backend.cpp, which calls it.
void file_errhandler_made(MPI_Errhandler h, MPI_File_errhandler_function *fn);
MPI_File_errhandler_function *file_errhandler_function(MPI_Errhandler h);
// Where the MPI has no sessions, a communicator error handler that calls fn with the session
// whose communicator it is (sessions.cpp).
int session_errhandler_create(abi_Session_errhandler_function *fn, MPI_Errhandler *out);

// Attribute copy/delete callbacks: the record travels as the native extra_state.  It counts
// the keyval itself and every attribute stored with it, and is freed when the keyval has been
// freed and the last such attribute deleted (the native MPI keeps a freed keyval alive, and
// calls its delete callback, as long as attributes use it).
enum class attr_kind { comm, type, win };
int keyval_create(attr_kind k, void *copy, void *del, int *keyval, void *extra);
int keyval_free(attr_kind k, int *keyval);  // native keyval in, MPI_KEYVAL_INVALID out
// While one lives on this thread, the program's attribute copy callbacks are not called and
// copy nothing: anympi's own duplicates of the program's objects (a persistent collective's
// communicator, the inputs a large-count type holds) carry none of its attributes, so neither
// their making nor their freeing runs the program's callbacks, which natively never see them.
struct quiet_copies {
    quiet_copies();
    ~quiet_copies();
    quiet_copies(const quiet_copies &) = delete;
    quiet_copies &operator=(const quiet_copies &) = delete;
};
// While alive on this thread, a delete callback's error is not passed to the MPI: where anympi
// frees its own MPI_COMM_SELF at MPI_Finalize (Open MPI), as the native finalize ignores them.
struct delete_errors_ignored {
    delete_errors_ignored();
    ~delete_errors_ignored();
    delete_errors_ignored(const delete_errors_ignored &) = delete;
    delete_errors_ignored &operator=(const delete_errors_ignored &) = delete;
};
// Around the native set_attr: the new attribute counts (and a replaced one is deleted through
// the delete callback, which uncounts it).
struct attr_set_guard {
    void *record;
    attr_set_guard(attr_kind k, int native_keyval);
    void failed();  // the native set_attr did not store the attribute
};

// Generalized requests: the record is the native extra_state; freed by the free callback.
int grequest_start(abi_Grequest_query_function *query, abi_Grequest_free_function *free_fn,
                   abi_Grequest_cancel_function *cancel, void *extra, MPI_Request *out);

}  // namespace anympi::backend
