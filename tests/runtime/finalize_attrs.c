/* MPI_Finalize first deletes the attributes of MPI_COMM_SELF, in the reverse order in which
 * they were set (MPI-4.1 11.2.4), while MPI is still fully usable -- the standard's hook for
 * "run this at the end", which libraries rely on.  A keyval freed before then still gets its
 * delete callback, with its extra_state.  Checked after MPI_Finalize returns, so the verdict
 * is local to each process (its exit status). */
#include "check.h"

#include <stdint.h>

enum { nkeys = 4 };
static int order[nkeys], deleted, usable = 1, rank = -1;
static int extras[nkeys];

static int delete_in_order(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)keyval;
    int finalized = 1, r = -1;
    MPI_Finalized(&finalized);
    /* still before the rest of MPI_Finalize: point-to-point to itself and queries work */
    int out = (int)(intptr_t)value, in = -1;
    if (finalized || comm != MPI_COMM_SELF || MPI_Comm_rank(MPI_COMM_WORLD, &r) != MPI_SUCCESS || r != rank ||
        MPI_Sendrecv(&out, 1, MPI_INT, 0, 3, &in, 1, MPI_INT, 0, 3, MPI_COMM_SELF, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
        in != out)
        usable = 0;
    if (deleted < nkeys) order[deleted] = (int)((int *)extra - extras);
    ++deleted;
    return MPI_SUCCESS;
}

/* Set first, so deleted last: an error it returns is ignored by Open MPI's MPI_Finalize (MPICH's
 * aborts the job, so the program sets it only over Open MPI). anympi, which frees a
 * MPI_COMM_SELF of its own there, aborted. */
static int failing_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    ++deleted;
    return MPI_ERR_OTHER;
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "finalize_attrs");
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    int failing = MPI_KEYVAL_INVALID, expected = nkeys;
    if (check_under() == CHECK_UNDER_OPENMPI) {
        MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, failing_delete, &failing, NULL));
        MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, failing, NULL));
        ++expected;
    }
    int keyvals[nkeys];
    for (int i = 0; i < nkeys; ++i) {
        MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_in_order, &keyvals[i], &extras[i]));
        MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, keyvals[i], (void *)(intptr_t)(100 + i)));
    }
    MPI_OK(MPI_Comm_free_keyval(&keyvals[1])); /* its attribute stays, and is deleted in turn */
    CHECK_EQ(deleted, 0);
    /* the verdict of the checks so far, collectively, before finalizing */
    int local = check_failures_, global = 0;
    MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    if (MPI_Finalize() != MPI_SUCCESS) ++global;
    int bad = global != 0 || deleted != expected || !usable;
    for (int i = 0; i < nkeys && i < deleted; ++i) bad |= order[i] != nkeys - 1 - i;
    if (bad) {
        fprintf(stderr, "finalize_attrs: rank %d: %d delete callbacks (expected %d), order", rank, deleted, expected);
        for (int i = 0; i < nkeys && i < deleted; ++i) fprintf(stderr, " %d", order[i]);
        fprintf(stderr, " (expected 3 2 1 0), MPI %s usable in them, %d failures before\n", usable ? "was" : "was NOT",
                global);
    } else if (rank == 0) {
        printf("finalize_attrs: delete callbacks in reverse order of setting, MPI usable in them\n");
    }
    return bad;
}
