/* Partitioned communication (MPI-4.0): partitions marked ready out of order and from several
 * threads, MPI_Parrived watched while they come, different partitionings on the two sides
 * (contiguous and strided receive types), restarts, matching in init order, and the program's
 * own MPI_ANY_TAG receive never catching a partition.  Over Open MPI 4.1, which has none of it,
 * anympi's own requests do all of it; natively the program runs on MPICH (MPI-4.0). */
#include "check.h"

#include <pthread.h>
#include <unistd.h>

#if MPI_VERSION >= 4
static int rank, size, left, right;
static int val(int round, int who, int i) { return round * 100000 + who * 1000 + i; }

/* Waits for every receive partition through MPI_Parrived, checking each as it comes. */
static void watch(MPI_Request recv, int partitions, int per, const int *buf, int round)
{
    int seen = 0, *arrived = calloc((size_t)partitions, sizeof(int));
    for (long spins = 0; seen < partitions; ++spins) {
        for (int q = 0; q < partitions; ++q) {
            if (arrived[q]) continue;
            int flag = 0;
            MPI_OK(MPI_Parrived(recv, q, &flag));
            if (!flag) continue;
            arrived[q] = 1, ++seen;
            for (int i = q * per; i < (q + 1) * per; ++i)
                CHECK_MSG(buf[i] == val(round, left, i), "round %d partition %d: element %d is %d", round, q, i, buf[i]);
        }
        CHECK_FATAL(spins < 100000000L);
    }
    free(arrived);
}

/* send_parts x send_per ints from here to the right; recv_parts x recv_per from the left. */
static void exchange(int send_parts, int send_per, int recv_parts, int recv_per, int rounds)
{
    const int n = send_parts * send_per;
    int *out = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
    MPI_Request send, recv;
    MPI_OK(MPI_Precv_init(in, recv_parts, recv_per, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &recv));
    MPI_OK(MPI_Psend_init(out, send_parts, send_per, MPI_INT, right, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &send));
    for (int round = 0; round < rounds; ++round) {
        for (int i = 0; i < n; ++i) out[i] = val(round, rank, i), in[i] = -1;
        MPI_OK(MPI_Start(&recv));
        MPI_OK(MPI_Start(&send));
        if (round % 2) {  /* in a random order, one by one */
            int order[64];
            for (int p = 0; p < send_parts; ++p) order[p] = p;
            srand((unsigned)(round * 31 + rank));
            for (int p = send_parts - 1; p > 0; --p) {
                const int k = rand() % (p + 1), t = order[p];
                order[p] = order[k], order[k] = t;
            }
            for (int p = 0; p < send_parts; ++p) MPI_OK(MPI_Pready(order[p], send));
        } else {  /* the last first, then the rest by a list and a range */
            MPI_OK(MPI_Pready(send_parts - 1, send));
            if (send_parts > 2) {
                int list[64], k = 0;
                for (int p = (send_parts - 1) / 2; p < send_parts - 1; ++p) list[k++] = p;
                MPI_OK(MPI_Pready_list(k, list, send));
                MPI_OK(MPI_Pready_range(0, (send_parts - 1) / 2 - 1, send));
            } else if (send_parts == 2) {
                MPI_OK(MPI_Pready(0, send));
            }
        }
        watch(recv, recv_parts, recv_per, in, round);
        MPI_Status st;
        MPI_OK(MPI_Wait(&recv, &st));
        MPI_OK(MPI_Wait(&send, MPI_STATUS_IGNORE));
        int count = -1;
        MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK_EQ(count, n);
        CHECK_EQ(st.MPI_SOURCE, left);
        CHECK_EQ(st.MPI_TAG, 7);
        for (int i = 0; i < n; ++i) CHECK_EQ(in[i], val(round, left, i));
    }
    /* inactive: MPI_Parrived says true */
    if (!QUIRK_MPICH_PARTITIONED) {
        int flag = 0;
        MPI_OK(MPI_Parrived(recv, 0, &flag));
        CHECK_EQ(flag, 1);
    }
    MPI_OK(MPI_Request_free(&send));
    MPI_OK(MPI_Request_free(&recv));
    CHECK(send == MPI_REQUEST_NULL && recv == MPI_REQUEST_NULL);
    free(out), free(in);
}

/* Received through a strided type with another partitioning: every other int of 2n. */
static void strided(void)
{
    enum { N = 24 };
    int out[N], in[2 * N];
    MPI_Datatype every_other;
    MPI_OK(MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other));
    MPI_OK(MPI_Type_commit(&every_other));
    MPI_Request send, recv;
    MPI_OK(MPI_Precv_init(in, 2, 1, every_other, left, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &recv));
    MPI_OK(MPI_Type_free(&every_other));  /* the request keeps it */
    MPI_OK(MPI_Psend_init(out, 6, N / 6, MPI_INT, right, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &send));
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < N; ++i) out[i] = val(round, rank, i);
        for (int i = 0; i < 2 * N; ++i) in[i] = -1;
        MPI_Request both[2] = {recv, send};
        MPI_OK(MPI_Startall(2, both));
        MPI_OK(MPI_Pready_range(0, 5, send));
        MPI_OK(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
        /* partition 0 is ints 0, 2, ... 22 of in; partition 1 starts at the extent, 23 ints on */
        for (int i = 0; i < N; ++i) {
            const int at = i < N / 2 ? 2 * i : 23 + 2 * (i - N / 2);
            CHECK_MSG(in[at] == val(round, left, i), "round %d: element %d (at %d) is %d", round, i, at, in[at]);
        }
        CHECK_EQ(in[1], -1);
    }
    MPI_OK(MPI_Request_free(&send));
    MPI_OK(MPI_Request_free(&recv));
}

/* Two operations with the same communicator, peer and tag match in the order of their inits,
 * whatever the order of their starts; the program's MPI_ANY_TAG receive catches none of it. */
static void order_and_isolation(void)
{
    int a_out = val(1, rank, 1), b_out = val(2, rank, 2), a_in = -1, b_in = -1, any = -1, plain = val(3, rank, 3);
    MPI_Request any_req;
    MPI_OK(MPI_Irecv(&any, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &any_req));
    MPI_Request s[2], r[2];
    MPI_OK(MPI_Psend_init(&a_out, 1, 1, MPI_INT, right, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &s[0]));
    MPI_OK(MPI_Psend_init(&b_out, 1, 1, MPI_INT, right, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &s[1]));
    MPI_OK(MPI_Precv_init(&a_in, 1, 1, MPI_INT, left, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    MPI_OK(MPI_Precv_init(&b_in, 1, 1, MPI_INT, left, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    MPI_OK(MPI_Start(&r[1]));
    MPI_OK(MPI_Start(&s[1]));
    MPI_OK(MPI_Pready(0, s[1]));
    MPI_OK(MPI_Start(&r[0]));
    MPI_OK(MPI_Start(&s[0]));
    MPI_OK(MPI_Pready(0, s[0]));
    MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    MPI_OK(MPI_Waitall(2, s, MPI_STATUSES_IGNORE));
    CHECK_EQ(a_in, val(1, left, 1));
    CHECK_EQ(b_in, val(2, left, 2));
    int flag = 0;
    MPI_OK(MPI_Test(&any_req, &flag, MPI_STATUS_IGNORE));
    CHECK_EQ(flag, 0);  /* nothing of the partitioned operations reached it */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));  /* every rank has looked before any plain message goes */
    MPI_OK(MPI_Send(&plain, 1, MPI_INT, right, 10, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&any_req, MPI_STATUS_IGNORE));
    CHECK_EQ(any, val(3, left, 3));
    for (int k = 0; k < 2; ++k) {
        MPI_OK(MPI_Request_free(&s[k]));
        MPI_OK(MPI_Request_free(&r[k]));
    }
}

/* Operations on distinct communicators and tags never cross, however late their receiver inits
 * them: the sender completes and frees one before it makes the next, and the receiver, later,
 * inits and starts them in the other order.  (anympi gave the next operation the freed one's data
 * tag, and the receive started first took the first data.) */
static void freed_before_next(void)
{
    const int peer = rank ^ 1;
    if (peer >= size) return;  /* no pair here; and a send to itself may wait for its receive */
    MPI_Comm c[2];
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c[0]));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c[1]));
    for (int round = 0; round < 20; ++round) {
        if (rank % 2 == 0) {
            for (int k = 0; k < 2; ++k) {
                int out[2] = {val(round, k, 0), val(round, k, 1)};
                MPI_Request s;
                MPI_OK(MPI_Psend_init(out, 2, 1, MPI_INT, peer, 100 + k, c[k], MPI_INFO_NULL, &s));
                MPI_OK(MPI_Start(&s));
                MPI_OK(MPI_Pready_range(0, 1, s));
                MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
                MPI_OK(MPI_Request_free(&s));
            }
        } else {
            int in[2][2] = {{-1, -1}, {-1, -1}};
            MPI_Request r[2];
            usleep(20000);  /* so that the sender is most likely done with both */
            for (int j = 0, k = 1; j < 2; ++j, --k)  /* the later operation made and started first */
                MPI_OK(MPI_Precv_init(in[k], 2, 1, MPI_INT, peer, 100 + k, c[k], MPI_INFO_NULL, &r[j]));
            MPI_OK(MPI_Startall(2, r));
            MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
            for (int k = 0; k < 2; ++k)
                for (int i = 0; i < 2; ++i)
                    CHECK_MSG(in[k][i] == val(round, k, i), "round %d: operation %d element %d is %d", round, k, i,
                              in[k][i]);
            MPI_OK(MPI_Request_free(&r[0]));
            MPI_OK(MPI_Request_free(&r[1]));
        }
    }
    MPI_OK(MPI_Comm_free(&c[0]));
    MPI_OK(MPI_Comm_free(&c[1]));
}

/* A receive freed before it was ever started, and before its send was even made, still matches
 * that send (the first init on the communicator, peer and tag): the next receive gets the next
 * send's data.  (anympi cancelled the freed receive's wait for its send, so the next receive took
 * the freed send and waited forever for data that send never sends.) */
static void freed_unstarted(void)
{
    const int peer = rank ^ 1;
    int out[4], in[4] = {-1, -1, -1, -1};
    for (int i = 0; i < 4; ++i) out[i] = val(7, rank, i);
    MPI_Request r;
    if (peer < size && rank % 2) {
        MPI_OK(MPI_Precv_init(in, 1, 4, MPI_INT, peer, 15, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
        MPI_OK(MPI_Request_free(&r));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (peer >= size) return;
    if (rank % 2 == 0) {
        MPI_OK(MPI_Psend_init(in, 1, 4, MPI_INT, peer, 15, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
        MPI_OK(MPI_Request_free(&r));
        MPI_OK(MPI_Psend_init(out, 1, 4, MPI_INT, peer, 15, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
        MPI_OK(MPI_Start(&r));
        MPI_OK(MPI_Pready(0, r));
    } else {
        MPI_OK(MPI_Precv_init(in, 1, 4, MPI_INT, peer, 15, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
        MPI_OK(MPI_Start(&r));
    }
    int done = 0;
    const double give_up = MPI_Wtime() + 20;
    while (!done && MPI_Wtime() < give_up) MPI_OK(MPI_Test(&r, &done, MPI_STATUS_IGNORE));
    CHECK_FATAL(done);  /* else the receive waits for the freed send's data */
    MPI_OK(MPI_Request_free(&r));
    if (rank % 2)
        for (int i = 0; i < 4; ++i) CHECK_EQ(in[i], val(7, peer, i));
}

/* A partition travels once it (and those before it) are ready, not when the whole buffer is:
 * the receive side sees partition 0 while the send side waits to hear so before marking the
 * rest. */
static void early(void)
{
    if (QUIRK_MPICH_PARTITIONED) return;  /* MPICH 4.0.2 sends once every partition is ready */
    int out[4], in[4] = {-1, -1, -1, -1}, ack = 0;
    for (int i = 0; i < 4; ++i) out[i] = val(5, rank, i);
    MPI_Request send, recv;
    MPI_OK(MPI_Precv_init(in, 4, 1, MPI_INT, left, 13, MPI_COMM_WORLD, MPI_INFO_NULL, &recv));
    MPI_OK(MPI_Psend_init(out, 4, 1, MPI_INT, right, 13, MPI_COMM_WORLD, MPI_INFO_NULL, &send));
    MPI_OK(MPI_Start(&recv));
    MPI_OK(MPI_Start(&send));
    MPI_OK(MPI_Pready(0, send));
    MPI_Request ack_recv;
    MPI_OK(MPI_Irecv(&ack, 1, MPI_INT, right, 14, MPI_COMM_WORLD, &ack_recv));
    int got = 0, acked = 0;
    const double give_up = MPI_Wtime() + 20;
    while ((!got || !acked) && MPI_Wtime() < give_up) {
        if (!got) {
            MPI_OK(MPI_Parrived(recv, 0, &got));
            if (got) {
                CHECK_EQ(in[0], val(5, left, 0));
                CHECK_EQ(in[1], -1);  /* not ready yet at the sender */
                MPI_OK(MPI_Send(&got, 1, MPI_INT, left, 14, MPI_COMM_WORLD));
            }
        }
        if (!acked) MPI_OK(MPI_Test(&ack_recv, &acked, MPI_STATUS_IGNORE));
    }
    CHECK_FATAL(got && acked);  /* else partition 0 never went alone */
    MPI_OK(MPI_Pready_range(1, 3, send));
    MPI_OK(MPI_Wait(&send, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&recv, MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; ++i) CHECK_EQ(in[i], val(5, left, i));
    MPI_OK(MPI_Request_free(&send));
    MPI_OK(MPI_Request_free(&recv));
}

/* The send waited for first, as a program may: MPI_Waitall({send, recv}), MPI_Wait on the send
 * then the receive, MPI_Test polled on the send -- each side's send needing the peer's
 * receive posted (partitions of 256 KiB, above both MPIs' eager limits; on MPICH even one int
 * to itself), with the peer doing the same.  Nothing but these calls lets the receive side
 * post its receives. */
static void send_waited_first(int per)
{
    enum { P = 2 };
    const int n = P * per;
    int *out = calloc((size_t)n, sizeof(int)), *in = calloc((size_t)n, sizeof(int));
    MPI_Request r[2];  /* send, receive */
    MPI_OK(MPI_Psend_init(out, P, per, MPI_INT, right, 15, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    MPI_OK(MPI_Precv_init(in, P, per, MPI_INT, left, 15, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < n; ++i) out[i] = val(round, rank, i % 1000), in[i] = -1;
        MPI_OK(MPI_Startall(2, r));
        MPI_OK(MPI_Pready_range(0, P - 1, r[0]));
        if (round == 0) {
            MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        } else if (round == 1) {
            MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
            MPI_OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
        } else {
            int flag = 0;
            for (long spins = 0; !flag; ++spins) {
                MPI_OK(MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE));
                CHECK_FATAL(spins < 100000000L);
            }
            MPI_OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
        }
        for (int i = 0; i < n; ++i)
            if (in[i] != val(round, left, i % 1000)) {
                CHECK_MSG(0, "%d ints a partition, round %d: element %d is %d", per, round, i, in[i]);
                break;
            }
    }
    MPI_OK(MPI_Request_free(&r[0]));
    MPI_OK(MPI_Request_free(&r[1]));
    free(out), free(in);
}

/* A partitioned receive in one MPI_Waitall behind another request that completes only once
 * the peer's partitioned send has (256 KiB: the send needs the receive posted): rank 0 waits
 * on {an MPI_Isendrecv with rank 1, the receive}; rank 1 waits on its send, then does the
 * matching MPI_Sendrecv.  Waiting on the requests one by one never posted the receive. */
static void behind_another(void)
{
    enum { N = 65536 };
    if (size < 2 || rank > 1) return;
    int *buf = calloc(N, sizeof(int)), mine = rank, theirs = -1;
    MPI_Request r[2];
    if (rank == 0) {
        MPI_OK(MPI_Precv_init(buf, 1, N, MPI_INT, 1, 17, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
        MPI_OK(MPI_Start(&r[1]));
        MPI_OK(MPI_Isendrecv(&mine, 1, MPI_INT, 1, 18, &theirs, 1, MPI_INT, 1, 18, MPI_COMM_WORLD, &r[0]));
        MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK_EQ(buf[N - 1], N - 1);
        MPI_OK(MPI_Request_free(&r[1]));
    } else {
        for (int i = 0; i < N; ++i) buf[i] = i;
        MPI_OK(MPI_Psend_init(buf, 1, N, MPI_INT, 0, 17, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
        MPI_OK(MPI_Start(&r[0]));
        MPI_OK(MPI_Pready(0, r[0]));
        MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
        MPI_OK(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 18, &theirs, 1, MPI_INT, 0, 18, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Request_free(&r[0]));
    }
    CHECK_EQ(theirs, 1 - rank);
    free(buf);
}

/* ---------------------------------------------------------------- threads mark partitions */
enum { THREADS = 4, PER_THREAD = 4 };
static MPI_Request thread_send;
static void *mark(void *arg)
{
    const int t = (int)(long)arg;
    for (int k = PER_THREAD - 1; k >= 0; --k) MPI_OK(MPI_Pready(t * PER_THREAD + k, thread_send));
    return NULL;
}
static void threads(void)
{
    enum { P = THREADS * PER_THREAD, PER = 8 };
    int out[P * PER], in[P * PER];
    MPI_Request recv;
    MPI_OK(MPI_Precv_init(in, P, PER, MPI_INT, left, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &recv));
    MPI_OK(MPI_Psend_init(out, P, PER, MPI_INT, right, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &thread_send));
    for (int round = 0; round < 10; ++round) {
        for (int i = 0; i < P * PER; ++i) out[i] = val(round, rank, i), in[i] = -1;
        MPI_OK(MPI_Start(&recv));
        MPI_OK(MPI_Start(&thread_send));
        pthread_t th[THREADS];
        for (long t = 0; t < THREADS; ++t) pthread_create(&th[t], NULL, mark, (void *)t);
        watch(recv, P, PER, in, round);
        for (int t = 0; t < THREADS; ++t) pthread_join(th[t], NULL);
        MPI_OK(MPI_Wait(&thread_send, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Wait(&recv, MPI_STATUS_IGNORE));
    }
    MPI_OK(MPI_Request_free(&thread_send));
    MPI_OK(MPI_Request_free(&recv));
}

/* ---------------------------------------------------------------- odd cases and errors */
static void edges(void)
{
    int x = 5, y = -1, flag = 0;
    MPI_Request s, r, null_req = MPI_REQUEST_NULL;
    if (!QUIRK_MPICH_PARTITIONED) {
        MPI_OK(MPI_Parrived(null_req, 0, &flag));
        CHECK_EQ(flag, 1);
    }
    /* MPI_PROC_NULL on both sides: complete at once, nothing moves */
    if (!QUIRK_MPICH_PARTITIONED) {
    MPI_OK(MPI_Psend_init(&x, 1, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    MPI_OK(MPI_Precv_init(&y, 1, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    MPI_OK(MPI_Start(&s));
    MPI_OK(MPI_Start(&r));
    MPI_OK(MPI_Pready(0, s));
    MPI_Status st;
    MPI_OK(MPI_Wait(&r, &st));
    MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    CHECK_EQ(y, -1);
    CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
    MPI_OK(MPI_Request_free(&s));
    MPI_OK(MPI_Request_free(&r));
    }
    /* a partition out of range */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_OK(MPI_Psend_init(&x, 1, 1, MPI_INT, right, 12, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    MPI_OK(MPI_Precv_init(&y, 1, 1, MPI_INT, left, 12, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    MPI_OK(MPI_Start(&s));
    MPI_OK(MPI_Start(&r));
    int cls = -1, rc = MPI_Pready(3, s);
    MPI_Error_class(rc, &cls);
    /* MPICH 4.0.2 says MPI_ERR_OTHER; anympi's own names the argument (MPI_ERR_ARG) */
    const int want = check_under() == CHECK_UNDER_MPICH && !CHECK_OVER_ABI ? MPI_ERR_OTHER : MPI_ERR_ARG;
    CHECK_MSG(rc != MPI_SUCCESS && cls == want, "MPI_Pready(3) of 1 partition: class %d", cls);
    MPI_OK(MPI_Pready(0, s));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    CHECK_EQ(y, 5);
    MPI_OK(MPI_Request_free(&s));
    MPI_OK(MPI_Request_free(&r));
}
#endif

int main(int argc, char **argv)
{
    int provided = 0;
    check_program_ = "partitioned";
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) return 2;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
#if MPI_VERSION >= 4
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = (rank + size - 1) % size, right = (rank + 1) % size;
    exchange(8, 4, 8, 4, 5);    /* same partitioning */
    exchange(8, 3, 4, 6, 3);    /* more send partitions than receive ones */
    exchange(3, 8, 12, 2, 3);   /* fewer */
    exchange(1, 5, 1, 5, 2);
    strided();
    order_and_isolation();
    freed_before_next();
    freed_unstarted();
    early();
    send_waited_first(1);
    send_waited_first(65536);
    behind_another();
    CHECK_EQ(provided, MPI_THREAD_MULTIPLE);
    if (provided == MPI_THREAD_MULTIPLE) threads();
    edges();
#else
    CHECK_MSG(0, "this MPI is older than MPI-4.0: build the program natively on MPICH only");
#endif
    return check_finish();
}
