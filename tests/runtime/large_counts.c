/* The large-count (_c) functions, with counts and displacements past INT_MAX that really move
 * that many bytes, and with small ones through the same code.  Over Open MPI 4.1, which has no
 * _c function, anympi expresses a large count as one element of a derived datatype, runs
 * reductions in int-sized chunks and makes the v/w collectives one MPI_Alltoallw; natively the
 * program runs on MPICH (MPI-4.0), which proves the expectations.
 *
 * The large part moves N = 2^31 + 7 bytes (about 2 GiB per buffer, 4 per rank): run it at 1
 * and 2 ranks.  Buffers are filled with memset and markers at the ends, around 2^31 and at
 * 1024 spread positions, and only those (and the byte after each) are checked. */
#include "check.h"

#include <limits.h>
#include <stdint.h>

#if MPI_VERSION >= 4
static int rank, size, left, right;
static const MPI_Count N = ((MPI_Count)1 << 31) + 7;
enum { PAD = 64, MARKS = 1024 };

/* ---------------------------------------------------------------- the big buffers' contents */
static unsigned char fill_of(int seed) { return (unsigned char)(0x31 + 17 * seed); }
static unsigned char mark_of(MPI_Count pos, int seed) { return (unsigned char)((pos * 131 + seed * 7 + 1) % 251 + 2); }
static MPI_Count mark_pos(int k, MPI_Count n)
{
    static const MPI_Count edges[] = {0, 1, ((MPI_Count)1 << 31) - 1, (MPI_Count)1 << 31, ((MPI_Count)1 << 31) + 1};
    if (k < 5) return edges[k] < n ? edges[k] : n - 1;
    if (k == 5) return n - 1;
    return (n / MARKS) * (k - 6) + (k % 13);
}
/* n bytes of seed's pattern at b */
static void paint(unsigned char *b, MPI_Count n, int seed)
{
    memset(b, fill_of(seed), (size_t)n);
    for (int k = 0; k < MARKS; ++k) {
        MPI_Count p = mark_pos(k, n);
        if (p + 1 < n && p != n - 1) b[p] = mark_of(p, seed);
    }
    b[n - 1] = mark_of(n - 1, seed);
}
/* the byte paint(., n, seed) put at p */
static unsigned char painted(MPI_Count p, MPI_Count n, int seed)
{
    if (p == n - 1) return mark_of(p, seed);
    for (int k = 0; k < MARKS; ++k)
        if (mark_pos(k, n) == p && p + 1 < n) return mark_of(p, seed);
    return fill_of(seed);
}
/* b holds paint(., n, seed) xor-ed over seeds[0..nseeds): its marks and the byte after each;
 * byte n (if within) must still be `after`. */
static int seen(const unsigned char *b, MPI_Count n, const int *seeds, int nseeds, int after, MPI_Count cap)
{
    int bad = 0;
    for (int k = 0; k < MARKS && bad < 5; ++k)
        for (int d = 0; d < 2; ++d) {
            MPI_Count p = mark_pos(k, n) + d;
            if (p >= n) continue;
            unsigned char want = 0;
            for (int s = 0; s < nseeds; ++s) want ^= painted(p, n, seeds[s]);
            if (b[p] != want) {
                fprintf(stderr, "[rank %d] byte %lld is %d, expected %d\n", rank, (long long)p, b[p], want);
                ++bad;
            }
        }
    if (n < cap && b[n] != (unsigned char)after) {
        fprintf(stderr, "[rank %d] byte %lld past the message is %d, expected %d\n", rank, (long long)n, b[n], after);
        ++bad;
    }
    return bad;
}
#define SEEN(b, n, seed, after) CHECK_EQ(seen((b), (n), (int[]){seed}, 1, (after), N + PAD), 0)

/* ---------------------------------------------------------------- more than INT_MAX bytes */
static void big(unsigned char *s, unsigned char *r)
{
    MPI_Status st;
    MPI_Count c = -1;
    /* point to point: to the right, from the left (oneself at 1 rank); the receive is larger */
    paint(s, N, rank);
    memset(r, 0xEE, (size_t)(N + PAD));
    MPI_Request q[2];
    MPI_OK(MPI_Irecv_c(r, N + PAD, MPI_BYTE, left, 1, MPI_COMM_WORLD, &q[0]));
    MPI_OK(MPI_Isend_c(s, N, MPI_BYTE, right, 1, MPI_COMM_WORLD, &q[1]));
    MPI_Status sts[2];
    MPI_OK(MPI_Waitall(2, q, sts));
    SEEN(r, N, left, 0xEE);
    MPI_OK(MPI_Get_count_c(&sts[0], MPI_BYTE, &c));
    CHECK_EQ(c, N);
    MPI_OK(MPI_Get_elements_c(&sts[0], MPI_BYTE, &c));
    CHECK_EQ(c, N);
    MPI_OK(MPI_Get_count_c(&sts[0], MPI_INT, &c));  /* N is no multiple of 4 */
    CHECK_EQ(c, MPI_UNDEFINED);
    MPI_OK(MPI_Get_elements_c(&sts[0], MPI_SHORT, &c));
    CHECK_EQ(c, MPI_UNDEFINED);
    CHECK_EQ(sts[0].MPI_SOURCE, left);

    /* blocking send and receive (rank 0 to the last one), with MPI_INT-sized counting */
    if (size > 1) {
        memset(r, 0xEE, (size_t)(N + PAD));
        if (rank == 0) MPI_OK(MPI_Send_c(s, N - 3, MPI_BYTE, size - 1, 2, MPI_COMM_WORLD));
        if (rank == size - 1) {
            MPI_OK(MPI_Recv_c(r, N, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &st));
            CHECK_EQ(r[N - 4], painted(N - 4, N, 0));
            CHECK_EQ(r[N - 3], 0xEE);
            CHECK_EQ(r[((MPI_Count)1 << 31) + 1], painted(((MPI_Count)1 << 31) + 1, N, 0));
            MPI_OK(MPI_Get_count_c(&st, MPI_INT, &c));
            CHECK_EQ(c, (N - 3) / 4);
        }
    }

    /* sendrecv in a ring */
    memset(r, 0xEE, (size_t)(N + PAD));
    MPI_OK(MPI_Sendrecv_c(s, N, MPI_BYTE, right, 3, r, N, MPI_BYTE, left, 3, MPI_COMM_WORLD, &st));
    SEEN(r, N, left, 0xEE);
    MPI_OK(MPI_Get_count_c(&st, MPI_BYTE, &c));
    CHECK_EQ(c, N);

    /* bcast from the last rank */
    if (rank == size - 1) paint(r, N, 9);
    else memset(r, 0xEE, (size_t)(N + PAD));
    MPI_OK(MPI_Bcast_c(r, N, MPI_BYTE, size - 1, MPI_COMM_WORLD));
    SEEN(r, N, 9, 0xEE);

    /* allreduce in place: the xor of every rank's pattern */
    paint(r, N, 20 + rank);
    MPI_OK(MPI_Allreduce_c(MPI_IN_PLACE, r, N, MPI_BYTE, MPI_BXOR, MPI_COMM_WORLD));
    {
        int seeds[4] = {20, 21, 22, 23};
        CHECK_EQ(seen(r, N, seeds, size, 0, N), 0);
    }
    /* and nonblocking: over Open MPI 4.1, one request of anympi's over int-sized chunks */
    paint(r, N, 40 + rank);
    {
        MPI_Request q = MPI_REQUEST_NULL;
        MPI_OK(MPI_Iallreduce_c(MPI_IN_PLACE, r, N, MPI_BYTE, MPI_BXOR, MPI_COMM_WORLD, &q));
        MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        CHECK(q == MPI_REQUEST_NULL);
        int seeds[4] = {40, 41, 42, 43};
        CHECK_EQ(seen(r, N, seeds, size, 0, N), 0);
    }

    /* and persistent, started twice: over Open MPI 4.1 every start runs the chunks again */
    {
        MPI_Request q = MPI_REQUEST_NULL;
        MPI_OK(MPI_Allreduce_init_c(MPI_IN_PLACE, r, N, MPI_BYTE, MPI_BXOR, MPI_COMM_WORLD, MPI_INFO_NULL, &q));
        for (int round = 0; round < 2; ++round) {
            paint(r, N, 50 + 4 * round + rank);
            MPI_OK(MPI_Start(&q));
            int done = 0;
            while (!done) MPI_OK(MPI_Test(&q, &done, MPI_STATUS_IGNORE));
            CHECK(q != MPI_REQUEST_NULL);
            int seeds[4] = {50 + 4 * round, 51 + 4 * round, 52 + 4 * round, 53 + 4 * round};
            CHECK_EQ(seen(r, N, seeds, size, 0, N), 0);
        }
        MPI_OK(MPI_Request_free(&q));
    }

    /* reduce_scatter: rank 0's block is N bytes, every other rank's 16 past it; over Open MPI
     * 4.1 one reduction to each rank (the int form cannot take N).  Then in place, where each
     * rank's result moves to the start of its buffer (for the nonblocking and persistent forms:
     * when the request completes).  Blocking, nonblocking and persistent. */
    for (int step = 0; step < 6 && !(QUIRK_MPICH_REDUCE_SCATTER_LARGE && size > 1); ++step) {
        const int in_place = step % 2, mode = step / 2;
        static const char *const modes[3] = {"", "nonblocking ", "persistent "};
        MPI_Count counts[4];
        for (int i = 0; i < size; ++i) counts[i] = i == 0 ? N : 16;
        unsigned char *from = in_place ? r : s;
        paint(from, N, 60 + 4 * in_place + rank);
        for (int j = 0; j < 16 * (size - 1); ++j) from[N + j] = (unsigned char)(rank * 64 + j + 1);
        if (!in_place) memset(r, 0xEE, (size_t)(N + PAD));
        const void *send = in_place ? MPI_IN_PLACE : s;
        MPI_Request q = MPI_REQUEST_NULL;
        if (mode == 0) MPI_OK(MPI_Reduce_scatter_c(send, r, counts, MPI_BYTE, MPI_BXOR, MPI_COMM_WORLD));
        if (mode == 1) MPI_OK(MPI_Ireduce_scatter_c(send, r, counts, MPI_BYTE, MPI_BXOR, MPI_COMM_WORLD, &q));
        if (mode == 2) {
            MPI_OK(MPI_Reduce_scatter_init_c(send, r, counts, MPI_BYTE, MPI_BXOR, MPI_COMM_WORLD, MPI_INFO_NULL, &q));
            MPI_OK(MPI_Start(&q));
        }
        if (mode > 0) {
            int done = 0;
            while (!done) MPI_OK(MPI_Test(&q, &done, MPI_STATUS_IGNORE));
        }
        if (mode == 2) MPI_OK(MPI_Request_free(&q));
        CHECK_MSG(q == MPI_REQUEST_NULL, "%sreduce_scatter: the request is not MPI_REQUEST_NULL", modes[mode]);
        if (rank == 0) {
            int seeds[4] = {60 + 4 * in_place, 61 + 4 * in_place, 62 + 4 * in_place, 63 + 4 * in_place};
            CHECK_EQ(seen(r, N, seeds, size, in_place && size > 1 ? 1 : 0xEE, N + PAD), 0);
        } else {
            int bad = 0;
            for (int j = 0; j < 16; ++j) {
                unsigned char want = 0;
                for (int q = 0; q < size; ++q) want ^= (unsigned char)(q * 64 + 16 * (rank - 1) + j + 1);
                bad += r[j] != want;
            }
            CHECK_MSG(bad == 0, "%sreduce_scatter%s: %d of rank %d's 16 bytes wrong", modes[mode], in_place ? " in place" : "",
                      bad, rank);
            if (!in_place) CHECK_EQ(r[16], 0xEE);
        }
    }
    /* reduce_scatter_block of N bytes: at one rank, a copy; blocking, nonblocking, persistent */
    for (int mode = 0; mode < 3 && size == 1; ++mode) {
        paint(s, N, 70 + mode);
        memset(r, 0xEE, (size_t)(N + PAD));
        MPI_Request q = MPI_REQUEST_NULL;
        if (mode == 0) MPI_OK(MPI_Reduce_scatter_block_c(s, r, N, MPI_BYTE, MPI_BXOR, MPI_COMM_WORLD));
        if (mode == 1) MPI_OK(MPI_Ireduce_scatter_block_c(s, r, N, MPI_BYTE, MPI_BXOR, MPI_COMM_WORLD, &q));
        if (mode == 2) {
            MPI_OK(MPI_Reduce_scatter_block_init_c(s, r, N, MPI_BYTE, MPI_BXOR, MPI_COMM_WORLD, MPI_INFO_NULL, &q));
            MPI_OK(MPI_Start(&q));
        }
        MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        if (mode == 2) MPI_OK(MPI_Request_free(&q));
        SEEN(r, N, 70 + mode, 0xEE);
    }

    /* gatherv to rank 0: the last rank's N bytes at 0, every other rank's 16 bytes past it, at
     * displacements beyond INT_MAX */
    paint(s, N, 30 + rank);
    memset(r, 0xEE, (size_t)(N + PAD));
    {
        MPI_Count counts[4];
        MPI_Aint displs[4];
        for (int i = 0; i < size; ++i) counts[i] = i == size - 1 ? N : 16, displs[i] = i == size - 1 ? 0 : N + 16 * i;
        MPI_OK(MPI_Gatherv_c(s, counts[rank], MPI_BYTE, r, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD));
        if (rank == 0) {
            SEEN(r, N, 30 + size - 1, size > 1 ? painted(0, N, 30) : 0xEE);
            for (int i = 0; i < size - 1; ++i) CHECK_EQ(r[N + 16 * i + 15], painted(15, N, 30 + i));
        }
        /* and back: scatterv from rank 0 */
        memset(s, 0xEE, (size_t)(N + PAD));
        MPI_OK(MPI_Scatterv_c(r, counts, displs, MPI_BYTE, s, counts[rank], MPI_BYTE, 0, MPI_COMM_WORLD));
        if (rank == size - 1) SEEN(s, N, 30 + size - 1, 0xEE);
        else CHECK_EQ(s[15], painted(15, N, 30 + rank));
    }
}

/* ---------------------------------------------------------------- small counts, same code */
static void small_p2p(void)
{
    int out[10], in[12];
    for (int i = 0; i < 10; ++i) out[i] = 100 * rank + i;
    for (int i = 0; i < 12; ++i) in[i] = -1;
    MPI_Status st;
    MPI_OK(MPI_Sendrecv_c(out, 10, MPI_INT, right, 5, in, 12, MPI_INT, left, 5, MPI_COMM_WORLD, &st));
    for (int i = 0; i < 10; ++i) CHECK_EQ(in[i], 100 * left + i);
    CHECK_EQ(in[10], -1);
    MPI_Count c = 0;
    MPI_OK(MPI_Get_count_c(&st, MPI_INT, &c));
    CHECK_EQ(c, 10);
    MPI_OK(MPI_Get_elements_c(&st, MPI_INT, &c));
    CHECK_EQ(c, 10);
    MPI_OK(MPI_Get_count_c(&st, MPI_BYTE, &c));
    CHECK_EQ(c, 40);

    /* a type of size 0: more than INT_MAX of them move nothing, and count as 0 */
    MPI_Datatype none;
    MPI_OK(MPI_Type_contiguous(0, MPI_INT, &none));
    MPI_OK(MPI_Type_commit(&none));
    MPI_Request q;
    MPI_OK(MPI_Irecv_c(in, N, none, left, 6, MPI_COMM_WORLD, &q));
    MPI_OK(MPI_Send_c(out, N, none, right, 6, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&q, &st));
    MPI_OK(MPI_Get_count_c(&st, none, &c));
    CHECK_EQ(c, 0);
    MPI_OK(MPI_Get_count_c(&st, MPI_INT, &c));
    CHECK_EQ(c, 0);
    MPI_OK(MPI_Bcast_c(in, N, none, 0, MPI_COMM_WORLD));
    CHECK_EQ(in[0], 100 * left);
    MPI_OK(MPI_Type_free(&none));

    /* a count that fits, of a type whose size does not: the bytes past INT_MAX are counted */
    MPI_Datatype page, huge;
    MPI_OK(MPI_Type_contiguous(4096, MPI_BYTE, &page));
    MPI_OK(MPI_Type_contiguous(1 << 20, page, &huge));
    MPI_Count sz = 0, lb = -1, ext = 0;
    MPI_OK(MPI_Type_size_c(huge, &sz));
    CHECK_EQ(sz, (MPI_Count)1 << 32);
    MPI_OK(MPI_Type_get_extent_c(huge, &lb, &ext));
    CHECK_EQ(lb, 0);
    CHECK_EQ(ext, (MPI_Count)1 << 32);
    MPI_OK(MPI_Type_get_true_extent_c(huge, &lb, &ext));
    CHECK_EQ(ext, (MPI_Count)1 << 32);
    /* packed sizes past INT_MAX: at least the data (an int form would wrap them) */
    MPI_Count psz = -1;
    MPI_OK(MPI_Pack_size_c((MPI_Count)1 << 30, MPI_INT, MPI_COMM_WORLD, &psz));
    CHECK_MSG(psz >= (MPI_Count)1 << 32, "MPI_Pack_size_c of 2^30 ints: %lld", (long long)psz);
    MPI_OK(MPI_Type_commit(&huge));
    MPI_OK(MPI_Pack_size_c(3, huge, MPI_COMM_WORLD, &psz));
    CHECK_MSG(psz >= (MPI_Count)3 << 32, "MPI_Pack_size_c of 3 4-GiB elements: %lld", (long long)psz);
    MPI_OK(MPI_Pack_size_c(((MPI_Count)1 << 31) + 5, MPI_BYTE, MPI_COMM_WORLD, &psz));
    CHECK_MSG(psz >= ((MPI_Count)1 << 31) + 5, "MPI_Pack_size_c of 2^31+5 bytes: %lld", (long long)psz);
    MPI_OK(MPI_Pack_size_c(7, MPI_INT, MPI_COMM_WORLD, &psz));
    CHECK_MSG(psz >= 28 && psz < 1024, "MPI_Pack_size_c of 7 ints: %lld", (long long)psz);
    MPI_OK(MPI_Pack_external_size_c("external32", ((MPI_Count)1 << 31) + 5, MPI_INT, &psz));
    CHECK_MSG(psz >= 4 * (((MPI_Count)1 << 31) + 5), "MPI_Pack_external_size_c of 2^31+5 ints: %lld", (long long)psz);
    MPI_OK(MPI_Type_free(&huge));
    MPI_OK(MPI_Type_free(&page));

    /* pack and unpack continue at the position given */
    char packed[64];
    MPI_Count pos = 8;
    MPI_OK(MPI_Pack_c(out, 3, MPI_INT, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK_EQ(pos, 8 + 3 * (MPI_Count)sizeof(int));
    int back[3] = {0, 0, 0};
    pos = 8;
    MPI_OK(MPI_Unpack_c(packed, sizeof packed, &pos, back, 3, MPI_INT, MPI_COMM_WORLD));
    CHECK_EQ(pos, 20);
    CHECK_EQ(back[2], out[2]);
}

/* The _c datatype constructors, each used for a self-message whose layout is checked: the
 * elements land where the type says (over Open MPI 4.1 each goes through the int form, every
 * count and displacement checked to fit). */
static void check_layout(MPI_Datatype t, int n, const int *where, const char *what)
{
    int src[64], dst[64];
    for (int i = 0; i < 64; ++i) src[i] = 1000 + i, dst[i] = -1;
    MPI_OK(MPI_Type_commit(&t));
    MPI_Count sz = 0;
    MPI_OK(MPI_Type_size_c(t, &sz));
    CHECK_MSG(sz == (MPI_Count)(n * sizeof(int)), "%s: size %lld, expected %d ints", what, (long long)sz, n);
    MPI_OK(MPI_Sendrecv(src, 1, t, 0, 7, dst, n, MPI_INT, 0, 7, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; ++i) CHECK_MSG(dst[i] == 1000 + where[i], "%s: element %d is %d, expected %d", what, i, dst[i], 1000 + where[i]);
    MPI_OK(MPI_Type_free(&t));
}
static void small_types(void)
{
    MPI_Datatype t;
    const MPI_Count bl[3] = {2, 1, 3}, idx[3] = {0, 5, 9}, bytes[3] = {0, 20, 36};
    MPI_OK(MPI_Type_indexed_c(3, bl, idx, MPI_INT, &t));
    check_layout(t, 6, (const int[]){0, 1, 5, 9, 10, 11}, "MPI_Type_indexed_c");
    MPI_OK(MPI_Type_create_hindexed_c(3, bl, bytes, MPI_INT, &t));
    check_layout(t, 6, (const int[]){0, 1, 5, 9, 10, 11}, "MPI_Type_create_hindexed_c");
    MPI_OK(MPI_Type_create_indexed_block_c(3, 2, idx, MPI_INT, &t));
    check_layout(t, 6, (const int[]){0, 1, 5, 6, 9, 10}, "MPI_Type_create_indexed_block_c");
    MPI_OK(MPI_Type_create_hindexed_block_c(3, 1, bytes, MPI_INT, &t));
    check_layout(t, 3, (const int[]){0, 5, 9}, "MPI_Type_create_hindexed_block_c");
    MPI_OK(MPI_Type_create_hvector_c(3, 2, 16, MPI_INT, &t));
    check_layout(t, 6, (const int[]){0, 1, 4, 5, 8, 9}, "MPI_Type_create_hvector_c");
    MPI_Datatype types[3] = {MPI_INT, MPI_INT, MPI_INT};
    MPI_OK(MPI_Type_create_struct_c(3, bl, bytes, types, &t));
    check_layout(t, 6, (const int[]){0, 1, 5, 9, 10, 11}, "MPI_Type_create_struct_c");
    const MPI_Count sizes[2] = {4, 6}, sub[2] = {2, 3}, starts[2] = {1, 2};
    MPI_OK(MPI_Type_create_subarray_c(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t));
    check_layout(t, 6, (const int[]){8, 9, 10, 14, 15, 16}, "MPI_Type_create_subarray_c");
    const MPI_Count gsizes[1] = {12};
    const int distribs[1] = {MPI_DISTRIBUTE_BLOCK}, dargs[1] = {MPI_DISTRIBUTE_DFLT_DARG}, psizes[1] = {3};
    MPI_OK(MPI_Type_create_darray_c(3, 1, 1, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &t));
    check_layout(t, 4, (const int[]){4, 5, 6, 7}, "MPI_Type_create_darray_c");
    MPI_Datatype r;
    MPI_OK(MPI_Type_create_resized_c(MPI_INT, -4, 12, &r));
    MPI_Count lb = 0, ext = 0;
    MPI_OK(MPI_Type_get_extent_c(r, &lb, &ext));
    CHECK_EQ(lb, -4);
    CHECK_EQ(ext, 12);
    MPI_OK(MPI_Type_free(&r));
}

/* ---------------------------------------------------------------- what a _c constructor made
 * Its envelope and contents are the _c call's, every count a large count (as MPI-4.0 MPICH
 * answers natively; over Open MPI 4.1 anympi records them), however the type was built. */
static void expect_contents(MPI_Datatype t, int combiner, int ni, const int *ints, int nc, const MPI_Count *counts,
                            int nd, const MPI_Datatype *types, const char *what)
{
    MPI_Count gi = -1, ga = -1, gc = -1, gd = -1;
    int comb = -1;
    MPI_OK(MPI_Type_get_envelope_c(t, &gi, &ga, &gc, &gd, &comb));
    CHECK_MSG(comb == combiner && gi == ni && ga == 0 && gc == nc && gd == nd,
              "%s: envelope combiner %d, %lld integers, %lld addresses, %lld large counts, %lld datatypes", what, comb,
              (long long)gi, (long long)ga, (long long)gc, (long long)gd);
    if (comb != combiner || gi != ni || gc != nc || gd != nd) return;
    int gints[16];
    MPI_Aint gaddr[1];
    MPI_Count gcounts[16];
    MPI_Datatype gtypes[4];
    MPI_OK(MPI_Type_get_contents_c(t, ni, 0, nc, nd, gints, gaddr, gcounts, gtypes));
    for (int i = 0; i < ni; ++i) CHECK_MSG(gints[i] == ints[i], "%s: integer %d is %d, expected %d", what, i, gints[i], ints[i]);
    for (int i = 0; i < nc; ++i)
        CHECK_MSG(gcounts[i] == counts[i], "%s: large count %d is %lld, expected %lld", what, i, (long long)gcounts[i],
                  (long long)counts[i]);
    for (int i = 0; i < nd; ++i) {
        int ci = 0;
        MPI_Count c1, c2, c3, c4;
        MPI_OK(MPI_Type_get_envelope_c(gtypes[i], &c1, &c2, &c3, &c4, &ci));
        if (ci == MPI_COMBINER_NAMED) {
            CHECK_MSG(gtypes[i] == types[i], "%s: datatype %d is not the one given", what, i);
        } else { /* a derived one: a new handle of the same layout, the caller's to free */
            MPI_Count s1 = 0, s2 = 0;
            MPI_OK(MPI_Type_size_c(gtypes[i], &s1));
            MPI_OK(MPI_Type_size_c(types[i], &s2));
            CHECK_MSG(s1 == s2, "%s: datatype %d has size %lld, expected %lld", what, i, (long long)s1, (long long)s2);
            MPI_OK(MPI_Type_free(&gtypes[i]));
        }
    }
    /* the int forms cannot return large counts */
    int a, b, c, d;
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_MSG(MPI_Type_get_envelope(t, &a, &b, &c, &d) != MPI_SUCCESS, "%s: MPI_Type_get_envelope succeeded", what);
}

/* The bytes a datatype selects from a buffer of `extent` bytes (most never touched: the
 * pages stay unallocated), sent to this process: markers at the offsets it should pick. */
static void expect_picks(MPI_Datatype t, MPI_Count extent, int n, const MPI_Count *at, const char *what)
{
    unsigned char *buf = malloc((size_t)extent), got[16] = {0};
    CHECK_FATAL(buf != NULL && n <= (int)sizeof got);
    for (int i = 0; i < n; ++i) buf[at[i]] = (unsigned char)(0x40 + i);
    MPI_OK(MPI_Type_commit(&t));
    MPI_OK(MPI_Sendrecv(buf, 1, t, 0, 9, got, n, MPI_BYTE, 0, 9, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; ++i) CHECK_MSG(got[i] == 0x40 + i, "%s: byte %d is %#x, expected %#x", what, i, got[i], 0x40 + i);
    free(buf);
}

static void expect_size_extent(MPI_Datatype t, MPI_Count size, MPI_Count lb, MPI_Count extent, const char *what)
{
    MPI_Count s = 0, l = -1, e = 0;
    MPI_OK(MPI_Type_size_c(t, &s));
    MPI_OK(MPI_Type_get_extent_c(t, &l, &e));
    CHECK_MSG(s == size && l == lb && e == extent, "%s: size %lld lb %lld extent %lld, expected %lld %lld %lld", what,
              (long long)s, (long long)l, (long long)e, (long long)size, (long long)lb, (long long)extent);
    int isize = 0;
    MPI_OK(MPI_Type_size(t, &isize));
    if (size > INT_MAX) CHECK_MSG(isize == MPI_UNDEFINED, "%s: MPI_Type_size gave %d, not MPI_UNDEFINED", what, isize);
}

/* The one datatype t's contents hold (a duplicate's original, a member), as a new handle. */
static MPI_Datatype only_member(MPI_Datatype t, int combiner, MPI_Count nc, const char *what)
{
    MPI_Count ni = -1, na = -1, gc = -1, nd = -1;
    int comb = -1;
    MPI_Datatype member = MPI_DATATYPE_NULL;
    MPI_Count counts[4];
    MPI_OK(MPI_Type_get_envelope_c(t, &ni, &na, &gc, &nd, &comb));
    CHECK_MSG(comb == combiner && ni == 0 && na == 0 && gc == nc && nd == 1,
              "%s: envelope combiner %d, %lld integers, %lld addresses, %lld large counts, %lld datatypes", what, comb,
              (long long)ni, (long long)na, (long long)gc, (long long)nd);
    if (comb == combiner && nd == 1 && gc == nc)
        MPI_OK(MPI_Type_get_contents_c(t, 0, 0, nc, 1, NULL, NULL, counts, &member));
    return member;
}

/* A type of a _c constructor that the program freed while a duplicate and a type built on it
 * still hold it: reached through them, it still answers the _c call's envelope and contents
 * (a record that ended with the program's handle would answer the int-built type's). */
static void kept_after_free(void)
{
    const MPI_Datatype ints1[1] = {MPI_INT};
    MPI_Datatype v, dup, outer, int_outer;
    MPI_OK(MPI_Type_vector_c(3, 2, 4, MPI_INT, &v));
    MPI_OK(MPI_Type_dup(v, &dup));
    MPI_OK(MPI_Type_contiguous_c(2, v, &outer));
    MPI_OK(MPI_Type_contiguous(2, v, &int_outer));
    MPI_OK(MPI_Type_free(&v));
    for (int round = 0; round < 2; ++round) { /* the handles handed out are freed each round */
        MPI_Datatype original = only_member(dup, MPI_COMBINER_DUP, 0, "a duplicate of vector_c");
        if (original != MPI_DATATYPE_NULL)
            expect_contents(original, MPI_COMBINER_VECTOR, 0, NULL, 3, (const MPI_Count[]){3, 2, 4}, 1, ints1,
                            "vector_c freed, through its duplicate");
        if (original != MPI_DATATYPE_NULL) MPI_OK(MPI_Type_free(&original));
        MPI_Datatype member = only_member(outer, MPI_COMBINER_CONTIGUOUS, 1, "contiguous_c of vector_c");
        if (member != MPI_DATATYPE_NULL)
            expect_contents(member, MPI_COMBINER_VECTOR, 0, NULL, 3, (const MPI_Count[]){3, 2, 4}, 1, ints1,
                            "vector_c freed, through a type built on it");
        if (member != MPI_DATATYPE_NULL) MPI_OK(MPI_Type_free(&member));
        /* the int constructor's envelope is the int one; its member still the _c call's */
        int ni = -1, na = -1, nd = -1, comb = -1, count = 0;
        MPI_Aint no_address;
        MPI_OK(MPI_Type_get_envelope(int_outer, &ni, &na, &nd, &comb));
        CHECK_MSG(comb == MPI_COMBINER_CONTIGUOUS && ni == 1 && na == 0 && nd == 1,
                  "MPI_Type_contiguous of vector_c: envelope combiner %d, %d integers, %d addresses, %d datatypes", comb,
                  ni, na, nd);
        member = MPI_DATATYPE_NULL;
        MPI_OK(MPI_Type_get_contents(int_outer, 1, 0, 1, &count, &no_address, &member));
        CHECK_EQ(count, 2);
        if (member != MPI_DATATYPE_NULL)
            expect_contents(member, MPI_COMBINER_VECTOR, 0, NULL, 3, (const MPI_Count[]){3, 2, 4}, 1, ints1,
                            "vector_c freed, through MPI_Type_contiguous on it");
        if (member != MPI_DATATYPE_NULL) MPI_OK(MPI_Type_free(&member));
    }
    MPI_OK(MPI_Type_free(&int_outer));
    MPI_OK(MPI_Type_free(&dup));
    MPI_Count size = 0;
    MPI_OK(MPI_Type_size_c(outer, &size));
    CHECK_EQ(size, 2 * 3 * 2 * (MPI_Count)sizeof(int));
    MPI_OK(MPI_Type_free(&outer));
}

/* t's first datatype argument, whatever t's combiner (a new handle, or a predefined one). */
static MPI_Datatype first_member(MPI_Datatype t)
{
    MPI_Count ni = -1, na = -1, nc = -1, nd = -1;
    int comb = -1, ints[8];
    MPI_Aint addresses[8];
    MPI_Count counts[8];
    MPI_Datatype types[1] = {MPI_DATATYPE_NULL};
    MPI_OK(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb));
    CHECK_FATAL(ni <= 8 && na <= 8 && nc <= 8 && nd == 1);
    MPI_OK(MPI_Type_get_contents_c(t, ni, na, nc, nd, ints, addresses, counts, types));
    return types[0];
}

/* A type of a _c constructor reached two levels down, through types of the int constructors
 * or duplicates built on each other, still answers the _c call's envelope and contents (anympi
 * over Open MPI lost the way past the first level: dup(dup(c)) gave c's int form). */
static void kept_two_levels_down(void)
{
    const MPI_Datatype ints1[1] = {MPI_INT};
    MPI_Datatype c, a, b;
    MPI_OK(MPI_Type_contiguous_c(4, MPI_INT, &c));
    for (int form = 0; form < 3; ++form) {
        static const char *const what[3] = {"dup(dup(contiguous_c))", "vector(vector(contiguous_c))",
                                            "resized(contiguous(contiguous_c))"};
        if (form == 0) {
            MPI_OK(MPI_Type_dup(c, &a));
            MPI_OK(MPI_Type_dup(a, &b));
        } else if (form == 1) {
            MPI_OK(MPI_Type_vector(2, 1, 1, c, &a));
            MPI_OK(MPI_Type_vector(2, 1, 1, a, &b));
        } else {
            MPI_OK(MPI_Type_contiguous(3, c, &a));
            MPI_OK(MPI_Type_create_resized(a, 0, 100, &b));
        }
        MPI_Datatype x = first_member(b), y = first_member(x);
        expect_contents(y, MPI_COMBINER_CONTIGUOUS, 0, NULL, 1, (const MPI_Count[]){4}, 1, ints1, what[form]);
        MPI_OK(MPI_Type_free(&y));
        MPI_OK(MPI_Type_free(&x));
        MPI_OK(MPI_Type_free(&b));
        MPI_OK(MPI_Type_free(&a));
    }
    MPI_OK(MPI_Type_free(&c));
}

/* The program's attributes stay on its types: building a _c type on a type that carries one
 * calls neither its copy callback (no duplicate is made) nor, when the new type is freed, its
 * delete callback; the delete callback runs once, for the program's own type. */
static int type_copies, type_deletes;
static MPI_Datatype attributed;
static int copy_counted(MPI_Datatype t, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)kv, (void)extra;
    ++type_copies;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}
static int delete_counted(MPI_Datatype t, int kv, void *value, void *extra)
{
    (void)kv, (void)value, (void)extra;
    ++type_deletes;
    CHECK(t == attributed);
    return MPI_SUCCESS;
}
static void attributes_stay(void)
{
    int kv = MPI_KEYVAL_INVALID, value = 42;
    MPI_OK(MPI_Type_create_keyval(copy_counted, delete_counted, &kv, NULL));
    MPI_OK(MPI_Type_vector(2, 1, 3, MPI_INT, &attributed));
    MPI_OK(MPI_Type_set_attr(attributed, kv, &value));
    MPI_Datatype built[3];
    MPI_OK(MPI_Type_contiguous_c(4, attributed, &built[0]));
    MPI_OK(MPI_Type_vector_c(2, 1, 3, attributed, &built[1]));
    MPI_OK(MPI_Type_create_struct_c(1, (const MPI_Count[]){2}, (const MPI_Count[]){0}, &attributed, &built[2]));
    for (int i = 0; i < 3; ++i) MPI_OK(MPI_Type_free(&built[i]));
    CHECK_EQ(type_copies, 0);
    CHECK_EQ(type_deletes, 0);
    MPI_OK(MPI_Type_free(&attributed));
    CHECK_EQ(type_deletes, 1);
    MPI_OK(MPI_Type_free_keyval(&kv));
}

static void made_types(void)
{
    MPI_Datatype t, inner;
    const MPI_Datatype ints1[1] = {MPI_INT};
    MPI_OK(MPI_Type_contiguous_c(5, MPI_INT, &t));
    expect_contents(t, MPI_COMBINER_CONTIGUOUS, 0, NULL, 1, (const MPI_Count[]){5}, 1, ints1, "contiguous_c");
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_vector_c(3, 2, 4, MPI_INT, &t));
    expect_contents(t, MPI_COMBINER_VECTOR, 0, NULL, 3, (const MPI_Count[]){3, 2, 4}, 1, ints1, "vector_c");
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_create_hvector_c(3, 2, 16, MPI_INT, &t));
    expect_contents(t, MPI_COMBINER_HVECTOR, 0, NULL, 3, (const MPI_Count[]){3, 2, 16}, 1, ints1, "hvector_c");
    MPI_OK(MPI_Type_free(&t));
    const MPI_Count bl[3] = {2, 1, 3}, dp[3] = {0, 5, 9};
    MPI_OK(MPI_Type_indexed_c(3, bl, dp, MPI_INT, &t));
    expect_contents(t, MPI_COMBINER_INDEXED, 0, NULL, 7, (const MPI_Count[]){3, 2, 1, 3, 0, 5, 9}, 1, ints1, "indexed_c");
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_create_hindexed_c(3, bl, dp, MPI_INT, &t));
    expect_contents(t, MPI_COMBINER_HINDEXED, 0, NULL, 7, (const MPI_Count[]){3, 2, 1, 3, 0, 5, 9}, 1, ints1, "hindexed_c");
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_create_indexed_block_c(3, 2, dp, MPI_INT, &t));
    expect_contents(t, MPI_COMBINER_INDEXED_BLOCK, 0, NULL, 5, (const MPI_Count[]){3, 2, 0, 5, 9}, 1, ints1,
                    "indexed_block_c");
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_create_hindexed_block_c(3, 2, dp, MPI_INT, &t));
    expect_contents(t, MPI_COMBINER_HINDEXED_BLOCK, 0, NULL, 5, (const MPI_Count[]){3, 2, 0, 5, 9}, 1, ints1,
                    "hindexed_block_c");
    MPI_OK(MPI_Type_free(&t));
    /* a derived member the program frees at once: the contents still hold it */
    MPI_OK(MPI_Type_contiguous(2, MPI_SHORT, &inner));
    const MPI_Datatype members[3] = {MPI_INT, inner, MPI_DOUBLE};
    MPI_OK(MPI_Type_create_struct_c(3, bl, (const MPI_Count[]){0, 8, 16}, members, &t));
    MPI_Datatype kept_inner;
    MPI_OK(MPI_Type_dup(inner, &kept_inner));
    MPI_OK(MPI_Type_free(&inner));
    const MPI_Datatype expect_members[3] = {MPI_INT, kept_inner, MPI_DOUBLE};
    expect_contents(t, MPI_COMBINER_STRUCT, 0, NULL, 7, (const MPI_Count[]){3, 2, 1, 3, 0, 8, 16}, 3, expect_members,
                    "struct_c");
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_free(&kept_inner));
    kept_after_free();
    kept_two_levels_down();
    MPI_OK(MPI_Type_create_resized_c(MPI_INT, -4, 12, &t));
    expect_contents(t, MPI_COMBINER_RESIZED, 0, NULL, 2, (const MPI_Count[]){-4, 12}, 1, ints1, "resized_c");
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_create_subarray_c(2, (const MPI_Count[]){4, 6}, (const MPI_Count[]){2, 3},
                                      (const MPI_Count[]){1, 2}, MPI_ORDER_FORTRAN, MPI_INT, &t));
    expect_contents(t, MPI_COMBINER_SUBARRAY, 2, (const int[]){2, MPI_ORDER_FORTRAN}, 6,
                    (const MPI_Count[]){4, 6, 2, 3, 1, 2}, 1, ints1, "subarray_c");
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_create_darray_c(3, 1, 1, (const MPI_Count[]){12}, (const int[]){MPI_DISTRIBUTE_BLOCK},
                                    (const int[]){MPI_DISTRIBUTE_DFLT_DARG}, (const int[]){3}, MPI_ORDER_C, MPI_INT, &t));
    expect_contents(t, MPI_COMBINER_DARRAY, 7,
                    (const int[]){3, 1, 1, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_DFLT_DARG, 3, MPI_ORDER_C}, 1,
                    (const MPI_Count[]){12}, 1, ints1, "darray_c");
    MPI_OK(MPI_Type_free(&t));

    /* Counts, blocklengths, strides, displacements and sizes past INT_MAX: the type map the
     * constructor describes (over Open MPI 4.1, built from int-sized pieces). */
    const MPI_Count G = (MPI_Count)1 << 31;
    MPI_OK(MPI_Type_contiguous_c(G + 5, MPI_BYTE, &t));
    expect_size_extent(t, G + 5, 0, G + 5, "contiguous_c past INT_MAX");
    expect_contents(t, MPI_COMBINER_CONTIGUOUS, 0, NULL, 1, (const MPI_Count[]){G + 5}, 1, (const MPI_Datatype[]){MPI_BYTE},
                    "contiguous_c past INT_MAX");
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_contiguous_c(3, MPI_INT, &inner));
    MPI_OK(MPI_Type_create_hvector_c(2, G + 1, 4, inner, &t)); /* blocks of 12 bytes, overlapping */
    expect_size_extent(t, 2 * (G + 1) * 12, 0, (G + 1) * 12 + 4, "hvector_c of a blocklength past INT_MAX");
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_free(&inner));
    MPI_OK(MPI_Type_vector_c(2, 1, G + 1, MPI_BYTE, &t)); /* bytes 0 and 2^31 + 1 */
    expect_size_extent(t, 2, 0, G + 2, "vector_c of a stride past INT_MAX");
    expect_picks(t, G + 2, 2, (const MPI_Count[]){0, G + 1}, "vector_c of a stride past INT_MAX");
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_indexed_c(2, (const MPI_Count[]){1, 2}, (const MPI_Count[]){G + 5, 3}, MPI_BYTE, &t));
    expect_size_extent(t, 3, 3, G + 3, "indexed_c of a displacement past INT_MAX");
    expect_picks(t, G + 6, 3, (const MPI_Count[]){G + 5, 3, 4}, "indexed_c of a displacement past INT_MAX");
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_create_struct_c(2, (const MPI_Count[]){G + 3, 1}, (const MPI_Count[]){8, 0},
                                    (const MPI_Datatype[]){MPI_BYTE, MPI_BYTE}, &t));
    expect_size_extent(t, G + 4, 0, G + 11, "struct_c of a blocklength past INT_MAX");
    MPI_OK(MPI_Type_free(&t));
    /* row 1, columns 2^31 + 4 and + 5 of a 2 x (2^31 + 8) byte array in C order */
    MPI_OK(MPI_Type_create_subarray_c(2, (const MPI_Count[]){2, G + 8}, (const MPI_Count[]){1, 2},
                                      (const MPI_Count[]){1, G + 4}, MPI_ORDER_C, MPI_BYTE, &t));
    expect_size_extent(t, 2, 0, 2 * (G + 8), "subarray_c of sizes past INT_MAX");
    expect_picks(t, 2 * (G + 8), 2, (const MPI_Count[]){G + 8 + G + 4, G + 8 + G + 5}, "subarray_c of sizes past INT_MAX");
    MPI_OK(MPI_Type_free(&t));
    /* darrays past INT_MAX (over Open MPI 4.1, the distribution computed by anympi) */
    MPI_OK(MPI_Type_create_darray_c(2, 0, 1, (const MPI_Count[]){G + 6}, (const int[]){MPI_DISTRIBUTE_BLOCK},
                                    (const int[]){MPI_DISTRIBUTE_DFLT_DARG}, (const int[]){2}, MPI_ORDER_C, MPI_BYTE, &t));
    expect_size_extent(t, G / 2 + 3, 0, G + 6, "darray_c block past INT_MAX");
    expect_contents(t, MPI_COMBINER_DARRAY, 7,
                    (const int[]){2, 0, 1, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_DFLT_DARG, 2, MPI_ORDER_C}, 1,
                    (const MPI_Count[]){G + 6}, 1, (const MPI_Datatype[]){MPI_BYTE}, "darray_c block past INT_MAX");
    MPI_OK(MPI_Type_free(&t));
    /* cyclic blocks of 2^30 over 3 processes: the third owns the last 10 of 2^31 + 10 */
    MPI_OK(MPI_Type_create_darray_c(3, 2, 1, (const MPI_Count[]){G + 10}, (const int[]){MPI_DISTRIBUTE_CYCLIC},
                                    (const int[]){1 << 30}, (const int[]){3}, MPI_ORDER_C, MPI_BYTE, &t));
    expect_size_extent(t, 10, 0, G + 10, "darray_c cyclic past INT_MAX");
    expect_picks(t, G + 10, 10, (const MPI_Count[]){G, G + 1, G + 2, G + 3, G + 4, G + 5, G + 6, G + 7, G + 8, G + 9},
                 "darray_c cyclic past INT_MAX");
    MPI_OK(MPI_Type_free(&t));
    /* two dimensions, 2 x (2^31 + 10) in C order and its transpose in Fortran order, over a
     * 2 x 3 (3 x 2) process grid: process 5 owns the last 10 of row 1, in increasing order */
    for (int fortran = 0; fortran < 2; ++fortran) {
        const MPI_Count gs[2] = {fortran ? G + 10 : 2, fortran ? 2 : G + 10};
        const int ds[2] = {fortran ? MPI_DISTRIBUTE_CYCLIC : MPI_DISTRIBUTE_BLOCK,
                           fortran ? MPI_DISTRIBUTE_BLOCK : MPI_DISTRIBUTE_CYCLIC};
        const int as[2] = {fortran ? 1 << 30 : MPI_DISTRIBUTE_DFLT_DARG, fortran ? MPI_DISTRIBUTE_DFLT_DARG : 1 << 30};
        const int ps[2] = {fortran ? 3 : 2, fortran ? 2 : 3};
        MPI_OK(MPI_Type_create_darray_c(6, 5, 2, gs, ds, as, ps, fortran ? MPI_ORDER_FORTRAN : MPI_ORDER_C, MPI_BYTE, &t));
        MPI_Count at[10];
        for (int j = 0; j < 10; ++j) at[j] = G + 10 + G + j;
        expect_size_extent(t, 10, 0, 2 * (G + 10), fortran ? "darray_c Fortran order" : "darray_c C order");
        expect_picks(t, 2 * (G + 10), 10, at, fortran ? "darray_c Fortran order" : "darray_c C order");
        MPI_OK(MPI_Type_free(&t));
    }
    {
        /* cyclic blocks of 2^29 ints over 3 processes: the second owns [2^29, 2^30) and the 10
         * past 2^31, a short last run */
        const MPI_Count k = (MPI_Count)1 << 29;
        MPI_OK(MPI_Type_create_darray_c(3, 1, 1, (const MPI_Count[]){G + 10}, (const int[]){MPI_DISTRIBUTE_CYCLIC},
                                        (const int[]){1 << 29}, (const int[]){3}, MPI_ORDER_C, MPI_INT, &t));
        expect_size_extent(t, 4 * (k + 10), 0, 4 * (G + 10), "darray_c cyclic, a short run");
        MPI_Count tlb = 0, textent = 0;
        MPI_OK(MPI_Type_get_true_extent_c(t, &tlb, &textent));
        CHECK_EQ(tlb, 4 * k);
        CHECK_EQ(textent, 4 * (G + 10 - k));
        MPI_OK(MPI_Type_free(&t));
    }
}

/* The nonblocking (mode 0) and persistent (mode 1, made once, started each round) v and w
 * forms, with new data each round: over Open MPI 4.1 each is a request of anympi's over one
 * MPI_Ialltoallw whose arrays it keeps until done. */
static void finish(int mode, MPI_Request *q)
{
    if (mode) MPI_OK(MPI_Start(q));
    MPI_OK(MPI_Wait(q, MPI_STATUS_IGNORE));
    CHECK(mode ? *q != MPI_REQUEST_NULL : *q == MPI_REQUEST_NULL);
}
static void small_v_requests(void)
{
    enum { W = 4 * 6 };
    int send[W], recv[W + 8], got[8];
    MPI_Count counts[4], counts2[4];
    MPI_Aint displs[4], displs2[4], bdispls[4], bdispls2[4];
    MPI_Datatype ts[4], tr[4];
    MPI_Aint at = 0;
    for (int i = size - 1; i >= 0; --i) counts[i] = i + 1, displs[i] = at, at += i + 2;
    for (int i = 0; i < size; ++i) {
        counts2[i] = rank + 1, displs2[i] = (size - 1 - i) * 6 + 1;
        bdispls[i] = i * 6 * (MPI_Aint)sizeof(int), bdispls2[i] = displs2[i] * (MPI_Aint)sizeof(int);
        ts[i] = tr[i] = MPI_INT;
    }
    MPI_Count tcounts[4];
    MPI_Aint tdispls[4];
    for (int i = 0; i < size; ++i) tcounts[i] = i + 1, tdispls[i] = i * 6;
    for (int mode = 0; mode < 2; ++mode) {
        MPI_Request q[5] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        for (int round = 0; round < 3; ++round) {
            const int base = 1000 * rank + 100000 * round;
            for (int i = 0; i < W; ++i) send[i] = base + i;
            for (int i = 0; i < W + 8; ++i) recv[i] = -1;
            if (mode == 0) MPI_OK(MPI_Igatherv_c(send, rank + 1, MPI_INT, recv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD, &q[0]));
            else if (round == 0)
                MPI_OK(MPI_Gatherv_init_c(send, rank + 1, MPI_INT, recv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]));
            finish(mode, &q[0]);
            if (rank == 0)
                for (int i = 0; i < size; ++i) {
                    for (int j = 0; j <= i; ++j) CHECK_EQ(recv[displs[i] + j], 1000 * i + 100000 * round + j);
                    CHECK_EQ(recv[displs[i] + i + 1], -1);
                }

            for (int j = 0; j < 8; ++j) got[j] = -1;
            if (mode == 0) MPI_OK(MPI_Iscatterv_c(send, counts, displs, MPI_INT, got, rank + 1, MPI_INT, 0, MPI_COMM_WORLD, &q[1]));
            else if (round == 0)
                MPI_OK(MPI_Scatterv_init_c(send, counts, displs, MPI_INT, got, rank + 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &q[1]));
            finish(mode, &q[1]);
            for (int j = 0; j <= rank; ++j) CHECK_EQ(got[j], 100000 * round + displs[rank] + j);
            CHECK_EQ(got[rank + 1], -1);

            for (int i = 0; i < W + 8; ++i) recv[i] = -1;
            if (mode == 0) MPI_OK(MPI_Iallgatherv_c(send, rank + 1, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD, &q[2]));
            else if (round == 0)
                MPI_OK(MPI_Allgatherv_init_c(send, rank + 1, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &q[2]));
            finish(mode, &q[2]);
            for (int i = 0; i < size; ++i) CHECK_EQ(recv[displs[i] + i], 1000 * i + 100000 * round + i);

            for (int i = 0; i < W + 8; ++i) recv[i] = -1;
            if (mode == 0)
                MPI_OK(MPI_Ialltoallv_c(send, tcounts, tdispls, MPI_INT, recv, counts2, displs2, MPI_INT, MPI_COMM_WORLD, &q[3]));
            else if (round == 0)
                MPI_OK(MPI_Alltoallv_init_c(send, tcounts, tdispls, MPI_INT, recv, counts2, displs2, MPI_INT, MPI_COMM_WORLD,
                                            MPI_INFO_NULL, &q[3]));
            finish(mode, &q[3]);
            for (int i = 0; i < size; ++i)
                for (int j = 0; j <= rank; ++j)
                    CHECK_EQ(recv[displs2[i] + j], 1000 * i + 100000 * round + rank * 6 + j);

            for (int i = 0; i < W + 8; ++i) recv[i] = -1;
            if (mode == 0)
                MPI_OK(MPI_Ialltoallw_c(send, tcounts, bdispls, ts, recv, counts2, bdispls2, tr, MPI_COMM_WORLD, &q[4]));
            else if (round == 0)
                MPI_OK(MPI_Alltoallw_init_c(send, tcounts, bdispls, ts, recv, counts2, bdispls2, tr, MPI_COMM_WORLD,
                                            MPI_INFO_NULL, &q[4]));
            finish(mode, &q[4]);
            for (int i = 0; i < size; ++i)
                for (int j = 0; j <= rank; ++j)
                    CHECK_EQ(recv[displs2[i] + j], 1000 * i + 100000 * round + rank * 6 + j);
        }
        if (mode)
            for (int k = 0; k < 5; ++k) MPI_OK(MPI_Request_free(&q[k]));
    }
}

/* The neighbourhood v/w forms on a directed ring (one source, one destination) and
 * reduce_scatter, each blocking, nonblocking and persistent (mode 0, 1, 2), new data each
 * round. */
static void small_neighbours(void)
{
    MPI_Comm ring;
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, MPI_UNWEIGHTED, 1, &right, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &ring));
    int send[8], recv[12];
    const MPI_Count two = 2, three = 3;
    const MPI_Aint at1 = 1, at4 = 4, bytes0 = 0, bytes8 = 8 * (MPI_Aint)sizeof(int);
    MPI_Datatype t = MPI_INT;
    long v[8], w[8];
    MPI_Count rs_counts[4];
    for (int i = 0; i < size; ++i) rs_counts[i] = 2;
    for (int mode = 0; mode < 3; ++mode) {
        MPI_Request q[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        for (int round = 0; round < 3; ++round) {
            const int base = 1000 * rank + 100000 * round, lbase = 1000 * left + 100000 * round;
            for (int i = 0; i < 8; ++i) send[i] = base + i;
            /* allgatherv: 3 ints from the left at recv[1] */
            for (int i = 0; i < 12; ++i) recv[i] = -1;
            if (mode == 0) MPI_OK(MPI_Neighbor_allgatherv_c(send, 3, MPI_INT, recv, &three, &at1, MPI_INT, ring));
            else if (mode == 1) MPI_OK(MPI_Ineighbor_allgatherv_c(send, 3, MPI_INT, recv, &three, &at1, MPI_INT, ring, &q[0]));
            else if (round == 0)
                MPI_OK(MPI_Neighbor_allgatherv_init_c(send, 3, MPI_INT, recv, &three, &at1, MPI_INT, ring, MPI_INFO_NULL, &q[0]));
            if (mode) finish(mode == 2, &q[0]);
            CHECK_EQ(recv[0], -1);
            for (int i = 0; i < 3; ++i) CHECK_EQ(recv[1 + i], lbase + i);
            CHECK_EQ(recv[4], -1);
            /* alltoallv: 2 ints from send[4] to the right, at recv[4] */
            for (int i = 0; i < 12; ++i) recv[i] = -1;
            if (mode == 0) MPI_OK(MPI_Neighbor_alltoallv_c(send, &two, &at4, MPI_INT, recv, &two, &at4, MPI_INT, ring));
            else if (mode == 1)
                MPI_OK(MPI_Ineighbor_alltoallv_c(send, &two, &at4, MPI_INT, recv, &two, &at4, MPI_INT, ring, &q[1]));
            else if (round == 0)
                MPI_OK(MPI_Neighbor_alltoallv_init_c(send, &two, &at4, MPI_INT, recv, &two, &at4, MPI_INT, ring, MPI_INFO_NULL, &q[1]));
            if (mode) finish(mode == 2, &q[1]);
            CHECK_EQ(recv[3], -1);
            for (int i = 0; i < 2; ++i) CHECK_EQ(recv[4 + i], lbase + 4 + i);
            CHECK_EQ(recv[6], -1);
            /* alltoallw: 3 ints from send[0] to recv[8], displacements in bytes */
            for (int i = 0; i < 12; ++i) recv[i] = -1;
            if (mode == 0) MPI_OK(MPI_Neighbor_alltoallw_c(send, &three, &bytes0, &t, recv, &three, &bytes8, &t, ring));
            else if (mode == 1)
                MPI_OK(MPI_Ineighbor_alltoallw_c(send, &three, &bytes0, &t, recv, &three, &bytes8, &t, ring, &q[2]));
            else if (round == 0)
                MPI_OK(MPI_Neighbor_alltoallw_init_c(send, &three, &bytes0, &t, recv, &three, &bytes8, &t, ring, MPI_INFO_NULL, &q[2]));
            if (mode) finish(mode == 2, &q[2]);
            CHECK_EQ(recv[7], -1);
            for (int i = 0; i < 3; ++i) CHECK_EQ(recv[8 + i], lbase + i);
            /* reduce_scatter: 2 longs to each rank */
            for (int i = 0; i < 2 * size; ++i) v[i] = rank + i + round;
            w[0] = w[1] = -1;
            if (mode == 0) MPI_OK(MPI_Reduce_scatter_c(v, w, rs_counts, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
            else if (mode == 1) MPI_OK(MPI_Ireduce_scatter_c(v, w, rs_counts, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &q[3]));
            else if (round == 0)
                MPI_OK(MPI_Reduce_scatter_init_c(v, w, rs_counts, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q[3]));
            if (mode) finish(mode == 2, &q[3]);
            for (int i = 0; i < 2; ++i) CHECK_EQ(w[i], (long)size * (2 * rank + i + round) + (long)size * (size - 1) / 2);
        }
        if (mode == 2)
            for (int k = 0; k < 4; ++k) MPI_OK(MPI_Request_free(&q[k]));
    }
    MPI_OK(MPI_Comm_free(&ring));
}

static void small_collectives(void)
{
    enum { K = 3 };
    int send[4 * K * 2], recv[4 * K * 2 + 8];
    MPI_Count counts[4], counts2[4];
    MPI_Aint displs[4], displs2[4];
    for (int i = 0; i < 4 * K * 2; ++i) send[i] = 1000 * rank + i;
#define CLEAR() for (int i_ = 0; i_ < 4 * K * 2 + 8; ++i_) recv[i_] = -1
    /* rank i sends i+1 ints; the root places them in reverse order with a gap */
    MPI_Aint at = 0;
    for (int i = size - 1; i >= 0; --i) counts[i] = i + 1, displs[i] = at, at += i + 2;
    CLEAR();
    MPI_OK(MPI_Gatherv_c(send, rank + 1, MPI_INT, recv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == 0)
        for (int i = 0; i < size; ++i) {
            for (int j = 0; j <= i; ++j) CHECK_EQ(recv[displs[i] + j], 1000 * i + j);
            CHECK_EQ(recv[displs[i] + i + 1], -1);
        }
    /* in place at the root */
    CLEAR();
    if (rank == 0) for (int j = 0; j < 1; ++j) recv[displs[0] + j] = 77;
    MPI_OK(MPI_Gatherv_c(rank == 0 ? MPI_IN_PLACE : send, rank + 1, MPI_INT, recv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        CHECK_EQ(recv[displs[0]], 77);
        for (int i = 1; i < size; ++i) CHECK_EQ(recv[displs[i] + i], 1000 * i + i);
    }
    /* scatterv: the reverse */
    int got[8];
    for (int j = 0; j < 8; ++j) got[j] = -1;
    MPI_OK(MPI_Scatterv_c(send, counts, displs, MPI_INT, got, rank + 1, MPI_INT, 0, MPI_COMM_WORLD));
    for (int j = 0; j <= rank; ++j) CHECK_EQ(got[j], displs[rank] + j);
    CHECK_EQ(got[rank + 1], -1);
    /* allgatherv, then in place */
    CLEAR();
    MPI_OK(MPI_Allgatherv_c(send, rank + 1, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < size; ++i) CHECK_EQ(recv[displs[i] + i], 1000 * i + i);
    CLEAR();
    for (int j = 0; j <= rank; ++j) recv[displs[rank] + j] = 5000 + rank;
    MPI_OK(MPI_Allgatherv_c(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, counts, displs, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < size; ++i) CHECK_EQ(recv[displs[i] + i], 5000 + i);
    /* alltoallv: i+1 ints to peer i, from its block i*K*2 */
    for (int i = 0; i < size; ++i) {
        counts[i] = i + 1, displs[i] = i * K * 2;
        counts2[i] = rank + 1, displs2[i] = (size - 1 - i) * K * 2 + 1;
    }
    CLEAR();
    MPI_OK(MPI_Alltoallv_c(send, counts, displs, MPI_INT, recv, counts2, displs2, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < size; ++i) {
        for (int j = 0; j <= rank; ++j) CHECK_EQ(recv[displs2[i] + j], 1000 * i + rank * K * 2 + j);
        CHECK_EQ(recv[displs2[i] - 1], -1);
    }
    /* alltoallw: the same with displacements in bytes */
    MPI_Datatype ts[4], tr[4];
    for (int i = 0; i < size; ++i) {
        counts[i] = i + 1, displs[i] = i * K * 2 * sizeof(int), ts[i] = MPI_INT;
        counts2[i] = rank + 1, displs2[i] = ((size - 1 - i) * K * 2 + 1) * sizeof(int), tr[i] = MPI_INT;
    }
    CLEAR();
    MPI_OK(MPI_Alltoallw_c(send, counts, displs, ts, recv, counts2, displs2, tr, MPI_COMM_WORLD));
    for (int i = 0; i < size; ++i)
        for (int j = 0; j <= rank; ++j) CHECK_EQ(recv[(size - 1 - i) * K * 2 + 1 + j], 1000 * i + rank * K * 2 + j);

    /* reductions */
    long v[3] = {rank, 2 * rank, 3}, w[3] = {0, 0, 0};
    MPI_OK(MPI_Allreduce_c(v, w, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK_EQ(w[1], (long)size * (size - 1));
    w[2] = 0;
    MPI_OK(MPI_Reduce_c(v, w, 3, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD));
    if (rank == 0) CHECK_EQ(w[0], size - 1);
    MPI_OK(MPI_Scan_c(v, w, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK_EQ(w[0], (long)rank * (rank + 1) / 2);
    MPI_OK(MPI_Exscan_c(v, w, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    if (rank > 0) CHECK_EQ(w[2], 3L * rank);
    MPI_OK(MPI_Reduce_local_c(v, w, 3, MPI_LONG, MPI_SUM));
    if (rank > 0) CHECK_EQ(w[2], 3L * rank + 3);

    /* persistent reductions, each started twice with new data, all four in one MPI_Startall;
     * over Open MPI 4.1 each start is one int-sized chunk of the int form's nonblocking call */
    long a[3], b[4][3];
    MPI_Request q[4];
    MPI_OK(MPI_Allreduce_init_c(a, b[0], 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]));
    MPI_OK(MPI_Reduce_init_c(a, b[1], 3, MPI_LONG, MPI_MAX, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &q[1]));
    MPI_OK(MPI_Scan_init_c(a, b[2], 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q[2]));
    MPI_OK(MPI_Exscan_init_c(a, b[3], 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q[3]));
    for (long round = 1; round <= 2; ++round) {
        a[0] = round * rank, a[1] = round, a[2] = -round * rank;
        for (int i = 0; i < 4; ++i) b[i][0] = b[i][1] = b[i][2] = -99;
        MPI_OK(MPI_Startall(4, q));
        MPI_OK(MPI_Waitall(4, q, MPI_STATUSES_IGNORE));
        CHECK_EQ(b[0][0], round * size * (size - 1) / 2);
        CHECK_EQ(b[0][1], round * size);
        if (rank == size - 1) CHECK_EQ(b[1][0], round * (size - 1));
        if (rank == size - 1) CHECK_EQ(b[1][2], 0L);
        CHECK_EQ(b[2][0], round * rank * (rank + 1) / 2);
        CHECK_EQ(b[2][2], -round * rank * (rank + 1) / 2);
        if (rank > 0) CHECK_EQ(b[3][1], round * rank);
    }
    for (int i = 0; i < 4; ++i) {
        CHECK(q[i] != MPI_REQUEST_NULL);  /* inactive, not freed */
        MPI_OK(MPI_Request_free(&q[i]));
    }
}

static void small_rma(void)
{
    int base[8] = {0}, out[4] = {1 + rank, 2 + rank, 3 + rank, 4 + rank}, got[4] = {0};
    MPI_Win win;
    MPI_OK(MPI_Win_create(base, sizeof base, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put_c(out, 4, MPI_INT, right, 2, 4, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    CHECK_EQ(base[2], 1 + left);
    CHECK_EQ(base[5], 4 + left);
    /* The left neighbour's accumulate below may reach this window as soon as it leaves the
     * fence, and a load overlapping it is erroneous: everyone reads first (Open MPI's osc/sm
     * showed base[2] = 2 * (1 + left) here once). */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Accumulate_c(out, 4, MPI_INT, right, 2, 4, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Get_c(got, 4, MPI_INT, right, 2, 4, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    CHECK_EQ(got[3], 2 * (4 + rank));
    MPI_OK(MPI_Win_free(&win));
}
#endif

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "large_counts");
#if MPI_VERSION >= 4
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = (rank + size - 1) % size, right = (rank + 1) % size;
    small_p2p();
    small_types();
    made_types();
    attributes_stay();
    small_collectives();
    small_v_requests();
    small_neighbours();
    small_rma();
    {
        /* A type of a _c constructor the program never frees: the MPI ends first, and the
         * program exits normally (anympi's record of it must not free anything at exit). */
        MPI_Datatype inner, kept;
        MPI_OK(MPI_Type_contiguous(2, MPI_INT, &inner));
        MPI_OK(MPI_Type_contiguous_c(5, inner, &kept));
        MPI_OK(MPI_Type_free(&inner));
    }
    /* "small" as the first argument: only what needs no big memory */
    if (!(argc > 1 && strcmp(argv[1], "small") == 0) && size <= 4) {
        unsigned char *s = malloc((size_t)(N + PAD)), *r = malloc((size_t)(N + PAD));
        CHECK_FATAL(s && r);
        big(s, r);
        free(s);
        free(r);
    }
#else
    CHECK_MSG(0, "this MPI is older than MPI-4.0: build the program natively on MPICH only");
#endif
    return check_finish();
}
