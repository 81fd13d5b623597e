/* Statuses are written only where the MPI writes them.  Every status starts filled with a
 * recognisable pattern (MPI_SOURCE -77, MPI_TAG -88, MPI_ERROR -99, 5 MPI_INT elements, not
 * cancelled); after each call every field must be what the MPI underneath leaves there:
 * untouched where no request completed or no message was found (Iprobe/Improbe and the Test
 * family with flag = false, the entries past outcount), MPI_ERROR untouched by a successful
 * single completion, and what that MPI writes otherwise -- which differs between the MPIs
 * (what MPICH 4.0.2 writes for a nonblocking receive from MPI_PROC_NULL, which completions
 * set MPI_ERROR to MPI_SUCCESS).  The expectations per MPI are the facts below; the native
 * builds of this very file prove them, the build over the ABI must reproduce them.  Covered:
 * Recv, Wait (receive and send), Test, Waitany, Testany, Waitall, Testall, Waitsome, Testsome,
 * Iprobe/Probe, Improbe/Mprobe, Mrecv, Imrecv+Wait, Sendrecv, Sendrecv_replace,
 * Request_get_status, receives from MPI_PROC_NULL, MPI_STATUS(ES)_IGNORE, MPI_Get_count /
 * MPI_Get_elements / MPI_Test_cancelled on the results, a truncation in Waitall. */
#include "check.h"

static int rank, size, left, right;
static int under_mpich, under_openmpi;

enum { SRC0 = -77, TAG0 = -88, ERR0 = -99, COUNT0 = 5 };

/* ---------------------------------------------------------------- what each MPI writes
 * MPI_ERROR after a successful completion: "kept" = the caller's value stays. */
/* Waitall sets MPI_ERROR to MPI_SUCCESS on both MPIs. */
static int err_waitall(void) { return MPI_SUCCESS; }
/* Waitsome, Testall, Testsome: Open MPI sets MPI_SUCCESS; MPICH keeps the caller's value. */
static int err_multi(void) { return under_openmpi ? MPI_SUCCESS : ERR0; }
/* Probe, Iprobe: MPICH sets MPI_SUCCESS; Open MPI keeps the caller's value. */
static int err_probe(void) { return under_mpich ? MPI_SUCCESS : ERR0; }
/* Mprobe, Improbe: MPICH sets MPI_SUCCESS for a message from the process itself (its self
 * path) and keeps the caller's value otherwise; Open MPI keeps it. */
static int err_mprobe(int from) { return under_mpich && from == rank ? MPI_SUCCESS : ERR0; }
/* Sendrecv_replace: MPICH sets MPI_SUCCESS (for MPI_PROC_NULL as well); Open MPI keeps. */
static int err_replace(void) { return under_mpich ? MPI_SUCCESS : ERR0; }
/* Waitsome over a receive from MPI_PROC_NULL: as err_multi. */

/* The status of a completed send: Open MPI writes the empty status (MPI_PROC_NULL,
 * MPI_ANY_TAG, 0 elements), MPICH writes nothing. */
/* A nonblocking receive from MPI_PROC_NULL: MPICH 4.0.2 completes it with source 0 and tag 0
 * (QUIRK_MPICH_PROC_NULL_STATUS in check.h); the blocking forms and Open MPI give the empty
 * status. */
static int proc_null_nb_source(void) { return under_mpich ? 0 : MPI_PROC_NULL; }
static int proc_null_nb_tag(void) { return under_mpich ? 0 : MPI_ANY_TAG; }

/* ---------------------------------------------------------------- helpers */
static void prefill(MPI_Status *s)
{
    MPI_Status_set_elements(s, MPI_INT, COUNT0);
    MPI_Status_set_cancelled(s, 0);
    s->MPI_SOURCE = SRC0;
    s->MPI_TAG = TAG0;
    s->MPI_ERROR = ERR0;
}

static void expect_(const MPI_Status *s, int src, int tag, int err, int count, const char *what, int line)
{
    int c = -2, e = -2, x = -2;
    MPI_Get_count(s, MPI_INT, &c);
    MPI_Get_elements(s, MPI_INT, &e);
    MPI_Test_cancelled(s, &x);
    CHECK_MSG(s->MPI_SOURCE == src && s->MPI_TAG == tag && s->MPI_ERROR == err && c == count && e == count && x == 0,
              "line %d, %s: source %d tag %d error %d count %d elements %d cancelled %d; expected source %d tag %d "
              "error %d count %d elements %d cancelled 0",
              line, what, s->MPI_SOURCE, s->MPI_TAG, s->MPI_ERROR, c, e, x, src, tag, err, count, count);
}
#define EXPECT(s, src, tag, err, count, what) expect_(s, src, tag, err, count, what, __LINE__)
#define EXPECT_UNTOUCHED(s, what) expect_(s, SRC0, TAG0, ERR0, COUNT0, what, __LINE__)
/* In a polling loop: checked once, at the first poll that found nothing. */
#define EXPECT_UNTOUCHED_ONCE(s, what, done)                                   \
    do {                                                                       \
        if (!(done)) EXPECT_UNTOUCHED(s, what);                                \
        (done) = 1;                                                            \
    } while (0)

static void fill_out(int *out, int n, int tag)
{
    for (int i = 0; i < n; ++i) out[i] = rank * 1000 + tag * 10 + i;
}
static void expect_in(const int *in, int n, int tag, int line)
{
    for (int i = 0; i < n; ++i)
        CHECK_MSG(in[i] == left * 1000 + tag * 10 + i, "line %d: in[%d] = %d", line, i, in[i]);
}

/* ---------------------------------------------------------------- the tests */
static void test_prefill(void)
{
    /* Status_set_elements / set_cancelled change only the count and the cancelled flag. */
    MPI_Status s;
    s.MPI_SOURCE = SRC0;
    s.MPI_TAG = TAG0;
    s.MPI_ERROR = ERR0;
    MPI_OK(MPI_Status_set_elements(&s, MPI_INT, 3));
    MPI_OK(MPI_Status_set_cancelled(&s, 1));
    int c = -1, x = -1;
    MPI_OK(MPI_Get_count(&s, MPI_INT, &c));
    MPI_OK(MPI_Test_cancelled(&s, &x));
    CHECK_EQ(c, 3);
    CHECK_EQ(x, 1);
    CHECK_EQ(s.MPI_SOURCE, SRC0);
    CHECK_EQ(s.MPI_TAG, TAG0);
    CHECK_EQ(s.MPI_ERROR, ERR0);
    prefill(&s);
    EXPECT_UNTOUCHED(&s, "prefill");
}

static void test_single(void)
{
    int out[8], in[8];
    MPI_Request sreq, rreq;
    MPI_Status st;

    /* Recv */
    fill_out(out, 2, 1);
    MPI_OK(MPI_Isend(out, 2, MPI_INT, right, 1, MPI_COMM_WORLD, &sreq));
    prefill(&st);
    MPI_OK(MPI_Recv(in, 8, MPI_INT, left, 1, MPI_COMM_WORLD, &st));
    EXPECT(&st, left, 1, ERR0, 2, "Recv");
    expect_in(in, 2, 1, __LINE__);
    /* Wait on the send: Open MPI writes the empty status, MPICH nothing. */
    prefill(&st);
    MPI_OK(MPI_Wait(&sreq, &st));
    CHECK(sreq == MPI_REQUEST_NULL);
    if (under_openmpi) EXPECT(&st, MPI_PROC_NULL, MPI_ANY_TAG, ERR0, 0, "Wait(send)");
    else EXPECT_UNTOUCHED(&st, "Wait(send)");

    /* Irecv + Wait */
    MPI_OK(MPI_Irecv(in, 8, MPI_INT, left, 2, MPI_COMM_WORLD, &rreq));
    fill_out(out, 3, 2);
    MPI_OK(MPI_Isend(out, 3, MPI_INT, right, 2, MPI_COMM_WORLD, &sreq));
    prefill(&st);
    MPI_OK(MPI_Wait(&rreq, &st));
    EXPECT(&st, left, 2, ERR0, 3, "Wait");
    expect_in(in, 3, 2, __LINE__);
    MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));

    /* Test and Request_get_status: flag 0 (the left neighbour sends only after the
     * barrier), then flag 1. */
    int flag = -1;
    MPI_OK(MPI_Irecv(in, 8, MPI_INT, left, 3, MPI_COMM_WORLD, &rreq));
    prefill(&st);
    MPI_OK(MPI_Test(&rreq, &flag, &st));
    CHECK_EQ(flag, 0);
    EXPECT_UNTOUCHED(&st, "Test flag 0");
    flag = -1;
    prefill(&st);
    MPI_OK(MPI_Request_get_status(rreq, &flag, &st));
    CHECK_EQ(flag, 0);
    EXPECT_UNTOUCHED(&st, "Request_get_status flag 0");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    fill_out(out, 4, 3);
    MPI_OK(MPI_Isend(out, 4, MPI_INT, right, 3, MPI_COMM_WORLD, &sreq));
    flag = 0;
    while (!flag) {
        prefill(&st);
        MPI_OK(MPI_Request_get_status(rreq, &flag, &st));
    }
    EXPECT(&st, left, 3, ERR0, 4, "Request_get_status flag 1");
    CHECK(rreq != MPI_REQUEST_NULL);
    prefill(&st);
    MPI_OK(MPI_Test(&rreq, &flag, &st));
    CHECK_EQ(flag, 1);
    CHECK(rreq == MPI_REQUEST_NULL);
    EXPECT(&st, left, 3, ERR0, 4, "Test flag 1");
    expect_in(in, 4, 3, __LINE__);
    MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));

    /* A cancelled receive: MPI_Test_cancelled says so (the flag is a hidden field). */
    MPI_OK(MPI_Irecv(in, 8, MPI_INT, left, 98, MPI_COMM_WORLD, &rreq)); /* tag 98: never sent */
    MPI_OK(MPI_Cancel(&rreq));
    prefill(&st);
    MPI_OK(MPI_Wait(&rreq, &st));
    int cancelled = -1;
    MPI_OK(MPI_Test_cancelled(&st, &cancelled));
    CHECK_EQ(cancelled, 1);
    CHECK_EQ(st.MPI_ERROR, ERR0);

    /* Sendrecv, Sendrecv_replace */
    fill_out(out, 5, 4);
    prefill(&st);
    MPI_OK(MPI_Sendrecv(out, 5, MPI_INT, right, 4, in, 8, MPI_INT, left, 4, MPI_COMM_WORLD, &st));
    EXPECT(&st, left, 4, ERR0, 5, "Sendrecv");
    expect_in(in, 5, 4, __LINE__);
    fill_out(in, 6, 5);
    prefill(&st);
    MPI_OK(MPI_Sendrecv_replace(in, 6, MPI_INT, right, 5, left, 5, MPI_COMM_WORLD, &st));
    EXPECT(&st, left, 5, err_replace(), 6, "Sendrecv_replace");
    expect_in(in, 6, 5, __LINE__);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void test_any(void)
{
    int out[8], in[8], index = -1, flag = -1;
    MPI_Request sreq, rreqs[2];
    MPI_Status st;

    /* Waitany: the active request is the second one. */
    rreqs[0] = MPI_REQUEST_NULL;
    MPI_OK(MPI_Irecv(in, 8, MPI_INT, left, 10, MPI_COMM_WORLD, &rreqs[1]));
    fill_out(out, 2, 10);
    MPI_OK(MPI_Isend(out, 2, MPI_INT, right, 10, MPI_COMM_WORLD, &sreq));
    prefill(&st);
    MPI_OK(MPI_Waitany(2, rreqs, &index, &st));
    CHECK_EQ(index, 1);
    EXPECT(&st, left, 10, ERR0, 2, "Waitany");
    expect_in(in, 2, 10, __LINE__);
    MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));

    /* Testany: nothing yet, then the message. */
    MPI_OK(MPI_Irecv(in, 8, MPI_INT, left, 11, MPI_COMM_WORLD, &rreqs[0]));
    rreqs[1] = MPI_REQUEST_NULL;
    prefill(&st);
    MPI_OK(MPI_Testany(2, rreqs, &index, &flag, &st));
    CHECK_EQ(flag, 0);
    CHECK_EQ(index, MPI_UNDEFINED);
    EXPECT_UNTOUCHED(&st, "Testany flag 0");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    fill_out(out, 3, 11);
    MPI_OK(MPI_Isend(out, 3, MPI_INT, right, 11, MPI_COMM_WORLD, &sreq));
    flag = 0;
    int polled = 0;
    while (!flag) {
        prefill(&st);
        MPI_OK(MPI_Testany(2, rreqs, &index, &flag, &st));
        if (!flag) EXPECT_UNTOUCHED_ONCE(&st, "Testany flag 0 (polling)", polled);
    }
    CHECK_EQ(index, 0);
    EXPECT(&st, left, 11, ERR0, 3, "Testany flag 1");
    expect_in(in, 3, 11, __LINE__);
    MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void test_all_some(void)
{
    int out[8], in[8], in2[8], flag = -1, outcount = -1, indices[2] = {-1, -1};
    MPI_Request sreqs[2], rreqs[2];
    MPI_Status sts[2];

    /* Waitall */
    MPI_OK(MPI_Irecv(in, 8, MPI_INT, left, 20, MPI_COMM_WORLD, &rreqs[0]));
    MPI_OK(MPI_Irecv(in2, 8, MPI_INT, left, 21, MPI_COMM_WORLD, &rreqs[1]));
    fill_out(out, 4, 20);
    MPI_OK(MPI_Isend(out, 2, MPI_INT, right, 20, MPI_COMM_WORLD, &sreqs[0]));
    MPI_OK(MPI_Isend(out, 3, MPI_INT, right, 21, MPI_COMM_WORLD, &sreqs[1]));
    prefill(&sts[0]);
    prefill(&sts[1]);
    MPI_OK(MPI_Waitall(2, rreqs, sts));
    EXPECT(&sts[0], left, 20, err_waitall(), 2, "Waitall[0]");
    EXPECT(&sts[1], left, 21, err_waitall(), 3, "Waitall[1]");
    MPI_OK(MPI_Waitall(2, sreqs, MPI_STATUSES_IGNORE));

    /* Testall: flag 0 leaves every status alone; then both complete. */
    MPI_OK(MPI_Irecv(in, 8, MPI_INT, left, 22, MPI_COMM_WORLD, &rreqs[0]));
    MPI_OK(MPI_Irecv(in2, 8, MPI_INT, left, 23, MPI_COMM_WORLD, &rreqs[1]));
    prefill(&sts[0]);
    prefill(&sts[1]);
    MPI_OK(MPI_Testall(2, rreqs, &flag, sts));
    CHECK_EQ(flag, 0);
    EXPECT_UNTOUCHED(&sts[0], "Testall flag 0 [0]");
    EXPECT_UNTOUCHED(&sts[1], "Testall flag 0 [1]");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    fill_out(out, 4, 22);
    MPI_OK(MPI_Isend(out, 1, MPI_INT, right, 22, MPI_COMM_WORLD, &sreqs[0]));
    MPI_OK(MPI_Isend(out, 4, MPI_INT, right, 23, MPI_COMM_WORLD, &sreqs[1]));
    flag = 0;
    while (!flag) {
        prefill(&sts[0]);
        prefill(&sts[1]);
        MPI_OK(MPI_Testall(2, rreqs, &flag, sts));
    }
    EXPECT(&sts[0], left, 22, err_multi(), 1, "Testall flag 1 [0]");
    EXPECT(&sts[1], left, 23, err_multi(), 4, "Testall flag 1 [1]");
    MPI_OK(MPI_Waitall(2, sreqs, MPI_STATUSES_IGNORE));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* Testsome with nothing, then Waitsome with one of two: the entry past outcount stays
     * untouched; then Testsome collects the other. */
    MPI_OK(MPI_Irecv(in, 8, MPI_INT, left, 24, MPI_COMM_WORLD, &rreqs[0]));
    MPI_OK(MPI_Irecv(in2, 8, MPI_INT, left, 25, MPI_COMM_WORLD, &rreqs[1]));
    prefill(&sts[0]);
    prefill(&sts[1]);
    MPI_OK(MPI_Testsome(2, rreqs, &outcount, indices, sts));
    CHECK_EQ(outcount, 0);
    EXPECT_UNTOUCHED(&sts[0], "Testsome outcount 0 [0]");
    EXPECT_UNTOUCHED(&sts[1], "Testsome outcount 0 [1]");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    fill_out(out, 4, 24);
    MPI_OK(MPI_Isend(out, 3, MPI_INT, right, 25, MPI_COMM_WORLD, &sreqs[0]));
    prefill(&sts[0]);
    prefill(&sts[1]);
    MPI_OK(MPI_Waitsome(2, rreqs, &outcount, indices, sts));
    CHECK_EQ(outcount, 1);
    CHECK_EQ(indices[0], 1);
    EXPECT(&sts[0], left, 25, err_multi(), 3, "Waitsome [0]");
    EXPECT_UNTOUCHED(&sts[1], "Waitsome [1] (past outcount)");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    fill_out(out, 4, 24);
    MPI_OK(MPI_Isend(out, 2, MPI_INT, right, 24, MPI_COMM_WORLD, &sreqs[1]));
    outcount = 0;
    int polled = 0;
    while (outcount != 1) {
        prefill(&sts[0]);
        prefill(&sts[1]);
        MPI_OK(MPI_Testsome(2, rreqs, &outcount, indices, sts));
        if (outcount == 0) EXPECT_UNTOUCHED_ONCE(&sts[0], "Testsome outcount 0 (polling)", polled);
        if (outcount == MPI_UNDEFINED) break;
    }
    CHECK_EQ(outcount, 1);
    CHECK_EQ(indices[0], 0);
    EXPECT(&sts[0], left, 24, err_multi(), 2, "Testsome [0]");
    EXPECT_UNTOUCHED(&sts[1], "Testsome [1] (past outcount)");
    MPI_OK(MPI_Waitall(2, sreqs, MPI_STATUSES_IGNORE));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void test_probe(void)
{
    int out[8], in[8], flag = -1;
    MPI_Request sreq, rreq;
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Status st;

    /* Nothing is ever sent on tag 99. */
    prefill(&st);
    MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, &st));
    CHECK_EQ(flag, 0);
    EXPECT_UNTOUCHED(&st, "Iprobe flag 0");
    flag = -1;
    prefill(&st);
    MPI_OK(MPI_Improbe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK_EQ(flag, 0);
    EXPECT_UNTOUCHED(&st, "Improbe flag 0");

    /* Probe, Iprobe, then the receive. */
    fill_out(out, 3, 30);
    MPI_OK(MPI_Isend(out, 3, MPI_INT, right, 30, MPI_COMM_WORLD, &sreq));
    prefill(&st);
    MPI_OK(MPI_Probe(left, 30, MPI_COMM_WORLD, &st));
    EXPECT(&st, left, 30, err_probe(), 3, "Probe");
    flag = 0;
    while (!flag) {
        prefill(&st);
        MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 30, MPI_COMM_WORLD, &flag, &st));
    }
    EXPECT(&st, left, 30, err_probe(), 3, "Iprobe flag 1");
    MPI_OK(MPI_Recv(in, 8, MPI_INT, left, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    expect_in(in, 3, 30, __LINE__);
    MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));

    /* Mprobe + Mrecv */
    fill_out(out, 4, 31);
    MPI_OK(MPI_Isend(out, 4, MPI_INT, right, 31, MPI_COMM_WORLD, &sreq));
    prefill(&st);
    MPI_OK(MPI_Mprobe(left, 31, MPI_COMM_WORLD, &msg, &st));
    EXPECT(&st, left, 31, err_mprobe(left), 4, "Mprobe");
    prefill(&st);
    MPI_OK(MPI_Mrecv(in, 8, MPI_INT, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL);
    EXPECT(&st, left, 31, ERR0, 4, "Mrecv");
    expect_in(in, 4, 31, __LINE__);
    MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));

    /* Improbe + Imrecv + Wait */
    fill_out(out, 5, 32);
    MPI_OK(MPI_Isend(out, 5, MPI_INT, right, 32, MPI_COMM_WORLD, &sreq));
    flag = 0;
    int polled = 0;
    while (!flag) {
        prefill(&st);
        MPI_OK(MPI_Improbe(left, 32, MPI_COMM_WORLD, &flag, &msg, &st));
        if (!flag) EXPECT_UNTOUCHED_ONCE(&st, "Improbe flag 0 (polling)", polled);
    }
    EXPECT(&st, left, 32, err_mprobe(left), 5, "Improbe flag 1");
    MPI_OK(MPI_Imrecv(in, 8, MPI_INT, &msg, &rreq));
    prefill(&st);
    MPI_OK(MPI_Wait(&rreq, &st));
    EXPECT(&st, left, 32, ERR0, 5, "Imrecv + Wait");
    expect_in(in, 5, 32, __LINE__);
    MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void test_proc_null(void)
{
    int buf[4] = {1, 2, 3, 4}, flag = -1, index = -1, outcount = -1, indices[1];
    MPI_Request r;
    MPI_Message msg;
    MPI_Status st, sts[1];
    const int PN = MPI_PROC_NULL, AT = MPI_ANY_TAG;

    prefill(&st);
    MPI_OK(MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    EXPECT(&st, PN, AT, ERR0, 0, "Recv(PROC_NULL)");
    CHECK_EQ(buf[0], 1);

    MPI_OK(MPI_Irecv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
    prefill(&st);
    MPI_OK(MPI_Wait(&r, &st));
    EXPECT(&st, proc_null_nb_source(), proc_null_nb_tag(), ERR0, 0, "Irecv(PROC_NULL) + Wait");

    MPI_OK(MPI_Irecv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
    prefill(&st);
    MPI_OK(MPI_Test(&r, &flag, &st));
    CHECK_EQ(flag, 1);
    EXPECT(&st, proc_null_nb_source(), proc_null_nb_tag(), ERR0, 0, "Irecv(PROC_NULL) + Test");

    MPI_OK(MPI_Irecv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
    prefill(&st);
    MPI_OK(MPI_Waitany(1, &r, &index, &st));
    CHECK_EQ(index, 0);
    EXPECT(&st, proc_null_nb_source(), proc_null_nb_tag(), ERR0, 0, "Irecv(PROC_NULL) + Waitany");

    MPI_OK(MPI_Irecv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
    prefill(&sts[0]);
    MPI_OK(MPI_Waitall(1, &r, sts));
    EXPECT(&sts[0], proc_null_nb_source(), proc_null_nb_tag(), err_waitall(), 0, "Irecv(PROC_NULL) + Waitall");

    MPI_OK(MPI_Irecv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
    prefill(&sts[0]);
    MPI_OK(MPI_Waitsome(1, &r, &outcount, indices, sts));
    CHECK_EQ(outcount, 1);
    EXPECT(&sts[0], proc_null_nb_source(), proc_null_nb_tag(), err_multi(), 0, "Irecv(PROC_NULL) + Waitsome");

    prefill(&st);
    MPI_OK(MPI_Sendrecv(buf, 2, MPI_INT, MPI_PROC_NULL, 6, buf, 4, MPI_INT, MPI_PROC_NULL, 6, MPI_COMM_WORLD, &st));
    EXPECT(&st, PN, AT, ERR0, 0, "Sendrecv(PROC_NULL)");
    prefill(&st);
    MPI_OK(MPI_Sendrecv_replace(buf, 2, MPI_INT, MPI_PROC_NULL, 6, MPI_PROC_NULL, 6, MPI_COMM_WORLD, &st));
    EXPECT(&st, PN, AT, err_replace(), 0, "Sendrecv_replace(PROC_NULL)");

    prefill(&st);
    MPI_OK(MPI_Probe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    EXPECT(&st, PN, AT, ERR0, 0, "Probe(PROC_NULL)");
    prefill(&st);
    flag = 0;
    MPI_OK(MPI_Iprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &flag, &st));
    CHECK_EQ(flag, 1);
    EXPECT(&st, PN, AT, ERR0, 0, "Iprobe(PROC_NULL)");
    prefill(&st);
    MPI_OK(MPI_Mprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC);
    EXPECT(&st, PN, AT, ERR0, 0, "Mprobe(PROC_NULL)");
    prefill(&st);
    MPI_OK(MPI_Mrecv(buf, 4, MPI_INT, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL);
    EXPECT(&st, PN, AT, ERR0, 0, "Mrecv(MESSAGE_NO_PROC)");
    prefill(&st);
    flag = 0;
    MPI_OK(MPI_Improbe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK_EQ(flag, 1);
    CHECK(msg == MPI_MESSAGE_NO_PROC);
    EXPECT(&st, PN, AT, ERR0, 0, "Improbe(PROC_NULL)");
    MPI_OK(MPI_Imrecv(buf, 4, MPI_INT, &msg, &r));
    prefill(&st);
    MPI_OK(MPI_Wait(&r, &st));
    EXPECT(&st, PN, AT, ERR0, 0, "Imrecv(MESSAGE_NO_PROC) + Wait");
    CHECK_EQ(buf[0], 1);
}

/* Every form with MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE: the data arrives, nothing is
 * written through the sentinel. */
static void test_ignore(void)
{
    int out[8], in[8], in2[8], flag = 0, index = -1, outcount = 0, indices[2];
    MPI_Request sreqs[2], rreqs[2];
    MPI_Message msg;

    fill_out(out, 8, 40);
    MPI_OK(MPI_Isend(out, 8, MPI_INT, right, 40, MPI_COMM_WORLD, &sreqs[0]));
    MPI_OK(MPI_Recv(in, 8, MPI_INT, left, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    expect_in(in, 8, 40, __LINE__);
    MPI_OK(MPI_Wait(&sreqs[0], MPI_STATUS_IGNORE));

    fill_out(out, 8, 41);
    MPI_OK(MPI_Irecv(in, 8, MPI_INT, left, 41, MPI_COMM_WORLD, &rreqs[0]));
    MPI_OK(MPI_Irecv(in2, 8, MPI_INT, left, 42, MPI_COMM_WORLD, &rreqs[1]));
    MPI_OK(MPI_Isend(out, 8, MPI_INT, right, 41, MPI_COMM_WORLD, &sreqs[0]));
    MPI_OK(MPI_Isend(out, 8, MPI_INT, right, 42, MPI_COMM_WORLD, &sreqs[1]));
    MPI_OK(MPI_Waitany(2, rreqs, &index, MPI_STATUS_IGNORE));
    CHECK(index == 0 || index == 1);
    SPIN(MPI_Testany(2, rreqs, &index, &flag, MPI_STATUS_IGNORE), flag);
    CHECK(index == 0 || index == 1);
    CHECK(rreqs[0] == MPI_REQUEST_NULL && rreqs[1] == MPI_REQUEST_NULL);
    expect_in(in, 8, 41, __LINE__);
    MPI_OK(MPI_Waitsome(2, sreqs, &outcount, indices, MPI_STATUSES_IGNORE));
    CHECK(outcount >= 1);
    SPIN(MPI_Testall(2, sreqs, &flag, MPI_STATUSES_IGNORE), flag);

    fill_out(out, 8, 43);
    MPI_OK(MPI_Isend(out, 8, MPI_INT, right, 43, MPI_COMM_WORLD, &sreqs[0]));
    MPI_OK(MPI_Probe(left, 43, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    SPIN(MPI_Iprobe(left, 43, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE), flag);
    MPI_OK(MPI_Mprobe(left, 43, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Mrecv(in, 8, MPI_INT, &msg, MPI_STATUS_IGNORE));
    expect_in(in, 8, 43, __LINE__);
    MPI_OK(MPI_Test(&sreqs[0], &flag, MPI_STATUS_IGNORE));
    if (!flag) MPI_OK(MPI_Wait(&sreqs[0], MPI_STATUS_IGNORE));
    fill_out(out, 8, 44);
    MPI_OK(MPI_Sendrecv(out, 8, MPI_INT, right, 44, in2, 8, MPI_INT, left, 44, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    expect_in(in2, 8, 44, __LINE__);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* A truncated receive in Waitall: MPI_ERR_IN_STATUS, the truncated entry's MPI_ERROR of class
 * MPI_ERR_TRUNCATE, the other entry's MPI_SUCCESS.  Open MPI 4.1.4 does not truncate a
 * message to self (QUIRK_OPENMPI_SELF_TRUNCATE): there Waitall succeeds. */
static void test_truncate(void)
{
    int out[4], in[4], small[1];
    fill_out(out, 4, 50);
    MPI_Request sreqs[2], rreqs[2];
    MPI_Status sts[2];
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Irecv(in, 4, MPI_INT, left, 50, MPI_COMM_WORLD, &rreqs[0]));
    MPI_OK(MPI_Irecv(small, 1, MPI_INT, left, 51, MPI_COMM_WORLD, &rreqs[1]));
    MPI_OK(MPI_Isend(out, 2, MPI_INT, right, 50, MPI_COMM_WORLD, &sreqs[0]));
    MPI_OK(MPI_Isend(out, 2, MPI_INT, right, 51, MPI_COMM_WORLD, &sreqs[1]));
    prefill(&sts[0]);
    prefill(&sts[1]);
    int rc = MPI_Waitall(2, rreqs, sts), cls = -1;
    const int truncates = !(size == 1 && QUIRK_OPENMPI_SELF_TRUNCATE);
    if (truncates) {
        MPI_Error_class(rc, &cls);
        CHECK_EQ(cls, MPI_ERR_IN_STATUS);
        EXPECT(&sts[0], left, 50, MPI_SUCCESS, 2, "Waitall truncation [0]");
        CHECK_EQ(sts[1].MPI_SOURCE, left);
        CHECK_EQ(sts[1].MPI_TAG, 51);
        cls = -1;
        MPI_Error_class(sts[1].MPI_ERROR, &cls);
        CHECK_EQ(cls, MPI_ERR_TRUNCATE);
        int len = 0;
        char msg[MPI_MAX_ERROR_STRING] = "";
        MPI_OK(MPI_Error_string(sts[1].MPI_ERROR, msg, &len));
        CHECK(len > 0);
    } else {
        MPI_OK(rc);
        EXPECT(&sts[0], left, 50, MPI_SUCCESS, 2, "Waitall [0]");
        EXPECT(&sts[1], left, 51, MPI_SUCCESS, 1, "Waitall [1] (not truncated)");
    }
    CHECK(rreqs[0] == MPI_REQUEST_NULL && rreqs[1] == MPI_REQUEST_NULL);
    expect_in(in, 2, 50, __LINE__);
    MPI_OK(MPI_Waitall(2, sreqs, MPI_STATUSES_IGNORE));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

#ifdef MPI_ABI_VERSION /* MPI-5.0: neither MPI underneath has it */
/* MPI_Request_get_status_all: false while one request is pending, completing nothing; then
 * true with each status (a null and an inactive persistent request: empty), the requests
 * still there for MPI_Waitall. */
static void test_get_status_all(void)
{
    const int me = rank;
    int in = -1, out = 41, never = 0;
    MPI_Request reqs[4];
    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, me, 77, MPI_COMM_WORLD, &reqs[0]));
    reqs[1] = MPI_REQUEST_NULL;
    MPI_OK(MPI_Recv_init(&never, 1, MPI_INT, me, 78, MPI_COMM_WORLD, &reqs[2])); /* never started: inactive */
    MPI_OK(MPI_Isend(&out, 1, MPI_INT, MPI_PROC_NULL, 77, MPI_COMM_WORLD, &reqs[3]));
    MPI_Status st[4];
    int flag = 1;
    MPI_OK(MPI_Request_get_status_all(4, reqs, &flag, st));
    CHECK_MSG(!flag, "a receive nobody has sent to counts as complete");
    CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[3] != MPI_REQUEST_NULL);
    MPI_OK(MPI_Send(&out, 1, MPI_INT, me, 77, MPI_COMM_WORLD));
    for (int i = 0; i < 4; ++i) st[i].MPI_SOURCE = st[i].MPI_TAG = -5;
    do MPI_OK(MPI_Request_get_status_all(4, reqs, &flag, st)); while (!flag);
    CHECK_EQ(st[0].MPI_SOURCE, me);
    CHECK_EQ(st[0].MPI_TAG, 77);
    int n = -1;
    MPI_Get_count(&st[0], MPI_INT, &n);
    CHECK_EQ(n, 1);
    for (int i = 1; i <= 2; ++i)
        CHECK_MSG(st[i].MPI_SOURCE == MPI_ANY_SOURCE && st[i].MPI_TAG == MPI_ANY_TAG,
                  "request %d (null or inactive): source %d tag %d, an empty status expected", i, st[i].MPI_SOURCE,
                  st[i].MPI_TAG);
    CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[3] != MPI_REQUEST_NULL); /* completes nothing */
    MPI_OK(MPI_Request_get_status_all(4, reqs, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag);
    MPI_OK(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
    CHECK_EQ(in, 41);
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[2] != MPI_REQUEST_NULL);
    MPI_OK(MPI_Request_free(&reqs[2]));
    flag = 0;
    MPI_OK(MPI_Request_get_status_all(0, NULL, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag);
}

/* MPI_Request_get_status_any/some: inactive persistent requests (never started, or completed
 * since their MPI_Start) and null ones are skipped; what completes is reported and left for
 * the completion call.  A native MPI answers MPI_Request_get_status of an inactive persistent
 * request as of a complete one, so an implementation over it that does not know which are
 * inactive reports them here. */
static void expect_any(int n, MPI_Request *reqs, int want_index, int want_flag, const char *when)
{
    int index = -7, flag = -7;
    MPI_Status st;
    MPI_OK(MPI_Request_get_status_any(n, reqs, &index, &flag, &st));
    CHECK_MSG(index == want_index && flag == want_flag, "%s: get_status_any gave index %d flag %d, expected %d %d", when,
              index, flag, want_index, want_flag);
}
static void expect_some(int n, MPI_Request *reqs, int want_out, int want_first, const char *when)
{
    int out = -7, indices[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    MPI_OK(MPI_Request_get_status_some(n, reqs, &out, indices, MPI_STATUSES_IGNORE));
    CHECK_MSG(out == want_out && (want_out < 1 || indices[0] == want_first),
              "%s: get_status_some gave outcount %d (first index %d), expected %d (%d)", when, out, indices[0], want_out,
              want_first);
}
static void test_get_status_any_some(void)
{
    const int me = rank;
    int in = -1, pin = -1, out = 43, pout = 44;
    MPI_Request reqs[5];
    MPI_OK(MPI_Recv_init(&pin, 1, MPI_INT, me, 80, MPI_COMM_WORLD, &reqs[0])); /* inactive */
    reqs[1] = MPI_REQUEST_NULL;
    MPI_OK(MPI_Send_init(&pout, 1, MPI_INT, me, 80, MPI_COMM_WORLD, &reqs[2])); /* inactive; matches reqs[0] */
    MPI_OK(MPI_Barrier_init(MPI_COMM_SELF, MPI_INFO_NULL, &reqs[3]));          /* inactive, anympi's own on both */
    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, me, 82, MPI_COMM_WORLD, &reqs[4]));      /* pending */

    expect_any(5, reqs, MPI_UNDEFINED, 0, "never started, one pending");
    expect_some(5, reqs, 0, -1, "never started, one pending");
    expect_any(4, reqs, MPI_UNDEFINED, 1, "null and inactive only");
    expect_some(4, reqs, MPI_UNDEFINED, -1, "null and inactive only");

    /* A started request is reported, and again (nothing is completed); MPI_Wait makes it inactive. */
    MPI_OK(MPI_Start(&reqs[3]));
    int index = -1, flag = 0;
    do MPI_OK(MPI_Request_get_status_any(5, reqs, &index, &flag, MPI_STATUS_IGNORE)); while (!flag);
    CHECK_EQ(index, 3);
    expect_any(5, reqs, 3, 1, "started barrier, looked at again");
    MPI_OK(MPI_Wait(&reqs[3], MPI_STATUS_IGNORE));
    CHECK(reqs[3] != MPI_REQUEST_NULL);
    expect_any(5, reqs, MPI_UNDEFINED, 0, "barrier completed by MPI_Wait");
    expect_any(4, reqs, MPI_UNDEFINED, 1, "barrier completed by MPI_Wait, no pending one");

    /* MPI_Start and MPI_Startall (native persistent requests and anympi's own), completion
     * through MPI_Testsome. */
    MPI_OK(MPI_Start(&reqs[0]));
    MPI_OK(MPI_Startall(2, &reqs[2]));
    MPI_Status sts[5];
    int outc = 0, idx[5];
    do MPI_OK(MPI_Request_get_status_some(4, reqs, &outc, idx, sts)); while (outc < 3);
    CHECK_EQ(outc, 3);
    CHECK(idx[0] == 0 && idx[1] == 2 && idx[2] == 3);
    CHECK_EQ(sts[0].MPI_SOURCE, me);
    CHECK_EQ(sts[0].MPI_TAG, 80);
    int done = 0;
    while (done < 3) {
        MPI_OK(MPI_Testsome(4, reqs, &outc, idx, MPI_STATUSES_IGNORE));
        CHECK(outc != MPI_UNDEFINED);
        if (outc == MPI_UNDEFINED) break;
        done += outc;
    }
    CHECK_EQ(pin, 44);
    expect_any(4, reqs, MPI_UNDEFINED, 1, "completed by MPI_Testsome");
    expect_some(4, reqs, MPI_UNDEFINED, -1, "completed by MPI_Testsome");

    /* A nonpersistent request among inactive ones, left for MPI_Waitall. */
    MPI_OK(MPI_Send(&out, 1, MPI_INT, me, 82, MPI_COMM_WORLD));
    do MPI_OK(MPI_Request_get_status_any(5, reqs, &index, &flag, MPI_STATUS_IGNORE)); while (!flag);
    CHECK_EQ(index, 4);
    outc = -1;
    MPI_OK(MPI_Request_get_status_some(5, reqs, &outc, idx, sts));
    CHECK(outc == 1 && idx[0] == 4);
    CHECK_EQ(sts[0].MPI_TAG, 82);
    CHECK(reqs[4] != MPI_REQUEST_NULL); /* completes nothing */
    MPI_OK(MPI_Waitall(5, reqs, MPI_STATUSES_IGNORE));
    CHECK_EQ(in, 43);
    expect_any(5, reqs, MPI_UNDEFINED, 1, "completed by MPI_Waitall");

    /* Started again and completed by MPI_Waitall: inactive again. */
    pout = 45;
    MPI_OK(MPI_Startall(1, &reqs[0]));
    MPI_OK(MPI_Start(&reqs[2]));
    do MPI_OK(MPI_Request_get_status_some(3, reqs, &outc, idx, MPI_STATUSES_IGNORE)); while (outc < 2);
    CHECK(outc == 2 && idx[0] == 0 && idx[1] == 2);
    MPI_OK(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
    CHECK_EQ(pin, 45);
    expect_any(4, reqs, MPI_UNDEFINED, 1, "started again, completed by MPI_Waitall");

    for (int i = 0; i < 4; ++i)
        if (reqs[i] != MPI_REQUEST_NULL) MPI_OK(MPI_Request_free(&reqs[i]));
    flag = 0;
    MPI_OK(MPI_Request_get_status_any(0, NULL, &index, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && index == MPI_UNDEFINED);
}
#endif

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "status");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    under_mpich = check_under() == CHECK_UNDER_MPICH;
    under_openmpi = check_under() == CHECK_UNDER_OPENMPI;
    CHECK(under_mpich || under_openmpi); /* the expectations below are per MPI */
    test_prefill();
    test_single();
    test_any();
    test_all_some();
    test_probe();
    test_proc_null();
    test_ignore();
    test_truncate();
#ifdef MPI_ABI_VERSION
    test_get_status_all();
    test_get_status_any_some();
#endif
    return check_finish();
}
