/* MPI_T control and performance variables bound to MPI objects, and enumerations: what a
 * profiler or tuning tool does first.  Every variable the MPI has is looked at; each one bound
 * to no object, to a communicator or to a datatype gets a handle (cvar, and pvar in a
 * session) for MPI_COMM_WORLD / MPI_INT, its value is read through it (and, for a pvar, reset,
 * started and stopped as its class allows), and every item of every enumeration is read.  A
 * translation layer has to pass obj_handle as the native handle of the kind the variable's
 * bind names (it is a pointer to a handle of a kind the call itself does not say), and the
 * items' values unchanged.  Open MPI 4.1.4 has performance variables bound to a communicator
 * (its ob1 queue lengths): passed MPI_COMM_WORLD's ABI handle unconverted, it crashes.  MPICH
 * 4.0.2 binds none of its variables to an object.  Every expectation holds natively. */
#include "check.h"

#include <string.h>

/* Room for `count` values of a tool variable's datatype (the basic C types MPI_T uses). */
static size_t value_size(MPI_Datatype t)
{
    int size = 0;
    MPI_OK(MPI_Type_size(t, &size));
    CHECK(size > 0 && size <= 16);
    return (size_t)size;
}

/* The object a variable is bound to, as obj_handle; NULL where this test binds none. */
static void *object_for(int bind, MPI_Comm *comm, MPI_Datatype *type)
{
    if (bind == MPI_T_BIND_MPI_COMM) return comm;
    if (bind == MPI_T_BIND_MPI_DATATYPE) return type;
    return NULL;
}

static int cvars_read;

static void check_enum(MPI_T_enum e)
{
    if (e == MPI_T_ENUM_NULL) return;
    int n = -1;
    char name[256];
    int len = (int)sizeof name;
    MPI_OK(MPI_T_enum_get_info(e, &n, name, &len));
    CHECK(n >= 0);
    for (int i = 0; i < n; ++i) {
        int value = -12345;
        char item[256];
        int item_len = (int)sizeof item;
        MPI_OK(MPI_T_enum_get_item(e, i, &value, item, &item_len));
        CHECK(value != -12345);
        CHECK(item_len >= 0 && item_len <= (int)sizeof item);
    }
    int value = 0, item_len = 0;
    CHECK_EQ(MPI_T_enum_get_item(e, n, &value, NULL, &item_len), MPI_T_ERR_INVALID_INDEX);
}

static void test_cvars(MPI_Comm *comm, MPI_Datatype *type)
{
    int num = -1;
    MPI_OK(MPI_T_cvar_get_num(&num));
    CHECK(num >= 0);
    for (int i = 0; i < num; ++i) {
        char name[256], desc[1024];
        int name_len = (int)sizeof name, desc_len = (int)sizeof desc, verbosity = 0, bind = -1, scope = 0;
        MPI_Datatype dt = MPI_DATATYPE_NULL;
        MPI_T_enum e = MPI_T_ENUM_NULL;
        /* an index may name a variable that is not available (MPICH has holes): skipped */
        if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &dt, &e, desc, &desc_len, &bind, &scope) != MPI_SUCCESS)
            continue;
        check_enum(e);
        if (bind != MPI_T_BIND_NO_OBJECT && bind != MPI_T_BIND_MPI_COMM && bind != MPI_T_BIND_MPI_DATATYPE) continue;
        MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL, h2 = MPI_T_CVAR_HANDLE_NULL;
        int count = -1, count2 = -1;
        MPI_OK(MPI_T_cvar_handle_alloc(i, object_for(bind, comm, type), &h, &count));
        CHECK(h != MPI_T_CVAR_HANDLE_NULL);
        CHECK(count >= 0);
        MPI_OK(MPI_T_cvar_handle_alloc(i, object_for(bind, comm, type), &h2, &count2));
        CHECK_EQ(count2, count);
        if (count > 0 && count <= 64 && dt != MPI_CHAR) {
            /* the same value through both handles */
            size_t bytes = value_size(dt) * (size_t)count;
            unsigned char a[1024], b[1024];
            memset(a, 0xa5, sizeof a);
            memset(b, 0x5a, sizeof b);
            MPI_OK(MPI_T_cvar_read(h, a));
            MPI_OK(MPI_T_cvar_read(h2, b));
            CHECK(memcmp(a, b, bytes) == 0);
            ++cvars_read;
        }
        MPI_OK(MPI_T_cvar_handle_free(&h2));
        MPI_OK(MPI_T_cvar_handle_free(&h));
        CHECK(h == MPI_T_CVAR_HANDLE_NULL);
    }
    int count = 0;
    MPI_T_cvar_handle h;
    CHECK(MPI_T_cvar_handle_alloc(num, NULL, &h, &count) != MPI_SUCCESS); /* the class differs between the MPIs */
}

static void test_pvars(MPI_Comm *comm, MPI_Datatype *type)
{
    int num = -1;
    MPI_OK(MPI_T_pvar_get_num(&num));
    CHECK(num >= 0);
    MPI_T_pvar_session s = MPI_T_PVAR_SESSION_NULL;
    MPI_OK(MPI_T_pvar_session_create(&s));
    CHECK(s != MPI_T_PVAR_SESSION_NULL);
    for (int i = 0; i < num; ++i) {
        char name[256], desc[1024];
        int name_len = (int)sizeof name, desc_len = (int)sizeof desc, verbosity = 0, var_class = -1, bind = -1;
        int readonly = 0, continuous = 0, atomic = 0;
        MPI_Datatype dt = MPI_DATATYPE_NULL;
        MPI_T_enum e = MPI_T_ENUM_NULL;
        if (MPI_T_pvar_get_info(i, name, &name_len, &verbosity, &var_class, &dt, &e, desc, &desc_len, &bind,
                                &readonly, &continuous, &atomic) != MPI_SUCCESS)
            continue; /* not available (Open MPI has such indices) */
        /* Open MPI 4.1.4 crashes, natively, allocating a handle for a variable of its psm2 MTL
         * when that MTL is not the one in use */
        if (strncmp(name, "mtl_psm2", 8) == 0) continue;
        check_enum(e);
        if (bind != MPI_T_BIND_NO_OBJECT && bind != MPI_T_BIND_MPI_COMM && bind != MPI_T_BIND_MPI_DATATYPE) continue;
        MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
        int count = -1;
        MPI_OK(MPI_T_pvar_handle_alloc(s, i, object_for(bind, comm, type), &h, &count));
        CHECK(h != MPI_T_PVAR_HANDLE_NULL);
        CHECK(count >= 0);
        if (!continuous) MPI_OK(MPI_T_pvar_start(s, h));
        if (count > 0 && count <= 64) {
            unsigned char v[1024];
            MPI_OK(MPI_T_pvar_read(s, h, v));
        }
        if (!continuous) MPI_OK(MPI_T_pvar_stop(s, h));
        MPI_OK(MPI_T_pvar_handle_free(s, &h));
        CHECK(h == MPI_T_PVAR_HANDLE_NULL);
    }
    MPI_OK(MPI_T_pvar_session_free(&s));
    CHECK(s == MPI_T_PVAR_SESSION_NULL);
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "tool_vars");
    int provided = 0;
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    /* objects of the program's own, as a tool binds them (a duplicate, not the predefined) */
    MPI_Comm comm;
    MPI_Datatype type;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &type));
    MPI_OK(MPI_Type_commit(&type));
    test_cvars(&comm, &type);
    test_pvars(&comm, &type);
    MPI_Comm world = MPI_COMM_WORLD; /* and a predefined one */
    MPI_Datatype int_type = MPI_INT;
    test_cvars(&world, &int_type);
    test_pvars(&world, &int_type);
    CHECK(cvars_read > 0); /* both MPIs have readable control variables */
    MPI_OK(MPI_Type_free(&type));
    MPI_OK(MPI_Comm_free(&comm));
    MPI_OK(MPI_T_finalize());
    return check_finish();
}
