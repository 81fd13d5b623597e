/* Attribute values pass through untouched: a user keyval's value is the caller's void *,
 * whatever it holds -- 0, 1, 42 (plain integers stored as the value, legal and common), a real
 * pointer, a pointer to an int whose value looks like a native constant -- set and got back
 * identical on communicators, datatypes and windows, through MPI_Comm_dup / MPI_Type_dup with
 * the predefined *_DUP_FN, and through the deprecated MPI_Keyval_create / MPI_Attr_put /
 * MPI_Attr_get.  Only the predefined attributes, whose values the standard defines, are
 * converted: every one is read back with a sane value in the standard's numbering
 * (MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_APPNUM, MPI_UNIVERSE_SIZE, and
 * MPI_WIN_BASE/SIZE/DISP_UNIT/CREATE_FLAVOR/MODEL for each window flavour). */
#include "check.h"

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* MPI_Attr_get and friends, on purpose */
#endif

static int rank, size;

/* The values under test: plain integers and real pointers. */
static int object[4];
static int looks_like[8] = {-1, -2, -3, -4, 0, 1, 2, 3}; /* sentinels of one MPI or another */
#define NVALUES (4 + 8)
static void *value_at(int i)
{
    switch (i) {
    case 0: return (void *)0;
    case 1: return (void *)1;
    case 2: return (void *)42;
    case 3: return (void *)object;
    default: return (void *)&looks_like[i - 4];
    }
}
static void expect_looks_like_intact(int line)
{
    static const int expected[8] = {-1, -2, -3, -4, 0, 1, 2, 3};
    for (int i = 0; i < 8; ++i)
        CHECK_MSG(looks_like[i] == expected[i], "line %d: looks_like[%d] = %d", line, i, looks_like[i]);
}

/* What the delete callbacks were handed. */
static void *deleted_value;
static int deletes;
static int comm_delete(MPI_Comm c, int keyval, void *value, void *extra)
{
    (void)c; (void)keyval; (void)extra;
    deleted_value = value;
    ++deletes;
    return MPI_SUCCESS;
}
static int type_delete(MPI_Datatype t, int keyval, void *value, void *extra)
{
    (void)t; (void)keyval; (void)extra;
    deleted_value = value;
    ++deletes;
    return MPI_SUCCESS;
}
static int win_delete(MPI_Win w, int keyval, void *value, void *extra)
{
    (void)w; (void)keyval; (void)extra;
    deleted_value = value;
    ++deletes;
    return MPI_SUCCESS;
}

static void test_comm_values(void)
{
    /* Several keyvals, so their numbers spread over the keyval range. */
    enum { NKEYS = 6 };
    int keys[NKEYS];
    for (int k = 0; k < NKEYS; ++k)
        MPI_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, comm_delete, &keys[k], NULL));
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    for (int i = 0; i < NVALUES; ++i) {
        void *v = value_at(i);
        for (int k = 0; k < NKEYS; ++k) {
            MPI_OK(MPI_Comm_set_attr(c, keys[k], v));
            void *got = (void *)0x5a5a;
            int flag = -1;
            MPI_OK(MPI_Comm_get_attr(c, keys[k], &got, &flag));
            CHECK_EQ(flag, 1);
            CHECK_MSG(got == v, "value %d, keyval %d: Comm_get_attr gave %p, set %p", i, k, got, v);
        }
        /* The duplicate carries the very same values (MPI_COMM_DUP_FN). */
        MPI_Comm d;
        MPI_OK(MPI_Comm_dup(c, &d));
        for (int k = 0; k < NKEYS; ++k) {
            void *got = (void *)0x5a5a;
            int flag = -1;
            MPI_OK(MPI_Comm_get_attr(d, keys[k], &got, &flag));
            CHECK_EQ(flag, 1);
            CHECK_MSG(got == v, "value %d, keyval %d: after Comm_dup got %p, set %p", i, k, got, v);
        }
        /* Deleting hands the value to the delete callback unchanged. */
        deletes = 0;
        deleted_value = (void *)0x5a5a;
        MPI_OK(MPI_Comm_delete_attr(d, keys[0]));
        CHECK_EQ(deletes, 1);
        CHECK_MSG(deleted_value == v, "value %d: delete callback got %p", i, deleted_value);
        int flag = -1;
        void *got = NULL;
        MPI_OK(MPI_Comm_get_attr(d, keys[0], &got, &flag));
        CHECK_EQ(flag, 0);
        MPI_OK(MPI_Comm_free(&d));
        CHECK_EQ(deletes, NKEYS);
    }
    /* On MPI_COMM_WORLD itself. */
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, keys[1], (void *)42));
    void *got = NULL;
    int flag = -1;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, keys[1], &got, &flag));
    CHECK_EQ(flag, 1);
    CHECK(got == (void *)42);
    MPI_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, keys[1]));
    MPI_OK(MPI_Comm_free(&c));
    for (int k = 0; k < NKEYS; ++k) MPI_OK(MPI_Comm_free_keyval(&keys[k]));
    expect_looks_like_intact(__LINE__);
}

/* The deprecated MPI-1 interface: same values, same semantics. */
static void test_deprecated(void)
{
    int key = MPI_KEYVAL_INVALID;
    MPI_OK(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &key, NULL));
    CHECK(key != MPI_KEYVAL_INVALID);
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    for (int i = 0; i < NVALUES; ++i) {
        void *v = value_at(i);
        MPI_OK(MPI_Attr_put(c, key, v));
        void *got = (void *)0x5a5a;
        int flag = -1;
        MPI_OK(MPI_Attr_get(c, key, &got, &flag));
        CHECK_EQ(flag, 1);
        CHECK_MSG(got == v, "value %d: Attr_get gave %p, put %p", i, got, v);
        /* The MPI-2 getter sees the same value. */
        got = (void *)0x5a5a;
        MPI_OK(MPI_Comm_get_attr(c, key, &got, &flag));
        CHECK(got == v);
        MPI_Comm d;
        MPI_OK(MPI_Comm_dup(c, &d));
        got = (void *)0x5a5a;
        flag = -1;
        MPI_OK(MPI_Attr_get(d, key, &got, &flag));
        CHECK_EQ(flag, 1);
        CHECK_MSG(got == v, "value %d: Attr_get after Comm_dup gave %p, put %p", i, got, v);
        MPI_OK(MPI_Attr_delete(d, key));
        flag = -1;
        MPI_OK(MPI_Attr_get(d, key, &got, &flag));
        CHECK_EQ(flag, 0);
        MPI_OK(MPI_Comm_free(&d));
    }
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Keyval_free(&key));
    CHECK(key == MPI_KEYVAL_INVALID);
}

static void test_type_values(void)
{
    int key;
    MPI_OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, type_delete, &key, NULL));
    MPI_Datatype t;
    MPI_OK(MPI_Type_contiguous(3, MPI_INT, &t));
    for (int i = 0; i < NVALUES; ++i) {
        void *v = value_at(i);
        MPI_OK(MPI_Type_set_attr(t, key, v));
        void *got = (void *)0x5a5a;
        int flag = -1;
        MPI_OK(MPI_Type_get_attr(t, key, &got, &flag));
        CHECK_EQ(flag, 1);
        CHECK_MSG(got == v, "value %d: Type_get_attr gave %p, set %p", i, got, v);
        MPI_Datatype d;
        MPI_OK(MPI_Type_dup(t, &d));
        got = (void *)0x5a5a;
        flag = -1;
        MPI_OK(MPI_Type_get_attr(d, key, &got, &flag));
        CHECK_EQ(flag, 1);
        CHECK_MSG(got == v, "value %d: after Type_dup got %p, set %p", i, got, v);
        deletes = 0;
        deleted_value = (void *)0x5a5a;
        MPI_OK(MPI_Type_free(&d));
        CHECK_EQ(deletes, 1);
        CHECK_MSG(deleted_value == v, "value %d: type delete callback got %p", i, deleted_value);
    }
    MPI_OK(MPI_Type_delete_attr(t, key));
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_free_keyval(&key));
    expect_looks_like_intact(__LINE__);
}

static void test_win_values(void)
{
    int key;
    MPI_OK(MPI_Win_create_keyval(MPI_WIN_DUP_FN, win_delete, &key, NULL));
    int mem[4];
    MPI_Win w;
    MPI_OK(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    for (int i = 0; i < NVALUES; ++i) {
        void *v = value_at(i);
        MPI_OK(MPI_Win_set_attr(w, key, v));
        void *got = (void *)0x5a5a;
        int flag = -1;
        MPI_OK(MPI_Win_get_attr(w, key, &got, &flag));
        CHECK_EQ(flag, 1);
        CHECK_MSG(got == v, "value %d: Win_get_attr gave %p, set %p", i, got, v);
    }
    deletes = 0;
    MPI_OK(MPI_Win_free(&w));
    CHECK_EQ(deletes, 1);
    CHECK(deleted_value == value_at(NVALUES - 1));
    MPI_OK(MPI_Win_free_keyval(&key));
    expect_looks_like_intact(__LINE__);
}

/* ---------------------------------------------------------------- predefined attributes */
static int *get_int_attr(int keyval, const char *name)
{
    int *v = NULL, flag = -1;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &v, &flag));
    CHECK_MSG(flag == 1 && v != NULL, "%s: flag %d, value pointer %p", name, flag, (void *)v);
    return flag == 1 ? v : NULL;
}

static void test_comm_predefined(void)
{
    int *v = get_int_attr(MPI_TAG_UB, "MPI_TAG_UB");
    if (v) CHECK_MSG(*v >= 32767, "MPI_TAG_UB = %d", *v);
    if (v) {
        /* the largest tag works */
        int out = 7, in = 0;
        MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, rank, *v, &in, 1, MPI_INT, rank, *v, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_EQ(in, 7);
    }
    v = get_int_attr(MPI_HOST, "MPI_HOST");
    if (v) CHECK_MSG(*v == MPI_PROC_NULL || (*v >= 0 && *v < size), "MPI_HOST = %d", *v);
    v = get_int_attr(MPI_IO, "MPI_IO");
    if (v) CHECK_MSG(*v == MPI_ANY_SOURCE || *v == MPI_PROC_NULL || (*v >= 0 && *v < size), "MPI_IO = %d", *v);
    /* Both MPIs: every process can do I/O. */
    if (v) CHECK_EQ(*v, MPI_ANY_SOURCE);
    v = get_int_attr(MPI_WTIME_IS_GLOBAL, "MPI_WTIME_IS_GLOBAL");
    if (v) CHECK_MSG(*v == 0 || *v == 1, "MPI_WTIME_IS_GLOBAL = %d", *v);
    v = get_int_attr(MPI_APPNUM, "MPI_APPNUM");
    if (v) CHECK_EQ(*v, 0);
    /* Optional in the standard: MPICH 4.0.2 under its Hydra launcher has none, Open MPI has. */
    int flag = -1;
    v = NULL;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag));
    CHECK_EQ(flag, check_under() == CHECK_UNDER_OPENMPI);
    if (flag == 1 && v) CHECK_MSG(*v >= 1, "MPI_UNIVERSE_SIZE = %d", *v); /* the slots: may be < size when oversubscribed */
    v = get_int_attr(MPI_LASTUSEDCODE, "MPI_LASTUSEDCODE");
    if (v) CHECK_MSG(*v >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE = %d", *v);

    /* The same through the deprecated getter. */
    int *w = NULL;
    flag = -1;
    MPI_OK(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &w, &flag));
    CHECK_EQ(flag, 1);
    v = get_int_attr(MPI_TAG_UB, "MPI_TAG_UB");
    if (flag == 1 && w && v) CHECK_EQ(*w, *v);
    w = NULL;
    MPI_OK(MPI_Attr_get(MPI_COMM_WORLD, MPI_IO, &w, &flag));
    CHECK_EQ(flag, 1);
    if (flag == 1 && w) CHECK_EQ(*w, MPI_ANY_SOURCE);

    /* Both MPIs answer the predefined keys on any communicator, with MPI_COMM_WORLD's values. */
    MPI_Comm d;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    const int keys[] = {MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_APPNUM};
    for (int k = 0; k < (int)(sizeof keys / sizeof keys[0]); ++k) {
        flag = -1;
        w = NULL;
        MPI_OK(MPI_Comm_get_attr(d, keys[k], &w, &flag));
        CHECK_EQ(flag, 1);
        v = get_int_attr(keys[k], "a predefined key");
        if (flag == 1 && w && v) CHECK_MSG(*w == *v, "key %d: %d on a duplicate, %d on MPI_COMM_WORLD", keys[k], *w, *v);
    }
    MPI_OK(MPI_Comm_free(&d));
}

static void expect_win_attrs(MPI_Win w, void *base, MPI_Aint bytes, int disp_unit, int flavor, const char *what)
{
    void *b = (void *)0x5a5a;
    MPI_Aint *sz = NULL;
    int *du = NULL, *fl = NULL, *model = NULL, flag = -1;
    MPI_OK(MPI_Win_get_attr(w, MPI_WIN_BASE, &b, &flag));
    CHECK_EQ(flag, 1);
    CHECK_MSG(b == base, "%s: MPI_WIN_BASE %p, created at %p", what, b, base);
    flag = -1;
    MPI_OK(MPI_Win_get_attr(w, MPI_WIN_SIZE, &sz, &flag));
    CHECK_EQ(flag, 1);
    if (flag == 1 && sz) CHECK_MSG(*sz == bytes, "%s: MPI_WIN_SIZE %lld, created %lld", what, (long long)*sz, (long long)bytes);
    flag = -1;
    MPI_OK(MPI_Win_get_attr(w, MPI_WIN_DISP_UNIT, &du, &flag));
    CHECK_EQ(flag, 1);
    if (flag == 1 && du) CHECK_MSG(*du == disp_unit, "%s: MPI_WIN_DISP_UNIT %d, created %d", what, *du, disp_unit);
    flag = -1;
    MPI_OK(MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, &fl, &flag));
    CHECK_EQ(flag, 1);
    if (flag == 1 && fl) CHECK_MSG(*fl == flavor, "%s: MPI_WIN_CREATE_FLAVOR %d, expected %d", what, *fl, flavor);
    flag = -1;
    MPI_OK(MPI_Win_get_attr(w, MPI_WIN_MODEL, &model, &flag));
    CHECK_EQ(flag, 1);
    /* Every flavour is unified on both MPIs (Open MPI with osc sm,pt2pt: rt_env_attr_values). */
    if (flag == 1 && model)
        CHECK_MSG(*model == MPI_WIN_UNIFIED, "%s: MPI_WIN_MODEL %d (UNIFIED %d, SEPARATE %d)", what, *model,
                  MPI_WIN_UNIFIED, MPI_WIN_SEPARATE);
    /* A predefined window key on a communicator is no attribute of it. */
    flag = -1;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &du, &flag));
    CHECK_EQ(flag, 1);
}

static void test_win_predefined(void)
{
    static double mem[16];
    MPI_Win w;
    MPI_OK(MPI_Win_create(mem, sizeof mem, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    expect_win_attrs(w, mem, sizeof mem, sizeof(double), MPI_WIN_FLAVOR_CREATE, "Win_create");
    MPI_OK(MPI_Win_free(&w));

    void *base = NULL;
    /* 64 bytes: MPICH 4.0.2 reports an MPI_WIN_BASE other than the baseptr it returned when
     * the size leaves the next process's segment unaligned (24 bytes: 8 bytes off). */
    MPI_OK(MPI_Win_allocate(64, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w));
    expect_win_attrs(w, base, 64, 4, MPI_WIN_FLAVOR_ALLOCATE, "Win_allocate");
    MPI_OK(MPI_Win_free(&w));

    MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    expect_win_attrs(w, MPI_BOTTOM, 0, 1, MPI_WIN_FLAVOR_DYNAMIC, "Win_create_dynamic");
    MPI_OK(MPI_Win_free(&w));

    base = NULL;
    MPI_OK(MPI_Win_allocate_shared(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w));
    expect_win_attrs(w, base, 64, 8, MPI_WIN_FLAVOR_SHARED, "Win_allocate_shared");
    MPI_OK(MPI_Win_free(&w));
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "attr_values");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_comm_predefined();
    test_win_predefined();
    test_comm_values();
    test_deprecated();
    test_type_values();
    test_win_values();
    return check_finish();
}
