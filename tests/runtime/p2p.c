/* Point-to-point: every send mode (standard, buffered with attach/detach,
 * synchronous, ready after a barrier), blocking, nonblocking and persistent
 * (start/startall), sendrecv(_replace), MPI_PROC_NULL status fields,
 * Get_count/Get_elements, Wait/Test all/any/some with MPI_REQUEST_NULL entries and
 * the MPI_UNDEFINED index, cancel + Test_cancelled, message order, large messages. */
#include "check.h"

#define N 8
static int rank, size, left, right;

static int value(int src, int tag, int i) { return src * 100000 + tag * 100 + i; }

static void fill(int *buf, int src, int tag)
{
    for (int i = 0; i < N; ++i) buf[i] = value(src, tag, i);
}

static void expect_from_left(const int *buf, int tag, int line)
{
    for (int i = 0; i < N; ++i)
        CHECK_MSG(buf[i] == value(left, tag, i), "line %d: buf[%d] = %d, expected %d", line, i,
                  buf[i], value(left, tag, i));
}

static void expect_status(const MPI_Status *st, int src, int tag, int count, int line)
{
    int c = -1;
    MPI_Get_count(st, MPI_INT, &c);
    CHECK_MSG(st->MPI_SOURCE == src && st->MPI_TAG == tag && c == count,
              "line %d: status source %d tag %d count %d, expected %d %d %d", line,
              st->MPI_SOURCE, st->MPI_TAG, c, src, tag, count);
}

/* Blocking modes over a ring: the receive is posted first so that every mode
 * (including ssend to self at 1 rank) completes. */
static void test_modes(void)
{
    int out[N], in[N];
    MPI_Request req;
    MPI_Status st;

    /* Standard. */
    fill(out, rank, 1);
    memset(in, 0, sizeof in);
    MPI_OK(MPI_Irecv(in, N, MPI_INT, left, 1, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Send(out, N, MPI_INT, right, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&req, &st));
    expect_from_left(in, 1, __LINE__);
    expect_status(&st, left, 1, N, __LINE__);

    /* Buffered: attach a buffer sized with Pack_size + MPI_BSEND_OVERHEAD. */
    int psize = 0;
    MPI_OK(MPI_Pack_size(N, MPI_INT, MPI_COMM_WORLD, &psize));
    CHECK(psize >= N * (int)sizeof(int));
    int bsize = 2 * (psize + MPI_BSEND_OVERHEAD);
    char *bbuf = malloc((size_t)bsize);
    MPI_OK(MPI_Buffer_attach(bbuf, bsize));
    fill(out, rank, 2);
    memset(in, 0, sizeof in);
    MPI_OK(MPI_Bsend(out, N, MPI_INT, right, 2, MPI_COMM_WORLD));
    memset(out, 0, sizeof out); /* Bsend copied it */
    MPI_OK(MPI_Recv(in, N, MPI_INT, left, 2, MPI_COMM_WORLD, &st));
    expect_from_left(in, 2, __LINE__);
    expect_status(&st, left, 2, N, __LINE__);
    MPI_OK(MPI_Ibsend((fill(out, rank, 3), out), N, MPI_INT, right, 3, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Recv(in, N, MPI_INT, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    expect_from_left(in, 3, __LINE__);
    void *detached = NULL;
    int dsize = 0;
    MPI_OK(MPI_Buffer_detach(&detached, &dsize));
    CHECK(detached == bbuf);
    CHECK_EQ(dsize, bsize);
    free(bbuf);

    /* Synchronous. */
    fill(out, rank, 4);
    MPI_OK(MPI_Irecv(in, N, MPI_INT, left, 4, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Ssend(out, N, MPI_INT, right, 4, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&req, &st));
    expect_from_left(in, 4, __LINE__);
    MPI_Request sreq;
    fill(out, rank, 5);
    MPI_OK(MPI_Irecv(in, N, MPI_INT, left, 5, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Issend(out, N, MPI_INT, right, 5, MPI_COMM_WORLD, &sreq));
    MPI_Request both[2] = {req, sreq};
    MPI_OK(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
    CHECK(both[0] == MPI_REQUEST_NULL && both[1] == MPI_REQUEST_NULL);
    expect_from_left(in, 5, __LINE__);

    /* Ready: the receive is known to be posted after the barrier. */
    fill(out, rank, 6);
    MPI_OK(MPI_Irecv(in, N, MPI_INT, left, 6, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Rsend(out, N, MPI_INT, right, 6, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&req, &st));
    expect_from_left(in, 6, __LINE__);
    expect_status(&st, left, 6, N, __LINE__);
    fill(out, rank, 7);
    MPI_OK(MPI_Irecv(in, N, MPI_INT, left, 7, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Irsend(out, N, MPI_INT, right, 7, MPI_COMM_WORLD, &sreq));
    MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    expect_from_left(in, 7, __LINE__);

    /* Nonblocking standard, completed with Test in a loop. */
    fill(out, rank, 8);
    MPI_OK(MPI_Irecv(in, N, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Isend(out, N, MPI_INT, right, 8, MPI_COMM_WORLD, &sreq));
    int flag = 0;
    SPIN(MPI_Test(&req, &flag, &st), flag);
    CHECK(req == MPI_REQUEST_NULL);
    expect_status(&st, left, 8, N, __LINE__);
    expect_from_left(in, 8, __LINE__);
    MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
}

static void test_sendrecv(void)
{
    int out[N], in[N];
    MPI_Status st;
    fill(out, rank, 10);
    MPI_OK(MPI_Sendrecv(out, N, MPI_INT, right, 10, in, N, MPI_INT, left, 10, MPI_COMM_WORLD,
                        &st));
    expect_from_left(in, 10, __LINE__);
    expect_status(&st, left, 10, N, __LINE__);
    fill(in, rank, 11);
    MPI_OK(MPI_Sendrecv_replace(in, N, MPI_INT, right, 11, left, 11, MPI_COMM_WORLD, &st));
    expect_from_left(in, 11, __LINE__);
    expect_status(&st, left, 11, N, __LINE__);
#if MPI_VERSION >= 4
    MPI_Request req;
    fill(out, rank, 12);
    int rc = MPI_Isendrecv(out, N, MPI_INT, right, 12, in, N, MPI_INT, left, 12, MPI_COMM_WORLD,
                           &req);
    if (!check_mpi4_unsupported(rc, "MPI_Isendrecv")) {
        MPI_OK(rc);
        MPI_OK(MPI_Wait(&req, &st));
        expect_from_left(in, 12, __LINE__);
        if (!QUIRK_MPICH_ISENDRECV_STATUS) expect_status(&st, left, 12, N, __LINE__);
    }
#endif
}

static void test_persistent(void)
{
    int out[N], in[N], bout[N], bin[N];
    MPI_Request reqs[4];
    MPI_OK(MPI_Recv_init(in, N, MPI_INT, left, 20, MPI_COMM_WORLD, &reqs[0]));
    MPI_OK(MPI_Send_init(out, N, MPI_INT, right, 20, MPI_COMM_WORLD, &reqs[1]));
    MPI_OK(MPI_Recv_init(bin, N, MPI_INT, left, 21, MPI_COMM_WORLD, &reqs[2]));
    MPI_OK(MPI_Ssend_init(bout, N, MPI_INT, right, 21, MPI_COMM_WORLD, &reqs[3]));
    for (int iter = 0; iter < 3; ++iter) {
        fill(out, rank + iter, 20);
        fill(bout, rank + iter, 21);
        memset(in, 0, sizeof in);
        memset(bin, 0, sizeof bin);
        if (iter == 1) {
            for (int i = 0; i < 4; ++i) MPI_OK(MPI_Start(&reqs[i]));
        } else {
            MPI_OK(MPI_Startall(4, reqs));
        }
        MPI_Status st[4];
        MPI_OK(MPI_Waitall(4, reqs, st));
        /* Persistent requests stay allocated (inactive) after completion. */
        for (int i = 0; i < 4; ++i) CHECK(reqs[i] != MPI_REQUEST_NULL);
        for (int i = 0; i < N; ++i) {
            CHECK_EQ(in[i], value(left + iter, 20, i));
            CHECK_EQ(bin[i], value(left + iter, 21, i));
        }
        expect_status(&st[0], left, 20, N, __LINE__);
        expect_status(&st[2], left, 21, N, __LINE__);
    }
    /* Waiting on an inactive persistent request returns an empty status at once. */
    MPI_Status st;
    st.MPI_SOURCE = 12345;
    MPI_OK(MPI_Wait(&reqs[0], &st));
    CHECK_EQ(st.MPI_SOURCE, MPI_ANY_SOURCE);
    CHECK_EQ(st.MPI_TAG, MPI_ANY_TAG);
    for (int i = 0; i < 4; ++i) {
        MPI_OK(MPI_Request_free(&reqs[i]));
        CHECK(reqs[i] == MPI_REQUEST_NULL);
    }

    /* Buffered and ready persistent sends. */
    int psize = 0;
    MPI_OK(MPI_Pack_size(N, MPI_INT, MPI_COMM_WORLD, &psize));
    int bsize = psize + MPI_BSEND_OVERHEAD;
    char *bbuf = malloc((size_t)bsize);
    MPI_OK(MPI_Buffer_attach(bbuf, bsize));
    MPI_Request b, r, rr, rs;
    MPI_OK(MPI_Bsend_init(out, N, MPI_INT, right, 22, MPI_COMM_WORLD, &b));
    MPI_OK(MPI_Recv_init(in, N, MPI_INT, left, 22, MPI_COMM_WORLD, &r));
    fill(out, rank, 22);
    MPI_OK(MPI_Start(&b));
    MPI_OK(MPI_Start(&r));
    MPI_OK(MPI_Wait(&b, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    expect_from_left(in, 22, __LINE__);
    MPI_OK(MPI_Request_free(&b));
    MPI_OK(MPI_Request_free(&r));
    void *det;
    int dsz;
    MPI_OK(MPI_Buffer_detach(&det, &dsz));
    free(bbuf);

    MPI_OK(MPI_Rsend_init(out, N, MPI_INT, right, 23, MPI_COMM_WORLD, &rs));
    MPI_OK(MPI_Recv_init(in, N, MPI_INT, left, 23, MPI_COMM_WORLD, &rr));
    fill(out, rank, 23);
    MPI_OK(MPI_Start(&rr));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Start(&rs));
    MPI_OK(MPI_Wait(&rs, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&rr, MPI_STATUS_IGNORE));
    expect_from_left(in, 23, __LINE__);
    MPI_OK(MPI_Request_free(&rs));
    MPI_OK(MPI_Request_free(&rr));
}

static void expect_proc_null_status(const MPI_Status *st, int line)
{
    int count = -1;
    MPI_Get_count(st, MPI_INT, &count);
    CHECK_MSG(st->MPI_SOURCE == MPI_PROC_NULL, "line %d: MPI_SOURCE = %d", line, st->MPI_SOURCE);
    CHECK_MSG(st->MPI_TAG == MPI_ANY_TAG, "line %d: MPI_TAG = %d", line, st->MPI_TAG);
    CHECK_MSG(count == 0, "line %d: count = %d", line, count);
}

static void test_proc_null(void)
{
    int buf[N] = {1, 2, 3, 4, 5, 6, 7, 8};
    MPI_Status st;
    MPI_OK(MPI_Send(buf, N, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Ssend(buf, N, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(buf, N, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    expect_proc_null_status(&st, __LINE__);
    CHECK_EQ(buf[0], 1); /* untouched */
    MPI_Request reqs[2];
    MPI_OK(MPI_Isend(buf, N, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &reqs[0]));
    MPI_OK(MPI_Irecv(buf, N, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &reqs[1]));
    MPI_Status sts[2];
    MPI_OK(MPI_Waitall(2, reqs, sts));
    if (!QUIRK_MPICH_PROC_NULL_STATUS) expect_proc_null_status(&sts[1], __LINE__);
    MPI_OK(MPI_Sendrecv(buf, N, MPI_INT, MPI_PROC_NULL, 0, buf, N, MPI_INT, MPI_PROC_NULL, 0,
                        MPI_COMM_WORLD, &st));
    if (!QUIRK_MPICH_PROC_NULL_STATUS) expect_proc_null_status(&st, __LINE__);
    int elements = -1;
    MPI_OK(MPI_Get_elements(&st, MPI_INT, &elements));
    CHECK_EQ(elements, 0);
}

static void test_counts(void)
{
    int out[N], in[2 * N];
    MPI_Status st;
    fill(out, rank, 30);
    /* Fewer elements than the receive buffer holds. */
    MPI_OK(MPI_Sendrecv(out, 5, MPI_INT, right, 30, in, 2 * N, MPI_INT, left, 30, MPI_COMM_WORLD,
                        &st));
    int count = -1, elements = -1;
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK_EQ(count, 5);
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK_EQ(count, 5 * (int)sizeof(int));
    /* 5 ints against a pair type: not a whole number of pairs. */
    MPI_Datatype pair;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    MPI_OK(MPI_Type_commit(&pair));
    MPI_OK(MPI_Sendrecv(out, 5, MPI_INT, right, 31, in, N, pair, left, 31, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Get_count(&st, pair, &count));
    CHECK_EQ(count, MPI_UNDEFINED);
    MPI_OK(MPI_Get_elements(&st, pair, &elements));
    CHECK_EQ(elements, 5);
    MPI_Count elements_x = -1;
    MPI_OK(MPI_Get_elements_x(&st, pair, &elements_x));
    CHECK_EQ(elements_x, 5);
    for (int i = 0; i < 5; ++i) CHECK_EQ(in[i], value(left, 30, i));
    MPI_OK(MPI_Type_free(&pair));

    /* Truncation is an error of class MPI_ERR_TRUNCATE. */
    MPI_Request req;
    MPI_OK(MPI_Irecv(in, 2, MPI_INT, left, 32, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Send(out, 4, MPI_INT, right, 32, MPI_COMM_WORLD));
    int rc = MPI_Wait(&req, &st), cls = -1;
    MPI_Error_class(rc, &cls);
    if (size > 1 || !QUIRK_OPENMPI_SELF_TRUNCATE) CHECK_EQ(cls, MPI_ERR_TRUNCATE);
}

static void test_wait_test_families(void)
{
    MPI_Request reqs[5];
    MPI_Status sts[5];
    int index = -1, flag = -1, outcount = -1, indices[5];

    /* All-null arrays. */
    for (int i = 0; i < 5; ++i) reqs[i] = MPI_REQUEST_NULL;
    MPI_OK(MPI_Waitany(5, reqs, &index, &sts[0]));
    CHECK_EQ(index, MPI_UNDEFINED);
    MPI_OK(MPI_Testany(5, reqs, &index, &flag, &sts[0]));
    CHECK_EQ(index, MPI_UNDEFINED);
    CHECK_EQ(flag, 1);
    MPI_OK(MPI_Waitsome(5, reqs, &outcount, indices, sts));
    CHECK_EQ(outcount, MPI_UNDEFINED);
    MPI_OK(MPI_Testsome(5, reqs, &outcount, indices, sts));
    CHECK_EQ(outcount, MPI_UNDEFINED);
    flag = 0;
    MPI_OK(MPI_Testall(5, reqs, &flag, sts));
    CHECK_EQ(flag, 1);
    MPI_OK(MPI_Waitall(5, reqs, sts));
    MPI_Status st;
    st.MPI_SOURCE = 99;
    st.MPI_TAG = 99;
    MPI_OK(MPI_Wait(&reqs[0], &st));
    CHECK_EQ(st.MPI_SOURCE, MPI_ANY_SOURCE);
    CHECK_EQ(st.MPI_TAG, MPI_ANY_TAG);
    flag = 0;
    MPI_OK(MPI_Test(&reqs[0], &flag, &st));
    CHECK_EQ(flag, 1);
    MPI_OK(MPI_Waitany(0, NULL, &index, &st));
    CHECK_EQ(index, MPI_UNDEFINED);

    /* Mixed arrays: receives at 1 and 3, nulls elsewhere. */
    int in[5] = {-1, -1, -1, -1, -1}, out[5];
    for (int i = 0; i < 5; ++i) out[i] = rank * 10 + i;
    reqs[0] = reqs[2] = reqs[4] = MPI_REQUEST_NULL;
    MPI_OK(MPI_Irecv(&in[1], 1, MPI_INT, left, 41, MPI_COMM_WORLD, &reqs[1]));
    MPI_OK(MPI_Irecv(&in[3], 1, MPI_INT, left, 43, MPI_COMM_WORLD, &reqs[3]));
    MPI_OK(MPI_Send(&out[3], 1, MPI_INT, right, 43, MPI_COMM_WORLD));
    MPI_OK(MPI_Waitany(5, reqs, &index, &st));
    CHECK_EQ(index, 3);
    CHECK_EQ(st.MPI_TAG, 43);
    CHECK(reqs[3] == MPI_REQUEST_NULL);
    CHECK_EQ(in[3], left * 10 + 3);
    /* Nothing sent on 41 yet: Testany finds nothing, index MPI_UNDEFINED, flag 0. */
    flag = -1;
    MPI_OK(MPI_Testany(5, reqs, &index, &flag, &st));
    CHECK_EQ(flag, 0);
    CHECK_EQ(index, MPI_UNDEFINED);
    MPI_OK(MPI_Testsome(5, reqs, &outcount, indices, sts));
    CHECK_EQ(outcount, 0);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* every rank has tested before any sends 41 */
    MPI_OK(MPI_Send(&out[1], 1, MPI_INT, right, 41, MPI_COMM_WORLD));
    MPI_OK(MPI_Waitsome(5, reqs, &outcount, indices, sts));
    CHECK_EQ(outcount, 1);
    CHECK_EQ(indices[0], 1);
    CHECK_EQ(sts[0].MPI_SOURCE, left);
    CHECK_EQ(sts[0].MPI_TAG, 41);
    CHECK_EQ(in[1], left * 10 + 1);

    /* Waitall fills one status per entry; null entries get the empty status. */
    MPI_OK(MPI_Irecv(&in[0], 1, MPI_INT, left, 50, MPI_COMM_WORLD, &reqs[0]));
    MPI_OK(MPI_Irecv(&in[4], 1, MPI_INT, left, 54, MPI_COMM_WORLD, &reqs[4]));
    reqs[1] = reqs[2] = reqs[3] = MPI_REQUEST_NULL;
    MPI_OK(MPI_Send(&out[4], 1, MPI_INT, right, 54, MPI_COMM_WORLD));
    MPI_OK(MPI_Send(&out[0], 1, MPI_INT, right, 50, MPI_COMM_WORLD));
    for (int i = 0; i < 5; ++i) sts[i].MPI_TAG = -99;
    MPI_OK(MPI_Waitall(5, reqs, sts));
    CHECK_EQ(sts[0].MPI_TAG, 50);
    CHECK_EQ(sts[4].MPI_TAG, 54);
    CHECK_EQ(sts[2].MPI_TAG, MPI_ANY_TAG);
    CHECK_EQ(sts[2].MPI_SOURCE, MPI_ANY_SOURCE);
    CHECK_EQ(in[0], left * 10);
    CHECK_EQ(in[4], left * 10 + 4);
    for (int i = 0; i < 5; ++i) CHECK(reqs[i] == MPI_REQUEST_NULL);

    /* Testall completes eventually with every status filled. */
    MPI_OK(MPI_Irecv(&in[2], 1, MPI_INT, left, 52, MPI_COMM_WORLD, &reqs[2]));
    MPI_OK(MPI_Isend(&out[2], 1, MPI_INT, right, 52, MPI_COMM_WORLD, &reqs[0]));
    flag = 0;
    SPIN(MPI_Testall(5, reqs, &flag, sts), flag);
    CHECK_EQ(sts[2].MPI_SOURCE, left);
    CHECK_EQ(sts[2].MPI_TAG, 52);
    CHECK_EQ(in[2], left * 10 + 2);
}

static void test_cancel(void)
{
    int buf = -1;
    MPI_Request req;
    MPI_Status st;
    MPI_OK(MPI_Irecv(&buf, 1, MPI_INT, rank, 999, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Cancel(&req));
    MPI_OK(MPI_Wait(&req, &st));
    int cancelled = 0;
    MPI_OK(MPI_Test_cancelled(&st, &cancelled));
    CHECK_EQ(cancelled, 1);
    CHECK_EQ(buf, -1);

    /* A completed receive is not cancelled. */
    int out = 5;
    MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, right, 998, &buf, 1, MPI_INT, left, 998, MPI_COMM_WORLD,
                        &st));
    cancelled = 1;
    MPI_OK(MPI_Test_cancelled(&st, &cancelled));
    CHECK_EQ(cancelled, 0);
}

static void test_order_and_large(void)
{
    /* Non-overtaking: two messages with the same envelope arrive in order. */
    int a = rank * 2, b = rank * 2 + 1, x = -1, y = -1;
    MPI_Request reqs[2];
    MPI_OK(MPI_Isend(&a, 1, MPI_INT, right, 60, MPI_COMM_WORLD, &reqs[0]));
    MPI_OK(MPI_Isend(&b, 1, MPI_INT, right, 60, MPI_COMM_WORLD, &reqs[1]));
    MPI_OK(MPI_Recv(&x, 1, MPI_INT, left, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Recv(&y, 1, MPI_INT, left, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    CHECK_EQ(x, left * 2);
    CHECK_EQ(y, left * 2 + 1);

    /* A message well past any eager limit. */
    enum { BIG = 1 << 20 };
    double *out = malloc(sizeof(double) * BIG), *in = malloc(sizeof(double) * BIG);
    for (int i = 0; i < BIG; ++i) {
        out[i] = rank + i * 0.5;
        in[i] = -1;
    }
    MPI_Status st;
    MPI_OK(MPI_Sendrecv(out, BIG, MPI_DOUBLE, right, 61, in, BIG, MPI_DOUBLE, left, 61,
                        MPI_COMM_WORLD, &st));
    int bad = 0;
    for (int i = 0; i < BIG; ++i)
        if (in[i] != left + i * 0.5) ++bad;
    CHECK_EQ(bad, 0);
    int count = -1;
    MPI_OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
    CHECK_EQ(count, BIG);
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "p2p");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    test_modes();
    test_sendrecv();
    test_persistent();
    test_proc_null();
    test_counts();
    test_wait_test_families();
    test_cancel();
    test_order_and_large();
    return check_finish();
}
