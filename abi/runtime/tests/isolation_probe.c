/* LD_PRELOADed in front of everything: defines MPI_* names that MPI libraries (ROMIO in
 * particular) call by name internally.  A call that reaches us from anywhere but the test
 * program itself means the native MPI resolved one of its own internal calls into the global
 * scope -- into anympi's exports -- which the backend's isolation must prevent. */
#define _GNU_SOURCE
#include <mpi.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

static long own_calls, foreign_calls;
static char first_foreign[256];

__attribute__((visibility("default"))) long isolation_probe_foreign_calls(void) { return foreign_calls; }
__attribute__((visibility("default"))) long isolation_probe_own_calls(void) { return own_calls; }
__attribute__((visibility("default"))) const char *isolation_probe_first_foreign(void) { return first_foreign; }

static void note(const char *name, void *caller)
{
    Dl_info caller_info, main_info;
    /* the main program's headers lie inside the main program */
    void *main_addr = (void *)getauxval(AT_PHDR);
    if (dladdr(caller, &caller_info) && dladdr(main_addr, &main_info) &&
        caller_info.dli_fbase == main_info.dli_fbase) {
        ++own_calls;
        return;
    }
    if (!foreign_calls++)
        snprintf(first_foreign, sizeof first_foreign, "%s called from %s", name,
                 caller_info.dli_fname ? caller_info.dli_fname : "?");
}

#define PROBE(ret, name, params, args)                                    \
    __attribute__((visibility("default"))) ret name params                \
    {                                                                     \
        note(#name, __builtin_return_address(0));                         \
        return P##name args;                                              \
    }

PROBE(int, MPI_Comm_dup, (MPI_Comm c, MPI_Comm *n), (c, n))
PROBE(int, MPI_Comm_free, (MPI_Comm *c), (c))
PROBE(int, MPI_Comm_rank, (MPI_Comm c, int *r), (c, r))
PROBE(int, MPI_Comm_size, (MPI_Comm c, int *s), (c, s))
PROBE(int, MPI_Comm_test_inter, (MPI_Comm c, int *f), (c, f))
PROBE(int, MPI_Comm_group, (MPI_Comm c, MPI_Group *g), (c, g))
PROBE(int, MPI_Barrier, (MPI_Comm c), (c))
PROBE(int, MPI_Bcast, (void *b, int n, MPI_Datatype t, int r, MPI_Comm c), (b, n, t, r, c))
PROBE(int, MPI_Allreduce, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c), (s, r, n, t, o, c))
PROBE(int, MPI_Allgather, (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c),
      (s, sn, st, r, rn, rt, c))
PROBE(int, MPI_Alltoall, (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c),
      (s, sn, st, r, rn, rt, c))
PROBE(int, MPI_Gather, (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm c),
      (s, sn, st, r, rn, rt, root, c))
PROBE(int, MPI_Send, (const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c), (b, n, t, d, tag, c))
PROBE(int, MPI_Recv, (void *b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Status *st), (b, n, t, s, tag, c, st))
PROBE(int, MPI_Isend, (const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request *q), (b, n, t, d, tag, c, q))
PROBE(int, MPI_Irecv, (void *b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Request *q), (b, n, t, s, tag, c, q))
PROBE(int, MPI_Waitall, (int n, MPI_Request *q, MPI_Status *s), (n, q, s))
PROBE(int, MPI_Type_size, (MPI_Datatype t, int *s), (t, s))
PROBE(int, MPI_Type_get_extent, (MPI_Datatype t, MPI_Aint *lb, MPI_Aint *e), (t, lb, e))
PROBE(int, MPI_Type_get_true_extent, (MPI_Datatype t, MPI_Aint *lb, MPI_Aint *e), (t, lb, e))
PROBE(int, MPI_Type_get_envelope, (MPI_Datatype t, int *a, int *b, int *c, int *d), (t, a, b, c, d))
PROBE(int, MPI_Type_commit, (MPI_Datatype *t), (t))
PROBE(int, MPI_Type_free, (MPI_Datatype *t), (t))
PROBE(int, MPI_Type_contiguous, (int n, MPI_Datatype o, MPI_Datatype *t), (n, o, t))
PROBE(int, MPI_Info_create, (MPI_Info *i), (i))
PROBE(int, MPI_Info_set, (MPI_Info i, const char *k, const char *v), (i, k, v))
PROBE(int, MPI_Info_get, (MPI_Info i, const char *k, int l, char *v, int *f), (i, k, l, v, f))
PROBE(int, MPI_Info_free, (MPI_Info *i), (i))
PROBE(int, MPI_Info_dup, (MPI_Info i, MPI_Info *n), (i, n))
PROBE(int, MPI_Error_class, (int e, int *c), (e, c))
PROBE(int, MPI_Initialized, (int *f), (f))
PROBE(int, MPI_Finalized, (int *f), (f))
PROBE(int, MPI_Comm_set_errhandler, (MPI_Comm c, MPI_Errhandler e), (c, e))
PROBE(int, MPI_Comm_call_errhandler, (MPI_Comm c, int e), (c, e))
PROBE(int, MPI_Type_create_subarray, (int n, const int a[], const int b[], const int c[], int o, MPI_Datatype t, MPI_Datatype *r),
      (n, a, b, c, o, t, r))
