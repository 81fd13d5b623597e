/* Every collective, blocking and nonblocking, with the MPI_IN_PLACE variants:
 * barrier, bcast, gather(v), scatter(v), allgather(v), alltoall(v,w), reduce,
 * allreduce, reduce_scatter, reduce_scatter_block, scan, exscan.  Each runs
 * twice: once blocking, once as the I-variant completed with MPI_Wait. */
#include "check.h"

static int rank, size;

/* The value rank r contributes at position i. */
static int v(int r, int i) { return r * 1000 + i + 1; }

static int *ints(int n, int fillv)
{
    int *p = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; ++i) p[i] = fillv;
    return p;
}

static void test_barrier_bcast(int nb)
{
    COLL(nb, MPI_Barrier(MPI_COMM_WORLD), MPI_Ibarrier(MPI_COMM_WORLD, req));
    for (int root = 0; root < size; ++root) {
        int buf[5];
        for (int i = 0; i < 5; ++i) buf[i] = rank == root ? v(root, i) : -1;
        COLL(nb, MPI_Bcast(buf, 5, MPI_INT, root, MPI_COMM_WORLD),
             MPI_Ibcast(buf, 5, MPI_INT, root, MPI_COMM_WORLD, req));
        for (int i = 0; i < 5; ++i) CHECK_EQ(buf[i], v(root, i));
    }
}

static void test_gather_scatter(int nb)
{
    const int K = 3, root = size - 1;
    int send[3], *recv = ints(K * size, -1);
    for (int i = 0; i < K; ++i) send[i] = v(rank, i);
    COLL(nb, MPI_Gather(send, K, MPI_INT, recv, K, MPI_INT, root, MPI_COMM_WORLD),
         MPI_Igather(send, K, MPI_INT, recv, K, MPI_INT, root, MPI_COMM_WORLD, req));
    if (rank == root)
        for (int r = 0; r < size; ++r)
            for (int i = 0; i < K; ++i) CHECK_EQ(recv[r * K + i], v(r, i));

    /* In place at the root: its own block is already in the receive buffer. */
    for (int i = 0; i < K * size; ++i) recv[i] = -1;
    if (rank == root) {
        for (int i = 0; i < K; ++i) recv[root * K + i] = v(root, i);
        COLL(nb, MPI_Gather(MPI_IN_PLACE, K, MPI_INT, recv, K, MPI_INT, root, MPI_COMM_WORLD),
             MPI_Igather(MPI_IN_PLACE, K, MPI_INT, recv, K, MPI_INT, root, MPI_COMM_WORLD, req));
        for (int r = 0; r < size; ++r)
            for (int i = 0; i < K; ++i) CHECK_EQ(recv[r * K + i], v(r, i));
    } else {
        COLL(nb, MPI_Gather(send, K, MPI_INT, NULL, 0, MPI_INT, root, MPI_COMM_WORLD),
             MPI_Igather(send, K, MPI_INT, NULL, 0, MPI_INT, root, MPI_COMM_WORLD, req));
    }

    /* Gatherv: rank r sends r+1 values, placed with a gap of 2 between blocks. */
    int *counts = ints(size, 0), *displs = ints(size, 0), total = 0;
    for (int r = 0; r < size; ++r) {
        counts[r] = r + 1;
        displs[r] = total;
        total += r + 1 + 2;
    }
    int *vsend = ints(rank + 1, 0), *vrecv = ints(total, -1);
    for (int i = 0; i <= rank; ++i) vsend[i] = v(rank, i);
    COLL(nb, MPI_Gatherv(vsend, rank + 1, MPI_INT, vrecv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD),
         MPI_Igatherv(vsend, rank + 1, MPI_INT, vrecv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD, req));
    if (rank == 0)
        for (int r = 0; r < size; ++r) {
            for (int i = 0; i < counts[r]; ++i) CHECK_EQ(vrecv[displs[r] + i], v(r, i));
            CHECK_EQ(vrecv[displs[r] + counts[r]], -1); /* the gap is untouched */
        }

    /* Scatter from the root, and in place at the root. */
    int *ssend = ints(K * size, 0), srecv[3] = {-1, -1, -1};
    for (int r = 0; r < size; ++r)
        for (int i = 0; i < K; ++i) ssend[r * K + i] = v(r, i) + 7;
    COLL(nb, MPI_Scatter(ssend, K, MPI_INT, srecv, K, MPI_INT, root, MPI_COMM_WORLD),
         MPI_Iscatter(ssend, K, MPI_INT, srecv, K, MPI_INT, root, MPI_COMM_WORLD, req));
    for (int i = 0; i < K; ++i) CHECK_EQ(srecv[i], v(rank, i) + 7);
    if (rank == root) {
        COLL(nb, MPI_Scatter(ssend, K, MPI_INT, MPI_IN_PLACE, K, MPI_INT, root, MPI_COMM_WORLD),
             MPI_Iscatter(ssend, K, MPI_INT, MPI_IN_PLACE, K, MPI_INT, root, MPI_COMM_WORLD, req));
        for (int i = 0; i < K; ++i) CHECK_EQ(ssend[root * K + i], v(root, i) + 7);
    } else {
        srecv[0] = -1;
        COLL(nb, MPI_Scatter(NULL, 0, MPI_INT, srecv, K, MPI_INT, root, MPI_COMM_WORLD),
             MPI_Iscatter(NULL, 0, MPI_INT, srecv, K, MPI_INT, root, MPI_COMM_WORLD, req));
        for (int i = 0; i < K; ++i) CHECK_EQ(srecv[i], v(rank, i) + 7);
    }

    /* Scatterv with the same irregular layout, back to the senders. */
    for (int r = 0; r < size; ++r)
        for (int i = 0; i < counts[r]; ++i) vrecv[displs[r] + i] = v(r, i) + 9;
    for (int i = 0; i <= rank; ++i) vsend[i] = -1;
    COLL(nb, MPI_Scatterv(vrecv, counts, displs, MPI_INT, vsend, rank + 1, MPI_INT, 0, MPI_COMM_WORLD),
         MPI_Iscatterv(vrecv, counts, displs, MPI_INT, vsend, rank + 1, MPI_INT, 0, MPI_COMM_WORLD, req));
    for (int i = 0; i <= rank; ++i) CHECK_EQ(vsend[i], v(rank, i) + 9);
    free(counts);
    free(displs);
    free(vsend);
    free(vrecv);
    free(ssend);
    free(recv);
}

static void test_allgather(int nb)
{
    const int K = 2;
    int send[2] = {v(rank, 0), v(rank, 1)}, *recv = ints(K * size, -1);
    COLL(nb, MPI_Allgather(send, K, MPI_INT, recv, K, MPI_INT, MPI_COMM_WORLD),
         MPI_Iallgather(send, K, MPI_INT, recv, K, MPI_INT, MPI_COMM_WORLD, req));
    for (int r = 0; r < size; ++r)
        for (int i = 0; i < K; ++i) CHECK_EQ(recv[r * K + i], v(r, i));
    for (int i = 0; i < K * size; ++i) recv[i] = i / K == rank ? v(rank, i % K) : -1;
    COLL(nb, MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, K, MPI_INT, MPI_COMM_WORLD),
         MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, K, MPI_INT, MPI_COMM_WORLD, req));
    for (int r = 0; r < size; ++r)
        for (int i = 0; i < K; ++i) CHECK_EQ(recv[r * K + i], v(r, i));

    int *counts = ints(size, 0), *displs = ints(size, 0), total = 0;
    for (int r = 0; r < size; ++r) {
        counts[r] = size - r;
        displs[r] = total + 1;
        total += counts[r] + 1;
    }
    int *vsend = ints(size - rank, 0), *vrecv = ints(total, -1);
    for (int i = 0; i < size - rank; ++i) vsend[i] = v(rank, i);
    COLL(nb, MPI_Allgatherv(vsend, size - rank, MPI_INT, vrecv, counts, displs, MPI_INT, MPI_COMM_WORLD),
         MPI_Iallgatherv(vsend, size - rank, MPI_INT, vrecv, counts, displs, MPI_INT, MPI_COMM_WORLD, req));
    if (size > 1 || !QUIRK_MPICH_ALLGATHERV_NP1)
    for (int r = 0; r < size; ++r) {
        CHECK_EQ(vrecv[displs[r] - 1], -1);
        for (int i = 0; i < counts[r]; ++i) CHECK_EQ(vrecv[displs[r] + i], v(r, i));
    }
    for (int i = 0; i < total; ++i) vrecv[i] = -1;
    for (int i = 0; i < counts[rank]; ++i) vrecv[displs[rank] + i] = v(rank, i);
    COLL(nb, MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, vrecv, counts, displs, MPI_INT, MPI_COMM_WORLD),
         MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, vrecv, counts, displs, MPI_INT, MPI_COMM_WORLD, req));
    for (int r = 0; r < size; ++r)
        for (int i = 0; i < counts[r]; ++i) CHECK_EQ(vrecv[displs[r] + i], v(r, i));
    free(counts);
    free(displs);
    free(vsend);
    free(vrecv);
    free(recv);
}

/* Alltoall family: rank r sends to rank d the values w(r, d, i). */
static int w(int r, int d, int i) { return r * 10000 + d * 100 + i; }

static void test_alltoall(int nb)
{
    const int K = 2;
    int *send = ints(K * size, 0), *recv = ints(K * size, -1);
    for (int d = 0; d < size; ++d)
        for (int i = 0; i < K; ++i) send[d * K + i] = w(rank, d, i);
    COLL(nb, MPI_Alltoall(send, K, MPI_INT, recv, K, MPI_INT, MPI_COMM_WORLD),
         MPI_Ialltoall(send, K, MPI_INT, recv, K, MPI_INT, MPI_COMM_WORLD, req));
    for (int s = 0; s < size; ++s)
        for (int i = 0; i < K; ++i) CHECK_EQ(recv[s * K + i], w(s, rank, i));
    /* In place: the receive buffer holds what is sent. */
    memcpy(recv, send, sizeof(int) * (size_t)(K * size));
    COLL(nb, MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, K, MPI_INT, MPI_COMM_WORLD),
         MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, K, MPI_INT, MPI_COMM_WORLD, req));
    for (int s = 0; s < size; ++s)
        for (int i = 0; i < K; ++i) CHECK_EQ(recv[s * K + i], w(s, rank, i));

    /* Alltoallv: rank r sends d+1 values to d; blocks laid out in reverse order. */
    int *scounts = ints(size, 0), *sdispls = ints(size, 0), *rcounts = ints(size, 0),
        *rdispls = ints(size, 0);
    int stotal = 0, rtotal = 0;
    for (int d = size - 1; d >= 0; --d) {
        scounts[d] = d + 1;
        sdispls[d] = stotal;
        stotal += d + 1;
    }
    for (int s = 0; s < size; ++s) {
        rcounts[s] = rank + 1;
        rdispls[s] = rtotal;
        rtotal += rank + 1;
    }
    int *vsend = ints(stotal, 0), *vrecv = ints(rtotal, -1);
    for (int d = 0; d < size; ++d)
        for (int i = 0; i < scounts[d]; ++i) vsend[sdispls[d] + i] = w(rank, d, i);
    COLL(nb, MPI_Alltoallv(vsend, scounts, sdispls, MPI_INT, vrecv, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD),
         MPI_Ialltoallv(vsend, scounts, sdispls, MPI_INT, vrecv, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD, req));
    for (int s = 0; s < size; ++s)
        for (int i = 0; i < rcounts[s]; ++i) CHECK_EQ(vrecv[rdispls[s] + i], w(s, rank, i));

    /* Alltoallw: to even destinations ints, to odd ones doubles; byte displacements. */
    int *wscounts = ints(size, 1), *wrcounts = ints(size, 1), *wsd = ints(size, 0),
        *wrd = ints(size, 0);
    MPI_Datatype *stypes = malloc(sizeof(MPI_Datatype) * (size_t)size);
    MPI_Datatype *rtypes = malloc(sizeof(MPI_Datatype) * (size_t)size);
    double *wsend = calloc((size_t)size, sizeof(double)), *wrecv = calloc((size_t)size, sizeof(double));
    for (int p = 0; p < size; ++p) {
        wsd[p] = wrd[p] = p * (int)sizeof(double);
        /* The type depends on the receiver so both sides agree. */
        stypes[p] = p % 2 == 0 ? MPI_INT : MPI_DOUBLE;
        rtypes[p] = rank % 2 == 0 ? MPI_INT : MPI_DOUBLE;
        if (p % 2 == 0)
            *(int *)((char *)wsend + wsd[p]) = w(rank, p, 0);
        else
            wsend[p] = w(rank, p, 0) + 0.5;
        wrecv[p] = -1;
    }
    COLL(nb, MPI_Alltoallw(wsend, wscounts, wsd, stypes, wrecv, wrcounts, wrd, rtypes, MPI_COMM_WORLD),
         MPI_Ialltoallw(wsend, wscounts, wsd, stypes, wrecv, wrcounts, wrd, rtypes, MPI_COMM_WORLD, req));
    for (int s = 0; s < size; ++s) {
        if (rank % 2 == 0)
            CHECK_EQ(*(int *)((char *)wrecv + wrd[s]), w(s, rank, 0));
        else
            CHECK_NEAR(wrecv[s], w(s, rank, 0) + 0.5, 0);
    }
    free(stypes);
    free(rtypes);
    free(wsend);
    free(wrecv);
    free(wscounts);
    free(wrcounts);
    free(wsd);
    free(wrd);
    free(scounts);
    free(sdispls);
    free(rcounts);
    free(rdispls);
    free(vsend);
    free(vrecv);
    free(send);
    free(recv);
}

static void test_reductions(int nb)
{
    const int K = 3;
    int send[3], recv[3], expect[3];
    for (int i = 0; i < K; ++i) {
        send[i] = v(rank, i);
        expect[i] = 0;
        for (int r = 0; r < size; ++r) expect[i] += v(r, i);
        recv[i] = -1;
    }
    for (int root = 0; root < size; root += (size > 2 ? size - 1 : 1)) {
        for (int i = 0; i < K; ++i) recv[i] = -1;
        COLL(nb, MPI_Reduce(send, recv, K, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD),
             MPI_Ireduce(send, recv, K, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, req));
        for (int i = 0; i < K; ++i) CHECK_EQ(recv[i], rank == root ? expect[i] : -1);
        /* In place at the root. */
        int inplace[3];
        memcpy(inplace, send, sizeof inplace);
        if (rank == root)
            COLL(nb, MPI_Reduce(MPI_IN_PLACE, inplace, K, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD),
                 MPI_Ireduce(MPI_IN_PLACE, inplace, K, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, req));
        else
            COLL(nb, MPI_Reduce(inplace, NULL, K, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD),
                 MPI_Ireduce(inplace, NULL, K, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, req));
        if (rank == root)
            for (int i = 0; i < K; ++i) CHECK_EQ(inplace[i], expect[i]);
    }

    COLL(nb, MPI_Allreduce(send, recv, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
         MPI_Iallreduce(send, recv, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req));
    for (int i = 0; i < K; ++i) CHECK_EQ(recv[i], expect[i]);
    memcpy(recv, send, sizeof recv);
    COLL(nb, MPI_Allreduce(MPI_IN_PLACE, recv, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
         MPI_Iallreduce(MPI_IN_PLACE, recv, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req));
    for (int i = 0; i < K; ++i) CHECK_EQ(recv[i], expect[i]);

    /* Reduce_scatter_block: element j of the sum of all ranks' vectors, K per rank. */
    int *big = ints(K * size, 0), mine[3] = {-1, -1, -1};
    for (int j = 0; j < K * size; ++j) big[j] = v(rank, j);
    COLL(nb, MPI_Reduce_scatter_block(big, mine, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
         MPI_Ireduce_scatter_block(big, mine, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req));
    for (int i = 0; i < K; ++i) {
        int e = 0;
        for (int r = 0; r < size; ++r) e += v(r, rank * K + i);
        CHECK_EQ(mine[i], e);
    }
    for (int j = 0; j < K * size; ++j) big[j] = v(rank, j);
    COLL(nb, MPI_Reduce_scatter_block(MPI_IN_PLACE, big, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
         MPI_Ireduce_scatter_block(MPI_IN_PLACE, big, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req));
    for (int i = 0; i < K; ++i) {
        int e = 0;
        for (int r = 0; r < size; ++r) e += v(r, rank * K + i);
        CHECK_EQ(big[i], e);
    }

    /* Reduce_scatter with counts r+1. */
    int *counts = ints(size, 0), total = 0, offset = 0;
    for (int r = 0; r < size; ++r) {
        counts[r] = r + 1;
        if (r < rank) offset += r + 1;
        total += r + 1;
    }
    int *vec = ints(total, 0), *part = ints(rank + 1, -1);
    for (int j = 0; j < total; ++j) vec[j] = v(rank, j);
    COLL(nb, MPI_Reduce_scatter(vec, part, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
         MPI_Ireduce_scatter(vec, part, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req));
    for (int i = 0; i <= rank; ++i) {
        int e = 0;
        for (int r = 0; r < size; ++r) e += v(r, offset + i);
        CHECK_EQ(part[i], e);
    }
    COLL(nb, MPI_Reduce_scatter(MPI_IN_PLACE, vec, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
         MPI_Ireduce_scatter(MPI_IN_PLACE, vec, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req));
    for (int i = 0; i <= rank; ++i) {
        int e = 0;
        for (int r = 0; r < size; ++r) e += v(r, offset + i);
        CHECK_EQ(vec[i], e);
    }

    /* Scan (inclusive) and exscan (exclusive; rank 0's result is undefined). */
    int scan[3], ex[3];
    COLL(nb, MPI_Scan(send, scan, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
         MPI_Iscan(send, scan, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req));
    for (int i = 0; i < K; ++i) {
        int e = 0;
        for (int r = 0; r <= rank; ++r) e += v(r, i);
        CHECK_EQ(scan[i], e);
    }
    memcpy(scan, send, sizeof scan);
    COLL(nb, MPI_Scan(MPI_IN_PLACE, scan, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
         MPI_Iscan(MPI_IN_PLACE, scan, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req));
    for (int i = 0; i < K; ++i) {
        int e = 0;
        for (int r = 0; r <= rank; ++r) e += v(r, i);
        CHECK_EQ(scan[i], e);
    }
    COLL(nb, MPI_Exscan(send, ex, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
         MPI_Iexscan(send, ex, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req));
    if (rank > 0)
        for (int i = 0; i < K; ++i) {
            int e = 0;
            for (int r = 0; r < rank; ++r) e += v(r, i);
            CHECK_EQ(ex[i], e);
        }
    memcpy(ex, send, sizeof ex);
    COLL(nb, MPI_Exscan(MPI_IN_PLACE, ex, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
         MPI_Iexscan(MPI_IN_PLACE, ex, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req));
    if (rank > 0)
        for (int i = 0; i < K; ++i) {
            int e = 0;
            for (int r = 0; r < rank; ++r) e += v(r, i);
            CHECK_EQ(ex[i], e);
        }
    free(big);
    free(counts);
    free(vec);
    free(part);
}

/* Several outstanding nonblocking collectives completed together. */
static void test_overlap(void)
{
    int a = rank, b = rank * 2, sa = -1, sb = -1, c = rank == 0 ? 99 : -1;
    MPI_Request reqs[4];
    MPI_OK(MPI_Iallreduce(&a, &sa, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[0]));
    MPI_OK(MPI_Iallreduce(&b, &sb, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &reqs[1]));
    MPI_OK(MPI_Ibcast(&c, 1, MPI_INT, 0, MPI_COMM_WORLD, &reqs[2]));
    MPI_OK(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[3]));
    int flag = 0;
    SPIN(MPI_Testall(4, reqs, &flag, MPI_STATUSES_IGNORE), flag);
    CHECK_EQ(sa, size * (size - 1) / 2);
    CHECK_EQ(sb, 2 * (size - 1));
    CHECK_EQ(c, 99);
}

/* MPI_IN_PLACE where only the root may pass it -- the send buffer of a gather, the receive
 * buffer of a scatter -- at a non-root is erroneous.  Open MPI returns MPI_ERR_ARG before it
 * communicates; MPICH 4.0.2 does not check and faults natively (not called there), and over
 * the ABI anympi raises MPI_ERR_BUFFER, MPICH's class for a misplaced MPI_IN_PLACE.  The
 * failed call takes no part, so the root's next, correct call matches everyone's. */
static void test_inplace_at_nonroot(void)
{
#ifndef MPI_ABI_VERSION
    if (check_under() == CHECK_UNDER_MPICH) return;
#endif
    if (size < 2) return;
    const int want = check_under() == CHECK_UNDER_OPENMPI ? MPI_ERR_ARG : MPI_ERR_BUFFER;
    static const char *const names[] = {"MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv", "MPI_Igather"};
    int *all = calloc((size_t)size, sizeof(int)), *counts = calloc((size_t)size, sizeof(int)),
        *displs = calloc((size_t)size, sizeof(int));
    for (int r = 0; r < size; ++r) counts[r] = 1, displs[r] = r;
    for (int form = 0; form < 5; ++form)
        for (int root = 0; root < size; ++root) {
            int mine = 10 * rank + form;
            if (rank != root) {
                MPI_Request req = MPI_REQUEST_NULL;
                int rc = MPI_SUCCESS, cls = -1;
                switch (form) {
                case 0: rc = MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, NULL, 0, MPI_INT, root, MPI_COMM_WORLD); break;
                case 1: rc = MPI_Gatherv(MPI_IN_PLACE, 1, MPI_INT, NULL, NULL, NULL, MPI_INT, root, MPI_COMM_WORLD); break;
                case 2: rc = MPI_Scatter(NULL, 0, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, root, MPI_COMM_WORLD); break;
                case 3: rc = MPI_Scatterv(NULL, NULL, NULL, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, root, MPI_COMM_WORLD); break;
                default: rc = MPI_Igather(MPI_IN_PLACE, 1, MPI_INT, NULL, 0, MPI_INT, root, MPI_COMM_WORLD, &req); break;
                }
                MPI_Error_class(rc, &cls);
                CHECK_MSG(rc != MPI_SUCCESS && cls == want, "%s(MPI_IN_PLACE) at non-root %d (root %d): class %d, expected %d",
                          names[form], rank, root, cls, want);
                if (rc == MPI_SUCCESS && req != MPI_REQUEST_NULL) MPI_Wait(&req, MPI_STATUS_IGNORE);
                if (rc == MPI_SUCCESS) continue; /* it took part: matched the root's */
            }
            MPI_OK(MPI_Gatherv(&mine, 1, MPI_INT, all, counts, displs, MPI_INT, root, MPI_COMM_WORLD));
            if (rank == root)
                for (int r = 0; r < size; ++r) CHECK_EQ(all[r], 10 * r + form);
        }
    free(all);
    free(counts);
    free(displs);
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "coll");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int nb = 0; nb < 2; ++nb) {
        test_barrier_bcast(nb);
        test_gather_scatter(nb);
        test_allgather(nb);
        test_alltoall(nb);
        test_reductions(nb);
    }
    test_overlap();
    test_inplace_at_nonroot();
    return check_finish();
}
