/* Callbacks and object lifetimes: user ops, error handlers, attribute keyvals, generalized
 * requests and the datatype arrays of the nonblocking alltoallw forms, each used the way the
 * standard allows and a translation layer easily gets wrong -- freed while still in use,
 * created by the ten thousand, created and freed in long loops (with the resident memory
 * measured), reached through derived datatypes.  Every expectation holds natively. */
#define _GNU_SOURCE
#include "check.h"

#include <stdint.h>
#include <unistd.h>

static int rank, size;

/* ANYMPI_TEST_SCALE=k runs the long loops k times shorter (sanitizer builds, whose leak checks
 * replace the resident-memory ones). */
static long scaled(long n)
{
    const char *k = getenv("ANYMPI_TEST_SCALE");
    return k && atol(k) > 1 ? n / atol(k) : n;
}

/* ---------------------------------------------------------------- resident memory */
static long resident_kib(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return -1;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = -1;
    fclose(f);
    return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}
/* Growth over a loop, after a warm-up of the same loop: allocators and the MPI's own pools
 * have reached their steady state by then.  Under AddressSanitizer freed memory sits in its
 * quarantine, so resident memory says nothing there: LeakSanitizer checks at exit instead. */
#if defined(__SANITIZE_ADDRESS__)
#define CHECK_FLAT(what, before, limit_kib) ((void)(before))
#else
#define CHECK_FLAT(what, before, limit_kib)                                                      \
    do {                                                                                         \
        long grown_ = resident_kib() - (before);                                                 \
        CHECK_MSG(grown_ <= (limit_kib), "%s: resident memory grew by %ld KiB", what, grown_);   \
    } while (0)
#endif

/* ---------------------------------------------------------------- user ops */
static MPI_Datatype op_seen_type;
static int op_seen_len;
static void op_add(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len * 2; ++i) b[i] += a[i]; /* the type is a pair of ints */
    op_seen_type = *dt;
    op_seen_len = *len;
}
static void op_mul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len * 2; ++i) b[i] *= a[i];
}
static void op_add_int(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; ++i) ((int *)inout)[i] += ((const int *)in)[i];
}
#if MPI_VERSION >= 4
static MPI_Count op_c_seen_len;
static void op_add_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    (void)dt;
    for (MPI_Count i = 0; i < *len; ++i) ((int *)inout)[i] += ((const int *)in)[i];
    op_c_seen_len = *len;
}
#endif

/* Where the MPI called the op (not on every rank: some only send), it saw the program's own
 * datatype handle, derived as it is, and a count within the call's; with two or more ranks
 * some rank called it. */
static void check_op_saw(MPI_Datatype type, int count)
{
    int called = op_seen_type != MPI_DATATYPE_NULL, anywhere = 0;
    if (called) {
        CHECK_HANDLE(op_seen_type, type);
        CHECK(op_seen_len >= 1 && op_seen_len <= count);
    }
    MPI_OK(MPI_Allreduce(&called, &anywhere, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD));
    if (size > 1) CHECK(anywhere);
    op_seen_type = MPI_DATATYPE_NULL;
}

/* Three hundred distinct op functions (a runtime that keeps a fixed set of trampolines per
 * function runs out of them here), each leaving its own mark. */
#define DISTINCT_OP(i)                                                                          \
    static void distinct_op_##i(void *in, void *inout, int *len, MPI_Datatype *dt)              \
    {                                                                                           \
        (void)dt;                                                                               \
        for (int k = 0; k < *len; ++k) ((int *)inout)[k] = ((const int *)in)[k] * 1000 + i;    \
    }
#define DISTINCT_OP_PTR(i) distinct_op_##i,
#define X10(m, a) m(a##0) m(a##1) m(a##2) m(a##3) m(a##4) m(a##5) m(a##6) m(a##7) m(a##8) m(a##9)
#define X100(m, a) X10(m, a##0) X10(m, a##1) X10(m, a##2) X10(m, a##3) X10(m, a##4) \
                   X10(m, a##5) X10(m, a##6) X10(m, a##7) X10(m, a##8) X10(m, a##9)
X100(DISTINCT_OP, 1) X100(DISTINCT_OP, 2) X100(DISTINCT_OP, 3)
static MPI_User_function *const distinct_ops[] = {X100(DISTINCT_OP_PTR, 1) X100(DISTINCT_OP_PTR, 2)
                                                      X100(DISTINCT_OP_PTR, 3)};

static void test_distinct_ops(void)
{
    enum { n = sizeof distinct_ops / sizeof distinct_ops[0] };
    static MPI_Op ops[n];
    for (int i = 0; i < n; ++i) MPI_OK(MPI_Op_create(distinct_ops[i], i % 2, &ops[i]));
    for (int round = 0; round < 2; ++round)
        for (int i = 0; i < n; ++i) {
            int in[2] = {round + 1, 7}, inout[2] = {0, 0};
            MPI_OK(MPI_Reduce_local(in, inout, 2, MPI_INT, ops[i]));
            CHECK_MSG(inout[0] == (round + 1) * 1000 + 100 + i && inout[1] == 7000 + 100 + i,
                      "op %d of %d computed %d, %d", i, n, inout[0], inout[1]);
        }
    for (int i = 0; i < n; ++i) MPI_OK(MPI_Op_free(&ops[i]));
}

static void test_ops(void)
{
    MPI_Datatype pair;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    MPI_OK(MPI_Type_commit(&pair));
    /* values rank+2: with two or more ranks their sum and product differ */
    int mine[4] = {rank + 2, rank + 2, 1, 1}, out[4] = {0, 0, 0, 0};
    long sum = 0;
    for (int r = 0; r < size; ++r) sum += r + 2;

    /* an op freed while the reduction that uses it is pending: the reduction completes with
     * it; an op then created with another function does not replace it */
    MPI_Op add = MPI_OP_NULL, mul = MPI_OP_NULL;
    MPI_OK(MPI_Op_create(op_add, 1, &add));
    MPI_Request req = MPI_REQUEST_NULL;
    op_seen_type = MPI_DATATYPE_NULL;
    MPI_OK(MPI_Iallreduce(mine, out, 2, pair, add, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Op_free(&add));
    CHECK_HANDLE(add, MPI_OP_NULL);
    MPI_OK(MPI_Op_create(op_mul, 1, &mul));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_EQ(out[0], sum);
    CHECK_EQ(out[3], size);
    check_op_saw(pair, 2);
    MPI_OK(MPI_Op_free(&mul));

#if MPI_VERSION >= 4
    /* persistent: freed after init, before the first start */
    MPI_OK(MPI_Op_create(op_add, 0, &add));
    int rc = MPI_Allreduce_init(mine, out, 2, pair, add, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    if (!check_mpi4_unsupported(rc, "MPI_Allreduce_init")) {
        MPI_OK(rc);
        MPI_OK(MPI_Op_free(&add));
        for (int round = 0; round < 3; ++round) {
            memset(out, 0, sizeof out);
            MPI_OK(MPI_Start(&req));
            MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            CHECK_EQ(out[1], sum);
        }
        MPI_OK(MPI_Request_free(&req));
    } else {
        MPI_OK(MPI_Op_free(&add));
    }
    /* the large-count form, with the count the MPI passes */
    MPI_Op add_c = MPI_OP_NULL;
    rc = MPI_Op_create_c(op_add_c, 1, &add_c);
    if (!check_mpi4_unsupported(rc, "MPI_Op_create_c")) {
        MPI_OK(rc);
        int v[3] = {rank, 1, 2}, w[3] = {0, 0, 0};
        op_c_seen_len = -1;
        MPI_OK(MPI_Reduce_local(v, w, 3, MPI_INT, add_c));
        CHECK_EQ(op_c_seen_len, 3);
        CHECK(w[0] == rank && w[1] == 1 && w[2] == 2);
        MPI_OK(MPI_Allreduce(v, w, 3, MPI_INT, add_c, MPI_COMM_WORLD));
        CHECK_EQ(w[1], size);
        MPI_OK(MPI_Op_free(&add_c));
    }
#endif

    /* ten thousand ops alive at once, two functions among them */
    enum { live = 10000 };
    static MPI_Op ops[live];
    for (int i = 0; i < live; ++i) MPI_OK(MPI_Op_create(i % 2 ? op_mul : op_add, i % 3 != 0, &ops[i]));
    int v[2] = {rank + 2, 1}, w[2];
    MPI_OK(MPI_Allreduce(v, w, 1, pair, ops[live - 2], MPI_COMM_WORLD)); /* op_add */
    CHECK_EQ(w[0], sum);
    long product = 1;
    for (int r = 0; r < size; ++r) product *= r + 2;
    MPI_OK(MPI_Allreduce(v, w, 1, pair, ops[live - 1], MPI_COMM_WORLD)); /* op_mul */
    CHECK_EQ(w[0], product);
    for (int i = 0; i < live; ++i) MPI_OK(MPI_Op_free(&ops[i]));

    /* a hundred thousand create/free cycles, each op used now and then, memory flat */
    long before = 0, cycles = scaled(110000);
    for (long i = 0; i < cycles; ++i) {
        if (i == cycles / 11) before = resident_kib();
        MPI_Op op;
        MPI_OK(MPI_Op_create(op_add_int, 1, &op));
        if (i % 1000 == 0) {
            int a = 3, b = 4;
            MPI_OK(MPI_Reduce_local(&a, &b, 1, MPI_INT, op));
            CHECK_EQ(b, 7);
        }
        MPI_OK(MPI_Op_free(&op));
    }
    CHECK_FLAT("100000 op create/free cycles", before, 2048);

    /* every reducing collective passes the user's derived type to the function */
    MPI_OK(MPI_Op_create(op_add, 1, &add));
    int recvcounts[64];
    for (int r = 0; r < size && r < 64; ++r) recvcounts[r] = 1;
    int *big = calloc((size_t)size * 2, sizeof(int)), got[2] = {0, 0};
    for (int r = 0; r < size; ++r) big[2 * r] = big[2 * r + 1] = rank + 1;
    op_seen_type = MPI_DATATYPE_NULL;
    MPI_OK(MPI_Reduce_scatter(big, got, recvcounts, pair, add, MPI_COMM_WORLD));
    CHECK_EQ(got[0], (long)size * (size + 1) / 2);
    check_op_saw(pair, 2);
    MPI_OK(MPI_Scan(mine, out, 1, pair, add, MPI_COMM_WORLD));
    CHECK_EQ(out[0], (long)(rank + 1) * (rank + 4) / 2);
    MPI_OK(MPI_Exscan(mine, out, 1, pair, add, MPI_COMM_WORLD));
    if (rank > 0) CHECK_EQ(out[0], (long)rank * (rank + 3) / 2);
    free(big);
    MPI_OK(MPI_Op_free(&add));
    MPI_OK(MPI_Type_free(&pair));
}

/* ---------------------------------------------------------------- error handlers */
static MPI_Comm errh_seen_comm;
static int errh_seen_class, errh_calls;
static void errh_record(MPI_Comm *comm, int *code, ...)
{
    errh_seen_comm = *comm;
    MPI_Error_class(*code, &errh_seen_class);
    ++errh_calls;
}
static void errh_other(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    errh_calls += 100;
}

static void test_errhandlers(void)
{
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_Errhandler eh, other;
    MPI_OK(MPI_Comm_create_errhandler(errh_record, &eh));
    MPI_OK(MPI_Comm_set_errhandler(dup, eh));
    MPI_OK(MPI_Errhandler_free(&eh)); /* still attached to dup: it stays in force */
    CHECK_HANDLE(eh, MPI_ERRHANDLER_NULL);
    MPI_OK(MPI_Comm_create_errhandler(errh_other, &other)); /* a new one does not replace it */
    errh_calls = 0;
    MPI_OK(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER));
    CHECK_EQ(errh_calls, 1);
    CHECK_HANDLE(errh_seen_comm, dup);
    CHECK_EQ(errh_seen_class, MPI_ERR_OTHER);
    MPI_OK(MPI_Comm_set_errhandler(dup, other));
    MPI_OK(MPI_Comm_call_errhandler(dup, MPI_ERR_ARG));
    CHECK_EQ(errh_calls, 101);
    MPI_OK(MPI_Errhandler_free(&other));
    MPI_OK(MPI_Comm_free(&dup));

    long before = 0, cycles = scaled(110000);
    for (long i = 0; i < cycles; ++i) {
        if (i == cycles / 11) before = resident_kib();
        MPI_OK(MPI_Comm_create_errhandler(i % 2 ? errh_record : errh_other, &eh));
        MPI_OK(MPI_Errhandler_free(&eh));
    }
    CHECK_FLAT("100000 error handler create/free cycles", before, 2048);
}

/* ---------------------------------------------------------------- attributes */
static int copies, deletes;
static void *delete_extra, *delete_value;
static int copy_attr(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)c;
    (void)kv;
    (void)extra;
    ++copies;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}
static int delete_attr(MPI_Comm c, int kv, void *value, void *extra)
{
    (void)c;
    (void)kv;
    ++deletes;
    delete_extra = extra;
    delete_value = value;
    return MPI_SUCCESS;
}
static int type_delete_attr(MPI_Datatype t, int kv, void *value, void *extra)
{
    (void)t;
    (void)kv;
    (void)value;
    (void)extra;
    ++deletes;
    return MPI_SUCCESS;
}

static void test_keyvals(void)
{
    static int extra_a, extra_b;
    /* a keyval freed while attributes use it: their delete callbacks still run, with the
     * keyval's extra_state, when the objects go; a copy made by MPI_Comm_dup is one more */
    int kv = MPI_KEYVAL_INVALID;
    MPI_OK(MPI_Comm_create_keyval(copy_attr, delete_attr, &kv, &extra_a));
    MPI_Comm a, b;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_OK(MPI_Comm_set_attr(a, kv, (void *)(intptr_t)7));
    MPI_OK(MPI_Comm_set_attr(a, kv, (void *)(intptr_t)8)); /* replaces: deletes 7 */
    CHECK_EQ(deletes, 1);
    CHECK(delete_value == (void *)(intptr_t)7);
    MPI_OK(MPI_Comm_dup(a, &b));
    CHECK_EQ(copies, 1);
    MPI_OK(MPI_Comm_free_keyval(&kv));
    CHECK_EQ(kv, MPI_KEYVAL_INVALID);
    MPI_OK(MPI_Comm_free(&a));
    CHECK_EQ(deletes, 2);
    CHECK(delete_extra == &extra_a);
    CHECK(delete_value == (void *)(intptr_t)8);
    MPI_OK(MPI_Comm_free(&b));
    CHECK_EQ(deletes, 3);
    CHECK(delete_extra == &extra_a);

    /* the predefined callbacks: MPI_COMM_DUP_FN copies, MPI_COMM_NULL_COPY_FN does not */
    int kv_dup, kv_null;
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kv_dup, &extra_b));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_attr, &kv_null, &extra_b));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_OK(MPI_Comm_set_attr(a, kv_dup, (void *)(intptr_t)42));
    MPI_OK(MPI_Comm_set_attr(a, kv_null, (void *)(intptr_t)43));
    MPI_OK(MPI_Comm_dup(a, &b));
    void *val = NULL;
    int flag = 0;
    MPI_OK(MPI_Comm_get_attr(b, kv_dup, &val, &flag));
    CHECK(flag && val == (void *)(intptr_t)42);
    MPI_OK(MPI_Comm_get_attr(b, kv_null, &val, &flag));
    CHECK_EQ(flag, 0);
    deletes = 0;
    MPI_OK(MPI_Comm_free(&a));
    MPI_OK(MPI_Comm_free(&b));
    CHECK_EQ(deletes, 1); /* only kv_null's attribute on a */
    MPI_OK(MPI_Comm_free_keyval(&kv_dup));
    MPI_OK(MPI_Comm_free_keyval(&kv_null));

    /* a type keyval whose attribute outlives it, on a derived type that is then freed */
    MPI_Datatype t;
    MPI_OK(MPI_Type_contiguous(3, MPI_INT, &t));
    MPI_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_delete_attr, &kv, NULL));
    MPI_OK(MPI_Type_set_attr(t, kv, &extra_a));
    MPI_OK(MPI_Type_free_keyval(&kv));
    deletes = 0;
    MPI_OK(MPI_Type_free(&t));
    CHECK_EQ(deletes, 1);

    /* a million create/free cycles, and attributes set and deleted in a loop: memory flat */
    long before = 0, cycles = scaled(1010000);
    for (long i = 0; i < cycles; ++i) {
        if (i == cycles / 101) before = resident_kib();
        MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv, NULL));
        MPI_OK(MPI_Comm_free_keyval(&kv));
    }
    CHECK_FLAT("1000000 keyval create/free cycles", before, 2048);
    MPI_OK(MPI_Comm_create_keyval(copy_attr, delete_attr, &kv, NULL));
    deletes = 0;
    cycles = scaled(110000);
    for (long i = 0; i < cycles; ++i) {
        if (i == cycles / 11) before = resident_kib();
        MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, kv, (void *)(intptr_t)i));
        MPI_OK(MPI_Comm_delete_attr(MPI_COMM_SELF, kv));
    }
    CHECK_EQ(deletes, cycles);
    CHECK_FLAT("100000 attribute set/delete cycles", before, 2048);
    MPI_OK(MPI_Comm_free_keyval(&kv));
}

/* ---------------------------------------------------------------- generalized requests */
static int greq_frees;
static int greq_query(void *extra, MPI_Status *st)
{
    MPI_Status_set_elements(st, MPI_BYTE, *(int *)extra);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = 5;
    st->MPI_TAG = 6;
    return MPI_SUCCESS;
}
static int greq_free(void *extra)
{
    (void)extra;
    ++greq_frees;
    return MPI_SUCCESS;
}
static int greq_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

static void test_grequests(void)
{
    int bytes = 24;
    long before = 0;
    for (int i = 0; i < 20000; ++i) {
        if (i == 10000) before = resident_kib();
        MPI_Request r;
        MPI_OK(MPI_Grequest_start(greq_query, greq_free, greq_cancel, &bytes, &r));
        MPI_OK(MPI_Grequest_complete(r));
        MPI_Status st;
        MPI_OK(MPI_Wait(&r, &st));
        if (i % 1000 == 0) {
            int n = -1;
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
            CHECK_EQ(n, bytes);
            CHECK_EQ(st.MPI_SOURCE, 5);
            CHECK_EQ(st.MPI_TAG, 6);
            CHECK_HANDLE(r, MPI_REQUEST_NULL);
        }
    }
    CHECK_EQ(greq_frees, 20000);
    CHECK_FLAT("10000 generalized requests", before, 1024);
}

/* ---------------------------------------------------------------- staged arrays */
/* Overwrites the stack below the caller's frame: whatever a callee left there is gone. */
static void __attribute__((noinline)) scribble_stack(void)
{
    volatile char junk[64 * 1024];
    memset((char *)junk, 0xA5, sizeof junk);
}

/* Each peer gets block r of `in` as a vector of 2 ints (stride 2), one per peer. */
static int *alltoallw_in, *alltoallw_out;
static int *w_counts, *w_displs;
static MPI_Datatype *w_types;

/* The program's own arrays live until completion, as the standard requires; what anympi
 * converted them into is its business, and dies with the caller's frame if kept there. */
static void __attribute__((noinline)) post_ialltoallw(const int *in, int *out, MPI_Request *req)
{
    MPI_OK(MPI_Ialltoallw(in, w_counts, w_displs, w_types, out, w_counts, w_displs, w_types, MPI_COMM_WORLD, req));
}

static MPI_Comm ring;
static MPI_Datatype ring_type;
static int ring_out[4], ring_in[4];
static int ring_counts[2] = {1, 1};
static MPI_Aint ring_displs[2] = {0, 2 * sizeof(int)};
static MPI_Datatype ring_types[2];
static void __attribute__((noinline)) post_ineighbor_alltoallw(MPI_Request *req)
{
    ring_types[0] = ring_types[1] = ring_type;
    MPI_OK(MPI_Ineighbor_alltoallw(ring_out, ring_counts, ring_displs, ring_types, ring_in, ring_counts, ring_displs,
                                   ring_types, ring, req));
}
#if MPI_VERSION >= 4
static int __attribute__((noinline)) post_alltoallw_init(MPI_Request *req)
{
    return MPI_Alltoallw_init(alltoallw_in, w_counts, w_displs, w_types, alltoallw_out, w_counts, w_displs, w_types,
                              MPI_COMM_WORLD, MPI_INFO_NULL, req);
}
#endif

static void check_alltoallw_result(int round)
{
    for (int r = 0; r < size; ++r) {
        CHECK_EQ(alltoallw_out[4 * r], 1000 * r + 10 * rank + round);
        CHECK_EQ(alltoallw_out[4 * r + 2], 1000 * r + 10 * rank + round + 1);
        CHECK_EQ(alltoallw_out[4 * r + 1], -1); /* the gaps of the vector are untouched */
    }
}

static void fill_alltoallw(int round)
{
    for (int r = 0; r < size; ++r) {
        alltoallw_in[4 * r] = 1000 * rank + 10 * r + round;
        alltoallw_in[4 * r + 2] = 1000 * rank + 10 * r + round + 1;
        alltoallw_in[4 * r + 1] = alltoallw_in[4 * r + 3] = -2;
    }
    for (int i = 0; i < 4 * size; ++i) alltoallw_out[i] = -1;
}

static void test_staged_arrays(void)
{
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    alltoallw_in = malloc(sizeof(int) * 4 * (size_t)size);
    alltoallw_out = malloc(sizeof(int) * 4 * (size_t)size);
    w_counts = malloc(sizeof(int) * (size_t)size);
    w_displs = malloc(sizeof(int) * (size_t)size);
    w_types = malloc(sizeof(MPI_Datatype) * (size_t)size);
    for (int r = 0; r < size; ++r) {
        w_counts[r] = 1;
        w_displs[r] = (int)(4 * r * sizeof(int));
        w_types[r] = vec;
    }
    /* ten thousand rounds (LeakSanitizer's loop under the sanitizer build, resident memory
     * here); four oversubscribed ranks make each one slow, so fewer there */
    const int rounds = size <= 2 ? 10000 : 300;
    long before = 0;
    for (int round = 0; round < rounds; ++round) {
        if (round == 1000) before = resident_kib();
        fill_alltoallw(round);
        MPI_Request req = MPI_REQUEST_NULL;
        post_ialltoallw(alltoallw_in, alltoallw_out, &req);
        scribble_stack();
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK_HANDLE(req, MPI_REQUEST_NULL);
        if (round % 500 == 0) check_alltoallw_result(round);
    }
    if (rounds > 1000) CHECK_FLAT("9000 MPI_Ialltoallw", before, 128);

    MPI_Request req = MPI_REQUEST_NULL;
    /* a neighbourhood exchange on a ring, with the topology's in- and out-degree (2 each):
     * block 0 goes to / comes from the left neighbour, block 1 the right one */
    int dims[1] = {size}, periods[1] = {1};
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &ring_type));
    MPI_OK(MPI_Type_commit(&ring_type));
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (int round = 0; round < 100; ++round) {
        for (int j = 0; j < 2; ++j) {
            ring_out[2 * j] = 1000 * rank + 100 * round + j;
            ring_out[2 * j + 1] = 1000 * rank + 100 * round + j + 10;
        }
        for (int i = 0; i < 4; ++i) ring_in[i] = -1;
        req = MPI_REQUEST_NULL;
        post_ineighbor_alltoallw(&req);
        scribble_stack();
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        /* with one or two ranks both neighbours are one process, and which of its two
         * blocks lands where is the MPI's choice */
        int from_left = 1000 * left + 100 * round + 1, from_right = 1000 * right + 100 * round;
        int swapped = left == right && ring_in[0] == from_right;
        CHECK_EQ(ring_in[0], swapped ? from_right : from_left);
        CHECK_EQ(ring_in[1], (swapped ? from_right : from_left) + 10);
        CHECK_EQ(ring_in[2], swapped ? from_left : from_right);
        CHECK_EQ(ring_in[3], (swapped ? from_left : from_right) + 10);
    }
    MPI_OK(MPI_Type_free(&ring_type));
    MPI_OK(MPI_Comm_free(&ring));

#if MPI_VERSION >= 4
    /* persistent: the arrays are read at every start, until the request is freed */
    req = MPI_REQUEST_NULL;
    int rc = post_alltoallw_init(&req);
    if (!check_mpi4_unsupported(rc, "MPI_Alltoallw_init")) {
        MPI_OK(rc);
        for (int round = 0; round < 3; ++round) {
            fill_alltoallw(20 + round);
            scribble_stack();
            MPI_OK(MPI_Start(&req));
            scribble_stack();
            MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            check_alltoallw_result(20 + round);
        }
        MPI_OK(MPI_Request_free(&req));
    }
#endif
    MPI_OK(MPI_Type_free(&vec));
    free(alltoallw_in);
    free(alltoallw_out);
    free(w_counts);
    free(w_displs);
    free(w_types);
}

/* ---------------------------------------------------------------- every handle kind */
/* Each kind of object made and freed in a loop: under the sanitizer build LeakSanitizer and
 * AddressSanitizer watch anympi's side of each; here resident memory does. */
static void test_handle_kinds(void)
{
    long before = 0, cycles = 10000;
    for (long i = 0; i < cycles; ++i) {
        if (i == cycles / 10) before = resident_kib();
        MPI_Comm c, s;
        MPI_OK(MPI_Comm_dup(MPI_COMM_SELF, &c));
        MPI_OK(MPI_Comm_split(c, 0, 0, &s));
        MPI_Group g, g1;
        MPI_OK(MPI_Comm_group(s, &g));
        int zero = 0;
        MPI_OK(MPI_Group_incl(g, 1, &zero, &g1));
        MPI_Datatype t, v;
        MPI_OK(MPI_Type_vector(2, 1, 3, MPI_INT, &t));
        MPI_OK(MPI_Type_create_resized(t, 0, 16, &v));
        MPI_OK(MPI_Type_commit(&v));
        MPI_Info info, info2;
        MPI_OK(MPI_Info_create(&info));
        MPI_OK(MPI_Info_set(info, "anympi_key", "value"));
        MPI_OK(MPI_Info_dup(info, &info2));
        /* a matched message and a request, to itself */
        int out[6] = {1, 2, 3, 4, 5, 6}, in[6] = {0};
        MPI_Request r;
        MPI_OK(MPI_Isend(out, 1, v, 0, 5, s, &r));
        MPI_Message m = MPI_MESSAGE_NULL;
        MPI_Status st;
        MPI_OK(MPI_Mprobe(0, 5, s, &m, &st));
        MPI_OK(MPI_Mrecv(in, 1, v, &m, &st));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        if (i % 1000 == 0) CHECK(in[0] == 1 && in[3] == 4 && in[1] == 0 && m == MPI_MESSAGE_NULL);
        MPI_OK(MPI_Info_free(&info2));
        MPI_OK(MPI_Info_free(&info));
        MPI_OK(MPI_Type_free(&v));
        MPI_OK(MPI_Type_free(&t));
        MPI_OK(MPI_Group_free(&g1));
        MPI_OK(MPI_Group_free(&g));
        MPI_OK(MPI_Comm_free(&s));
        MPI_OK(MPI_Comm_free(&c));
    }
    CHECK_FLAT("10000 rounds of communicators, groups, types, infos, messages", before, 1024);

    /* windows and files are slower to make: fewer rounds */
    for (long i = 0; i < scaled(200); ++i) {
        int buf[4];
        MPI_Win w;
        MPI_OK(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF, &w));
        MPI_OK(MPI_Win_fence(0, w));
        MPI_OK(MPI_Win_fence(0, w));
        MPI_OK(MPI_Win_free(&w));
        CHECK_HANDLE(w, MPI_WIN_NULL);
    }
    char path[64];
    snprintf(path, sizeof path, "/tmp/anympi_lifetimes_%d_%d", (int)getpid(), rank);
    for (long i = 0; i < scaled(20); ++i) {
        MPI_File f;
        MPI_OK(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                             MPI_INFO_NULL, &f));
        MPI_OK(MPI_File_close(&f));
        CHECK_HANDLE(f, MPI_FILE_NULL);
    }
#if MPI_VERSION >= 4
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN)); /* where an unsupported one goes */
    for (long i = 0; i < scaled(20); ++i) {
        MPI_Session session = MPI_SESSION_NULL;
        MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session)); /* anympi's own on Open MPI 4.1 */
        MPI_OK(MPI_Session_finalize(&session));
        CHECK_HANDLE(session, MPI_SESSION_NULL);
    }
#endif
}

/* ---------------------------------------------------------------- a million cycles */
/* Each handle kind made and freed a million times (files ten thousand: each open and close
 * is a file system round trip) with resident memory measured: a few bytes a cycle left in
 * anympi's bookkeeping, which shorter loops hide, grow past the limit here (a 24-byte leak
 * put into MPI_Type_free to check grew it by 31 MB).  Leaking is a property of one process,
 * so this runs in the one-rank runs only; not under the sanitizers, whose leak checks stand
 * in for it and whose slowdown would make it minutes long. */
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
static MPI_Group world_group;
static char cycle_path[64];

static void cycle_datatype(void)
{
    MPI_Datatype t;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    MPI_OK(MPI_Type_free(&t));
    CHECK_HANDLE(t, MPI_DATATYPE_NULL);
}
static void cycle_info(void)
{
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_free(&info));
    CHECK_HANDLE(info, MPI_INFO_NULL);
}
static void cycle_group(void)
{
    MPI_Group g;
    MPI_OK(MPI_Group_incl(world_group, 1, &rank, &g));
    MPI_OK(MPI_Group_free(&g));
    CHECK_HANDLE(g, MPI_GROUP_NULL);
}
static void cycle_comm(void)
{
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_SELF, &c));
    MPI_OK(MPI_Comm_free(&c));
    CHECK_HANDLE(c, MPI_COMM_NULL);
}
static void cycle_request_and_message(void)
{
    int out = 7, in = 0;
    MPI_Request r;
    MPI_Message m;
    MPI_Status st;
    MPI_OK(MPI_Isend(&out, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &r));
    MPI_OK(MPI_Mprobe(0, 9, MPI_COMM_SELF, &m, &st));
    MPI_OK(MPI_Mrecv(&in, 1, MPI_INT, &m, &st));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(in == 7 && r == MPI_REQUEST_NULL && m == MPI_MESSAGE_NULL);
}
static void cycle_op(void)
{
    MPI_Op op;
    MPI_OK(MPI_Op_create(op_add_int, 1, &op));
    MPI_OK(MPI_Op_free(&op));
    CHECK_HANDLE(op, MPI_OP_NULL);
}
static void cycle_errhandler(void)
{
    MPI_Errhandler eh;
    MPI_OK(MPI_Comm_create_errhandler(errh_other, &eh));
    MPI_OK(MPI_Errhandler_free(&eh));
    CHECK_HANDLE(eh, MPI_ERRHANDLER_NULL);
}
static void cycle_win(void)
{
    int buf[2];
    MPI_Win w;
    MPI_OK(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF, &w));
    MPI_OK(MPI_Win_free(&w));
    CHECK_HANDLE(w, MPI_WIN_NULL);
}
static void cycle_file(void)
{
    MPI_File f;
    MPI_OK(MPI_File_open(MPI_COMM_SELF, cycle_path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &f));
    MPI_OK(MPI_File_close(&f));
    CHECK_HANDLE(f, MPI_FILE_NULL);
}
#if MPI_VERSION >= 4
static void cycle_session(void)
{
    MPI_Session s = MPI_SESSION_NULL;
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_OK(MPI_Session_finalize(&s));
    CHECK_HANDLE(s, MPI_SESSION_NULL);
}
#endif

/* The first hundredth of the cycles warms up (the allocators and the MPI's own pools reach
 * their steady state), the rest may not grow resident memory by more than 2 MiB. */
static void cycles_flat(const char *kind, void (*cycle)(void), long cycles)
{
    long before = 0;
    for (long i = 0; i < cycles; ++i) {
        if (i == cycles / 101) before = resident_kib();
        cycle();
    }
    const long grown = resident_kib() - before;
    CHECK_MSG(grown <= 2048, "%ld %s create/free cycles: resident memory grew by %ld KiB", cycles, kind, grown);
}

static void test_million_cycles(void)
{
    if (size != 1) return;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    snprintf(cycle_path, sizeof cycle_path, "/tmp/anympi_cycles_%d", (int)getpid());
    cycles_flat("datatype", cycle_datatype, 1010000);
    cycles_flat("info", cycle_info, 1010000);
    cycles_flat("group", cycle_group, 1010000);
    cycles_flat("communicator", cycle_comm, 1010000);
    cycles_flat("request and message", cycle_request_and_message, 1010000);
    cycles_flat("op", cycle_op, 1010000);
    cycles_flat("error handler", cycle_errhandler, 1010000);
    cycles_flat("window", cycle_win, 1010000);
    cycles_flat("file", cycle_file, 10100);
#if MPI_VERSION >= 4
    cycles_flat("session", cycle_session, 1010000);
#endif
    MPI_OK(MPI_Group_free(&world_group));
}
#else
static void test_million_cycles(void) {}
#endif

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "lifetimes");
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    test_ops();
    test_distinct_ops();
    test_errhandlers();
    test_keyvals();
    test_grequests();
    test_staged_arrays();
    test_handle_kinds();
    test_million_cycles();
    return check_finish();
}
