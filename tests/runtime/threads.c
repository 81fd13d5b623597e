/* MPI_THREAD_MULTIPLE: four threads per rank at once, each on its own duplicate of
 * MPI_COMM_WORLD -- point-to-point, collectives with user ops made in the thread, datatypes
 * created and freed -- and four threads creating, using and freeing user ops in a tight loop
 * (the runtime's callback records are shared by all threads); MPI_Request_get_status on a
 * persistent collective another thread waits on.  Every result is checked. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "check.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

enum { nthreads = 4 };
static int rank, size;
static long op_cycles, stress_rounds;
static MPI_Comm comms[nthreads];

static void add_ints(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; ++i) ((int *)inout)[i] += ((const int *)in)[i];
}
static void max_ints(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; ++i)
        if (((const int *)in)[i] > ((int *)inout)[i]) ((int *)inout)[i] = ((const int *)in)[i];
}

/* Checks from threads: counted atomically, reported once by the main thread. */
static int thread_failures[nthreads];
#define TCHECK(t, cond)                                                                            \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (thread_failures[t]++ < 5)                                                          \
                fprintf(stderr, "%s:%d: [rank %d thread %d] FAILED: %s\n", __FILE__, __LINE__, rank, \
                        t, #cond);                                                                 \
        }                                                                                          \
    } while (0)

static void *op_loop(void *arg)
{
    int t = (int)(long)arg;
    for (long i = 0; i < op_cycles; ++i) {
        MPI_Op op;
        int sum = (t + i) % 2 == 0;
        if (MPI_Op_create(sum ? add_ints : max_ints, 1, &op) != MPI_SUCCESS) {
            TCHECK(t, !"MPI_Op_create");
            break;
        }
        int a[2] = {t, 5}, b[2] = {3, (int)(i % 7)};
        TCHECK(t, MPI_Reduce_local(a, b, 2, MPI_INT, op) == MPI_SUCCESS);
        TCHECK(t, b[0] == (sum ? t + 3 : (t > 3 ? t : 3)));
        TCHECK(t, b[1] == (sum ? 5 + (int)(i % 7) : (5 > i % 7 ? 5 : (int)(i % 7))));
        TCHECK(t, MPI_Op_free(&op) == MPI_SUCCESS && op == MPI_OP_NULL);
    }
    return NULL;
}

static void *stress(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm c = comms[t];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (long round = 0; round < stress_rounds; ++round) {
        /* a ring exchange of a derived type made here */
        MPI_Datatype pair;
        TCHECK(t, MPI_Type_contiguous(2, MPI_INT, &pair) == MPI_SUCCESS);
        TCHECK(t, MPI_Type_commit(&pair) == MPI_SUCCESS);
        int out[2] = {rank * 1000 + t, (int)round}, in[2] = {-1, -1};
        MPI_Request reqs[2];
        MPI_Status st[2];
        TCHECK(t, MPI_Irecv(in, 1, pair, left, t, c, &reqs[0]) == MPI_SUCCESS);
        TCHECK(t, MPI_Isend(out, 1, pair, right, t, c, &reqs[1]) == MPI_SUCCESS);
        TCHECK(t, MPI_Waitall(2, reqs, st) == MPI_SUCCESS);
        TCHECK(t, in[0] == left * 1000 + t && in[1] == (int)round);
        TCHECK(t, st[0].MPI_SOURCE == left && st[0].MPI_TAG == t);
        TCHECK(t, MPI_Type_free(&pair) == MPI_SUCCESS);

        /* a reduction with an op made here, on this thread's communicator */
        MPI_Op op;
        TCHECK(t, MPI_Op_create(add_ints, 1, &op) == MPI_SUCCESS);
        int v = rank + (int)round, s = 0;
        TCHECK(t, MPI_Allreduce(&v, &s, 1, MPI_INT, op, c) == MPI_SUCCESS);
        TCHECK(t, s == size * (size - 1) / 2 + size * (int)round);
        TCHECK(t, MPI_Op_free(&op) == MPI_SUCCESS);

        int b = round % size == rank ? (int)round * 3 + t : -1;
        TCHECK(t, MPI_Bcast(&b, 1, MPI_INT, (int)(round % size), c) == MPI_SUCCESS);
        TCHECK(t, b == (int)round * 3 + t);
    }
    return NULL;
}

static void run_threads(void *(*fn)(void *))
{
    pthread_t th[nthreads];
    for (long t = 0; t < nthreads; ++t) CHECK_FATAL(pthread_create(&th[t], NULL, fn, (void *)t) == 0);
    for (int t = 0; t < nthreads; ++t) pthread_join(th[t], NULL);
    for (int t = 0; t < nthreads; ++t) {
        ++check_count_;
        if (thread_failures[t]) check_report_(__FILE__, __LINE__, "a thread's checks failed (above)");
        thread_failures[t] = 0;
    }
}

/* MPI_LASTUSEDCODE's value is the process's: the pointer a thread was given still reads it after
 * that thread has ended (a thread_local value was read from dead storage). */
static int *lastused_seen;
static void *stress_nothing(void *arg) { return arg; }
static void *ask_lastused(void *arg)
{
    (void)arg;
    int flag = 0;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused_seen, &flag));
    CHECK(flag);
    return NULL;
}
static void lastused_outlives_thread(void)
{
    int cls = -1;
    MPI_OK(MPI_Add_error_class(&cls));
    pthread_t th;
    pthread_create(&th, NULL, ask_lastused, NULL);
    pthread_join(th, NULL);
    pthread_create(&th, NULL, stress_nothing, NULL);  /* a new thread's storage where the dead one's was */
    pthread_join(th, NULL);
    CHECK_MSG(lastused_seen && *lastused_seen == cls, "MPI_LASTUSEDCODE read %d after its thread ended, %d expected",
              lastused_seen ? *lastused_seen : -1, cls);
}

#if MPI_VERSION >= 4
/* MPI_Request_get_status on a persistent collective another thread waits on: true only once the
 * result is there (anympi's own persistent collectives, over Open MPI and those MPICH lacks,
 * said complete as soon as a wait began).  Rank 0 starts late, so no one's can finish early. */
static MPI_Request polled;
static const int *polled_out;
static int early, poll_errors; /* the poller's findings, checked by the main thread after the join */
static void *poll_status(void *arg)
{
    int flag = 0;
    while (!flag)
        if (MPI_Request_get_status(polled, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            ++poll_errors;
            return arg;
        }
    if (*polled_out != size * (size + 1) / 2) ++early;
    return arg;
}
static void status_while_waiting(void)
{
    int in = 0, out = 0;
    polled_out = &out;
    for (int round = 0; round < 5; ++round) {  /* a request per round: MPICH 4.0.2 restarts some wrongly */
        in = rank + 1, out = -1;
        MPI_OK(MPI_Allreduce_init(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &polled));
        if (rank == 0) {
            struct timespec pause = {0, 50 * 1000 * 1000};
            nanosleep(&pause, NULL);
        }
        MPI_OK(MPI_Start(&polled));
        pthread_t th;
        CHECK_FATAL(pthread_create(&th, NULL, poll_status, NULL) == 0);
        MPI_OK(MPI_Wait(&polled, MPI_STATUS_IGNORE));
        pthread_join(th, NULL);
        CHECK_EQ(out, size * (size + 1) / 2);
        MPI_OK(MPI_Request_free(&polled));
    }
    CHECK_EQ(early, 0);
    CHECK_EQ(poll_errors, 0);
}
#endif

int main(int argc, char **argv)
{
    check_program_ = "threads";
    int provided = -1;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "threads: MPI_Init_thread failed\n");
        return 2;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_EQ(provided, MPI_THREAD_MULTIPLE);
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    /* ANYMPI_TEST_SCALE: a quick pass (e.g. under a sanitizer) runs a fraction of the rounds */
    const char *scale = getenv("ANYMPI_TEST_SCALE");
    long div = scale && atol(scale) > 0 ? atol(scale) : 1;
    op_cycles = 100000 / div;
    stress_rounds = (size <= 2 ? 500 : 100) / div;

    run_threads(op_loop);
    for (int t = 0; t < nthreads; ++t) {
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
        MPI_OK(MPI_Comm_set_errhandler(comms[t], MPI_ERRORS_RETURN));
    }
    run_threads(stress);
    for (int t = 0; t < nthreads; ++t) MPI_OK(MPI_Comm_free(&comms[t]));
    lastused_outlives_thread();
#if MPI_VERSION >= 4
    status_while_waiting();
#endif
    return check_finish();
}
