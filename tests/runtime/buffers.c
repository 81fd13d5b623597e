/* Buffered sends: the process buffer (MPI_Buffer_attach) with MPI_Bsend, MPI_Ibsend and
 * MPI_Bsend_init of a noncontiguous datatype around a ring, space reused once messages are
 * delivered, a buffer too small and no buffer at all (MPI_ERR_BUFFER); over the ABI also the
 * MPI-4.1/5.0 buffer model: a communicator's own buffer (used instead of the process's; none
 * on other communicators; attach twice refused; flush, iflush, detach; gone with the
 * communicator), a session's buffer (used by every communicator derived from the session --
 * made from its group, duplicated, split, made from a group of one of them, idup'ed -- and by
 * no communicator of the world model; a communicator's own buffer first, the process's when
 * the session has none; flush, iflush, detach, MPI_BUFFER_AUTOMATIC, delivered by
 * MPI_Session_finalize), MPI_BUFFER_AUTOMATIC, MPI_Buffer_flush/iflush and the _c forms. */
#include "check.h"

#include <stdlib.h>

static int rank, size, next, prev;

/* Every other pair of a 12-int array: 6 ints, received as 6 contiguous ints. */
static MPI_Datatype pairs_type(void)
{
    MPI_Datatype t;
    MPI_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    return t;
}
static void fill(int *a, int base)
{
    for (int i = 0; i < 12; ++i) a[i] = base * 100 + i;
}
/* What arrives from `from`'s fill(base): elements 0,1,4,5,8,9. */
static void expect_pairs(const int *got, int base, MPI_Status *st, int line)
{
    static const int at[6] = {0, 1, 4, 5, 8, 9};
    int n = -1;
    MPI_Get_count(st, MPI_INT, &n);
    CHECK_MSG(n == 6, "line %d: %d ints received, 6 expected", line, n);
    for (int i = 0; i < 6; ++i) CHECK_MSG(got[i] == base * 100 + at[i], "line %d: element %d is %d", line, i, got[i]);
}

static int buffer_bytes(int messages, MPI_Datatype t, MPI_Comm comm)
{
    int one = 0;
    MPI_OK(MPI_Pack_size(1, t, comm, &one));
    return messages * (one + MPI_BSEND_OVERHEAD);
}

static void test_process_buffer(void)
{
    MPI_Datatype t = pairs_type();
    const int bytes = buffer_bytes(3, t, MPI_COMM_WORLD);
    char *buf = malloc((size_t)bytes);
    MPI_OK(MPI_Buffer_attach(buf, bytes));
    int src[3][12], got[6];
    MPI_Status st;
    /* Three messages buffered before any is received. */
    for (int k = 0; k < 3; ++k) {
        fill(src[k], rank * 10 + k);
        MPI_OK(MPI_Bsend(src[k], 1, t, next, k, MPI_COMM_WORLD));
        fill(src[k], -1); /* buffered: the send buffer is free again */
    }
    for (int k = 2; k >= 0; --k) {
        MPI_OK(MPI_Recv(got, 6, MPI_INT, prev, k, MPI_COMM_WORLD, &st));
        expect_pairs(got, prev * 10 + k, &st, __LINE__);
    }
    /* Ibsend: the request completes once buffered. */
    MPI_Request r;
    fill(src[0], rank * 10 + 7);
    MPI_OK(MPI_Ibsend(src[0], 1, t, next, 7, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(r == MPI_REQUEST_NULL);
    fill(src[0], -1);
    MPI_OK(MPI_Recv(got, 6, MPI_INT, prev, 7, MPI_COMM_WORLD, &st));
    expect_pairs(got, prev * 10 + 7, &st, __LINE__);
    /* Bsend_init: each start buffers the message as it is then; the space is reused. */
    MPI_OK(MPI_Bsend_init(src[1], 1, t, next, 8, MPI_COMM_WORLD, &r));
    for (int round = 0; round < 20; ++round) {
        fill(src[1], rank * 10 + round % 10);
        MPI_OK(MPI_Start(&r));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(r != MPI_REQUEST_NULL);
        MPI_OK(MPI_Recv(got, 6, MPI_INT, prev, 8, MPI_COMM_WORLD, &st));
        expect_pairs(got, prev * 10 + round % 10, &st, __LINE__);
    }
    MPI_OK(MPI_Request_free(&r));
    /* From MPI_BOTTOM, the data described by absolute addresses: anympi packs a buffered
     * message, and MPICH 4.0.2's MPI_Pack refuses MPI_BOTTOM (MPI_ERR_ARG under anympi). */
    int lo[2], hi[2];
    MPI_Aint at[2];
    MPI_OK(MPI_Get_address(&lo[1], &at[0]));
    MPI_OK(MPI_Get_address(&hi[0], &at[1]));
    int ones[2] = {1, 1};
    MPI_Datatype ints[2] = {MPI_INT, MPI_INT}, absolute;
    MPI_OK(MPI_Type_create_struct(2, ones, at, ints, &absolute));
    MPI_OK(MPI_Type_commit(&absolute));
    for (int k = 0; k < 3; ++k) {
        lo[1] = rank * 100 + k, hi[0] = rank * 100 + 50 + k;
        if (k == 0) MPI_OK(MPI_Bsend(MPI_BOTTOM, 1, absolute, next, 30, MPI_COMM_WORLD));
        if (k == 1) MPI_OK(MPI_Ibsend(MPI_BOTTOM, 1, absolute, next, 30, MPI_COMM_WORLD, &r));
        if (k == 2) {
            MPI_OK(MPI_Bsend_init(MPI_BOTTOM, 1, absolute, next, 30, MPI_COMM_WORLD, &r));
            MPI_OK(MPI_Start(&r));
        }
        if (k > 0) MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        if (k == 2) MPI_OK(MPI_Request_free(&r));
        int two[2] = {-1, -1};
        MPI_OK(MPI_Recv(two, 2, MPI_INT, prev, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_EQ(two[0], prev * 100 + k);
        CHECK_EQ(two[1], prev * 100 + 50 + k);
    }
    MPI_OK(MPI_Type_free(&absolute));
    void *back = NULL;
    int back_size = -1;
    MPI_OK(MPI_Buffer_detach(&back, &back_size));
    CHECK(back == buf && back_size == bytes);
    free(buf);
    MPI_OK(MPI_Type_free(&t));
}

static void expect_class(int rc, int cls, const char *what)
{
    int got = -1;
    MPI_Error_class(rc, &got);
    CHECK_MSG(rc != MPI_SUCCESS && got == cls, "%s: class %d, %d expected", what, got, cls);
}

static void test_errors(void)
{
    /* Open MPI 4.1.4 sends a message it can send at once without the buffer the standard
     * requires (a buffered send without room is an error): not asked of it natively. */
    if (check_under() == CHECK_UNDER_OPENMPI && !CHECK_OVER_ABI && size > 1) return;
    int big[1000] = {0};
    /* no buffer attached */
    expect_class(MPI_Bsend(big, 1000, MPI_INT, next, 20, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Bsend without a buffer");
    /* a buffer too small for the message */
    char small[64 + MPI_BSEND_OVERHEAD];
    MPI_OK(MPI_Buffer_attach(small, (int)sizeof small));
    expect_class(MPI_Bsend(big, 1000, MPI_INT, next, 21, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Bsend into a small buffer");
    /* to MPI_PROC_NULL nothing is sent, so nothing is buffered: with the small buffer full
     * or no buffer at all, a buffered send there succeeds (both MPIs natively) */
    MPI_OK(MPI_Bsend(big, 1000, MPI_INT, MPI_PROC_NULL, 22, MPI_COMM_WORLD));
    void *back;
    int back_size;
    MPI_OK(MPI_Buffer_detach(&back, &back_size));
    CHECK(back == small && back_size == (int)sizeof small);
    MPI_OK(MPI_Bsend(big, 1000, MPI_INT, MPI_PROC_NULL, 23, MPI_COMM_WORLD));
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_OK(MPI_Ibsend(big, 1000, MPI_INT, MPI_PROC_NULL, 24, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(r == MPI_REQUEST_NULL);
    MPI_OK(MPI_Bsend_init(big, 1000, MPI_INT, MPI_PROC_NULL, 25, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Start(&r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Request_free(&r));
}

#ifdef MPI_ABI_VERSION /* MPI-4.1/5.0: neither MPI underneath has these */
static void test_comm_buffer(void)
{
    MPI_Comm d;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_Datatype t = pairs_type();
    const int bytes = buffer_bytes(2, t, d);
    char *buf = malloc((size_t)bytes);
    MPI_OK(MPI_Comm_attach_buffer(d, buf, bytes));
    expect_class(MPI_Comm_attach_buffer(d, buf, bytes), MPI_ERR_BUFFER, "a second MPI_Comm_attach_buffer");
    int src[12], got[6];
    MPI_Status st;
    /* The process has no buffer: only d's buffered sends have one. */
    fill(src, rank);
    expect_class(MPI_Bsend(src, 1, t, next, 1, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Bsend on a communicator without a buffer");
    for (int round = 0; round < 10; ++round) {
        fill(src, rank * 10 + round);
        MPI_OK(MPI_Bsend(src, 1, t, next, 2, d));
        fill(src, rank * 10 + round + 1);
        MPI_OK(MPI_Bsend(src, 1, t, next, 3, d));
        MPI_OK(MPI_Recv(got, 6, MPI_INT, prev, 3, d, &st));
        expect_pairs(got, prev * 10 + round + 1, &st, __LINE__);
        MPI_OK(MPI_Recv(got, 6, MPI_INT, prev, 2, d, &st));
        expect_pairs(got, prev * 10 + round, &st, __LINE__);
        if (round % 2) {
            MPI_OK(MPI_Comm_flush_buffer(d));
        } else {
            MPI_Request r;
            MPI_OK(MPI_Comm_iflush_buffer(d, &r));
            MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            CHECK(r == MPI_REQUEST_NULL);
        }
    }
    void *back = NULL;
    MPI_Count back_size = -1;
    MPI_OK(MPI_Comm_detach_buffer_c(d, &back, &back_size));
    CHECK(back == buf && back_size == bytes);
    /* Gone with the communicator: a new one (perhaps the same handle) has none. */
    MPI_OK(MPI_Comm_attach_buffer_c(d, buf, (MPI_Count)bytes));
    fill(src, rank + 50);
    MPI_OK(MPI_Bsend(src, 1, t, next, 4, d));
    MPI_OK(MPI_Recv(got, 6, MPI_INT, prev, 4, d, &st));
    expect_pairs(got, prev + 50, &st, __LINE__);
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    expect_class(MPI_Bsend(src, 1, t, next, 5, d), MPI_ERR_BUFFER, "MPI_Bsend on a new communicator");
    /* iflush where no buffer is attached: complete at once */
    MPI_Request r;
    int flag = 0;
    MPI_OK(MPI_Comm_iflush_buffer(d, &r));
    MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && r == MPI_REQUEST_NULL);
    MPI_OK(MPI_Comm_free(&d));
    free(buf);
    MPI_OK(MPI_Type_free(&t));
}

/* A ring step of one buffered message on c: sent, then received from prev and checked. */
static void bsend_ring(MPI_Comm c, MPI_Datatype t, int tag, int line)
{
    int src[12], got[6];
    MPI_Status st;
    int r, n;
    MPI_OK(MPI_Comm_rank(c, &r));
    MPI_OK(MPI_Comm_size(c, &n));
    fill(src, r * 10 + tag);
    int rc = MPI_Bsend(src, 1, t, (r + 1) % n, tag, c);
    CHECK_MSG(rc == MPI_SUCCESS, "line %d: MPI_Bsend failed (%d)", line, rc);
    if (rc != MPI_SUCCESS) MPI_OK(MPI_Send(src, 1, t, (r + 1) % n, tag, c)); /* the peer's receive ends */
    fill(src, -1);
    MPI_OK(MPI_Recv(got, 6, MPI_INT, (r + n - 1) % n, tag, c, &st));
    expect_pairs(got, ((r + n - 1) % n) * 10 + tag, &st, line);
}

static void test_session_buffer(void)
{
    MPI_Datatype t = pairs_type();
    MPI_Session s;
    MPI_Group g, cg, sub;
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    /* Communicators derived from the session in every way a buffer must follow. */
    enum { SC, DUP, SPLIT, FROM_SUBGROUP, IDUP, NDERIVED };
    MPI_Comm c[NDERIVED];
    MPI_OK(MPI_Comm_create_from_group(g, "anympi.buffers.session", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c[SC]));
    MPI_OK(MPI_Comm_dup(c[SC], &c[DUP]));
    MPI_OK(MPI_Comm_split(c[SC], 0, -rank, &c[SPLIT]));
    MPI_OK(MPI_Comm_group(c[DUP], &cg));
    int all[64];
    for (int i = 0; i < size; ++i) all[i] = size - 1 - i;
    MPI_OK(MPI_Group_incl(cg, size, all, &sub));
    MPI_OK(MPI_Comm_create_from_group(sub, "anympi.buffers.sub", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c[FROM_SUBGROUP]));
    MPI_Request r;
    MPI_OK(MPI_Comm_idup(c[SC], &c[IDUP], &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    /* The world model's communicators, one made after the session began. */
    MPI_Comm wd;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &wd));

    int src[12] = {0};
    for (int k = 0; k < NDERIVED; ++k)
        expect_class(MPI_Bsend(src, 1, t, next, 1, c[k]), MPI_ERR_BUFFER, "MPI_Bsend before the session has a buffer");

    const int bytes = buffer_bytes(2, t, c[SC]);
    char *buf = malloc((size_t)bytes);
    MPI_OK(MPI_Session_attach_buffer(s, buf, bytes));
    expect_class(MPI_Session_attach_buffer(s, buf, bytes), MPI_ERR_BUFFER, "a second MPI_Session_attach_buffer");
    for (int round = 0; round < 3; ++round)
        for (int k = 0; k < NDERIVED; ++k) bsend_ring(c[k], t, 10 + k, __LINE__);
    expect_class(MPI_Bsend(src, 1, t, next, 2, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Bsend on MPI_COMM_WORLD");
    expect_class(MPI_Bsend(src, 1, t, next, 2, wd), MPI_ERR_BUFFER, "MPI_Bsend on a duplicate of MPI_COMM_WORLD");
    MPI_OK(MPI_Session_flush_buffer(s));
    MPI_OK(MPI_Session_iflush_buffer(s, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(r == MPI_REQUEST_NULL);

    /* A communicator's own buffer comes first: detached from the session, DUP still sends. */
    char *own = malloc((size_t)bytes);
    MPI_OK(MPI_Comm_attach_buffer(c[DUP], own, bytes));
    void *back = NULL;
    MPI_Count back_size = -1;
    MPI_OK(MPI_Session_detach_buffer_c(s, &back, &back_size));
    CHECK(back == buf && back_size == bytes);
    bsend_ring(c[DUP], t, 20, __LINE__);
    expect_class(MPI_Bsend(src, 1, t, next, 3, c[SC]), MPI_ERR_BUFFER, "MPI_Bsend after MPI_Session_detach_buffer");
    int int_size = -1;
    MPI_OK(MPI_Comm_detach_buffer(c[DUP], &back, &int_size));
    CHECK(back == own && int_size == bytes);

    /* No session buffer: the process's. */
    MPI_OK(MPI_Buffer_attach(buf, bytes));
    bsend_ring(c[SPLIT], t, 21, __LINE__);
    MPI_OK(MPI_Buffer_detach(&back, &int_size));
    CHECK(back == buf);

    /* MPI_BUFFER_AUTOMATIC; MPI_Session_finalize with a buffer still attached. */
    MPI_OK(MPI_Session_attach_buffer_c(s, MPI_BUFFER_AUTOMATIC, 0));
    enum { N = 50000 };
    int *big = malloc(N * sizeof(int)), *got = malloc(N * sizeof(int));
    for (int i = 0; i < N; ++i) big[i] = rank * N + i;
    MPI_OK(MPI_Bsend(big, N, MPI_INT, next, 22, c[IDUP]));
    for (int i = 0; i < N; ++i) big[i] = -1;
    MPI_OK(MPI_Recv(got, N, MPI_INT, prev, 22, c[IDUP], MPI_STATUS_IGNORE));
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += got[i] != prev * N + i;
    CHECK_MSG(bad == 0, "%d of %d elements wrong", bad, (int)N);
    for (int k = 0; k < NDERIVED; ++k) MPI_OK(MPI_Comm_free(&c[k]));
    MPI_OK(MPI_Group_free(&g));
    MPI_OK(MPI_Group_free(&cg));
    MPI_OK(MPI_Group_free(&sub));
    MPI_OK(MPI_Comm_free(&wd));
    MPI_OK(MPI_Session_finalize(&s));

    /* A new session (perhaps with the same handle) has no buffer. */
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    MPI_OK(MPI_Comm_create_from_group(g, "anympi.buffers.again", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c[SC]));
    expect_class(MPI_Bsend(src, 1, t, next, 4, c[SC]), MPI_ERR_BUFFER, "MPI_Bsend in a new session");
    MPI_OK(MPI_Comm_free(&c[SC]));
    MPI_OK(MPI_Group_free(&g));
    MPI_OK(MPI_Session_finalize(&s));

    /* Not a session: MPI_ERR_SESSION. */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    expect_class(MPI_Session_attach_buffer(MPI_SESSION_NULL, buf, bytes), MPI_ERR_SESSION,
                 "MPI_Session_attach_buffer(MPI_SESSION_NULL)");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    free(big);
    free(got);
    free(buf);
    free(own);
    MPI_OK(MPI_Type_free(&t));
}

static void test_automatic(void)
{
    enum { N = 100000 };
    MPI_OK(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
    int *src = malloc(N * sizeof(int)), *got = malloc(N * sizeof(int));
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < N; ++i) src[i] = rank * N + i + round;
        MPI_OK(MPI_Bsend(src, N, MPI_INT, next, 30, MPI_COMM_WORLD));
        for (int i = 0; i < N; ++i) src[i] = -1;
        MPI_OK(MPI_Recv(got, N, MPI_INT, prev, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        int bad = 0;
        for (int i = 0; i < N; ++i) bad += got[i] != prev * N + i + round;
        CHECK_MSG(bad == 0, "round %d: %d elements wrong", round, bad);
        if (round == 0) {
            MPI_OK(MPI_Buffer_flush());
        } else {
            MPI_Request r;
            int flag = 0;
            MPI_OK(MPI_Buffer_iflush(&r));
            while (!flag) MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
        }
    }
    void *back = NULL;
    int back_size = -1;
    MPI_OK(MPI_Buffer_detach(&back, &back_size));
    CHECK(back == MPI_BUFFER_AUTOMATIC && back_size == 0);
    free(src);
    free(got);
}
#endif

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "buffers");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    test_process_buffer();
    test_errors();
#ifdef MPI_ABI_VERSION
    test_comm_buffer();
    test_session_buffer();
    test_automatic();
#endif
    return check_finish();
}
