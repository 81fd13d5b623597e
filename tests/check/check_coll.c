/* The checking mode's collective, one-sided and partitioned signatures (ANYMPI_CHECK=signatures,
 * abi/check) at 2 and 4 ranks: v/w, reduce-scatter, neighbourhood, nonblocking, persistent
 * (MPICH: Open MPI 4.1 has none), intercommunicator collectives, the _c forms (MPICH: Open MPI
 * 4.1 lacks most), one-sided, partitioned (MPICH).
 *   mismatch  each family's deliberate mismatch is MPI_ERR_TYPE with both ranks and both
 *             signatures in the message, and the program goes on (the same call, correct,
 *             then moves the right data)
 *   clean     matching calls (MPI_IN_PLACE, zero counts, counts that differ per rank but match
 *             pairwise, different datatypes of equal signatures) report nothing (ctest fails
 *             the test on any "anympi check:" line), and the nonblocking pattern that would
 *             deadlock a checker blocking at the call completes
 * Built against the standard header; run over libmpi_abi with ANYMPI_CHECK=signatures. */
#include <mpi.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_util.h"

static int last, mpi4;

#define EXPECT_TYPE(rc, ...) EXPECT_ERROR((rc), MPI_ERR_TYPE, __VA_ARGS__)

/* "rank 3 sends": pieces built at run time */
static const char *fmt(char *buf, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, 128, f, ap);
    va_end(ap);
    return buf;
}

static int *ints(int n, int base)
{
    int *p = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (int k = 0; k < n; ++k) p[k] = base + k;
    return p;
}

/* a periodic ring (cart, 1-D) with the world's error handler */
static MPI_Comm ring(int periodic)
{
    MPI_Comm c;
    int dims[1] = {size}, periods[1] = {periodic};
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c));
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return c;
}

/* two groups (even and odd world ranks) joined by an intercommunicator */
static MPI_Comm inter(int *color, int *lrank, int *lsize)
{
    MPI_Comm local, ic;
    *color = rank % 2;
    OK(MPI_Comm_split(MPI_COMM_WORLD, *color, rank, &local));
    MPI_Comm_rank(local, lrank);
    MPI_Comm_size(local, lsize);
    OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, *color ? 0 : 1, 99, &ic));
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    MPI_Comm_free(&local);
    return ic;
}

/* ------------------------------------------------------------------------------------------ */

static void mismatch(void)
{
    char a[128], b[128], c[128];
    int *rc = ints(size, 1), *sc = ints(size, 1), *rd = ints(size, 0), *sd = ints(size, 0);
    for (int k = 0; k < size; ++k) rd[k] = sd[k] = k * size;
    int *buf = ints(size * size, 0), *out = ints(size * size, 100 * rank);

    /* Gatherv: the last rank sends floats, the root receives ints */
    {
        for (int k = 0; k < size; ++k) rc[k] = k + 1;
        int rcv = MPI_Gatherv(out, rank + 1, rank == last ? MPI_FLOAT : MPI_INT, buf, rc, rd, MPI_INT, 0, MPI_COMM_WORLD);
        EXPECT_TYPE(rcv, "MPI_Gatherv", "(root 0)", fmt(a, "rank %d sends %d × MPI_FLOAT to rank 0", last, last + 1),
                    fmt(b, "which receives %d × MPI_INT", last + 1));
        /* the program goes on: the correct call moves the data */
        OK(MPI_Gatherv(out, rank + 1, MPI_INT, buf, rc, rd, MPI_INT, 0, MPI_COMM_WORLD));
        if (rank == 0) EXPECT(buf[last * size + last] == 100 * last + last, "gatherv data after the report");
    }
    /* Scatterv: the last rank posts one element more than the root sends it */
    {
        int rcv = MPI_Scatterv(out, sc, sd, MPI_INT, buf, rank + 1 + (rank == last), MPI_INT, 0, MPI_COMM_WORLD);
        EXPECT_TYPE(rcv, "MPI_Scatterv", fmt(a, "rank 0 sends %d × MPI_INT to rank %d", last + 1, last),
                    fmt(b, "which receives %d × MPI_INT", last + 2), "the lengths differ");
    }
    /* Allgatherv: rank 1 receives unsigned */
    {
        int rcv = MPI_Allgatherv(out, rank + 1, MPI_INT, buf, rc, rd, rank == 1 ? MPI_UNSIGNED : MPI_INT, MPI_COMM_WORLD);
        EXPECT_TYPE(rcv, "MPI_Allgatherv", "rank 0 sends 1 × MPI_INT to rank 1", "which receives 1 × MPI_UNSIGNED");
    }
    /* Alltoallv: rank i sends j+1 elements to j; the last rank sends floats */
    {
        for (int k = 0; k < size; ++k) sc[k] = k + 1, rc[k] = rank + 1;
        int rcv = MPI_Alltoallv(out, sc, sd, rank == last ? MPI_FLOAT : MPI_INT, buf, rc, rd, MPI_INT, MPI_COMM_WORLD);
        EXPECT_TYPE(rcv, "MPI_Alltoallv", fmt(a, "rank %d sends 1 × MPI_FLOAT to rank 0", last),
                    "which receives 1 × MPI_INT");
        OK(MPI_Alltoallv(out, sc, sd, MPI_INT, buf, rc, rd, MPI_INT, MPI_COMM_WORLD));
        EXPECT(buf[last * size] == 100 * last + rank * size, "alltoallv data after the report");
        if (mpi4) {
            MPI_Count scc[4], rcc[4];
            MPI_Aint sdc[4], rdc[4];
            for (int k = 0; k < size; ++k) scc[k] = sc[k], rcc[k] = rc[k], sdc[k] = sd[k], rdc[k] = rd[k];
            rcv = MPI_Alltoallv_c(out, scc, sdc, rank == last ? MPI_FLOAT : MPI_INT, buf, rcc, rdc, MPI_INT, MPI_COMM_WORLD);
            EXPECT_TYPE(rcv, "MPI_Alltoallv_c", fmt(a, "rank %d sends 1 × MPI_FLOAT to rank 0", last));
        }
    }
    /* Alltoallw: two ints as contiguous(2, int) against 2 x MPI_INT match; rank 0 sends rank 1
     * two floats */
    {
        MPI_Datatype two_int, two_float, st[4], rt[4];
        MPI_Type_contiguous(2, MPI_INT, &two_int);
        MPI_Type_contiguous(2, MPI_FLOAT, &two_float);
        MPI_Type_commit(&two_int);
        MPI_Type_commit(&two_float);
        int one[4], two[4], bd[4];
        for (int k = 0; k < size; ++k) {
            one[k] = 1, two[k] = 2, bd[k] = (int)(2 * k * sizeof(int));
            st[k] = rank == 0 && k == 1 ? two_float : two_int, rt[k] = MPI_INT;
        }
        int rcv = MPI_Alltoallw(out, one, bd, st, buf, two, bd, rt, MPI_COMM_WORLD);
        EXPECT_TYPE(rcv, "MPI_Alltoallw", "rank 0 sends 2 × MPI_FLOAT to rank 1", "which receives 2 × MPI_INT");
        st[1] = two_int;
        OK(MPI_Alltoallw(out, one, bd, st, buf, two, bd, rt, MPI_COMM_WORLD));
        /* MPI_DATATYPE_NULL only for blocks of count 0; in place, the nulls are recvtypes' */
        st[last] = MPI_DATATYPE_NULL;
        rcv = MPI_Alltoallw(out, one, bd, st, buf, two, bd, rt, MPI_COMM_WORLD);
        EXPECT_TYPE(rcv, "MPI_Alltoallw: argument sendtypes is MPI_DATATYPE_NULL");
        rt[last] = MPI_DATATYPE_NULL;
        rcv = MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, one, bd, rt, MPI_COMM_WORLD);
        EXPECT_TYPE(rcv, "MPI_Alltoallw: argument recvtypes is MPI_DATATYPE_NULL");
        MPI_Type_free(&two_int);
        MPI_Type_free(&two_float);
    }
    /* Reduce_scatter_block: the last rank passes floats; Reduce_scatter: its recvcounts differ */
    {
        int rcv = MPI_Reduce_scatter_block(out, buf, 1, rank == last ? MPI_FLOAT : MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        EXPECT_TYPE(rcv, "MPI_Reduce_scatter_block", "rank 0 passes 1 × MPI_INT", fmt(a, "rank %d passes 1 × MPI_FLOAT", last));
        for (int k = 0; k < size; ++k) rc[k] = k + 1;
        if (rank == last) rc[0] = 2, rc[1] = 1;
        rcv = MPI_Reduce_scatter(out, buf, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        EXPECT_TYPE(rcv, "MPI_Reduce_scatter", "rank 0 passes recvcounts[0] = 1", fmt(a, "rank %d passes recvcounts[0] = 2", last));
        for (int k = 0; k < size; ++k) rc[k] = 1;
        OK(MPI_Reduce_scatter(out, buf, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        EXPECT(buf[0] == 100 * size * (size - 1) / 2 + size * rank, "reduce_scatter data after the report");
    }
    /* neighbourhood collectives on a periodic ring */
    {
        MPI_Comm r = ring(1);
        int rcv = MPI_Neighbor_allgather(out, 1, MPI_INT, buf, 1, rank == last ? MPI_FLOAT : MPI_INT, r);
        EXPECT_TYPE(rcv, "MPI_Neighbor_allgather", fmt(a, "rank 0 sends 1 × MPI_INT to rank %d", last),
                    "which receives 1 × MPI_FLOAT");
        rcv = MPI_Neighbor_alltoall(out, 1, rank == 0 ? MPI_DOUBLE : MPI_INT, buf, 1, MPI_INT, r);
        EXPECT_TYPE(rcv, "MPI_Neighbor_alltoall", "rank 0 sends 1 × MPI_DOUBLE to rank 1", "which receives 1 × MPI_INT");
        OK(MPI_Neighbor_alltoall(out, 1, MPI_INT, buf, 1, MPI_INT, r));
        EXPECT(buf[0] == 100 * ((rank + size - 1) % size) + 1, "neighbor_alltoall data after the report");
        /* nonblocking: only the receiver knows; it reports at the completion (a test loop) */
        MPI_Request q;
        OK(MPI_Ineighbor_allgather(out, 1, MPI_INT, buf, 1, rank == last ? MPI_FLOAT : MPI_INT, r, &q));
        int flag = 0, e = MPI_SUCCESS;
        while (!flag && e == MPI_SUCCESS) e = MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
        /* the first of its in-neighbours, the left one, names it */
        if (rank == last)
            EXPECT_TYPE(e, "MPI_Ineighbor_allgather", fmt(a, "rank %d sends 1 × MPI_INT to rank %d", last - 1, last),
                        "which receives 1 × MPI_FLOAT");
        else OK(e);
        EXPECT(q == MPI_REQUEST_NULL, "the request is complete after the report");
        MPI_Comm_free(&r);
    }
    /* nonblocking: reported when the request completes */
    {
        MPI_Request q[2];
        for (int k = 0; k < size; ++k) sc[k] = k + 1, rc[k] = rank + 1;
        OK(MPI_Ialltoallv(out, sc, sd, rank == last ? MPI_FLOAT : MPI_INT, buf, rc, rd, MPI_INT, MPI_COMM_WORLD, &q[0]));
        EXPECT_TYPE(MPI_Wait(&q[0], MPI_STATUS_IGNORE), "MPI_Ialltoallv",
                    fmt(a, "rank %d sends %d × MPI_FLOAT to rank %d", last, rank + 1, rank),
                    fmt(b, "which receives %d × MPI_INT", rank + 1));
        /* uniform: every rank reports; Waitall puts it in the status */
        MPI_Status st[2];
        int x = rank, y = 0;
        OK(MPI_Iallreduce(&x, &y, 1, rank == last ? MPI_FLOAT : MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[0]));
        OK(MPI_Ibarrier(MPI_COMM_WORLD, &q[1]));
        int e = MPI_Waitall(2, q, st);
        EXPECT(e == MPI_ERR_IN_STATUS, "Waitall gives MPI_ERR_IN_STATUS, not %d", e);
        EXPECT_TYPE(st[0].MPI_ERROR, "MPI_Iallreduce", "rank 0 passes 1 × MPI_INT", fmt(c, "rank %d passes 1 × MPI_FLOAT", last));
        OK(st[1].MPI_ERROR);
        /* the program goes on */
        OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[0]));
        OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
        EXPECT(y == size * (size - 1) / 2, "iallreduce data after the report");
    }
    /* persistent (MPI-4): reported at the first completion, not again */
    if (mpi4) {
        MPI_Request q;
        OK(MPI_Alltoallv_init(out, sc, sd, rank == last ? MPI_FLOAT : MPI_INT, buf, rc, rd, MPI_INT, MPI_COMM_WORLD,
                              MPI_INFO_NULL, &q));
        OK(MPI_Start(&q));
        EXPECT_TYPE(MPI_Wait(&q, MPI_STATUS_IGNORE), "MPI_Alltoallv_init", fmt(a, "rank %d sends", last), "MPI_FLOAT");
        OK(MPI_Start(&q));
        OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        OK(MPI_Request_free(&q));
    }
    /* intercommunicator: the even ranks' group against the odd ranks' */
    {
        int color, lrank, lsize;
        MPI_Comm ic = inter(&color, &lrank, &lsize);
        int root = color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        int v = 7, w = 0;
        const int odd_last = color == 1 && lrank == lsize - 1;
        int rcv = MPI_Bcast(color == 0 ? &v : &w, 1, odd_last ? MPI_FLOAT : MPI_INT, root, ic);
        if (odd_last)
            EXPECT_TYPE(rcv, "MPI_Bcast on ", ", an intercommunicator", "rank 0 of the other group sends 1 × MPI_INT",
                        fmt(a, "rank %d of this group receives 1 × MPI_FLOAT", lrank));
        else
            EXPECT_TYPE(rcv, "MPI_Bcast on ", ", an intercommunicator");
        rcv = MPI_Allreduce(&v, &w, 1, color == 1 && lrank == 0 ? MPI_FLOAT : MPI_INT, MPI_BOR, ic);
        EXPECT_TYPE(rcv, "MPI_Allreduce on ", ", an intercommunicator");
        rcv = MPI_Allgather(&v, 1, MPI_INT, buf, color == 0 ? 2 : 1, MPI_INT, ic);
        EXPECT_TYPE(rcv, "MPI_Allgather on ", ", an intercommunicator");
        OK(MPI_Bcast(color == 0 ? &v : &w, 1, MPI_INT, root, ic));
        if (color == 1) EXPECT(w == 7, "intercommunicator bcast data after the report");
        /* a v-collective: the root expects 2 elements from the other group's rank 0, which sends 1 */
        int ones[4] = {1, 1, 1, 1}, at[4] = {0, 2, 4, 6};
        if (root == MPI_ROOT) ones[0] = 2;
        rcv = MPI_Gatherv(&v, 1, MPI_INT, buf, ones, at, MPI_INT, root, ic);
        if (root == MPI_ROOT)
            EXPECT_TYPE(rcv, "MPI_Gatherv on ", ", an intercommunicator",
                        "rank 0 of the other group sends 1 × MPI_INT to rank 0 of this group, which receives 2 × MPI_INT");
        else
            EXPECT_TYPE(rcv, "MPI_Gatherv on ", ", an intercommunicator");
        /* nonblocking: the ranks of the offending pair report at the completion */
        MPI_Request q;
        OK(MPI_Ibcast(color == 0 ? &v : &w, 1, odd_last ? MPI_FLOAT : MPI_INT, root, ic, &q));
        rcv = MPI_Wait(&q, MPI_STATUS_IGNORE);
        if (odd_last)
            EXPECT_TYPE(rcv, "MPI_Ibcast on ", ", an intercommunicator", "rank 0 of the other group sends 1 × MPI_INT",
                        fmt(a, "rank %d of this group receives 1 × MPI_FLOAT", lrank));
        else if (root == MPI_ROOT)
            EXPECT_TYPE(rcv, "MPI_Ibcast on ", ", an intercommunicator", "rank 0 of this group sends 1 × MPI_INT");
        else
            OK(rcv);
        MPI_Comm_free(&ic);
    }
    /* partitioned (MPI-4): 2 partitions of 2 ints sent, 4 floats posted */
    if (mpi4 && rank < 2) {
        MPI_Request q;
        float f[4];
        if (rank == 0) OK(MPI_Psend_init(out, 2, 2, MPI_INT, 1, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &q));
        else OK(MPI_Precv_init(f, 1, 4, MPI_FLOAT, 0, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &q));
        OK(MPI_Start(&q));
        if (rank == 0) {
            OK(MPI_Pready(1, q));
            OK(MPI_Pready(0, q));
            OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        } else {
            EXPECT_TYPE(MPI_Wait(&q, MPI_STATUS_IGNORE), "rank 0 sent 4 × MPI_INT with tag 11 on MPI_COMM_WORLD",
                        "rank 1 posted 4 × MPI_FLOAT (MPI_Precv_init)");
        }
        OK(MPI_Request_free(&q));
    }
    /* one-sided: checked at the origin, through the window's error handler */
    {
        int wbuf[8] = {0};
        double d = 1.5;
        MPI_Win win;
        OK(MPI_Win_create(wbuf, sizeof wbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        OK(MPI_Win_fence(0, win));
        const int t = (rank + 1) % size;
        EXPECT_TYPE(MPI_Put(&d, 1, MPI_DOUBLE, t, 0, 2, MPI_INT, win), "MPI_Put on window",
                    fmt(a, "target rank %d", t), "the origin's 1 × MPI_DOUBLE into 2 × MPI_INT");
        EXPECT_TYPE(MPI_Get(&d, 1, MPI_DOUBLE, t, 0, 2, MPI_INT, win), "MPI_Get", "the target's 2 × MPI_INT into 1 × MPI_DOUBLE");
        EXPECT_TYPE(MPI_Accumulate(&d, 1, MPI_FLOAT, t, 0, 1, MPI_INT, MPI_SUM, win), "MPI_Accumulate",
                    "1 × MPI_FLOAT into 1 × MPI_INT");
        int one = 1, res = 0;
        EXPECT_TYPE(MPI_Get_accumulate(&one, 1, MPI_INT, &d, 1, MPI_FLOAT, t, 0, 1, MPI_INT, MPI_SUM, win),
                    "MPI_Get_accumulate", "the target's 1 × MPI_INT into 1 × MPI_FLOAT");
        /* the program goes on */
        OK(MPI_Accumulate(&one, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_SUM, win));
        OK(MPI_Win_fence(0, win));
        EXPECT(wbuf[0] == 1, "accumulate after the reports: %d", wbuf[0]);
        OK(MPI_Get_accumulate(NULL, 0, MPI_DOUBLE, &res, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_NO_OP, win));
        OK(MPI_Win_fence(0, win));
        EXPECT(res == 1, "get_accumulate with MPI_NO_OP: %d", res);
        OK(MPI_Win_free(&win));
    }
    free(rc), free(sc), free(rd), free(sd), free(buf), free(out);
}

/* ------------------------------------------------------------------------------------------ */

static void clean(void)
{
    const int n = size * size;
    int *buf = ints(64, 0), *out = ints(64, 100 * rank), *rc = ints(size, 1), *sc = ints(size, 1);
    int *rd = ints(size, 0), *sd = ints(size, 0);

    /* Gatherv / Scatterv / Allgatherv in place, counts differing per rank */
    for (int k = 0; k < size; ++k) rc[k] = k + 1, rd[k] = k * size;
    if (rank == 0) {
        for (int k = 0; k < n; ++k) buf[k] = -1;
        OK(MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, rc, rd, MPI_INT, 0, MPI_COMM_WORLD));
        EXPECT(buf[last * size + last] == 100 * last + last && buf[0] == -1, "gatherv in place");
        OK(MPI_Scatterv(buf, rc, rd, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, 0, MPI_COMM_WORLD));
    } else {
        OK(MPI_Gatherv(out, rank + 1, MPI_INT, NULL, NULL, NULL, MPI_INT, 0, MPI_COMM_WORLD));
        OK(MPI_Scatterv(NULL, NULL, NULL, MPI_INT, buf, rank + 1, MPI_INT, 0, MPI_COMM_WORLD));
        EXPECT(buf[rank] == 100 * rank + rank, "scatterv");
    }
    for (int k = 0; k < n; ++k) buf[k] = k / size == rank ? 100 * rank + k % size : -1;
    OK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, rc, rd, MPI_INT, MPI_COMM_WORLD));
    EXPECT(buf[last * size + last] == 100 * last + last, "allgatherv in place");

    /* Alltoallv: rank i sends (i + j) % 3 elements to j (zero for some pairs); in place with
     * the symmetric counts */
    for (int k = 0; k < size; ++k) sc[k] = (rank + k) % 3, rc[k] = (k + rank) % 3, sd[k] = rd[k] = k * size;
    OK(MPI_Alltoallv(out, sc, sd, MPI_INT, buf, rc, rd, MPI_INT, MPI_COMM_WORLD));
    if (rc[last]) EXPECT(buf[last * size] == 100 * last + rank * size, "alltoallv with zero counts");
    OK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, rc, rd, MPI_INT, MPI_COMM_WORLD));
    if (mpi4) {
        MPI_Count scc[4], rcc[4];
        MPI_Aint sdc[4], rdc[4];
        for (int k = 0; k < size; ++k) scc[k] = sc[k], rcc[k] = rc[k], sdc[k] = sd[k], rdc[k] = rd[k];
        OK(MPI_Alltoallv_c(out, scc, sdc, MPI_INT, buf, rcc, rdc, MPI_INT, MPI_COMM_WORLD));
        for (int k = 0; k < size; ++k) rcc[k] = 1;
        OK(MPI_Gatherv_c(out, 1, MPI_INT, buf, rank == 0 ? rcc : NULL, rdc, MPI_INT, 0, MPI_COMM_WORLD));
    }

    /* Alltoallw: a different datatype per peer, equal signatures (a vector, a contiguous type
     * and two MPI_INTs are all 2 x MPI_INT) */
    {
        MPI_Datatype two, strided, st[4], rt[4];
        MPI_Type_contiguous(2, MPI_INT, &two);
        MPI_Type_vector(2, 1, 2, MPI_INT, &strided);
        MPI_Type_commit(&two);
        MPI_Type_commit(&strided);
        int one[4], twos[4], bd[4];
        for (int k = 0; k < size; ++k) {
            one[k] = 1, twos[k] = 2, bd[k] = (int)(4 * k * sizeof(int));
            st[k] = k % 2 ? strided : two, rt[k] = MPI_INT;
        }
        OK(MPI_Alltoallw(out, one, bd, st, buf, twos, bd, rt, MPI_COMM_WORLD));
        EXPECT(buf[4 * last] == 100 * last + 4 * rank, "alltoallw");
        OK(MPI_Alltoallw(out, twos, bd, rt, buf, one, bd, st, MPI_COMM_WORLD));
        MPI_Type_free(&two);
        MPI_Type_free(&strided);
    }

    /* Reduce_scatter(_block), one in place */
    for (int k = 0; k < size; ++k) rc[k] = k % 2 + 1;
    OK(MPI_Reduce_scatter(out, buf, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int k = 0; k < n; ++k) buf[k] = rank;
    OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(buf[0] == size * (size - 1) / 2, "reduce_scatter_block in place");

    /* neighbourhood: a ring with ends (MPI_PROC_NULL neighbours), a periodic one, a dist graph */
    {
        MPI_Comm r0 = ring(0), r1 = ring(1), g;
        int src[1] = {(rank + size - 1) % size}, dst[1] = {(rank + 1) % size};
        OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED, 1, dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
        MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
        OK(MPI_Neighbor_allgather(out, 1, MPI_INT, buf, 1, MPI_INT, r0));
        OK(MPI_Neighbor_allgather(out, 1, MPI_INT, buf, 1, MPI_INT, r1));
        EXPECT(buf[1] == 100 * ((rank + 1) % size), "neighbor_allgather");
        /* 2 elements from the left neighbour, 1 from the right: 1 to the left, 2 to the right */
        int two[2] = {2, 1}, d2[2] = {0, 2}, back[2] = {1, 2}, db[2] = {0, 1};
        OK(MPI_Neighbor_alltoallv(out, back, db, MPI_INT, buf, two, d2, MPI_INT, r1));
        /* (at 2 ranks both neighbours are the same rank, and MPICH 4.0 moves these blocks
         * otherwise than Open MPI: the data is checked where the neighbours differ) */
        if (size > 2) EXPECT(buf[0] == 100 * src[0] + 1 && buf[2] == 100 * dst[0], "neighbor_alltoallv");
        OK(MPI_Neighbor_alltoall(out, 1, MPI_INT, buf, 1, MPI_INT, g));
        EXPECT(buf[0] == 100 * src[0], "neighbor_alltoall on a dist graph");
        MPI_Datatype pair, st[1], rt[1];
        MPI_Type_contiguous(2, MPI_INT, &pair);
        MPI_Type_commit(&pair);
        int one[1] = {1}, twos[1] = {2};
        MPI_Aint z[1] = {0};
        st[0] = pair, rt[0] = MPI_INT;
        OK(MPI_Neighbor_alltoallw(out, one, z, st, buf, twos, z, rt, g));
        int zi[1] = {0};
        OK(MPI_Neighbor_allgatherv(out, 2, MPI_INT, buf, twos, zi, MPI_INT, g));
        MPI_Request q;
        OK(MPI_Ineighbor_alltoall(out, 1, MPI_INT, buf, 1, MPI_INT, r1, &q));
        OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        if (mpi4) {
            OK(MPI_Neighbor_allgather_init(out, 1, MPI_INT, buf, 1, MPI_INT, r1, MPI_INFO_NULL, &q));
            for (int k = 0; k < 2; ++k) {
                OK(MPI_Start(&q));
                OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
            }
            OK(MPI_Request_free(&q));
        }
        /* a graph topology: the ring again, each rank's two neighbours */
        MPI_Comm gr;
        int index[4], edges[8];
        for (int k = 0; k < size; ++k) {
            index[k] = 2 * (k + 1);
            edges[2 * k] = (k + size - 1) % size, edges[2 * k + 1] = (k + 1) % size;
        }
        OK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &gr));
        MPI_Comm_set_errhandler(gr, MPI_ERRORS_RETURN);
        OK(MPI_Neighbor_allgather(out, 1, MPI_INT, buf, 1, MPI_INT, gr));
        EXPECT(buf[1] == 100 * dst[0], "neighbor_allgather on a graph");
        MPI_Comm_free(&gr);
        MPI_Type_free(&pair);
        MPI_Comm_free(&g);
        MPI_Comm_free(&r0);
        MPI_Comm_free(&r1);
    }

    /* nonblocking: the pattern a checker that blocked at the call would deadlock */
    {
        int v = rank == 0 ? 42 : 0, m = 0;
        MPI_Request q;
        if (rank == 0) {
            OK(MPI_Ibcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD, &q));
            OK(MPI_Send(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
            OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        } else if (rank == 1) {
            OK(MPI_Recv(&m, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            OK(MPI_Ibcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD, &q));
            OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        } else {
            OK(MPI_Ibcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD, &q));
            OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        }
        EXPECT(v == 42, "ibcast");
    }
    /* nonblocking collectives mixed with point-to-point, completed by test loops and the
     * multiple completions */
    {
        MPI_Request q[4];
        int x = rank + 1, y = 0, p = -1, from = (rank + size - 1) % size;
        for (int k = 0; k < size; ++k) rc[k] = k + 1, rd[k] = k * size;
        OK(MPI_Iallgatherv(out, rank + 1, MPI_INT, buf, rc, rd, MPI_INT, MPI_COMM_WORLD, &q[0]));
        OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[1]));
        OK(MPI_Irecv(&p, 1, MPI_INT, from, 3, MPI_COMM_WORLD, &q[2]));
        OK(MPI_Isend(&x, 1, MPI_INT, (rank + 1) % size, 3, MPI_COMM_WORLD, &q[3]));
        int done = 0, idx[4], outc = 0;
        while (done < 4) {
            OK(MPI_Testsome(4, q, &outc, idx, MPI_STATUSES_IGNORE));
            if (outc != MPI_UNDEFINED) done += outc;
        }
        EXPECT(y == size * (size + 1) / 2 && p == from + 1, "iallreduce and p2p");
        EXPECT(buf[last * size + last] == 100 * last + last, "iallgatherv");
        for (int k = 0; k < size; ++k) sc[k] = (rank + k) % 3, rc[k] = (k + rank) % 3;
        OK(MPI_Ialltoallv(out, sc, sd, MPI_INT, buf, rc, rd, MPI_INT, MPI_COMM_WORLD, &q[0]));
        int g1[4], g2[4], g3[4];  /* outstanding operations never share a receive buffer */
        OK(MPI_Igather(out, 1, MPI_INT, g1, 1, MPI_INT, 0, MPI_COMM_WORLD, &q[1]));
        OK(MPI_Iscatter(g2, 1, MPI_INT, rank == 0 ? MPI_IN_PLACE : g2, 1, MPI_INT, 0, MPI_COMM_WORLD, &q[2]));
        OK(MPI_Ireduce_scatter_block(out, g3, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &q[3]));
        int index = 0, flag = 0;
        for (done = 0; done < 4;) {
            OK(MPI_Testany(4, q, &index, &flag, MPI_STATUS_IGNORE));
            if (flag && index != MPI_UNDEFINED) ++done;
            if (flag && index == MPI_UNDEFINED) break;
        }
        EXPECT(done == 4, "testany completed %d of 4", done);
        /* a communicator freed while its collective is pending (allowed; Open MPI 4.1.4 itself
         * crashes in the MPI_Wait, with or without the checker) */
        if (mpi4) {
            MPI_Comm d;
            OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
            OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_MAX, d, &q[0]));
            OK(MPI_Comm_free(&d));
            OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
            EXPECT(y == size, "iallreduce on a freed communicator");
        }
        OK(MPI_Ialltoall(out, 1, MPI_INT, buf, 1, MPI_INT, MPI_COMM_WORLD, &q[0]));
        OK(MPI_Testall(1, q, &flag, MPI_STATUSES_IGNORE));
        while (!flag) OK(MPI_Testall(1, q, &flag, MPI_STATUSES_IGNORE));
        EXPECT(buf[last] == 100 * last + rank, "ialltoall");
    }
    /* persistent (MPI-4) */
    if (mpi4) {
        MPI_Request q[2];
        int x = 1, y = 0;
        OK(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]));
        OK(MPI_Alltoallv_init(out, sc, sd, MPI_INT, buf, rc, rd, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &q[1]));
        for (int k = 0; k < 2; ++k) {
            OK(MPI_Startall(2, q));
            OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
            EXPECT(y == size, "allreduce_init");
        }
        OK(MPI_Request_free(&q[0]));
        OK(MPI_Request_free(&q[1]));
    }
    /* intercommunicator collectives */
    {
        int color, lrank, lsize;
        MPI_Comm ic = inter(&color, &lrank, &lsize);
        const int rsize = color == 0 ? size / 2 : (size + 1) / 2;
        int root = color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        int v = color == 0 ? 9 : 0, w = 0;
        OK(MPI_Bcast(&v, 1, MPI_INT, root, ic));
        EXPECT(v == 9, "intercommunicator bcast");
        OK(MPI_Allreduce(&lrank, &w, 1, MPI_INT, MPI_SUM, ic));
        EXPECT(w == rsize * (rsize - 1) / 2, "intercommunicator allreduce");
        OK(MPI_Allgather(&v, 1, MPI_INT, buf, 1, MPI_INT, ic));
        OK(MPI_Alltoall(out, 1, MPI_INT, buf, 1, MPI_INT, ic));
        OK(MPI_Gather(&v, 1, MPI_INT, buf, 1, MPI_INT, root, ic));
        OK(MPI_Scatter(out, 1, MPI_INT, buf, 1, MPI_INT, root, ic));
        OK(MPI_Reduce(&v, &w, 1, MPI_INT, MPI_SUM, root, ic));
        OK(MPI_Barrier(ic));
        int ones[4] = {1, 1, 1, 1}, at[4] = {0, 1, 2, 3};
        OK(MPI_Alltoallv(out, ones, at, MPI_INT, buf, ones, at, MPI_INT, ic));
        OK(MPI_Allgatherv(&v, 1, MPI_INT, buf, ones, at, MPI_INT, ic));
        OK(MPI_Scatterv(out, ones, at, MPI_INT, buf, 1, MPI_INT, root, ic));
        MPI_Request q;
        OK(MPI_Ialltoallv(out, ones, at, MPI_INT, buf, ones, at, MPI_INT, ic, &q));
        OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        OK(MPI_Iallreduce(&lrank, &w, 1, MPI_INT, MPI_SUM, ic, &q));
        OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        EXPECT(w == rsize * (rsize - 1) / 2, "intercommunicator iallreduce");
        OK(MPI_Igather(&v, 1, MPI_INT, buf, 1, MPI_INT, root, ic, &q));
        OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        MPI_Comm_free(&ic);
    }
    /* partitioned (MPI-4): 2 x 2 ints sent, 1 x 4 ints received, started twice */
    if (mpi4 && rank < 2) {
        MPI_Request q;
        for (int k = 0; k < 4; ++k) buf[k] = -1;
        if (rank == 0) OK(MPI_Psend_init(out, 2, 2, MPI_INT, 1, 12, MPI_COMM_WORLD, MPI_INFO_NULL, &q));
        else OK(MPI_Precv_init(buf, 1, 4, MPI_INT, 0, 12, MPI_COMM_WORLD, MPI_INFO_NULL, &q));
        for (int k = 0; k < 2; ++k) {
            OK(MPI_Start(&q));
            if (rank == 0) OK(MPI_Pready_range(0, 1, q));
            OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        }
        if (rank == 1) EXPECT(buf[3] == 3, "partitioned data %d", buf[3]);
        OK(MPI_Request_free(&q));
    }
    /* one-sided: equal signatures in different shapes */
    {
        int wbuf[8] = {0}, two[2] = {3, 4}, back[2] = {0, 0};
        MPI_Datatype pair;
        MPI_Type_contiguous(2, MPI_INT, &pair);
        MPI_Type_commit(&pair);
        MPI_Win win;
        OK(MPI_Win_create(wbuf, sizeof wbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        const int t = (rank + 1) % size;
        OK(MPI_Win_fence(0, win));
        OK(MPI_Put(two, 1, pair, t, 0, 2, MPI_INT, win));
        OK(MPI_Win_fence(0, win));
        OK(MPI_Get(back, 2, MPI_INT, t, 0, 1, pair, win));
        OK(MPI_Accumulate(two, 2, MPI_INT, t, 2, 1, pair, MPI_SUM, win));
        OK(MPI_Win_fence(0, win));
        EXPECT(back[1] == 4 && wbuf[3] == 4, "one-sided data");
        OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
        MPI_Request q;  /* request-based: in a passive-target epoch */
        OK(MPI_Win_lock_all(0, win));
        OK(MPI_Rget(back, 1, pair, t, 2, 2, MPI_INT, win, &q));
        OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        OK(MPI_Win_unlock_all(win));
        EXPECT(back[1] == 4, "rget");
        MPI_Type_free(&pair);
        OK(MPI_Win_free(&win));
    }
    free(buf), free(out), free(rc), free(sc), free(rd), free(sd);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s mismatch|clean\n", argv[0]);
        return 2;
    }
    const char *mode = getenv("ANYMPI_CHECK"), *backend = getenv("ANYMPI_BACKEND");
    if (!mode || !strstr(mode, "signatures") || !backend) {
        fprintf(stderr, "check_coll: needs ANYMPI_CHECK=signatures and ANYMPI_BACKEND\n");
        return 2;
    }
    /* persistent collectives, the v/w _c forms, partitioned: MPICH only (docs/coverage.md) */
    mpi4 = strcmp(backend, "mpich") == 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    last = size - 1;
    if (size < 2 || size > 4) {
        fprintf(stderr, "check_coll: run with 2 to 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (!strcmp(argv[1], "mismatch")) mismatch();
    else if (!strcmp(argv[1], "clean")) clean();
    else {
        fprintf(stderr, "check_coll: unknown scenario %s\n", argv[1]);
        failures = 1;
    }
    return finish(argv[1]);
}
