/* The checking mode (ANYMPI_CHECK, abi/check) at 2 ranks: one program, one scenario per run.
 *   mismatch  deliberate signature mismatches are reported as MPI_ERR_TYPE with a message naming
 *             both ranks, the tag, the communicator and both signatures; the program continues
 *   clean     matching programs (wildcards, nonblocking, out-of-order completion, probes,
 *             persistent, derived types, collectives) report nothing (ctest fails the test
 *             on any "anympi check:" line)
 *   args      every argument check: the right error class and a message naming the argument
 *   off       ANYMPI_CHECK unset: nothing is checked, nothing printed
 * Built against the standard header; run over libmpi_abi with ANYMPI_CHECK set. */
#include <mpi.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_util.h"

/* ------------------------------------------------------------------------------------------ */

static void mismatch(void)
{
    double d[4] = {1.5, 2.5, 3.5, 4.5};
    int ints[8] = {0};

    /* the example: 1 double sent, 2 ints posted */
    if (rank == 0) {
        OK(MPI_Send(d, 1, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD));
    } else {
        /* what the receive prints on stderr, caught in a file */
        FILE *caught = tmpfile();
        fflush(stderr);
        int saved = dup(2);
        dup2(fileno(caught), 2);
        MPI_Status st;
        int rc = MPI_Recv(ints, 2, MPI_INT, 0, 7, MPI_COMM_WORLD, &st);
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        char printed[2048] = {0};
        rewind(caught);
        size_t got = fread(printed, 1, sizeof printed - 1, caught);
        fclose(caught);
        fwrite(printed, 1, got, stderr);
        EXPECT_ERROR(rc, MPI_ERR_TYPE, "rank 0 sent 1 \xc3\x97 MPI_DOUBLE with tag 7 on MPI_COMM_WORLD",
                     "rank 1 posted 2 \xc3\x97 MPI_INT", "mismatch at element 0 (MPI_DOUBLE vs MPI_INT)");
        EXPECT(st.MPI_SOURCE == 0 && st.MPI_TAG == 7, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
        const char *line = "anympi check: rank 0 sent 1 \xc3\x97 MPI_DOUBLE with tag 7 on MPI_COMM_WORLD, rank 1 posted "
                           "2 \xc3\x97 MPI_INT (MPI_Recv): mismatch at element 0 (MPI_DOUBLE vs MPI_INT)\n";
        const char *at = strstr(printed, line);
        EXPECT(at && !strstr(at + 1, "anympi check:"), "stderr had \"%s\", expected that line once", printed);
    }

    /* the program continues: a matching exchange right after works and carries the data */
    if (rank == 0) {
        OK(MPI_Send(d, 2, MPI_DOUBLE, 1, 8, MPI_COMM_WORLD));
    } else {
        double r[2] = {0};
        OK(MPI_Recv(r, 2, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        EXPECT(r[0] == 1.5 && r[1] == 2.5, "data %g %g", r[0], r[1]);
    }

    /* nonblocking, a wildcard receive, a named communicator: reported at MPI_Wait */
    MPI_Comm halo;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &halo));
    OK(MPI_Comm_set_name(halo, "halo"));
    OK(MPI_Comm_set_errhandler(halo, MPI_ERRORS_RETURN));
    if (rank == 1) {
        OK(MPI_Send(ints, 3, MPI_INT, 0, 11, halo));
    } else {
        MPI_Request rq;
        OK(MPI_Irecv(d, 3, MPI_FLOAT, MPI_ANY_SOURCE, MPI_ANY_TAG, halo, &rq));
        int rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
        EXPECT_ERROR(rc, MPI_ERR_TYPE, "rank 1 sent 3 \xc3\x97 MPI_INT with tag 11 on halo", "rank 0 posted 3 \xc3\x97 MPI_FLOAT",
                     "(MPI_INT vs MPI_FLOAT)");
    }

    /* a derived type against the wrong basic type, mismatch deeper inside the message */
    MPI_Datatype pair;
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8};
    MPI_Datatype tys[2] = {MPI_DOUBLE, MPI_INT};
    OK(MPI_Type_create_struct(2, bl, disp, tys, &pair));
    OK(MPI_Type_commit(&pair));
    if (rank == 0) {
        char buf[64] = {0};
        OK(MPI_Send(buf, 2, pair, 1, 3, MPI_COMM_WORLD));
    } else {
        double r[4];
        int rc = MPI_Recv(r, 4, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        EXPECT_ERROR(rc, MPI_ERR_TYPE, "rank 0 sent 2 \xc3\x97 (MPI_DOUBLE, MPI_INT) with tag 3",
                     "posted 4 \xc3\x97 MPI_DOUBLE", "mismatch at element 1 (MPI_INT vs MPI_DOUBLE)");
    }
    OK(MPI_Type_free(&pair));

    /* out-of-order completion: the mismatching receive completes through MPI_Waitsome,
     * after a matching one posted later; MPI_Sendrecv; persistent receive */
    if (rank == 0) {
        OK(MPI_Send(d, 1, MPI_DOUBLE, 1, 21, MPI_COMM_WORLD));
        OK(MPI_Send(ints, 1, MPI_INT, 1, 22, MPI_COMM_WORLD));
    } else {
        MPI_Request r[2];
        long l;
        int i1;
        OK(MPI_Irecv(&l, 1, MPI_LONG, 0, 21, MPI_COMM_WORLD, &r[0]));
        OK(MPI_Irecv(&i1, 1, MPI_INT, 0, 22, MPI_COMM_WORLD, &r[1]));
        MPI_Request rev[2] = {r[1], r[0]};
        int got = 0, out, ids[2], last = MPI_SUCCESS;
        MPI_Status sts[2];
        while (got < 2) {
            int rc = MPI_Waitsome(2, rev, &out, ids, sts);
            if (rc != MPI_SUCCESS) last = rc;
            for (int k = 0; k < out; ++k)
                if (rev[ids[k]] == MPI_REQUEST_NULL && ids[k] == 1 && rc == MPI_ERR_IN_STATUS)
                    EXPECT_ERROR(sts[k].MPI_ERROR, MPI_ERR_TYPE, "rank 0 sent 1 \xc3\x97 MPI_DOUBLE with tag 21",
                                 "posted 1 \xc3\x97 MPI_LONG");
            got += out;
        }
        EXPECT(last == MPI_ERR_IN_STATUS, "MPI_Waitsome returned %d, expected MPI_ERR_IN_STATUS", last);
    }
    {
        float f = 1;
        unsigned u = 1;
        int rc = MPI_Sendrecv(rank == 0 ? (void *)&f : (void *)&u, 1, rank == 0 ? MPI_FLOAT : MPI_UNSIGNED, 1 - rank, 23, ints, 1,
                              MPI_INT, 1 - rank, 23, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rank == 0)
            EXPECT_ERROR(rc, MPI_ERR_TYPE, "rank 1 sent 1 \xc3\x97 MPI_UNSIGNED with tag 23", "rank 0 posted 1 \xc3\x97 MPI_INT");
        else
            EXPECT_ERROR(rc, MPI_ERR_TYPE, "rank 0 sent 1 \xc3\x97 MPI_FLOAT with tag 23", "rank 1 posted 1 \xc3\x97 MPI_INT");
    }
    {
        MPI_Request r;
        if (rank == 0) OK(MPI_Send_init(d, 2, MPI_DOUBLE, 1, 24, MPI_COMM_WORLD, &r));
        else OK(MPI_Recv_init(ints, 4, MPI_INT, 0, 24, MPI_COMM_WORLD, &r));
        for (int k = 0; k < 2; ++k) {
            OK(MPI_Start(&r));
            int rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
            if (rank == 1) EXPECT_ERROR(rc, MPI_ERR_TYPE, "rank 0 sent 2 \xc3\x97 MPI_DOUBLE with tag 24", "posted 4 \xc3\x97 MPI_INT");
            else EXPECT(rc == MPI_SUCCESS, "persistent send %d", rc);
        }
        OK(MPI_Request_free(&r));
    }

    /* collectives: every rank gets the same MPI_ERR_TYPE, none starts the operation */
    double one = 1.0;
    int rc = rank == 0 ? MPI_Bcast(&one, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD) : MPI_Bcast(ints, 1, MPI_INT, 0, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_TYPE, "MPI_Bcast on MPI_COMM_WORLD (root 0)", "rank 0 sends 1 \xc3\x97 MPI_DOUBLE",
                 "rank 1 receives 1 \xc3\x97 MPI_INT", "(MPI_DOUBLE vs MPI_INT)");
    double s3[3] = {1, 2, 3}, r3[3];
    rc = MPI_Allreduce(s3, r3, rank == 0 ? 2 : 3, MPI_DOUBLE, MPI_SUM, halo);
    EXPECT_ERROR(rc, MPI_ERR_TYPE, "MPI_Allreduce on halo", "rank 0 passes 2 \xc3\x97 MPI_DOUBLE",
                 "rank 1 passes 3 \xc3\x97 MPI_DOUBLE");
    int g[4];
    rc = MPI_Gather(rank == 1 ? (void *)&one : (void *)ints, 1, rank == 1 ? MPI_DOUBLE : MPI_INT, g, 1, MPI_INT, 0,
                    MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_TYPE, "MPI_Gather on MPI_COMM_WORLD (root 0)", "rank 1 sends 1 \xc3\x97 MPI_DOUBLE",
                 "rank 0 receives 1 \xc3\x97 MPI_INT");

    /* ... and the communicator still works afterwards */
    OK(MPI_Allreduce(s3, r3, 3, MPI_DOUBLE, MPI_SUM, halo));
    EXPECT(r3[0] == 2 && r3[2] == 6, "allreduce %g %g", r3[0], r3[2]);
    OK(MPI_Comm_free(&halo));
}

/* ------------------------------------------------------------------------------------------ */

static void clean(void)
{
    const int peer = 1 - rank;
    int a[16], b[16];
    for (int i = 0; i < 16; ++i) a[i] = 100 * rank + i;

    /* blocking, then wildcards; a receive larger than the message (spare capacity) */
    if (rank == 0) {
        OK(MPI_Send(a, 4, MPI_INT, 1, 1, MPI_COMM_WORLD));
        OK(MPI_Send(a, 2, MPI_INT, 1, 2, MPI_COMM_WORLD));
    } else {
        MPI_Status st;
        OK(MPI_Recv(b, 16, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        int n = -1;
        MPI_Get_count(&st, MPI_INT, &n);
        EXPECT(st.MPI_TAG == 1 && n == 4 && b[3] == 3, "tag %d count %d b[3] %d", st.MPI_TAG, n, b[3]);
        OK(MPI_Recv(b, 2, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        EXPECT(st.MPI_TAG == 2, "tag %d", st.MPI_TAG);
    }

    /* out-of-order completion: 4 receives with different types, sent in reverse order */
    {
        double dv[4] = {0}, ds[4] = {1, 2, 3, 4};
        short sv[4] = {0}, ss[4] = {5, 6, 7, 8};
        long lv[4] = {0}, ls[4] = {9, 10, 11, 12};
        char cv[4] = {0}, cs[4] = {'a', 'b', 'c', 'd'};
        if (rank == 0) {
            MPI_Request r[4];
            OK(MPI_Isend(cs, 4, MPI_CHAR, 1, 40, MPI_COMM_WORLD, &r[0]));
            OK(MPI_Isend(ls, 4, MPI_LONG, 1, 30, MPI_COMM_WORLD, &r[1]));
            OK(MPI_Isend(ss, 4, MPI_SHORT, 1, 20, MPI_COMM_WORLD, &r[2]));
            OK(MPI_Isend(ds, 4, MPI_DOUBLE, 1, 10, MPI_COMM_WORLD, &r[3]));
            OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
        } else {
            MPI_Request r[4];
            OK(MPI_Irecv(dv, 4, MPI_DOUBLE, 0, 10, MPI_COMM_WORLD, &r[0]));
            OK(MPI_Irecv(sv, 4, MPI_SHORT, MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, &r[1]));
            OK(MPI_Irecv(lv, 4, MPI_LONG, 0, 30, MPI_COMM_WORLD, &r[2]));
            OK(MPI_Irecv(cv, 4, MPI_CHAR, MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, &r[3]));
            int done = 0, idx, out, ids[4];
            OK(MPI_Waitany(4, r, &idx, MPI_STATUS_IGNORE));
            ++done;
            while (done < 4) {
                MPI_Status sts[4];
                OK(MPI_Waitsome(4, r, &out, ids, sts));
                done += out;
            }
            EXPECT(dv[3] == 4 && sv[0] == 5 && lv[2] == 11 && cv[1] == 'b', "out-of-order data");
        }
    }

    /* the same source and tag, different signatures, completed in reverse posting order */
    {
        int i2[2] = {1, 2}, ri[2];
        double d2[2] = {3, 4}, rd[2];
        if (rank == 0) {
            OK(MPI_Send(i2, 2, MPI_INT, 1, 5, MPI_COMM_WORLD));
            OK(MPI_Send(d2, 2, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD));
        } else {
            MPI_Request r[2];
            OK(MPI_Irecv(ri, 2, MPI_INT, 0, 5, MPI_COMM_WORLD, &r[0]));
            OK(MPI_Irecv(rd, 2, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, &r[1]));
            MPI_Request rev[2] = {r[1], r[0]};
            int out, ids[2];
            MPI_Status sts[2];
            int got = 0;
            while (got < 2) {
                OK(MPI_Waitsome(2, rev, &out, ids, sts));
                got += out;
            }
            EXPECT(ri[1] == 2 && rd[1] == 4, "same-tag data");
        }
    }

    /* Test loop, Testall, Testany */
    if (rank == 0) {
        OK(MPI_Send(a, 3, MPI_INT, 1, 60, MPI_COMM_WORLD));
        OK(MPI_Send(a, 3, MPI_INT, 1, 61, MPI_COMM_WORLD));
        OK(MPI_Send(a, 3, MPI_INT, 1, 62, MPI_COMM_WORLD));
    } else {
        MPI_Request r;
        int flag = 0;
        OK(MPI_Irecv(b, 3, MPI_INT, 0, 60, MPI_COMM_WORLD, &r));
        while (!flag) OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
        MPI_Request rr[2];
        OK(MPI_Irecv(b, 3, MPI_INT, 0, 61, MPI_COMM_WORLD, &rr[0]));
        OK(MPI_Irecv(b + 3, 3, MPI_INT, 0, 62, MPI_COMM_WORLD, &rr[1]));
        flag = 0;
        while (!flag) OK(MPI_Testall(2, rr, &flag, MPI_STATUSES_IGNORE));
    }
    if (rank == 1) {
        OK(MPI_Send(a, 1, MPI_INT, 0, 63, MPI_COMM_WORLD));
    } else {
        MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        OK(MPI_Irecv(b, 1, MPI_INT, 1, 63, MPI_COMM_WORLD, &r[1]));
        int idx, flag = 0;
        while (!flag) OK(MPI_Testany(2, r, &idx, &flag, MPI_STATUS_IGNORE));
        EXPECT(idx == 1 && b[0] == 100, "testany idx %d b %d", idx, b[0]);
    }

    /* sendrecv, sendrecv_replace (both directions at once) */
    {
        MPI_Status st;
        OK(MPI_Sendrecv(a, 5, MPI_INT, peer, 70, b, 5, MPI_INT, peer, 70, MPI_COMM_WORLD, &st));
        EXPECT(b[4] == 100 * peer + 4, "sendrecv %d", b[4]);
        double x[2] = {rank, rank};
        OK(MPI_Sendrecv_replace(x, 2, MPI_DOUBLE, peer, 71, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        EXPECT(x[1] == peer, "replace %g", x[1]);
    }

    /* probe + recv, mprobe + mrecv, improbe + imrecv */
    if (rank == 0) {
        OK(MPI_Send(a, 7, MPI_INT, 1, 80, MPI_COMM_WORLD));
        OK(MPI_Send(a, 2, MPI_INT, 1, 81, MPI_COMM_WORLD));
        OK(MPI_Send(a, 3, MPI_INT, 1, 82, MPI_COMM_WORLD));
    } else {
        MPI_Status st;
        int n;
        OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_INT, &n);
        EXPECT(n == 7 && st.MPI_TAG == 80, "probe %d %d", n, st.MPI_TAG);
        OK(MPI_Recv(b, n, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_Message m;
        OK(MPI_Mprobe(0, 81, MPI_COMM_WORLD, &m, &st));
        OK(MPI_Mrecv(b, 2, MPI_INT, &m, MPI_STATUS_IGNORE));
        int flag = 0;
        while (!flag) OK(MPI_Improbe(0, 82, MPI_COMM_WORLD, &flag, &m, &st));
        MPI_Request r;
        OK(MPI_Imrecv(b, 3, MPI_INT, &m, &r));
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }

    /* persistent send and receive, started three times */
    {
        MPI_Request r;
        if (rank == 0) OK(MPI_Send_init(a, 4, MPI_INT, 1, 90, MPI_COMM_WORLD, &r));
        else OK(MPI_Recv_init(b, 4, MPI_INT, 0, 90, MPI_COMM_WORLD, &r));
        for (int k = 0; k < 3; ++k) {
            OK(MPI_Start(&r));
            OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        OK(MPI_Request_free(&r));
    }

    /* derived types with equal signatures but different layouts; MPI_PACKED; MPI_PROC_NULL */
    {
        /* MPI-6: resized(struct(double@0, double@16), lb=0, extent=32) * 3 against double * 6 */
        MPI_Datatype two, mpi6;
        int bl[2] = {1, 1};
        MPI_Aint disp[2] = {0, 16};
        MPI_Datatype tys[2] = {MPI_DOUBLE, MPI_DOUBLE};
        OK(MPI_Type_create_struct(2, bl, disp, tys, &two));
        OK(MPI_Type_create_resized(two, 0, 32, &mpi6));
        OK(MPI_Type_commit(&mpi6));
        double big[12], six[6];
        for (int i = 0; i < 12; ++i) big[i] = i;
        if (rank == 0) {
            OK(MPI_Send(big, 3, mpi6, 1, 100, MPI_COMM_WORLD));
            OK(MPI_Send(six, 6, MPI_DOUBLE, 1, 101, MPI_COMM_WORLD));
        } else {
            OK(MPI_Recv(six, 6, MPI_DOUBLE, 0, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            EXPECT(six[1] == 2 && six[5] == 10, "mpi6 data %g %g", six[1], six[5]);
            OK(MPI_Recv(big, 3, mpi6, 0, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        OK(MPI_Type_free(&mpi6));
        OK(MPI_Type_free(&two));

        /* a type freed and a new one made: the handle may come back, and must work */
        MPI_Datatype c2;
        OK(MPI_Type_contiguous(2, MPI_INT, &c2));
        OK(MPI_Type_commit(&c2));
        if (rank == 0) OK(MPI_Send(a, 3, c2, 1, 102, MPI_COMM_WORLD));
        else OK(MPI_Recv(b, 6, MPI_INT, 0, 102, MPI_COMM_WORLD, MPI_STATUS_IGNORE));

        /* the handle get_contents hands out is a reference: freeing it leaves c2's users alone */
        MPI_Datatype vec, inner;
        OK(MPI_Type_vector(2, 1, 2, c2, &vec));
        int ni, na, nd, comb, is[3];
        MPI_Aint as[1];
        OK(MPI_Type_get_envelope(vec, &ni, &na, &nd, &comb));
        OK(MPI_Type_get_contents(vec, 3, 0, 1, is, as, &inner));
        OK(MPI_Type_free(&inner));
        OK(MPI_Type_free(&vec));
        if (rank == 0) OK(MPI_Send(a, 1, c2, 1, 105, MPI_COMM_WORLD));
        else OK(MPI_Recv(b, 2, MPI_INT, 0, 105, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        OK(MPI_Type_free(&c2));

        char packed[64];
        int pos = 0;
        if (rank == 0) {
            OK(MPI_Pack(a, 3, MPI_INT, packed, sizeof packed, &pos, MPI_COMM_WORLD));
            OK(MPI_Send(packed, pos, MPI_PACKED, 1, 103, MPI_COMM_WORLD));
            OK(MPI_Send(a, 3, MPI_INT, 1, 104, MPI_COMM_WORLD));
        } else {
            OK(MPI_Recv(b, 3, MPI_INT, 0, 103, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            OK(MPI_Recv(packed, sizeof packed, MPI_PACKED, 0, 104, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        OK(MPI_Send(a, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
        OK(MPI_Recv(b, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }

    /* collectives, including MPI_IN_PLACE forms, on WORLD and on a split communicator */
    {
        double v[4] = {rank + 1.0, 2, 3, 4}, w[8];
        OK(MPI_Bcast(v, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD));
        EXPECT(v[0] == 1.0, "bcast %g", v[0]);
        v[0] = rank + 1.0;
        OK(MPI_Reduce(v, w, 4, MPI_DOUBLE, MPI_SUM, 1, MPI_COMM_WORLD));
        if (rank == 1) EXPECT(w[0] == 3.0, "reduce %g", w[0]);
        OK(MPI_Allreduce(v, w, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
        EXPECT(w[0] == 2.0, "allreduce %g", w[0]);
        OK(MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        EXPECT(v[0] == 3.0, "allreduce in place %g", v[0]);
        int mine[2] = {rank, rank}, all[4];
        OK(MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD));
        if (rank == 0) EXPECT(all[2] == 1, "gather %d", all[2]);
        if (rank == 0) OK(MPI_Gather(MPI_IN_PLACE, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD));
        else OK(MPI_Gather(mine, 2, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD));
        int sc[4] = {10, 11, 12, 13}, one[2];
        OK(MPI_Scatter(sc, 2, MPI_INT, one, 2, MPI_INT, 1, MPI_COMM_WORLD));
        EXPECT(one[0] == 10 + 2 * rank, "scatter %d", one[0]);
        /* the receive as a derived type of the same signature */
        MPI_Datatype c2;
        OK(MPI_Type_contiguous(2, MPI_INT, &c2));
        OK(MPI_Type_commit(&c2));
        OK(MPI_Allgather(mine, 2, MPI_INT, all, 1, c2, MPI_COMM_WORLD));
        EXPECT(all[0] == 0 && all[3] == 1, "allgather %d %d", all[0], all[3]);
        all[2 * rank] = all[2 * rank + 1] = 7 + rank;
        OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_INT, MPI_COMM_WORLD));
        EXPECT(all[0] == 7 && all[2] == 8, "allgather in place %d %d", all[0], all[2]);
        int to[4] = {rank, rank, rank, rank}, from[4];
        OK(MPI_Alltoall(to, 1, c2, from, 2, MPI_INT, MPI_COMM_WORLD));
        EXPECT(from[2] == 1 && from[0] == 0, "alltoall %d", from[2]);
        OK(MPI_Type_free(&c2));
        int s = rank + 1, sum = 0;
        OK(MPI_Scan(&s, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        EXPECT(sum == (rank == 0 ? 1 : 3), "scan %d", sum);

        MPI_Comm split;
        OK(MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &split));
        int srank;
        MPI_Comm_rank(split, &srank);
        OK(MPI_Bcast(&s, 1, MPI_INT, 0, split));
        EXPECT(s == 2, "split bcast %d", s); /* rank 1 of WORLD is rank 0 of split */
        if (srank == 0) OK(MPI_Send(a, 2, MPI_INT, 1, 5, split));
        else OK(MPI_Recv(b, 2, MPI_INT, 0, 5, split, MPI_STATUS_IGNORE));
        OK(MPI_Comm_free(&split));
        OK(MPI_Barrier(MPI_COMM_WORLD));
    }
}

/* ------------------------------------------------------------------------------------------ */

static void args(void)
{
    int buf[4] = {0};
    int rc;
    /* zero (uninitialized) handles */
    rc = MPI_Send(buf, 1, MPI_INT, 0, 0, (MPI_Comm)0);
    EXPECT_ERROR(rc, MPI_ERR_COMM, "MPI_Send: argument comm is 0, an uninitialized handle");
    rc = MPI_Recv(buf, 1, (MPI_Datatype)0, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    EXPECT_ERROR(rc, MPI_ERR_TYPE, "MPI_Recv: argument datatype is 0, an uninitialized handle");
    /* null handles */
    rc = MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL);
    EXPECT_ERROR(rc, MPI_ERR_COMM, "MPI_Send: argument comm is MPI_COMM_NULL");
    rc = MPI_Bcast(buf, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_TYPE, "MPI_Bcast: argument datatype is MPI_DATATYPE_NULL");
    /* a handle of the wrong kind */
    rc = MPI_Send(buf, 1, (MPI_Datatype)MPI_COMM_WORLD, 0, 0, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_TYPE, "MPI_Send: argument datatype is MPI_COMM_WORLD (0x101), a communicator, not a datatype");
    rc = MPI_Allreduce(buf, buf + 1, 1, MPI_INT, MPI_SUM, (MPI_Comm)MPI_DOUBLE);
    EXPECT_ERROR(rc, MPI_ERR_COMM, "MPI_Allreduce: argument comm is MPI_DOUBLE (0x214), a datatype, not a communicator");
    rc = MPI_Isend(buf, 1, (MPI_Datatype)MPI_SUM, 0, 0, MPI_COMM_WORLD, &(MPI_Request){MPI_REQUEST_NULL});
    EXPECT_ERROR(rc, MPI_ERR_TYPE, "MPI_Isend: argument datatype is MPI_SUM (0x21), an operation, not a datatype");
    /* freed handles */
    MPI_Datatype t, t_was;
    OK(MPI_Type_contiguous(2, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    t_was = t;
    OK(MPI_Type_free(&t));
    EXPECT(t == MPI_DATATYPE_NULL, "MPI_Type_free leaves MPI_DATATYPE_NULL");
    rc = MPI_Send(buf, 1, t_was, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_TYPE, "MPI_Send: argument datatype is a freed datatype", "freed by MPI_Type_free");
    rc = MPI_Type_free(&t_was);
    EXPECT_ERROR(rc, MPI_ERR_TYPE, "MPI_Type_free: argument datatype is a freed datatype");
    MPI_Comm c, c_was;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    c_was = c;
    OK(MPI_Comm_free(&c));
    rc = MPI_Recv(buf, 1, MPI_INT, MPI_PROC_NULL, 0, c_was, MPI_STATUS_IGNORE);
    EXPECT_ERROR(rc, MPI_ERR_COMM, "MPI_Recv: argument comm is a freed communicator", "freed by MPI_Comm_free");
    /* predefined handles cannot be freed */
    MPI_Datatype i = MPI_INT;
    rc = MPI_Type_free(&i);
    EXPECT_ERROR(rc, MPI_ERR_TYPE, "MPI_Type_free: argument datatype is MPI_INT, a predefined datatype");
    MPI_Comm w = MPI_COMM_WORLD;
    rc = MPI_Comm_free(&w);
    EXPECT_ERROR(rc, MPI_ERR_COMM, "MPI_Comm_free: argument comm is MPI_COMM_WORLD, a predefined communicator");
    /* sentinels passed as ranks, ranks out of range */
    rc = MPI_Send(buf, 1, MPI_INT, MPI_ANY_TAG, 0, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_RANK, "MPI_Send: argument dest is MPI_ANY_TAG (-2), a tag wildcard, not a rank");
    rc = MPI_Recv(buf, 1, MPI_INT, MPI_ANY_TAG, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    EXPECT_ERROR(rc, MPI_ERR_RANK, "MPI_Recv: argument source is MPI_ANY_TAG (-2), a tag wildcard, not a rank");
    rc = MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_RANK, "MPI_Send: argument dest is MPI_ANY_SOURCE (-1), which only a receive accepts");
    rc = MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_RANK, "MPI_Send: argument dest is 2, but MPI_COMM_WORLD has 2 ranks (0..1)");
    rc = MPI_Bcast(buf, 1, MPI_INT, MPI_PROC_NULL, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_ROOT, "MPI_Bcast: argument root is MPI_PROC_NULL (-3)");
    /* tags */
    rc = MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_TAG, "MPI_Send: argument tag is MPI_ANY_TAG (-2), which only a receive accepts");
    rc = MPI_Recv(buf, 1, MPI_INT, MPI_PROC_NULL, MPI_ANY_SOURCE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    EXPECT_ERROR(rc, MPI_ERR_TAG, "MPI_Recv: argument tag is MPI_ANY_SOURCE (-1), a rank constant, not a tag");
    /* negative counts */
    rc = MPI_Send(buf, -1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_COUNT, "MPI_Send: argument count is -1; a count is never negative");
    rc = MPI_Allgather(buf, -3, MPI_INT, buf, 1, MPI_INT, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_COUNT, "MPI_Allgather: argument sendcount is -3");
    /* and the program carries on */
    int s = 1, sum = 0;
    OK(MPI_Allreduce(&s, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(sum == size, "allreduce after the errors: %d", sum);
}

/* ANYMPI_CHECK unset: the table is the backend's, a mismatch goes unnoticed (MPI itself does
 * not compare signatures) and nothing is printed. */
static void off(void)
{
    double d = 2.5;
    int ints[2] = {0, 0};
    if (rank == 0) OK(MPI_Send(&d, 1, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD));
    else OK(MPI_Recv(ints, 2, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (rank == 1) EXPECT(ints[0] != 0 || ints[1] != 0, "the bytes of the double arrived");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s mismatch|clean|args|off\n", argv[0]);
        return 2;
    }
    const char *mode = getenv("ANYMPI_CHECK");
    const int want_on = strcmp(argv[1], "off") != 0;
    if (want_on != (mode && *mode)) {
        fprintf(stderr, "check_test: scenario %s needs ANYMPI_CHECK %s\n", argv[1], want_on ? "set" : "unset");
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        fprintf(stderr, "check_test: run with 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (!strcmp(argv[1], "mismatch")) mismatch();
    else if (!strcmp(argv[1], "clean")) clean();
    else if (!strcmp(argv[1], "args")) args();
    else if (!strcmp(argv[1], "off")) off();
    else {
        fprintf(stderr, "check_test: unknown scenario %s\n", argv[1]);
        failures = 1;
    }
    return finish(argv[1]);
}
