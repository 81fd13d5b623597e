/* The checking mode under MPI_THREAD_MULTIPLE, one scenario per run:
 *   stress  four threads per rank at once, each on its own duplicate of MPI_COMM_WORLD, in
 *           rounds whose messages alternate between two signatures (1 x MPI_INT, then 1 x
 *           MPI_FLOAT; a derived type made and freed in the round, of one int, then of two),
 *           so that a shadow taken for the wrong message, or a signature kept for a freed
 *           datatype whose handle another thread got, shows as a mismatch ("anympi check:")
 *           and a lost shadow as a hang. Request, datatype and communicator handles the MPI
 *           frees in one thread are handed out to the others at once (a checker that forgot
 *           the newer request in their place, or marked the newer datatype freed, reported
 *           correct programs: issue R2). Each round: a batch of receives and sends completed by
 *           MPI_Waitall, MPI_Wait, MPI_Waitany or MPI_Testsome in turn; MPI_Sendrecv with the
 *           round's derived type; a persistent send and receive started again; every fourth
 *           round MPI_Allreduce and MPI_Iallreduce; every eighth a communicator duplicated,
 *           used and freed. ANYMPI_TEST_SCALE=k runs k times fewer rounds.
 *   waits   rank 0 waits for rank 1 in one thread (MPI_Comm_disconnect, which Open MPI makes
 *           wait for every rank; on MPICH, MPI_Comm_free of a communicator with a pending
 *           nonblocking collective, whose exchange of signatures the checker completes first)
 *           while another thread sends to rank 1, which receives that message before it joins:
 *           the checker must not hold its lock while it waits (the sender's shadow needs it).
 * Every result is checked. Standard C, pthreads and MPI only: the same file built natively
 * against each MPI proves the expectations. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "check_util.h"

enum { nthreads = 4, batch = 6 };
static MPI_Comm comms[nthreads];
static int thread_failures[nthreads];
static long rounds = 200;

/* checks from a thread: counted per thread, the first few printed */
#define TCHECK(t, cond, ...)                                                                     \
    do {                                                                                         \
        if (!(cond) && thread_failures[t]++ < 5) {                                               \
            fprintf(stderr, "FAIL rank %d thread %d line %d: ", rank, t, __LINE__);              \
            fprintf(stderr, __VA_ARGS__);                                                        \
            fprintf(stderr, "\n");                                                               \
        }                                                                                        \
    } while (0)
#define TOK(t, call)                                                                             \
    do {                                                                                         \
        int rc_ = (call);                                                                        \
        TCHECK(t, rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_);                             \
    } while (0)

/* one element of the round's basic type: the int or the float of value v */
typedef union {
    int i;
    float f;
} elem;
static elem value(long round, int v)
{
    elem e;
    if (round % 2) e.f = (float)v + 0.5f;
    else e.i = v;
    return e;
}
static int same(long round, elem a, elem b) { return round % 2 ? a.f == b.f : a.i == b.i; }

static void completion(int t, long round, MPI_Request *reqs, int n)
{
    int done = 0, index = -1, outcount = 0, indices[2 * batch];
    switch (round % 4) {
    case 0: TOK(t, MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE)); break;
    case 1:
        for (int k = 0; k < n; ++k) TOK(t, MPI_Wait(&reqs[k], MPI_STATUS_IGNORE));
        break;
    case 2:
        for (; done < n; ++done) {
            TOK(t, MPI_Waitany(n, reqs, &index, MPI_STATUS_IGNORE));
            TCHECK(t, index >= 0 && index < n, "MPI_Waitany gave index %d", index);
        }
        break;
    default:
        while (done < n) {
            TOK(t, MPI_Testsome(n, reqs, &outcount, indices, MPI_STATUSES_IGNORE));
            TCHECK(t, outcount != MPI_UNDEFINED, "MPI_Testsome found no active request, %d of %d done", done, n);
            if (outcount == MPI_UNDEFINED) break;
            done += outcount;
        }
        break;
    }
    for (int k = 0; k < n; ++k) TCHECK(t, reqs[k] == MPI_REQUEST_NULL, "request %d of %d not completed", k, n);
}

static void *run(void *arg)
{
    const int t = (int)(long)arg;
    const MPI_Comm c = comms[t];
    const int left = (rank + size - 1) % size, right = (rank + 1) % size;

    int pout = 0, pin = -1;
    MPI_Request persistent[2];
    TOK(t, MPI_Recv_init(&pin, 1, MPI_INT, left, 2 * batch, c, &persistent[0]));
    TOK(t, MPI_Send_init(&pout, 1, MPI_INT, right, 2 * batch, c, &persistent[1]));

    for (long round = 0; round < rounds; ++round) {
        const MPI_Datatype basic = round % 2 ? MPI_FLOAT : MPI_INT;
        elem out[batch], in[batch];
        MPI_Request reqs[2 * batch];
        for (int k = 0; k < batch; ++k) {
            out[k] = value(round, 1000 * rank + 10 * t + k);
            in[k].i = -1;
        }
        for (int k = 0; k < batch; ++k) TOK(t, MPI_Irecv(&in[k], 1, basic, left, k, c, &reqs[k]));
        for (int k = 0; k < batch; ++k) TOK(t, MPI_Isend(&out[k], 1, basic, right, k, c, &reqs[batch + k]));
        completion(t, round, reqs, 2 * batch);
        for (int k = 0; k < batch; ++k)
            TCHECK(t, same(round, in[k], value(round, 1000 * left + 10 * t + k)), "round %ld: message %d wrong", round, k);

        /* a datatype made and freed here: other threads get its handle's value next */
        const int n = 1 + (int)(round % 2);
        MPI_Datatype d;
        TOK(t, MPI_Type_contiguous(n, MPI_INT, &d));
        TOK(t, MPI_Type_commit(&d));
        int sout[2] = {rank, (int)round}, sin[2] = {-1, -1};
        MPI_Status st;
        TOK(t, MPI_Sendrecv(sout, 1, d, right, batch, sin, 1, d, left, batch, c, &st));
        TCHECK(t, st.MPI_SOURCE == left && st.MPI_TAG == batch, "MPI_Sendrecv status: source %d tag %d", st.MPI_SOURCE,
               st.MPI_TAG);
        TCHECK(t, sin[0] == left && (n == 1 || sin[1] == (int)round), "round %ld: MPI_Sendrecv received %d %d", round,
               sin[0], sin[1]);
        TOK(t, MPI_Type_free(&d));

        pout = (int)round * 10 + t;
        pin = -1;
        TOK(t, MPI_Startall(2, persistent));
        TOK(t, MPI_Waitall(2, persistent, MPI_STATUSES_IGNORE));
        TCHECK(t, pin == (int)round * 10 + t, "round %ld: persistent receive got %d", round, pin);

        if (round % 4 == 0) {
            elem v = value(round, rank), sum;
            TOK(t, MPI_Allreduce(&v, &sum, 1, basic, MPI_MAX, c));
            TCHECK(t, same(round, sum, value(round, size - 1)), "round %ld: MPI_Allreduce", round);
            MPI_Request r;
            int flag = 0;
            TOK(t, MPI_Iallreduce(&v, &sum, 1, basic, MPI_MIN, c, &r));
            if (round % 8 == 0) TOK(t, MPI_Wait(&r, MPI_STATUS_IGNORE));
            else
                while (!flag) TOK(t, MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
            TCHECK(t, same(round, sum, value(round, 0)), "round %ld: MPI_Iallreduce", round);
        }
        if (round % 8 == 0) {
            MPI_Comm dup;
            TOK(t, MPI_Comm_dup(c, &dup));
            int b = rank == 0 ? (int)round + t : -1;
            TOK(t, MPI_Bcast(&b, 1, MPI_INT, 0, dup));
            TCHECK(t, b == (int)round + t, "round %ld: MPI_Bcast on a duplicate gave %d", round, b);
            TOK(t, MPI_Comm_free(&dup));
        }
    }
    TOK(t, MPI_Request_free(&persistent[0]));
    TOK(t, MPI_Request_free(&persistent[1]));
    return NULL;
}

static void stress(void)
{
    const char *scale = getenv("ANYMPI_TEST_SCALE");
    if (scale && atol(scale) > 0) rounds /= atol(scale);
    for (int t = 0; t < nthreads; ++t) {
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
        /* a report returns (and is counted) instead of ending the run at the first one */
        OK(MPI_Comm_set_errhandler(comms[t], MPI_ERRORS_RETURN));
    }
    pthread_t th[nthreads];
    for (long t = 0; t < nthreads; ++t)
        if (pthread_create(&th[t], NULL, run, (void *)t) != 0) MPI_Abort(MPI_COMM_WORLD, 3);
    for (int t = 0; t < nthreads; ++t) pthread_join(th[t], NULL);
    for (int t = 0; t < nthreads; ++t) {
        failures += thread_failures[t];
        OK(MPI_Comm_free(&comms[t]));
    }
}

/* ---- waits: rank 0's second thread sends on `messages` once its first thread waits */
static MPI_Comm messages;
static int sender_rc = MPI_SUCCESS;
static void *send_later(void *arg)
{
    (void)arg;
    const struct timespec a_while = {0, 300 * 1000 * 1000}; /* the other thread waits by then */
    nanosleep(&a_while, NULL);
    int v = 42;
    sender_rc = MPI_Send(&v, 1, MPI_INT, 1, 7, messages);
    return NULL;
}
/* how: 0 MPI_Comm_disconnect; 1 MPI_Comm_free with an MPI_Iallreduce pending, then its MPI_Wait */
static void wait_while_sending(int how)
{
    MPI_Comm d;
    MPI_Request r;
    int x = rank, y = -1;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &messages));
    if (rank == 0) {
        pthread_t th;
        if (pthread_create(&th, NULL, send_later, NULL) != 0) MPI_Abort(MPI_COMM_WORLD, 3);
        if (how == 0) OK(MPI_Comm_disconnect(&d));
        else {
            OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, d, &r));
            OK(MPI_Comm_free(&d));
            OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        pthread_join(th, NULL);
        OK(sender_rc);
    } else {
        if (rank == 1) {
            int v = -1;
            OK(MPI_Recv(&v, 1, MPI_INT, 0, 7, messages, MPI_STATUS_IGNORE));
            EXPECT(v == 42, "received %d, expected 42", v);
        }
        if (how == 0) OK(MPI_Comm_disconnect(&d));
        else {
            OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, d, &r));
            OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            OK(MPI_Comm_free(&d));
        }
    }
    if (how == 1) EXPECT(y == size * (size - 1) / 2, "MPI_Iallreduce gave %d", y);
    OK(MPI_Comm_free(&messages));
}
static void waits(void)
{
    if (size < 2) return;
    wait_while_sending(0);
    /* Open MPI 4.1.4 itself crashes completing a collective on a freed communicator */
    char v[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
    int len = 0;
    MPI_Get_library_version(v, &len);
    if (!strstr(v, "Open MPI")) wait_while_sending(1);
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "stress") && strcmp(argv[1], "waits"))) {
        fprintf(stderr, "usage: %s stress|waits\n", argv[0]);
        return 2;
    }
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    EXPECT(provided == MPI_THREAD_MULTIPLE, "MPI_Init_thread provided %d", provided);
    if (!strcmp(argv[1], "stress")) stress();
    else waits();
    return finish(argv[1]);
}
