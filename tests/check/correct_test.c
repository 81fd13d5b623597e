/* Correct programs the checking mode once broke (issue R2, item 8), one scenario per run:
 *   freed_type   a derived datatype freed while operations using it are pending (MPI-4.1
 *                section 5.1.10: freeing does not affect them): a receive, a persistent
 *                receive and send, a matched receive; a new type made meanwhile may get the
 *                freed handle's value
 *   cancel_send  a send to oneself cancelled before anything matched it: it completes through
 *                MPI_Wait / MPI_Test with MPI_Test_cancelled true, the next message with the
 *                same tag is not mistaken for it, and MPI_Finalize returns
 *   noop_origin  MPI_Get_accumulate / MPI_Rget_accumulate with MPI_NO_OP and an origin of
 *                NULL, 0, MPI_DATATYPE_NULL, which the standard ignores (section 12.3.4)
 *   freed_comm   a communicator freed while a receive and a send on it are pending (MPI-4.1
 *                section 7.4.3: they complete as if it were not), and another made meanwhile
 *                that may get its handle's value: the checker asked the freed handle and
 *                faulted (Open MPI) or aborted (MPICH)
 *   w_null_types MPI_Alltoallw with MPI_DATATYPE_NULL in the blocks of count 0 (a ring: one
 *                block each way), also in place: the checker refused the nulls
 * Each must pass, and print no "anympi check:" line, natively and under ANYMPI_CHECK: the
 * same file is built against the standard header (run over libmpi_abi with the checker) and
 * natively against each MPI, which proves the expectations. Standard C and MPI only. */
#include <stdlib.h>

#include "check_util.h"

/* a ring: everyone sends to the next rank, receives from the previous (oneself at 1 rank) */
static int next_rank(void) { return (rank + 1) % size; }
static int prev_rank(void) { return (rank + size - 1) % size; }

/* 2 ints, every other one of 4: the same signature as 2 x MPI_INT */
static MPI_Datatype every_other(void)
{
    MPI_Datatype t;
    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    return t;
}
/* a type of another signature, made while the freed one's operation is pending: the MPI may
 * give it the freed handle's value */
static MPI_Datatype three_doubles(void)
{
    MPI_Datatype t;
    OK(MPI_Type_contiguous(3, MPI_DOUBLE, &t));
    OK(MPI_Type_commit(&t));
    return t;
}
static void expect_every_other(const int *in, int a, int b, const char *what)
{
    EXPECT(in[0] == a && in[1] == -1 && in[2] == b && in[3] == -1, "%s: received %d %d %d %d, expected %d -1 %d -1", what,
           in[0], in[1], in[2], in[3], a, b);
}

static void freed_type(void)
{
    const int from = prev_rank(), to = next_rank();
    int out[2] = {100 * rank + 1, 100 * rank + 2}, in[4];
    const int a = 100 * from + 1, b = 100 * from + 2;
    MPI_Request rq, sq;
    MPI_Status st;

    /* MPI_Irecv, the type freed, another made, then the message: MPI_Wait */
    for (int i = 0; i < 4; ++i) in[i] = -1;
    MPI_Datatype t = every_other();
    OK(MPI_Irecv(in, 1, t, from, 1, MPI_COMM_WORLD, &rq));
    OK(MPI_Type_free(&t));
    MPI_Datatype other = three_doubles();
    OK(MPI_Isend(out, 2, MPI_INT, to, 1, MPI_COMM_WORLD, &sq));
    OK(MPI_Wait(&rq, &st));
    OK(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    EXPECT(st.MPI_SOURCE == from && st.MPI_TAG == 1, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
    expect_every_other(in, a, b, "MPI_Irecv + MPI_Wait");

    /* the new type works (its value may be the freed one's) */
    double d3[3] = {rank + 0.5, 1, 2}, r3[3] = {0};
    OK(MPI_Sendrecv(d3, 1, other, to, 2, r3, 3, MPI_DOUBLE, from, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    EXPECT(r3[0] == from + 0.5 && r3[2] == 2, "the new type carried %g %g", r3[0], r3[2]);
    OK(MPI_Type_free(&other));

    /* completed by an MPI_Test loop, and by MPI_Waitall with the send */
    for (int i = 0; i < 4; ++i) in[i] = -1;
    t = every_other();
    OK(MPI_Irecv(in, 1, t, from, 3, MPI_COMM_WORLD, &rq));
    OK(MPI_Type_free(&t));
    other = three_doubles();
    OK(MPI_Isend(out, 2, MPI_INT, to, 3, MPI_COMM_WORLD, &sq));
    int flag = 0;
    while (!flag) OK(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
    OK(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    expect_every_other(in, a, b, "MPI_Irecv + MPI_Test");
    OK(MPI_Type_free(&other));
    for (int i = 0; i < 4; ++i) in[i] = -1;
    t = every_other();
    MPI_Request both[2];
    OK(MPI_Irecv(in, 1, t, from, 4, MPI_COMM_WORLD, &both[0]));
    OK(MPI_Type_free(&t));
    other = three_doubles();
    OK(MPI_Isend(out, 2, MPI_INT, to, 4, MPI_COMM_WORLD, &both[1]));
    MPI_Status sts[2];
    OK(MPI_Waitall(2, both, sts));
    expect_every_other(in, a, b, "MPI_Irecv + MPI_Waitall");
    OK(MPI_Type_free(&other));

    /* persistent: receive and send made with a type freed before every start */
    MPI_Datatype rt = every_other(), stt = every_other();
    int sbuf[4] = {out[0], -7, out[1], -7};
    OK(MPI_Recv_init(in, 1, rt, from, 5, MPI_COMM_WORLD, &rq));
    OK(MPI_Send_init(sbuf, 1, stt, to, 5, MPI_COMM_WORLD, &sq));
    OK(MPI_Type_free(&rt));
    OK(MPI_Type_free(&stt));
    other = three_doubles();
    for (int k = 0; k < 2; ++k) {
        for (int i = 0; i < 4; ++i) in[i] = -1;
        OK(MPI_Start(&rq));
        OK(MPI_Start(&sq));
        OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        OK(MPI_Wait(&sq, MPI_STATUS_IGNORE));
        expect_every_other(in, a, b, "persistent receive and send");
    }
    OK(MPI_Request_free(&rq));
    OK(MPI_Request_free(&sq));
    OK(MPI_Type_free(&other));

    /* a matched receive: MPI_Mprobe, MPI_Imrecv, the type freed */
    for (int i = 0; i < 4; ++i) in[i] = -1;
    OK(MPI_Isend(out, 2, MPI_INT, to, 6, MPI_COMM_WORLD, &sq));
    MPI_Message m;
    OK(MPI_Mprobe(from, 6, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE));
    t = every_other();
    OK(MPI_Imrecv(in, 1, t, &m, &rq));
    OK(MPI_Type_free(&t));
    other = three_doubles();
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    OK(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    expect_every_other(in, a, b, "MPI_Imrecv");
    OK(MPI_Type_free(&other));
}

/* Sends to oneself on MPI_COMM_SELF, where MPICH cancels an unmatched send (Open MPI 4.1 never
 * cancels a send, natively: its MPI_Wait would not return, so this scenario runs on MPICH). */
static void cancel_send(void)
{
    int x = 42;
    MPI_Request r;
    MPI_Status st;
    int cancelled = 0;

    /* MPI_Issend, MPI_Cancel, MPI_Wait */
    OK(MPI_Issend(&x, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &r));
    OK(MPI_Cancel(&r));
    OK(MPI_Wait(&r, &st));
    OK(MPI_Test_cancelled(&st, &cancelled));
    EXPECT(cancelled, "the cancelled MPI_Issend completed, but MPI_Test_cancelled says it was not cancelled");
    EXPECT(r == MPI_REQUEST_NULL, "MPI_Wait left the request active");

    /* ... completed by MPI_Test */
    OK(MPI_Issend(&x, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &r));
    OK(MPI_Cancel(&r));
    int flag = 0;
    for (long k = 0; k < 10000000L && !flag; ++k) OK(MPI_Test(&r, &flag, &st));
    EXPECT(flag, "MPI_Test never completed the cancelled MPI_Issend");
    cancelled = 0;
    if (flag) OK(MPI_Test_cancelled(&st, &cancelled));
    EXPECT(cancelled, "MPI_Test_cancelled after MPI_Test: not cancelled");

    /* ... and by MPI_Waitall */
    MPI_Request two[2];
    OK(MPI_Issend(&x, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &two[0]));
    OK(MPI_Issend(&x, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &two[1]));
    OK(MPI_Cancel(&two[0]));
    OK(MPI_Cancel(&two[1]));
    MPI_Status sts[2];
    OK(MPI_Waitall(2, two, sts));
    for (int k = 0; k < 2; ++k) {
        cancelled = 0;
        OK(MPI_Test_cancelled(&sts[k], &cancelled));
        EXPECT(cancelled, "MPI_Waitall: send %d not cancelled", k);
    }

    /* the next message with that tag, of another type, is itself: received and not
     * compared with the cancelled sends */
    double d = 2.5, got = 0;
    OK(MPI_Sendrecv(&d, 1, MPI_DOUBLE, 0, 9, &got, 1, MPI_DOUBLE, 0, 9, MPI_COMM_SELF, &st));
    EXPECT(got == 2.5, "the message after the cancelled ones carried %g", got);
    int count = -1;
    OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
    EXPECT(count == 1, "the message after the cancelled ones: count %d", count);
    /* finish() then calls MPI_Finalize, which must return */
}

static void noop_origin(void)
{
    /* heap memory: MPICH 4.0.2 over UCX misplaces RMA into a window on the stack */
    int *mem = malloc(2 * sizeof(int));
    mem[0] = 10 + rank, mem[1] = 20 + rank;
    MPI_Win win;
    OK(MPI_Win_create(mem, 2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    const int t = next_rank();
    int res[2] = {-1, -1};

    OK(MPI_Win_fence(0, win));
    OK(MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, res, 2, MPI_INT, t, 0, 2, MPI_INT, MPI_NO_OP, win));
    OK(MPI_Win_fence(0, win));
    EXPECT(res[0] == 10 + t && res[1] == 20 + t, "MPI_Get_accumulate(MPI_NO_OP) fetched %d %d, expected %d %d", res[0],
           res[1], 10 + t, 20 + t);

    MPI_Request r;
    res[0] = -1;
    OK(MPI_Win_lock_all(0, win));
    OK(MPI_Rget_accumulate(NULL, 0, MPI_DATATYPE_NULL, res, 1, MPI_INT, t, 1, 1, MPI_INT, MPI_NO_OP, win, &r));
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    OK(MPI_Win_unlock_all(win));
    EXPECT(res[0] == 20 + t, "MPI_Rget_accumulate(MPI_NO_OP) fetched %d, expected %d", res[0], 20 + t);

    OK(MPI_Win_free(&win));
    free(mem);
}

static void freed_comm(void)
{
    const int from = prev_rank(), to = next_rank();
    for (int round = 0; round < 3; ++round) {
        MPI_Comm c, other;
        MPI_Request r[2];
        MPI_Status st[2];
        int out = 100 * rank + round, in = -1;
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        OK(MPI_Irecv(&in, 1, MPI_INT, from, 3, c, &r[0]));
        OK(MPI_Isend(&out, 1, MPI_INT, to, 3, c, &r[1]));
        OK(MPI_Comm_free(&c));
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &other));
        OK(MPI_Waitall(2, r, st));
        EXPECT(in == 100 * from + round, "round %d: received %d, expected %d", round, in, 100 * from + round);
        EXPECT(st[0].MPI_SOURCE == from && st[0].MPI_TAG == 3, "round %d: status source %d tag %d", round,
               st[0].MPI_SOURCE, st[0].MPI_TAG);
        int x = rank, sum = -1;  /* the new communicator works, and is checked */
        OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, other));
        EXPECT(sum == size * (size - 1) / 2, "round %d: sum %d", round, sum);
        OK(MPI_Comm_free(&other));
    }
}

static void w_null_types(void)
{
    const int to = next_rank(), from = prev_rank();
    int *sc = calloc((size_t)size, sizeof(int)), *rc = calloc((size_t)size, sizeof(int));
    int *sd = calloc((size_t)size, sizeof(int)), *rd = calloc((size_t)size, sizeof(int));
    MPI_Datatype *st = malloc((size_t)size * sizeof(MPI_Datatype)), *rt = malloc((size_t)size * sizeof(MPI_Datatype));
    for (int k = 0; k < size; ++k) st[k] = rt[k] = MPI_DATATYPE_NULL;
    sc[to] = 1, st[to] = MPI_INT, rc[from] = 1, rt[from] = MPI_INT;
    int out = 100 + rank, in = -1;
    OK(MPI_Alltoallw(&out, sc, sd, st, &in, rc, rd, rt, MPI_COMM_WORLD));
    EXPECT(in == 100 + from, "alltoallw: received %d, expected %d", in, 100 + from);
    /* in place, each process's own block only */
    int *buf = malloc((size_t)size * sizeof(int));
    for (int k = 0; k < size; ++k) {
        buf[k] = 1000 * rank + k;
        rc[k] = k == rank, rd[k] = k * (int)sizeof(int), rt[k] = k == rank ? MPI_INT : MPI_DATATYPE_NULL;
    }
    OK(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, rc, rd, rt, MPI_COMM_WORLD));
    EXPECT(buf[rank] == 1001 * rank, "alltoallw in place: own block %d, expected %d", buf[rank], 1001 * rank);
    free(sc), free(rc), free(sd), free(rd), free(st), free(rt), free(buf);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s freed_type|cancel_send|noop_origin|freed_comm|w_null_types\n", argv[0]);
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* the default handlers (MPI_ERRORS_ARE_FATAL): a correct program raises no error, so any
     * report, or an error of the MPI (Open MPI's MPI_Type_get_envelope on a freed type, under
     * the checker of old), ends the run */
    if (!strcmp(argv[1], "freed_type")) freed_type();
    else if (!strcmp(argv[1], "cancel_send")) cancel_send();
    else if (!strcmp(argv[1], "noop_origin")) noop_origin();
    else if (!strcmp(argv[1], "freed_comm")) freed_comm();
    else if (!strcmp(argv[1], "w_null_types")) w_null_types();
    else {
        fprintf(stderr, "correct_test: unknown scenario %s\n", argv[1]);
        failures = 1;
    }
    return finish(argv[1]);
}
