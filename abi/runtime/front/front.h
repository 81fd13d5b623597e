/* The front library's dispatch: every PMPI_X calls slot X of the backend's table. */
#ifndef ANYMPI_FRONT_H
#define ANYMPI_FRONT_H
#include <mpi.h>
#include "fn_index.h"

/* NULL until a backend is loaded; then the backend's table, never changed again. */
extern void *const *anympi_table __attribute__((visibility("hidden")));
/* The table this thread dispatches through: the process's (converting) one, or -- while the
 * backend runs a native function, which may call MPI_* by name (ROMIO, Open MPI's plugins)
 * -- the backend's table of the native functions, so that such a call reaches the native
 * MPI unchanged.  The backend switches it (backend.hpp).  In a thread that has not called
 * MPI yet it is the loader table (its initial value), whose every entry loads the backend
 * if needed, makes this thread's table the process's and calls on: so the dispatch itself
 * needs no test, and a call with arguments on the stack is a plain tail call. */
extern __thread void *const *anympi_thread_table __attribute__((visibility("hidden"), tls_model("initial-exec")));
extern void *const anympi_loader_table[ANYMPI_NFUNCS] __attribute__((visibility("hidden")));
/* Loads the backend if needed (or exits with one message naming what was tried) and
 * returns the table for this thread. */
void *const *anympi_load(void) __attribute__((visibility("hidden")));

#define ANYMPI_DISPATCH(ret, name, types, args) \
    return ((ret (*) types)anympi_thread_table[ANYMPI_IX_##name]) args
#define ANYMPI_LOADER(ret, name, params, types, args) \
    static ret load_##name params { return ((ret (*) types)anympi_load()[ANYMPI_IX_##name]) args; }

#define ANYMPI_ALIAS(name) \
    extern __typeof__(P##name) name __attribute__((weak, alias("P" #name)));

#endif
