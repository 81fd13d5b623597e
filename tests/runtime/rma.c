/* One-sided: Win_create, Win_allocate, Win_allocate_shared + shared_query,
 * Win_create_dynamic + attach/detach; put/get/accumulate/get_accumulate/
 * fetch_and_op/compare_and_swap, rput/rget; fence, lock/unlock (shared and
 * exclusive), lock_all/unlock_all, flush/flush_all/flush_local, PSCW
 * post/start/complete/wait; window attributes (MPI_WIN_BASE, _SIZE, _DISP_UNIT,
 * _CREATE_FLAVOR, _MODEL), Win_get_group, names, free. */
#include "check.h"

#include <stdint.h>
#include <string.h>

static int rank, size, left, right;

static void expect_attrs(MPI_Win win, void *base, MPI_Aint bytes, int disp, int flavor, int line)
{
    void *b = NULL;
    MPI_Aint *sz = NULL;
    int *du = NULL, *fl = NULL, *model = NULL, flag = 0;
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &flag));
    CHECK_MSG(flag == 1 && (base == NULL || b == base), "line %d: MPI_WIN_BASE", line);
    flag = 0;
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag));
    CHECK_MSG(flag == 1 && sz && *sz == bytes, "line %d: MPI_WIN_SIZE %ld, expected %ld", line,
              sz ? (long)*sz : -1L, (long)bytes);
    flag = 0;
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag));
    CHECK_MSG(flag == 1 && du && *du == disp, "line %d: MPI_WIN_DISP_UNIT", line);
    flag = 0;
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag));
    CHECK_MSG(flag == 1 && fl && *fl == flavor, "line %d: MPI_WIN_CREATE_FLAVOR %d, expected %d",
              line, fl ? *fl : -1, flavor);
    flag = 0;
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    CHECK_MSG(flag == 1 && model && (*model == MPI_WIN_UNIFIED || *model == MPI_WIN_SEPARATE),
              "line %d: MPI_WIN_MODEL %d", line, model ? *model : -1);
    if (flavor == MPI_WIN_FLAVOR_SHARED)
        CHECK_MSG(model && *model == MPI_WIN_UNIFIED, "line %d: shared window not unified", line);
}

static void test_create_fence(void)
{
    int *mem = malloc(sizeof(int) * (size_t)(size + 2));
    for (int i = 0; i < size + 2; ++i) mem[i] = -1;
    MPI_Win win = MPI_WIN_NULL;
    MPI_OK(MPI_Win_create(mem, (MPI_Aint)sizeof(int) * (size + 2), sizeof(int), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &win));
    CHECK(win != MPI_WIN_NULL);
    expect_attrs(win, mem, (MPI_Aint)sizeof(int) * (size + 2), sizeof(int), MPI_WIN_FLAVOR_CREATE,
                 __LINE__);
    MPI_Group g, wg;
    int result = -1;
    MPI_OK(MPI_Win_get_group(win, &g));
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MPI_OK(MPI_Group_compare(g, wg, &result));
    CHECK_EQ(result, MPI_IDENT);
    MPI_OK(MPI_Group_free(&g));
    MPI_OK(MPI_Group_free(&wg));
    MPI_OK(MPI_Win_set_name(win, "anympi window"));
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_OK(MPI_Win_get_name(win, name, &len));
    CHECK_STREQ(name, "anympi window");

    /* Fence epoch: everyone puts rank+1 into slot[rank] of every process. */
    MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    int val = rank + 1;
    for (int t = 0; t < size; ++t) MPI_OK(MPI_Put(&val, 1, MPI_INT, t, rank, 1, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < size; ++i) CHECK_EQ(mem[i], i + 1);

    /* Get from the right neighbour, accumulate into slot size of rank 0. */
    int got[64];
    for (int i = 0; i < size; ++i) got[i] = -5;
    MPI_OK(MPI_Get(got, size, MPI_INT, right, 0, size, MPI_INT, win));
    mem[size] = 0;
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < size; ++i) CHECK_EQ(got[i], i + 1);
    MPI_OK(MPI_Accumulate(&val, 1, MPI_INT, 0, size, 1, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Win_fence(0, win));
    if (rank == 0) CHECK_EQ(mem[size], size * (size + 1) / 2);
    /* MPI_REPLACE accumulate and MAX. */
    MPI_OK(MPI_Accumulate(&val, 1, MPI_INT, 0, size + 1, 1, MPI_INT, MPI_MAX, win));
    MPI_OK(MPI_Win_fence(0, win));
    if (rank == 0) CHECK_EQ(mem[size + 1], size);
    /* The replace below may reach rank 0 as soon as its origin leaves the fence: rank 0 reads
     * first (a load overlapping an update is erroneous, even of the same value). */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == size - 1)
        MPI_OK(MPI_Accumulate(&val, 1, MPI_INT, 0, size + 1, 1, MPI_INT, MPI_REPLACE, win));
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    if (rank == 0) CHECK_EQ(mem[size + 1], size);

    MPI_OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL);
    free(mem);
}

static void test_allocate_atomics(void)
{
    long long *base = NULL;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(4 * sizeof(long long), sizeof(long long), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &base, &win));
    CHECK(base != NULL);
    expect_attrs(win, base, 4 * sizeof(long long), sizeof(long long), MPI_WIN_FLAVOR_ALLOCATE,
                 __LINE__);
    /* Initialise own memory under an exclusive self-lock. */
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    base[0] = 0;
    base[1] = -1;
    base[2] = 100;
    base[3] = 0;
    MPI_OK(MPI_Win_unlock(rank, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* fetch_and_op: each rank adds 1 to rank 0's counter; the fetched values are a
     * permutation of 0..size-1. */
    long long one = 1, fetched = -1;
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_OK(MPI_Fetch_and_op(&one, &fetched, MPI_LONG_LONG, 0, 0, MPI_SUM, win));
    MPI_OK(MPI_Win_flush(0, win));
    /* compare_and_swap on slot 1 (initially -1): exactly one rank wins. */
    long long mine = rank, expect = -1, old = -7;
    MPI_OK(MPI_Compare_and_swap(&mine, &expect, &old, MPI_LONG_LONG, 0, 1, win));
    MPI_OK(MPI_Win_flush_all(win));
    /* get_accumulate: add my rank to slot 2 and see the previous value. */
    long long sub = rank, prev = -7;
    MPI_OK(MPI_Get_accumulate(&sub, 1, MPI_LONG_LONG, &prev, 1, MPI_LONG_LONG, 0, 2, 1,
                              MPI_LONG_LONG, MPI_SUM, win));
    MPI_OK(MPI_Win_flush_local(0, win));
    MPI_OK(MPI_Win_flush(0, win));
    MPI_OK(MPI_Win_unlock_all(win));

    long long all_fetched[64], all_old[64], all_prev[64];
    MPI_OK(MPI_Gather(&fetched, 1, MPI_LONG_LONG, all_fetched, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Gather(&old, 1, MPI_LONG_LONG, all_old, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Gather(&prev, 1, MPI_LONG_LONG, all_prev, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        int seen[64] = {0}, winners = 0, winner = -1;
        for (int r = 0; r < size; ++r) {
            CHECK(all_fetched[r] >= 0 && all_fetched[r] < size);
            if (all_fetched[r] >= 0 && all_fetched[r] < size) ++seen[all_fetched[r]];
            if (all_old[r] == -1) {
                ++winners;
                winner = r;
            } else {
                CHECK(all_old[r] >= 0 && all_old[r] < size);
            }
            CHECK(all_prev[r] >= 100 && all_prev[r] <= 100 + size * (size - 1) / 2);
        }
        for (int r = 0; r < size; ++r) CHECK_EQ(seen[r], 1);
        CHECK_EQ(winners, 1);
        CHECK_EQ(base[0], size);
        CHECK_EQ(base[1], winner);
        CHECK_EQ(base[2], 100 + size * (size - 1) / 2);
        MPI_OK(MPI_Win_unlock(0, win));
    }

    /* Exclusive lock: put into the right neighbour's slot 3, then read it back. */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    long long tag = 1000 + rank, back = -1;
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    MPI_OK(MPI_Put(&tag, 1, MPI_LONG_LONG, right, 3, 1, MPI_LONG_LONG, win));
    MPI_OK(MPI_Win_unlock(right, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win));
    MPI_OK(MPI_Get(&back, 1, MPI_LONG_LONG, left, 3, 1, MPI_LONG_LONG, win));
    MPI_OK(MPI_Win_unlock(left, win));
    /* left's slot 3 was written by left's left. */
    CHECK_EQ(back, 1000 + (left + size - 1) % size);

    /* Request-based rput/rget. */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_Request rq;
    long long r2 = 5000 + rank, r3 = -1;
    MPI_OK(MPI_Rput(&r2, 1, MPI_LONG_LONG, right, 3, 1, MPI_LONG_LONG, win, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Win_flush(right, win));
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_OK(MPI_Rget(&r3, 1, MPI_LONG_LONG, rank, 3, 1, MPI_LONG_LONG, win, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Win_unlock_all(win));
    CHECK_EQ(r3, 5000 + left);

    /* Fetch with MPI_NO_OP reads atomically. */
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    long long dummy = 0, now = -1;
    MPI_OK(MPI_Fetch_and_op(&dummy, &now, MPI_LONG_LONG, 0, 0, MPI_NO_OP, win));
    MPI_OK(MPI_Win_unlock(0, win));
    CHECK_EQ(now, size);
    MPI_OK(MPI_Win_free(&win));
}

static void test_shared(void)
{
    MPI_Comm node;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nrank, nsize;
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    int *mine = NULL;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate_shared(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mine, &win));
    expect_attrs(win, mine, 2 * sizeof(int), sizeof(int), MPI_WIN_FLAVOR_SHARED, __LINE__);
    MPI_OK(MPI_Win_lock_all(0, win));
    mine[0] = nrank * 11;
    mine[1] = nrank * 11 + 1;
    MPI_OK(MPI_Win_sync(win));
    MPI_OK(MPI_Barrier(node));
    MPI_OK(MPI_Win_sync(win));
    /* Direct load from every peer's segment. */
    for (int p = 0; p < nsize; ++p) {
        MPI_Aint psize = -1;
        int pdisp = -1;
        int *ptr = NULL;
        MPI_OK(MPI_Win_shared_query(win, p, &psize, &pdisp, &ptr));
        CHECK_EQ(psize, 2 * (MPI_Aint)sizeof(int));
        CHECK_EQ(pdisp, (int)sizeof(int));
        CHECK(ptr != NULL);
        if (ptr) {
            CHECK_EQ(ptr[0], p * 11);
            CHECK_EQ(ptr[1], p * 11 + 1);
        }
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_Comm_free(&node));
}

static void test_dynamic(void)
{
    MPI_Win win;
    MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    int *flavor = NULL, flag = 0;
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(flag == 1 && flavor && *flavor == MPI_WIN_FLAVOR_DYNAMIC);
    int *buf = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; ++i) buf[i] = -1;
    MPI_OK(MPI_Win_attach(win, buf, (MPI_Aint)sizeof(int) * size));
    MPI_Aint addr;
    MPI_OK(MPI_Get_address(buf, &addr));
    /* Everyone learns rank 0's address and puts its rank into slot rank. */
    MPI_Aint addr0 = addr;
    MPI_OK(MPI_Bcast(&addr0, 1, MPI_AINT, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    int v = rank * 5 + 2;
    MPI_OK(MPI_Put(&v, 1, MPI_INT, 0, MPI_Aint_add(addr0, rank * (MPI_Aint)sizeof(int)), 1,
                   MPI_INT, win));
    MPI_OK(MPI_Win_unlock(0, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        for (int i = 0; i < size; ++i) CHECK_EQ(buf[i], i * 5 + 2);
        MPI_OK(MPI_Win_unlock(0, win));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_detach(win, buf));
    MPI_OK(MPI_Win_free(&win));
    free(buf);
}

static void test_pscw(void)
{
    /* Heap memory: MPICH 4.0.2 over UCX misplaces RMA into a window on the stack. */
    int *mem = malloc(2 * sizeof(int));
    mem[0] = mem[1] = -1;
    MPI_Win win;
    MPI_OK(MPI_Win_create(mem, 2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Group world, to, from;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    MPI_OK(MPI_Group_incl(world, 1, &right, &to));  /* I access my right */
    MPI_OK(MPI_Group_incl(world, 1, &left, &from)); /* my left accesses me */
    for (int iter = 0; iter < 2; ++iter) {
        MPI_OK(MPI_Win_post(from, 0, win));
        MPI_OK(MPI_Win_start(to, 0, win));
        int v = rank * 10 + iter;
        MPI_OK(MPI_Put(&v, 1, MPI_INT, right, iter, 1, MPI_INT, win));
        MPI_OK(MPI_Win_complete(win));
        MPI_OK(MPI_Win_wait(win));
        CHECK_EQ(mem[iter], left * 10 + iter);
    }
    /* Win_test completes an exposure epoch eventually. */
    MPI_OK(MPI_Win_post(from, 0, win));
    MPI_OK(MPI_Win_start(to, 0, win));
    int got = -1;
    MPI_OK(MPI_Get(&got, 1, MPI_INT, right, 0, 1, MPI_INT, win));
    MPI_OK(MPI_Win_complete(win));
    int flag = 0;
    SPIN(MPI_Win_test(win, &flag), flag);
    CHECK_EQ(got, rank * 10);
    MPI_OK(MPI_Group_free(&to));
    MPI_OK(MPI_Group_free(&from));
    MPI_OK(MPI_Group_free(&world));
    MPI_OK(MPI_Win_free(&win));
    free(mem);
}

/* A program's own type made by resizing a type to its own extent -- the shape of anympi's
 * stand-ins for the predefined types the MPI lacks (MPI_REAL2 is MPI_UINT16_T so resized) --
 * accumulates like any type built from one predefined type (over Open MPI it was refused as
 * MPI_REAL2). */
static void test_own_resized(void)
{
    MPI_Datatype t;
    MPI_OK(MPI_Type_create_resized(MPI_UINT16_T, 0, 2, &t));
    MPI_OK(MPI_Type_commit(&t));
    static uint16_t buf[32];
    const uint16_t src[4] = {1, 2, 3, 4};
    memset(buf, 0, sizeof buf);
    MPI_Win win;
    MPI_OK(MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Accumulate(src, 4, t, 0, 0, 4, t, MPI_SUM, win));
    MPI_OK(MPI_Win_fence(0, win));
    if (rank == 0)
        for (int i = 0; i < 4; ++i) CHECK_EQ(buf[i], (i + 1) * size);
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_Type_free(&t));
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "rma");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_FATAL(size <= 64);
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    test_create_fence();
    test_allocate_atomics();
    test_shared();
    test_dynamic();
    test_pscw();
    test_own_resized();
    return check_finish();
}
