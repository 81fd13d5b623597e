/* MPI-4 requests on any MPI: every persistent collective (started again and again with new
 * data), persistent collectives and point-to-point mixed in MPI_Startall and in every
 * completion call, MPI_Request_get_status on them, an op and a datatype freed right after
 * MPI_*_init, MPI_Isendrecv and MPI_Isendrecv_replace.  Over Open MPI 4.1, which has none of
 * these, anympi's own requests do all of it; natively the program runs on MPICH (MPI-4.0). */
#include "check.h"

#if MPI_VERSION >= 4
static int rank, size, left, right;
enum { ROUNDS = 5 };

/* MPICH 4.0.2's persistent collectives read some inputs at MPI_*_init and restart wrongly
 * (gather: the root's own block; allgather at 2 processes: stale data; scatter at 4: "Invalid
 * communicator"), so there each round makes its request afresh, after setting the inputs. */
static int fresh_each_round;

/* Starts the persistent request, waits for it and checks that it stays (inactive). */
static void run(MPI_Request *req)
{
    MPI_Request kept = *req;
    MPI_OK(MPI_Start(req));
    MPI_OK(MPI_Wait(req, MPI_STATUS_IGNORE));
    CHECK(*req == kept);
}
/* START(req, MPI_X_init(...)): makes the request once (or each round, see above) and runs it. */
#define START(req, init)                                                                          \
    do {                                                                                          \
        if (*(req) == MPI_REQUEST_NULL) MPI_OK(init);                                             \
        run(req);                                                                                 \
        if (fresh_each_round) MPI_OK(MPI_Request_free(req));                                      \
    } while (0)
static void free_all(int n, MPI_Request *r)
{
    for (int i = 0; i < n; ++i)
        if (r[i] != MPI_REQUEST_NULL) {
            MPI_OK(MPI_Request_free(&r[i]));
            CHECK(r[i] == MPI_REQUEST_NULL);
        }
}

static int val(int round, int who, int i) { return round * 10000 + who * 100 + i; }

/* ---------------------------------------------------------------- matching */
/* Once initialized, persistent collectives may be started in any order, different on each
 * process, and never match the program's blocking or nonblocking collectives (MPI-4.1 6.12).
 * Their init makes no call of the program's attribute copy callbacks (natively it never
 * duplicates the communicator). */
static int copies;
static int count_copies(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)kv, (void)extra;
    ++copies;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}
static void started_in_any_order(void)
{
    int kv = MPI_KEYVAL_INVALID;
    MPI_OK(MPI_Comm_create_keyval(count_copies, MPI_COMM_NULL_DELETE_FN, &kv, NULL));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, &copies));
    for (int round = 0; round < 3; ++round) {
        int one = 1, hundred = 100, a = -1, b = -1, c = -1;
        MPI_Request r[2], nb;
        MPI_OK(MPI_Allreduce_init(&one, &a, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
        MPI_OK(MPI_Allreduce_init(&hundred, &b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
        const int swapped = (rank + round) % 2;
        MPI_OK(MPI_Start(&r[swapped]));
        if (round == 2 && swapped)  /* a nonblocking collective between them on half the ranks */
            MPI_OK(MPI_Iallreduce(&hundred, &c, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &nb));
        MPI_OK(MPI_Start(&r[!swapped]));
        if (round == 2 && !swapped)
            MPI_OK(MPI_Iallreduce(&hundred, &c, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &nb));
        MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        if (round == 2) {
            MPI_OK(MPI_Wait(&nb, MPI_STATUS_IGNORE));
            CHECK_EQ(c, 100);
        }
        CHECK_MSG(a == size && b == 100 * size, "round %d: %d and %d, expected %d and %d", round, a, b, size, 100 * size);
        free_all(2, r);
    }
    CHECK_EQ(copies, 0);
    MPI_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, kv));
    MPI_OK(MPI_Comm_free_keyval(&kv));
}

/* ---------------------------------------------------------------- the 17 collectives */
static void rooted(void)
{
    const int root = size - 1;
    int buf[4], send[3], recv[3], g_send[2], *g_recv = malloc(sizeof(int) * 2 * (size_t)size);
    int *v_counts = malloc(sizeof(int) * (size_t)size), *v_displs = malloc(sizeof(int) * (size_t)size);
    int v_total = 0;
    for (int r = 0; r < size; ++r) {
        v_counts[r] = r + 1;
        v_displs[r] = v_total;
        v_total += r + 1;
    }
    int *v_recv = malloc(sizeof(int) * (size_t)v_total), v_send[64];
    MPI_Request reqs[6] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                        MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Request *bcast = &reqs[0], *reduce = &reqs[1], *gather = &reqs[2], *gatherv = &reqs[3], *scatter = &reqs[4],
                *scatterv = &reqs[5];
    for (int round = 0; round < ROUNDS; ++round) {
        for (int i = 0; i < 4; ++i) buf[i] = rank == root ? val(round, root, i) : -1;
        START(bcast, MPI_Bcast_init(buf, 4, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, bcast));
        for (int i = 0; i < 4; ++i) CHECK_EQ(buf[i], val(round, root, i));

        for (int i = 0; i < 3; ++i) send[i] = val(round, rank, i), recv[i] = -1;
        START(reduce, MPI_Reduce_init(send, recv, 3, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL, reduce));
        if (rank == 0)
            for (int i = 0; i < 3; ++i) CHECK_EQ(recv[i], size * val(round, 0, i) + 100 * size * (size - 1) / 2);

        for (int i = 0; i < 2; ++i) g_send[i] = val(round, rank, i);
        START(gather, MPI_Gather_init(g_send, 2, MPI_INT, g_recv, 2, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, gather));
        if (rank == root)
            for (int r = 0; r < size; ++r)
                for (int i = 0; i < 2; ++i) CHECK_EQ(g_recv[2 * r + i], val(round, r, i));

        for (int i = 0; i <= rank; ++i) v_send[i] = val(round, rank, i);
        START(gatherv, MPI_Gatherv_init(v_send, rank + 1, MPI_INT, v_recv, v_counts, v_displs, MPI_INT, 0, MPI_COMM_WORLD,
                            MPI_INFO_NULL, gatherv));
        if (rank == 0)
            for (int r = 0; r < size; ++r)
                for (int i = 0; i <= r; ++i) CHECK_EQ(v_recv[v_displs[r] + i], val(round, r, i));

        if (rank == 0)
            for (int r = 0; r < size; ++r)
                for (int i = 0; i < 2; ++i) g_recv[2 * r + i] = val(round + 1, r, i);
        g_send[0] = g_send[1] = -1;
        START(scatter, MPI_Scatter_init(g_recv, 2, MPI_INT, g_send, 2, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, scatter));
        for (int i = 0; i < 2; ++i) CHECK_EQ(g_send[i], val(round + 1, rank, i));

        if (rank == root)
            for (int r = 0; r < size; ++r)
                for (int i = 0; i <= r; ++i) v_recv[v_displs[r] + i] = val(round + 2, r, i);
        for (int i = 0; i <= rank; ++i) v_send[i] = -1;
        START(scatterv, MPI_Scatterv_init(v_recv, v_counts, v_displs, MPI_INT, v_send, rank + 1, MPI_INT, root, MPI_COMM_WORLD,
                             MPI_INFO_NULL, scatterv));
        for (int i = 0; i <= rank; ++i) CHECK_EQ(v_send[i], val(round + 2, rank, i));
    }
    free_all(6, reqs);
    free(g_recv), free(v_counts), free(v_displs), free(v_recv);
}

static void everyone(void)
{
    const size_t n = (size_t)size;
    int a_send[2], *a_recv = malloc(sizeof(int) * 2 * n), *counts = malloc(sizeof(int) * n),
        *displs = malloc(sizeof(int) * n), *one = malloc(sizeof(int) * n), *ones_displs = malloc(sizeof(int) * n),
        *t_send = malloc(sizeof(int) * n), *t_recv = malloc(sizeof(int) * n), red_send[64], red_recv[64],
        scan_send[2], scan_recv[2], exscan_recv[2];
    int total = 0;
    for (int r = 0; r < size; ++r) {
        counts[r] = r + 1, displs[r] = total, total += r + 1;
        one[r] = 1, ones_displs[r] = r;
    }
    int *v_recv = malloc(sizeof(int) * (size_t)total), v_send[64];
    MPI_Datatype *ints = malloc(sizeof(MPI_Datatype) * n);
    int *bytes_displs = malloc(sizeof(int) * n);
    for (int r = 0; r < size; ++r) ints[r] = MPI_INT, bytes_displs[r] = r * (int)sizeof(int);

    MPI_Request reqs[11];
    for (int i = 0; i < 11; ++i) reqs[i] = MPI_REQUEST_NULL;
    MPI_Request *barrier = &reqs[0], *allgather = &reqs[1], *allgatherv = &reqs[2], *alltoall = &reqs[3], *alltoallv = &reqs[4],
                *alltoallw = &reqs[5], *allreduce = &reqs[6], *rs = &reqs[7], *rsb = &reqs[8], *scan = &reqs[9], *exscan = &reqs[10];
    for (int round = 0; round < ROUNDS; ++round) {
        START(barrier, MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, barrier));

        a_send[0] = val(round, rank, 0), a_send[1] = val(round, rank, 1);
        START(allgather, MPI_Allgather_init(a_send, 2, MPI_INT, a_recv, 2, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, allgather));
        for (int r = 0; r < size; ++r)
            for (int i = 0; i < 2; ++i) CHECK_EQ(a_recv[2 * r + i], val(round, r, i));

        START(allreduce, MPI_Allreduce_init(a_send, scan_recv, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, allreduce));
        for (int i = 0; i < 2; ++i) CHECK_EQ(scan_recv[i], val(round, size - 1, i));

        for (int i = 0; i <= rank; ++i) v_send[i] = val(round, rank, i);
        START(allgatherv, MPI_Allgatherv_init(v_send, rank + 1, MPI_INT, v_recv, counts, displs, MPI_INT,
                                              MPI_COMM_WORLD, MPI_INFO_NULL, allgatherv));
        for (int r = 0; r < size; ++r)
            for (int i = 0; i <= r; ++i) CHECK_EQ(v_recv[displs[r] + i], val(round, r, i));

        for (int r = 0; r < size; ++r) t_send[r] = val(round, rank, r), t_recv[r] = -1;
        START(alltoall, MPI_Alltoall_init(t_send, 1, MPI_INT, t_recv, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, alltoall));
        for (int r = 0; r < size; ++r) CHECK_EQ(t_recv[r], val(round, r, rank));
        for (int r = 0; r < size; ++r) t_send[r] = val(round + 1, rank, r), t_recv[r] = -1;
        START(alltoallv, MPI_Alltoallv_init(t_send, one, ones_displs, MPI_INT, t_recv, one, ones_displs, MPI_INT, MPI_COMM_WORLD,
                              MPI_INFO_NULL, alltoallv));
        for (int r = 0; r < size; ++r) CHECK_EQ(t_recv[r], val(round + 1, r, rank));
        for (int r = 0; r < size; ++r) t_send[r] = val(round + 2, rank, r), t_recv[r] = -1;
        START(alltoallw, MPI_Alltoallw_init(t_send, one, bytes_displs, ints, t_recv, one, bytes_displs, ints, MPI_COMM_WORLD,
                              MPI_INFO_NULL, alltoallw));
        for (int r = 0; r < size; ++r) CHECK_EQ(t_recv[r], val(round + 2, r, rank));

        for (int i = 0; i < total; ++i) red_send[i] = round + rank + i;
        for (int i = 0; i < 64; ++i) red_recv[i] = -1;
        START(rs, MPI_Reduce_scatter_init(red_send, red_recv, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, rs));
        for (int i = 0; i <= rank; ++i)
            CHECK_EQ(red_recv[i], size * (round + displs[rank] + i) + size * (size - 1) / 2);
        for (int i = 0; i < 2 * size; ++i) red_send[i] = round * rank + i;
        START(rsb, MPI_Reduce_scatter_block_init(red_send, red_recv, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, rsb));
        for (int i = 0; i < 2; ++i) CHECK_EQ(red_recv[i], round * size * (size - 1) / 2 + size * (2 * rank + i));

        scan_send[0] = rank + round, scan_send[1] = 1;
        exscan_recv[0] = exscan_recv[1] = -7;
        START(scan, MPI_Scan_init(scan_send, scan_recv, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, scan));
        CHECK_EQ(scan_recv[0], rank * (rank + 1) / 2 + (rank + 1) * round);
        CHECK_EQ(scan_recv[1], rank + 1);
        START(exscan, MPI_Exscan_init(scan_send, exscan_recv, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, exscan));
        if (rank > 0) {
            CHECK_EQ(exscan_recv[0], (rank - 1) * rank / 2 + rank * round);
            CHECK_EQ(exscan_recv[1], rank);
        }
    }
    free_all(11, reqs);
    free(a_recv), free(counts), free(displs), free(one), free(ones_displs), free(t_send), free(t_recv);
    free(v_recv), free(ints), free(bytes_displs);
}

/* ---------------------------------------------------------------- the 5 neighbourhood ones */
/* A directed ring: one source (left), one destination (right), so every block has exactly one
 * partner even at 1 and 2 processes. */
static void neighbours(void)
{
    MPI_Comm ring;
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, MPI_UNWEIGHTED, 1, &right, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &ring));
    int send[2], recv[2], two = 2, zero = 0;
    MPI_Aint zero_bytes = 0;
    MPI_Datatype pair;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    MPI_OK(MPI_Type_commit(&pair));
    MPI_Request r[5];
    MPI_OK(MPI_Neighbor_allgather_init(send, 2, MPI_INT, recv, 2, MPI_INT, ring, MPI_INFO_NULL, &r[0]));
    MPI_OK(MPI_Neighbor_allgatherv_init(send, 2, MPI_INT, recv, &two, &zero, MPI_INT, ring, MPI_INFO_NULL, &r[1]));
    MPI_OK(MPI_Neighbor_alltoall_init(send, 2, MPI_INT, recv, 2, MPI_INT, ring, MPI_INFO_NULL, &r[2]));
    MPI_OK(MPI_Neighbor_alltoallv_init(send, &two, &zero, MPI_INT, recv, &two, &zero, MPI_INT, ring, MPI_INFO_NULL,
                                       &r[3]));
    int one = 1;
    /* the datatype freed right after the init: the request still sends pairs */
    MPI_OK(MPI_Neighbor_alltoallw_init(send, &one, &zero_bytes, &pair, recv, &one, &zero_bytes, &pair, ring,
                                       MPI_INFO_NULL, &r[4]));
    MPI_OK(MPI_Type_free(&pair));
    for (int round = 0; round < ROUNDS; ++round)
        for (int k = 0; k < 5; ++k) {
            send[0] = val(round, rank, k), send[1] = val(round, rank, k + 10);
            recv[0] = recv[1] = -1;
            run(&r[k]);
            CHECK_MSG(recv[0] == val(round, left, k) && recv[1] == val(round, left, k + 10),
                      "neighbourhood collective %d, round %d: received %d %d", k, round, recv[0], recv[1]);
        }
    for (int k = 0; k < 5; ++k) MPI_OK(MPI_Request_free(&r[k]));
    MPI_OK(MPI_Comm_free(&ring));
}

/* ---------------------------------------------------------------- large-count forms */
static void large_count_forms(void)
{
    int buf[3], out[3];
    MPI_Count three = 3;
    MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL}, *bcast = &reqs[0], *allreduce = &reqs[1];
    for (int round = 0; round < ROUNDS; ++round) {
        for (int i = 0; i < 3; ++i) buf[i] = rank == 0 ? val(round, 0, i) : -1;
        START(bcast, MPI_Bcast_init_c(buf, three, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, bcast));
        START(allreduce, MPI_Allreduce_init_c(buf, out, three, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, allreduce));
        for (int i = 0; i < 3; ++i) CHECK_EQ(out[i], size * val(round, 0, i));
    }
    free_all(2, reqs);
}

/* ---------------------------------------------------------------- many starts, op and type freed */
static void pair_add(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < 2 * *len; ++i) b[i] = b[i] + a[i] + 1;  /* not MPI_SUM: this function must run */
}
static void user_op_freed(void)
{
    MPI_Datatype pair;
    MPI_Op op;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    MPI_OK(MPI_Type_commit(&pair));
    MPI_OK(MPI_Op_create(pair_add, 1, &op));
    int in[6], out[6];
    MPI_Request req;
    MPI_OK(MPI_Allreduce_init(in, out, 3, pair, op, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    MPI_OK(MPI_Op_free(&op));
    MPI_OK(MPI_Type_free(&pair));
    CHECK(op == MPI_OP_NULL);
    CHECK(pair == MPI_DATATYPE_NULL);
    for (int round = 0; round < 100; ++round) {
        for (int i = 0; i < 6; ++i) in[i] = round + i, out[i] = -1;
        run(&req);
        /* size - 1 applications of a + b + 1 to size copies of the same vector */
        for (int i = 0; i < 6; ++i) CHECK_EQ(out[i], size * (round + i) + size - 1);
    }
    MPI_OK(MPI_Request_free(&req));
}

/* ---------------------------------------------------------------- mixed arrays */
static void mixed(void)
{
    int sum_in = rank, sum_out = -1, to_right, from_left, bval = 0;
    MPI_Request reqs[4];
    MPI_OK(MPI_Recv_init(&from_left, 1, MPI_INT, left, 31, MPI_COMM_WORLD, &reqs[0]));
    MPI_OK(MPI_Allreduce_init(&sum_in, &sum_out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]));
    MPI_OK(MPI_Send_init(&to_right, 1, MPI_INT, right, 31, MPI_COMM_WORLD, &reqs[2]));
    MPI_OK(MPI_Bcast_init(&bval, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[3]));
    MPI_Request kept[4];
    memcpy(kept, reqs, sizeof kept);

    /* inactive persistent requests: get_status answers at once with an empty status */
    for (int k = 0; k < 4; ++k) {
        int flag = 0;
        MPI_Status st;
        st.MPI_TAG = 77;
        MPI_OK(MPI_Request_get_status(reqs[k], &flag, &st));
        if (QUIRK_MPICH_PERSISTENT_COLL_INACTIVE && k % 2) continue;
        CHECK_EQ(flag, 1);
        CHECK_EQ(st.MPI_TAG, MPI_ANY_TAG);
        CHECK_EQ(st.MPI_SOURCE, MPI_ANY_SOURCE);
    }
    for (int round = 0; round < 10; ++round) {
        to_right = val(round, rank, 0), from_left = -1, sum_in = rank + round, bval = rank == 0 ? round : -1;
        MPI_OK(MPI_Startall(4, reqs));
        MPI_Status st[4];
        switch (QUIRK_MPICH_PERSISTENT_COLL_INACTIVE ? 0 : round % 5) {
        case 0:
            MPI_OK(MPI_Waitall(4, reqs, st));
            CHECK_EQ(st[0].MPI_SOURCE, left);
            CHECK_EQ(st[0].MPI_TAG, 31);
            break;
        case 1: {  /* MPI_Waitany until nothing is active: each index once */
            int seen[4] = {0}, idx = 0;
            for (int k = 0; k < 5; ++k) {
                MPI_Status s;
                MPI_OK(MPI_Waitany(4, reqs, &idx, &s));
                if (idx == MPI_UNDEFINED) break;
                CHECK(idx >= 0 && idx < 4);
                if (idx >= 0 && idx < 4) ++seen[idx];
                if (idx == 0) CHECK_EQ(s.MPI_SOURCE, left);
            }
            CHECK_EQ(idx, MPI_UNDEFINED);
            for (int k = 0; k < 4; ++k) CHECK_EQ(seen[k], 1);
            break;
        }
        case 2: {  /* MPI_Testsome until nothing is active */
            int seen[4] = {0}, out = 0, idx[4];
            do {
                MPI_OK(MPI_Testsome(4, reqs, &out, idx, st));
                for (int k = 0; out != MPI_UNDEFINED && k < out; ++k) {
                    ++seen[idx[k]];
                    if (idx[k] == 0) CHECK_EQ(st[k].MPI_TAG, 31);
                }
            } while (out != MPI_UNDEFINED);
            for (int k = 0; k < 4; ++k) CHECK_EQ(seen[k], 1);
            break;
        }
        case 3: {  /* MPI_Waitsome, then MPI_Testany answers "none active" */
            int seen[4] = {0}, out = 0, idx[4], flag = 0, any = 0;
            do {
                MPI_OK(MPI_Waitsome(4, reqs, &out, idx, st));
                for (int k = 0; out != MPI_UNDEFINED && k < out; ++k) ++seen[idx[k]];
            } while (out != MPI_UNDEFINED);
            for (int k = 0; k < 4; ++k) CHECK_EQ(seen[k], 1);
            MPI_OK(MPI_Testany(4, reqs, &any, &flag, MPI_STATUS_IGNORE));
            CHECK_EQ(flag, 1);
            CHECK_EQ(any, MPI_UNDEFINED);
            break;
        }
        case 4: {  /* MPI_Testall until everything; MPI_Request_get_status first, which completes nothing */
            int flag = 0;
            do MPI_OK(MPI_Request_get_status(reqs[1], &flag, MPI_STATUS_IGNORE));
            while (!flag);
            SPIN(MPI_Testall(4, reqs, &flag, st), flag);
            CHECK_EQ(st[0].MPI_SOURCE, left);
            break;
        }
        }
        for (int k = 0; k < 4; ++k) CHECK(reqs[k] == kept[k]);
        CHECK_EQ(from_left, val(round, left, 0));
        CHECK_EQ(sum_out, size * (size - 1) / 2 + size * round);
        CHECK_EQ(bval, round);
    }
    for (int k = 0; k < 4; ++k) MPI_OK(MPI_Request_free(&reqs[k]));
}

/* ---------------------------------------------------------------- cancel */
/* A collective cannot be cancelled: anympi's own raises MPI_ERR_REQUEST (natively it is only
 * erroneous, so this runs over the ABI alone).  The operation still completes. */
static void cancel(void)
{
    if (!CHECK_OVER_ABI) return;
    int in = rank, out = -1;
    MPI_Request req;
    MPI_OK(MPI_Allreduce_init(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    MPI_OK(MPI_Start(&req));
    int cls = -1, rc = MPI_Cancel(&req);
    MPI_Error_class(rc, &cls);
    CHECK_EQ(cls, MPI_ERR_REQUEST);
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_EQ(out, size * (size - 1) / 2);
    MPI_OK(MPI_Request_free(&req));
}

/* ---------------------------------------------------------------- MPI_Isendrecv[_replace] */
static void sendrecv(void)
{
    int out[4], in[4] = {-1, -1, -1, -1};
    for (int i = 0; i < 4; ++i) out[i] = val(1, rank, i);
    MPI_Request req;
    MPI_Status st;
    MPI_OK(MPI_Isendrecv(out, 4, MPI_INT, right, 41, in, 4, MPI_INT, left, 41, MPI_COMM_WORLD, &req));
    int flag = 0;
    SPIN(MPI_Test(&req, &flag, &st), flag);
    CHECK(req == MPI_REQUEST_NULL);
    for (int i = 0; i < 4; ++i) CHECK_EQ(in[i], val(1, left, i));
    if (!QUIRK_MPICH_ISENDRECV_STATUS) {
        int count = -1;
        CHECK_EQ(st.MPI_SOURCE, left);
        CHECK_EQ(st.MPI_TAG, 41);
        MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK_EQ(count, 4);
    }

    /* replace through a strided type: every other int of 8 travels, the rest stays */
    const int stride = QUIRK_MPICH_ISENDRECV_REPLACE ? 1 : 2, count = stride == 1 ? 4 : 1;
    MPI_Datatype every_other = MPI_INT;
    if (stride > 1) {
        MPI_OK(MPI_Type_vector(4, 1, stride, MPI_INT, &every_other));
        MPI_OK(MPI_Type_commit(&every_other));
    }
    int buf[8];
    for (int round = 0; round < ROUNDS; ++round) {
        for (int i = 0; i < 8; ++i) buf[i] = val(round, rank, i);
        /* with a native receive and send beside it in one MPI_Waitall */
        int extra_out = val(round, rank, 99), extra_in = -1;
        MPI_Request r[3];
        MPI_OK(MPI_Irecv(&extra_in, 1, MPI_INT, right, 43, MPI_COMM_WORLD, &r[0]));
        MPI_OK(MPI_Isendrecv_replace(buf, count, every_other, right, 42, left, 42, MPI_COMM_WORLD, &r[1]));
        MPI_OK(MPI_Isend(&extra_out, 1, MPI_INT, left, 43, MPI_COMM_WORLD, &r[2]));
        MPI_Status sts[3];
        MPI_OK(MPI_Waitall(3, r, sts));
        for (int k = 0; k < 3; ++k) CHECK(r[k] == MPI_REQUEST_NULL);
        for (int i = 0; i < 8; ++i)
            CHECK_EQ(buf[i], val(round, i % stride == 0 && i < 4 * stride ? left : rank, i));
        CHECK_EQ(extra_in, val(round, right, 99));
        CHECK_EQ(sts[0].MPI_SOURCE, right);
        if (!QUIRK_MPICH_ISENDRECV_STATUS) {
            CHECK_EQ(sts[1].MPI_SOURCE, left);
            CHECK_EQ(sts[1].MPI_TAG, 42);
        }
    }
    if (stride > 1) MPI_OK(MPI_Type_free(&every_other));

    /* large-count form; and MPI_Request_free while active, completed by the MPI regardless */
    MPI_Count four = 4;
    MPI_OK(MPI_Isendrecv_c(out, four, MPI_INT, right, 44, in, four, MPI_INT, left, 44, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    int later = -1, now = rank;
    if (!QUIRK_MPICH_ISENDRECV_REPLACE) {
        MPI_OK(MPI_Isendrecv_replace_c(&later, 1, MPI_INT, MPI_PROC_NULL, 45, MPI_PROC_NULL, 45, MPI_COMM_WORLD, &req));
        MPI_OK(MPI_Request_free(&req));
        CHECK(req == MPI_REQUEST_NULL);
    }
    MPI_OK(MPI_Isendrecv(&now, 1, MPI_INT, right, 46, &later, 1, MPI_INT, left, 46, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_EQ(later, left);
}

#endif

/* First in the program: MPICH 4.0.2 completes a nonblocking receive from MPI_PROC_NULL with
 * source and tag 0 until a blocking one has run in the process, and anympi's MPI_Isendrecv
 * over MPICH handed that status on.  And MPI_Isendrecv_replace from MPI_BOTTOM (anympi packs
 * the data to send; MPICH's MPI_Pack refuses MPI_BOTTOM). */
static void sendrecv_proc_null_and_bottom(void)
{
    int out = rank, in = -1, got = -1;
    MPI_Request req, from_left;
    MPI_Status st;
    for (int replace = 0; replace < 2; ++replace) {
        if (replace && QUIRK_MPICH_ISENDRECV_REPLACE) break;  /* natively it faults here */
        st.MPI_SOURCE = st.MPI_TAG = -77;
        MPI_OK(MPI_Irecv(&got, 1, MPI_INT, left, 47, MPI_COMM_WORLD, &from_left));  /* first: MPICH's send to itself waits for it */
        if (replace) MPI_OK(MPI_Isendrecv_replace(&out, 1, MPI_INT, right, 47, MPI_PROC_NULL, 47, MPI_COMM_WORLD, &req));
        else MPI_OK(MPI_Isendrecv(&out, 1, MPI_INT, right, 47, &in, 1, MPI_INT, MPI_PROC_NULL, 47, MPI_COMM_WORLD, &req));
        MPI_OK(MPI_Wait(&req, &st));
        MPI_OK(MPI_Wait(&from_left, MPI_STATUS_IGNORE));
        CHECK_EQ(got, left);
        CHECK_EQ(in, -1);
        CHECK_EQ(out, rank);
        if (!QUIRK_MPICH_ISENDRECV_STATUS) {
            int count = -1;
            CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
            CHECK_EQ(st.MPI_TAG, MPI_ANY_TAG);
            MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
            CHECK_EQ(count, 0);
        }
    }
    if (QUIRK_MPICH_ISENDRECV_REPLACE) return;
    int pair[2] = {rank, -rank};
    MPI_Aint at[2];
    MPI_OK(MPI_Get_address(&pair[1], &at[0]));
    MPI_OK(MPI_Get_address(&pair[0], &at[1]));
    int ones[2] = {1, 1};
    MPI_Datatype ints[2] = {MPI_INT, MPI_INT}, absolute;
    MPI_OK(MPI_Type_create_struct(2, ones, at, ints, &absolute));
    MPI_OK(MPI_Type_commit(&absolute));
    MPI_OK(MPI_Isendrecv_replace(MPI_BOTTOM, 1, absolute, right, 48, left, 48, MPI_COMM_WORLD, &req));  /* its receive is first */
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_EQ(pair[0], left);
    CHECK_EQ(pair[1], -left);
    MPI_OK(MPI_Type_free(&absolute));
}

/* An integer handle for every request, as a Fortran layer needs: anympi's own had none
 * (MPI_Request_toint raised MPI_ERR_REQUEST).  Natively MPICH's MPI_Request_c2f/f2c. */
#if CHECK_OVER_ABI
#define REQUEST_TO_INT(r) MPI_Request_toint(r)
#define REQUEST_FROM_INT(i) MPI_Request_fromint(i)
#else
#define REQUEST_TO_INT(r) ((int)MPI_Request_c2f(r))
#define REQUEST_FROM_INT(i) MPI_Request_f2c(i)
#endif
static void integer_handles(void)
{
    int x = rank, y = -1, v = rank == 0 ? 42 : -1;
    MPI_Request r[2];
    MPI_OK(MPI_Bcast_init(&v, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    MPI_OK(MPI_Isendrecv(&x, 1, MPI_INT, right, 49, &y, 1, MPI_INT, left, 49, MPI_COMM_WORLD, &r[1]));
    const int i0 = REQUEST_TO_INT(r[0]), i1 = REQUEST_TO_INT(r[1]);
    CHECK(i0 != i1);
    CHECK_EQ(REQUEST_TO_INT(r[0]), i0);  /* asked again: the same */
    MPI_Request back[2] = {REQUEST_FROM_INT(i0), REQUEST_FROM_INT(i1)};
    CHECK(back[0] == r[0] && back[1] == r[1]);
    MPI_OK(MPI_Wait(&back[1], MPI_STATUS_IGNORE));  /* completed through the handle made from its integer */
    CHECK_EQ(y, left);
    MPI_OK(MPI_Start(&back[0]));
    MPI_OK(MPI_Wait(&back[0], MPI_STATUS_IGNORE));
    CHECK_EQ(v, 42);
    MPI_OK(MPI_Request_free(&back[0]));
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "persistent");
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);  /* MPI_Cancel's errors go there */
#if MPI_VERSION >= 4
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = (rank + size - 1) % size, right = (rank + 1) % size;
    fresh_each_round = QUIRK_MPICH_PERSISTENT_COLL_RESTART;
    sendrecv_proc_null_and_bottom();
    integer_handles();
    started_in_any_order();
    rooted();
    everyone();
    neighbours();
    large_count_forms();
    user_op_freed();
    mixed();
    cancel();
    sendrecv();
#else
    CHECK_MSG(0, "this MPI is older than MPI-4.0: build the program natively on MPICH only");
#endif
    return check_finish();
}
