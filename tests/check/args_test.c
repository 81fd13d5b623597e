/* The checking mode's argument checks of every function (abi/check/gen_arg_checks.py), at 1
 * and 2 ranks: one program, one scenario per run.
 *   errors  a sample across handle kinds and function families: each bad argument is reported
 *           with the right class and a message naming function, argument and constant, and
 *           the program goes on (MPI_ERRORS_RETURN)
 *   clean   many correct calls, including the nulls, sentinels, MPI_IN_PLACE and root-only
 *           arguments the standard allows, and handle values the MPI hands out again:
 *           not one report (ctest fails the test on any "anympi check:" line)
 * Built against the standard header; run over libmpi_abi with ANYMPI_CHECK=args. */
#include <stdlib.h>
#include <unistd.h>

#include "check_util.h"

static void add_ints(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; ++i) ((int *)inout)[i] += ((int *)in)[i];
}
static void ignore_error(MPI_Comm *c, int *code, ...)
{
    (void)c;
    (void)code;
}

/* ------------------------------------------------------------------------------------------ */

static void errors(void)
{
    int buf[8] = {0}, out[8] = {0};
    int rc;

    /* a freed operation in a collective; a communicator passed as an operation */
    MPI_Op op, op_was;
    OK(MPI_Op_create(add_ints, 1, &op));
    op_was = op;
    OK(MPI_Op_free(&op));
    EXPECT(op == MPI_OP_NULL, "MPI_Op_free leaves MPI_OP_NULL");
    rc = MPI_Allreduce(buf, out, 1, MPI_INT, op_was, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_OP, "MPI_Allreduce: argument op is a freed operation", "freed by MPI_Op_free");
    rc = MPI_Allreduce(buf, out, 1, MPI_INT, (MPI_Op)MPI_COMM_WORLD, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_OP, "MPI_Allreduce: argument op is MPI_COMM_WORLD (0x101), a communicator, not an operation");
    rc = MPI_Reduce(buf, out, 1, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_OP, "MPI_Reduce: argument op is MPI_OP_NULL, the null operation");

    /* a freed group, in a local call and in a collective one */
    MPI_Group g, g_was;
    OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
    g_was = g;
    OK(MPI_Group_free(&g));
    int n = -1;
    rc = MPI_Group_size(g_was, &n);
    EXPECT_ERROR(rc, MPI_ERR_GROUP, "MPI_Group_size: argument group is a freed group", "freed by MPI_Group_free");
    MPI_Comm c = MPI_COMM_NULL;
    rc = MPI_Comm_create(MPI_COMM_WORLD, g_was, &c);
    EXPECT_ERROR(rc, MPI_ERR_GROUP, "MPI_Comm_create: argument group is a freed group");
    rc = MPI_Group_size((MPI_Group)MPI_INT, &n);
    EXPECT_ERROR(rc, MPI_ERR_GROUP, "MPI_Group_size: argument group is MPI_INT", "a datatype, not a group");

    /* infos: 0 (never initialized), freed */
    rc = MPI_Comm_set_info(MPI_COMM_WORLD, (MPI_Info)0);
    EXPECT_ERROR(rc, MPI_ERR_INFO, "MPI_Comm_set_info: argument info is 0, an uninitialized handle (not an info)");
    MPI_Info info, info_was;
    OK(MPI_Info_create(&info));
    info_was = info;
    OK(MPI_Info_free(&info));
    rc = MPI_Info_set(info_was, "key", "value");
    EXPECT_ERROR(rc, MPI_ERR_INFO, "MPI_Info_set: argument info is a freed info", "freed by MPI_Info_free");
    rc = MPI_Info_set(MPI_INFO_NULL, "key", "value");
    EXPECT_ERROR(rc, MPI_ERR_INFO, "MPI_Info_set: argument info is MPI_INFO_NULL, the null info");

    /* a freed error handler */
    MPI_Errhandler eh, eh_was;
    OK(MPI_Comm_create_errhandler(ignore_error, &eh));
    eh_was = eh;
    OK(MPI_Errhandler_free(&eh));
    rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh_was);
    EXPECT_ERROR(rc, MPI_ERR_ERRHANDLER, "MPI_Comm_set_errhandler: argument errhandler is a freed error handler",
                 "freed by MPI_Errhandler_free");

    /* a freed window (reported through MPI_COMM_WORLD: the window has no handler any more) */
    MPI_Win win, win_was;
    OK(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    OK(MPI_Win_fence(0, win));
    /* a bad argument next to a valid window goes through the window's handler */
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    rc = MPI_Put(buf, 1, MPI_INT, MPI_ANY_TAG, 0, 1, MPI_INT, win);
    EXPECT_ERROR(rc, MPI_ERR_RANK, "MPI_Put: argument target_rank is MPI_ANY_TAG (-2), a tag wildcard, not a rank");
    rc = MPI_Put(buf, 1, MPI_INT, rank, 0, -2, MPI_INT, win);
    EXPECT_ERROR(rc, MPI_ERR_COUNT, "MPI_Put: argument target_count is -2");
    OK(MPI_Win_fence(0, win));
    win_was = win;
    OK(MPI_Win_free(&win));
    rc = MPI_Win_fence(0, win_was);
    EXPECT_ERROR(rc, MPI_ERR_WIN, "MPI_Win_fence: argument win is a freed window", "freed by MPI_Win_free");

    /* a freed file */
    char path[128];
    snprintf(path, sizeof path, "/tmp/anympi_args_test_%d_%d", (int)getpid(), rank);
    MPI_File f, f_was;
    OK(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &f));
    rc = MPI_File_write(f, buf, -1, MPI_INT, MPI_STATUS_IGNORE);
    EXPECT_ERROR(rc, MPI_ERR_COUNT, "MPI_File_write: argument count is -1"); /* through the file's handler */
    rc = MPI_File_write(f, buf, 1, (MPI_Datatype)MPI_INFO_NULL, MPI_STATUS_IGNORE);
    EXPECT_ERROR(rc, MPI_ERR_TYPE, "MPI_File_write: argument datatype is MPI_INFO_NULL", "an info, not a datatype");
    f_was = f;
    OK(MPI_File_close(&f));
    MPI_Offset fsize = 0;
    rc = MPI_File_get_size(f_was, &fsize);
    EXPECT_ERROR(rc, MPI_ERR_FILE, "MPI_File_get_size: argument fh is a freed file", "freed by MPI_File_close");

    /* negative counts and lengths */
    int pos = 0;
    rc = MPI_Pack(buf, -1, MPI_INT, out, (int)sizeof out, &pos, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_COUNT, "MPI_Pack: argument incount is -1; a count is never negative");
    MPI_Datatype t = MPI_DATATYPE_NULL;
    rc = MPI_Type_contiguous(-4, MPI_INT, &t);
    EXPECT_ERROR(rc, MPI_ERR_COUNT, "MPI_Type_contiguous: argument count is -4");

    /* ranks: MPI_ANY_TAG is never one; in range of the group or communicator */
    MPI_Group world_group, ng;
    OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    int bad[1] = {MPI_ANY_TAG};
    rc = MPI_Group_incl(world_group, 1, bad, &ng);
    EXPECT_ERROR(rc, MPI_ERR_RANK, "MPI_Group_incl: argument ranks[0] is MPI_ANY_TAG (-2), a tag wildcard, not a rank");
    int dims[1] = {size}, periods[1] = {0}, coords[1] = {0};
    MPI_Comm cart;
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    rc = MPI_Cart_coords(cart, MPI_ANY_TAG, 1, coords);
    EXPECT_ERROR(rc, MPI_ERR_RANK, "MPI_Cart_coords: argument rank is MPI_ANY_TAG (-2), a tag wildcard, not a rank");
    OK(MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN));
    rc = MPI_Cart_coords(cart, size, 1, coords);
    EXPECT_ERROR(rc, MPI_ERR_RANK, "MPI_Cart_coords: argument rank is ", size == 1 ? "has 1 rank (0..0)" : "has 2 ranks (0..1)");
    rc = MPI_Gather(buf, 1, MPI_INT, out, 1, MPI_INT, MPI_ANY_SOURCE, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_ROOT, "MPI_Gather: argument root is MPI_ANY_SOURCE (-1)");
    OK(MPI_Comm_free(&cart));

    /* handle arrays: one wrong entry */
    MPI_Request reqs[2];
    OK(MPI_Irecv(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &reqs[0]));
    reqs[1] = (MPI_Request)MPI_COMM_WORLD;
    rc = MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    EXPECT_ERROR(rc, MPI_ERR_REQUEST, "MPI_Waitall: argument array_of_requests[1] is MPI_COMM_WORLD (0x101), a communicator, not a request");
    OK(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
    int counts[2] = {1, 1}, displs[2] = {0, 1};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    types[size - 1] = (MPI_Datatype)0;
    rc = MPI_Alltoallw(buf, counts, displs, types, out, counts, displs, types, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_TYPE, size == 1 ? "MPI_Alltoallw: argument sendtypes[0] is 0" : "MPI_Alltoallw: argument sendtypes[1] is 0",
                 "an uninitialized handle");
    types[size - 1] = MPI_INT;
    counts[0] = -1;
    rc = MPI_Alltoallv(buf, counts, displs, MPI_INT, out, counts, displs, MPI_INT, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_COUNT, "MPI_Alltoallv: argument sendcounts[0] is -1");

    /* a freed persistent request; a received message */
    MPI_Request p, p_was;
    OK(MPI_Send_init(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &p));
    p_was = p;
    OK(MPI_Request_free(&p));
    rc = MPI_Start(&p_was);
    EXPECT_ERROR(rc, MPI_ERR_REQUEST, "MPI_Start: argument request is a freed request", "freed by MPI_Request_free");
    MPI_Request s;
    MPI_Message m, m_was;
    OK(MPI_Isend(buf, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &s));
    OK(MPI_Mprobe(rank, 5, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE));
    m_was = m;
    OK(MPI_Mrecv(out, 1, MPI_INT, &m, MPI_STATUS_IGNORE));
    OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    rc = MPI_Mrecv(out, 1, MPI_INT, &m_was, MPI_STATUS_IGNORE);
    EXPECT_ERROR(rc, MPI_ERR_ARG, "MPI_Mrecv: argument message is a freed message", "freed by MPI_Mrecv");

    /* and the program carries on */
    int one = 1, sum = 0;
    OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(sum == size, "allreduce after the errors: %d", sum);
    OK(MPI_Group_free(&world_group));
}

/* ------------------------------------------------------------------------------------------ */

static void clean(void)
{
    int buf[16] = {0}, out[16] = {0};
    const int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    /* groups: two handles of one group (MPICH hands out the same value), one freed */
    MPI_Group g1, g2, sub, un;
    OK(MPI_Comm_group(MPI_COMM_WORLD, &g1));
    OK(MPI_Comm_group(MPI_COMM_WORLD, &g2));
    OK(MPI_Group_free(&g1));
    int n = 0;
    OK(MPI_Group_size(g2, &n));
    EXPECT(n == size, "group size %d", n);
    int r0[1] = {0}, tr[2] = {0, MPI_PROC_NULL}, tout[2];
    OK(MPI_Group_incl(g2, 1, r0, &sub));
    OK(MPI_Group_translate_ranks(g2, 2, tr, sub, tout));
    OK(MPI_Group_union(sub, MPI_GROUP_EMPTY, &un));
    MPI_Comm c;
    OK(MPI_Comm_create(MPI_COMM_WORLD, sub, &c));
    if (c != MPI_COMM_NULL) OK(MPI_Comm_free(&c));
    OK(MPI_Group_free(&un));
    OK(MPI_Group_free(&sub));
    OK(MPI_Group_free(&g2));
    for (int i = 0; i < 20; ++i) { /* values handed out again after a free */
        MPI_Group g;
        OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
        OK(MPI_Group_size(g, &n));
        OK(MPI_Group_free(&g));
    }

    /* error handlers: the one set comes back from get; freeing the copy keeps it set */
    MPI_Errhandler eh, got;
    OK(MPI_Comm_create_errhandler(ignore_error, &eh));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    OK(MPI_Errhandler_free(&eh));
    OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, got));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Errhandler_free(&got));

    /* operations, infos */
    MPI_Op op;
    for (int i = 0; i < 3; ++i) {
        OK(MPI_Op_create(add_ints, 1, &op));
        int one = 1, sum = 0;
        OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, op, MPI_COMM_WORLD));
        EXPECT(sum == size, "user op sum %d", sum);
        OK(MPI_Op_free(&op));
    }
    MPI_Info info, dup;
    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "anympi_key", "v"));
    OK(MPI_Info_dup(info, &dup));
    int nkeys = 0;
    OK(MPI_Info_get_nkeys(dup, &nkeys));
    EXPECT(nkeys == 1, "nkeys %d", nkeys);
    OK(MPI_Info_free(&info));
    OK(MPI_Info_free(&dup));
    MPI_Info ci;
    OK(MPI_Comm_get_info(MPI_COMM_WORLD, &ci));
    OK(MPI_Info_free(&ci));

    /* collectives: MPI_IN_PLACE with the ignored side left garbage, root-only arguments */
    for (int i = 0; i < size; ++i) out[i] = rank;
    OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, 1, MPI_INT, MPI_COMM_WORLD));
    EXPECT(out[prev] == prev, "allgather in place");
    OK(MPI_Gather(buf, 1, MPI_INT, out, rank == 0 ? 1 : -1, rank == 0 ? MPI_INT : MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD));
    int counts[16], displs[16];
    MPI_Datatype types[16];
    for (int i = 0; i < size; ++i) counts[i] = 1, displs[i] = i, types[i] = MPI_INT;
    OK(MPI_Gatherv(buf, 1, MPI_INT, out, rank == 0 ? counts : NULL, rank == 0 ? displs : NULL, MPI_INT, 0, MPI_COMM_WORLD));
    OK(MPI_Scatterv(rank == 0 ? buf : NULL, rank == 0 ? counts : NULL, rank == 0 ? displs : NULL,
                    rank == 0 ? MPI_INT : MPI_DATATYPE_NULL, out, 1, MPI_INT, 0, MPI_COMM_WORLD));
    int dis[16];
    for (int i = 0; i < size; ++i) dis[i] = i * (int)sizeof(int);
    OK(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, out, counts, dis, types, MPI_COMM_WORLD));
    OK(MPI_Alltoallv(buf, counts, displs, MPI_INT, out, counts, displs, MPI_INT, MPI_COMM_WORLD));
    OK(MPI_Reduce(rank == 0 ? MPI_IN_PLACE : buf, rank == 0 ? buf : NULL, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    OK(MPI_Bcast(buf, 2, MPI_INT, 0, MPI_COMM_WORLD));
    int rc_counts[16];
    for (int i = 0; i < size; ++i) rc_counts[i] = 1;
    OK(MPI_Reduce_scatter(MPI_IN_PLACE, buf, rc_counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));

    /* point to point: requests handed out again, nulls in completion arrays, persistent */
    for (int i = 0; i < 50; ++i) {
        MPI_Request rq[3];
        OK(MPI_Irecv(out, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]));
        OK(MPI_Isend(buf, 1, MPI_INT, next, i, MPI_COMM_WORLD, &rq[1]));
        rq[2] = MPI_REQUEST_NULL;
        OK(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
        int idx = 0, flag = 0;
        OK(MPI_Testany(3, rq, &idx, &flag, MPI_STATUS_IGNORE));
        OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    }
    MPI_Request ps[2];
    OK(MPI_Send_init(buf, 1, MPI_INT, next, 99, MPI_COMM_WORLD, &ps[0]));
    OK(MPI_Recv_init(out, 1, MPI_INT, prev, 99, MPI_COMM_WORLD, &ps[1]));
    for (int i = 0; i < 3; ++i) {
        OK(MPI_Startall(2, ps));
        OK(MPI_Waitall(2, ps, MPI_STATUSES_IGNORE));
    }
    OK(MPI_Request_free(&ps[0]));
    OK(MPI_Request_free(&ps[1]));
    MPI_Message m;
    MPI_Request s;
    int flag = 0;
    OK(MPI_Isend(buf, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &s));
    while (!flag) OK(MPI_Improbe(rank, 3, MPI_COMM_WORLD, &flag, &m, MPI_STATUS_IGNORE));
    OK(MPI_Mrecv(out, 1, MPI_INT, &m, MPI_STATUS_IGNORE));
    OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    OK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE));
    OK(MPI_Mrecv(out, 1, MPI_INT, &m, MPI_STATUS_IGNORE)); /* MPI_MESSAGE_NO_PROC */
    OK(MPI_Sendrecv(buf, 1, MPI_INT, next, 4, out, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_Status pst;
    OK(MPI_Isend(buf, 1, MPI_INT, next, 6, MPI_COMM_WORLD, &s));
    OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &pst));
    OK(MPI_Recv(out, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &pst));
    OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    OK(MPI_Recv(out, 1, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &pst));

    /* datatypes, packing */
    MPI_Datatype t, st;
    for (int i = 0; i < 5; ++i) {
        OK(MPI_Type_contiguous(2, MPI_INT, &t));
        int bl[2] = {1, 1};
        MPI_Aint dp[2] = {0, 8};
        MPI_Datatype ty[2] = {t, MPI_DOUBLE};
        OK(MPI_Type_create_struct(2, bl, dp, ty, &st));
        OK(MPI_Type_free(&t));
        OK(MPI_Type_commit(&st));
        int sz = 0;
        OK(MPI_Type_size(st, &sz));
        EXPECT(sz == 16, "struct size %d", sz);
        OK(MPI_Type_free(&st));
    }
    int gs[1] = {4 * size}, ds[1] = {MPI_DISTRIBUTE_BLOCK}, da[1] = {MPI_DISTRIBUTE_DFLT_DARG}, psz[1] = {size};
    OK(MPI_Type_create_darray(size, rank, 1, gs, ds, da, psz, MPI_ORDER_C, MPI_INT, &t));
    OK(MPI_Type_free(&t));
    char packed[64];
    int pos = 0;
    OK(MPI_Pack(buf, 2, MPI_INT, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD));
    pos = 0;
    OK(MPI_Unpack(packed, (int)sizeof packed, &pos, out, 2, MPI_INT, MPI_COMM_WORLD));

    /* topology */
    int dims[1] = {size}, periods[1] = {1}, coords[1];
    MPI_Comm cart;
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    int src = -9, dst = -9;
    OK(MPI_Cart_shift(cart, 0, 1, &src, &dst));
    OK(MPI_Cart_coords(cart, size - 1, 1, coords));
    OK(MPI_Comm_free(&cart));

    /* one-sided: MPI_PROC_NULL targets */
    MPI_Win win;
    OK(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    OK(MPI_Win_fence(0, win));
    OK(MPI_Put(out, 1, MPI_INT, next, 0, 1, MPI_INT, win));
    OK(MPI_Put(out, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
    OK(MPI_Win_fence(0, win));
    MPI_Group wg;
    OK(MPI_Win_get_group(win, &wg));
    OK(MPI_Group_free(&wg));
    OK(MPI_Win_free(&win));

    /* files: MPI_FILE_NULL stands for the default error handler */
    MPI_Errhandler feh;
    OK(MPI_File_get_errhandler(MPI_FILE_NULL, &feh));
    OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    OK(MPI_File_set_errhandler(MPI_FILE_NULL, feh));
    OK(MPI_Errhandler_free(&feh));
    char path[128];
    snprintf(path, sizeof path, "/tmp/anympi_args_clean_%d_%d", (int)getpid(), rank);
    MPI_File f;
    OK(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &f));
    OK(MPI_File_write(f, buf, 2, MPI_INT, MPI_STATUS_IGNORE));
    OK(MPI_File_close(&f));

    /* communicators */
    MPI_Comm d, sp;
    for (int i = 0; i < 5; ++i) {
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        OK(MPI_Comm_split(d, rank % 2, rank, &sp));
        OK(MPI_Barrier(sp));
        OK(MPI_Comm_free(&sp));
        OK(MPI_Comm_free(&d));
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s errors|clean\n", argv[0]);
        return 2;
    }
    const char *mode = getenv("ANYMPI_CHECK");
    if (!mode || !*mode) {
        fprintf(stderr, "args_test: needs ANYMPI_CHECK set\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 16) {
        fprintf(stderr, "args_test: at most 16 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (!strcmp(argv[1], "errors")) errors();
    else if (!strcmp(argv[1], "clean")) clean();
    else {
        fprintf(stderr, "args_test: unknown scenario %s\n", argv[1]);
        failures = 1;
    }
    return finish(argv[1]);
}
