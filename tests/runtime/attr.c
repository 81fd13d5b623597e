/* Attributes: predefined attributes of MPI_COMM_WORLD (MPI_TAG_UB, MPI_HOST,
 * MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_APPNUM, MPI_UNIVERSE_SIZE), keyvals with
 * copy/delete callbacks on communicators and datatypes, the predefined
 * MPI_COMM_NULL_COPY_FN / MPI_COMM_DUP_FN, delete_attr, free_keyval. */
#include "check.h"

static int rank, size;

/* What the callbacks saw. */
static int copies, deletes, extra_ok, comm_ok;
static MPI_Comm expected_old;
static int expected_keyval;
static int extra_token = 77;

static int copy_cb(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    ++copies;
    if (extra == &extra_token) ++extra_ok;
    if (oldcomm == expected_old && keyval == expected_keyval) ++comm_ok;
    /* The copy carries value + 1 so the test can tell it was us. */
    *(void **)out = (void *)((char *)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)value;
    ++deletes;
    if (extra == &extra_token && keyval == expected_keyval) ++extra_ok;
    return MPI_SUCCESS;
}

static int type_copies, type_deletes;
static MPI_Datatype expected_type;
static int type_copy_cb(MPI_Datatype old, int keyval, void *extra, void *in, void *out,
                        int *flag)
{
    (void)keyval;
    (void)extra;
    if (old == expected_type) ++type_copies;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}
static int type_delete_cb(MPI_Datatype t, int keyval, void *value, void *extra)
{
    (void)t;
    (void)keyval;
    (void)value;
    (void)extra;
    ++type_deletes;
    return MPI_SUCCESS;
}

static void test_predefined(void)
{
    int *value = NULL, flag = 0;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag));
    CHECK_EQ(flag, 1);
    if (flag && value) {
        CHECK_MSG(*value >= 32767, "MPI_TAG_UB = %d", *value);
        /* The largest tag works. */
        int out = 5, in = 0;
        MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, rank, *value, &in, 1, MPI_INT, rank, *value,
                            MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_EQ(in, 5);
    }
    flag = 0;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &value, &flag));
    CHECK_EQ(flag, 1);
    if (flag && value)
        CHECK_MSG(*value == MPI_PROC_NULL || (*value >= 0 && *value < size), "MPI_HOST = %d",
                  *value);
    flag = 0;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &value, &flag));
    CHECK_EQ(flag, 1);
    if (flag && value)
        CHECK_MSG(*value == MPI_ANY_SOURCE || *value == MPI_PROC_NULL ||
                      (*value >= 0 && *value < size),
                  "MPI_IO = %d", *value);
    flag = 0;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &value, &flag));
    if (flag && value) CHECK_MSG(*value == 0 || *value == 1, "MPI_WTIME_IS_GLOBAL = %d", *value);
    flag = 0;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &value, &flag));
    if (flag && value) CHECK_EQ(*value, 0); /* one application under mpiexec */
    flag = 0;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &value, &flag));
    if (flag && value) CHECK_MSG(*value >= 1, "MPI_UNIVERSE_SIZE = %d", *value);

    /* The predefined attributes are the same on every rank. */
    flag = 0;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag));
    int ub = flag && value ? *value : -1, ub0 = ub;
    MPI_OK(MPI_Bcast(&ub0, 1, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK_EQ(ub, ub0);
}

static void test_comm_keyvals(void)
{
    int key = MPI_KEYVAL_INVALID;
    MPI_OK(MPI_Comm_create_keyval(copy_cb, delete_cb, &key, &extra_token));
    CHECK(key != MPI_KEYVAL_INVALID);
    expected_keyval = key;

    MPI_Comm a;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    static char payload[8];
    MPI_OK(MPI_Comm_set_attr(a, key, payload));
    void *got = NULL;
    int flag = 0;
    MPI_OK(MPI_Comm_get_attr(a, key, &got, &flag));
    CHECK_EQ(flag, 1);
    CHECK(got == payload);

    /* Dup calls the copy callback with the old communicator. */
    expected_old = a;
    MPI_Comm b;
    MPI_OK(MPI_Comm_dup(a, &b));
    CHECK_EQ(copies, 1);
    CHECK_EQ(comm_ok, 1);
    got = NULL;
    flag = 0;
    MPI_OK(MPI_Comm_get_attr(b, key, &got, &flag));
    CHECK_EQ(flag, 1);
    CHECK(got == payload + 1);

    /* Replacing an attribute deletes the old value. */
    MPI_OK(MPI_Comm_set_attr(b, key, payload + 2));
    CHECK_EQ(deletes, 1);
    MPI_OK(MPI_Comm_delete_attr(b, key));
    CHECK_EQ(deletes, 2);
    flag = 1;
    MPI_OK(MPI_Comm_get_attr(b, key, &got, &flag));
    CHECK_EQ(flag, 0);

    /* Free calls delete for what is still attached. */
    MPI_OK(MPI_Comm_free(&b));
    CHECK_EQ(deletes, 2);
    MPI_OK(MPI_Comm_free(&a));
    CHECK_EQ(deletes, 3);
    CHECK_EQ(extra_ok, 1 + 3);
    MPI_OK(MPI_Comm_free_keyval(&key));
    CHECK(key == MPI_KEYVAL_INVALID);

    /* The predefined copy functions. */
    int knull, kdup;
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &knull, NULL));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kdup, NULL));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_OK(MPI_Comm_set_attr(a, knull, payload));
    MPI_OK(MPI_Comm_set_attr(a, kdup, payload + 3));
    MPI_OK(MPI_Comm_dup(a, &b));
    flag = 1;
    MPI_OK(MPI_Comm_get_attr(b, knull, &got, &flag));
    CHECK_EQ(flag, 0);
    flag = 0;
    MPI_OK(MPI_Comm_get_attr(b, kdup, &got, &flag));
    CHECK_EQ(flag, 1);
    CHECK(got == payload + 3);
    MPI_OK(MPI_Comm_free(&b));
    MPI_OK(MPI_Comm_free(&a));
    MPI_OK(MPI_Comm_free_keyval(&knull));
    MPI_OK(MPI_Comm_free_keyval(&kdup));

    /* Attributes on MPI_COMM_WORLD itself. */
    int kw;
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kw, NULL));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, kw, payload + 4));
    flag = 0;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, kw, &got, &flag));
    CHECK_EQ(flag, 1);
    CHECK(got == payload + 4);
    MPI_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, kw));
    MPI_OK(MPI_Comm_free_keyval(&kw));
}

static void test_type_keyvals(void)
{
    int key;
    MPI_OK(MPI_Type_create_keyval(type_copy_cb, type_delete_cb, &key, NULL));
    MPI_Datatype t, d;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    static int payload;
    MPI_OK(MPI_Type_set_attr(t, key, &payload));
    expected_type = t;
    MPI_OK(MPI_Type_dup(t, &d));
    CHECK_EQ(type_copies, 1);
    void *got = NULL;
    int flag = 0;
    MPI_OK(MPI_Type_get_attr(d, key, &got, &flag));
    CHECK_EQ(flag, 1);
    CHECK(got == &payload);
    MPI_OK(MPI_Type_free(&d));
    CHECK_EQ(type_deletes, 1);
    MPI_OK(MPI_Type_delete_attr(t, key));
    CHECK_EQ(type_deletes, 2);
    MPI_OK(MPI_Type_free(&t));
    CHECK_EQ(type_deletes, 2);
    MPI_OK(MPI_Type_free_keyval(&key));
    CHECK(key == MPI_KEYVAL_INVALID);
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "attr");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_predefined();
    test_comm_keyvals();
    test_type_keyvals();
    return check_finish();
}
