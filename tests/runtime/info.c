/* Info objects: create/set/get/get_valuelen/get_nkeys/get_nthkey/dup/delete/free,
 * Info_get_string (MPI-4), MPI_INFO_ENV, missing keys (flag false, delete gives
 * MPI_ERR_INFO_NOKEY), over-long keys (MPI_ERR_INFO_KEY), and info on a
 * communicator. */
#include "check.h"

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "info");
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    MPI_Info info = MPI_INFO_NULL;
    MPI_OK(MPI_Info_create(&info));
    CHECK(info != MPI_INFO_NULL);
    int nkeys = -1;
    MPI_OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK_EQ(nkeys, 0);

    MPI_OK(MPI_Info_set(info, "alpha", "1"));
    MPI_OK(MPI_Info_set(info, "beta", "two words"));
    MPI_OK(MPI_Info_set(info, "gamma", "3"));
    MPI_OK(MPI_Info_set(info, "alpha", "one")); /* replaces */
    MPI_OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK_EQ(nkeys, 3);

    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0, vlen = -1;
    MPI_OK(MPI_Info_get(info, "alpha", MPI_MAX_INFO_VAL, value, &flag));
    CHECK_EQ(flag, 1);
    CHECK_STREQ(value, "one");
    MPI_OK(MPI_Info_get_valuelen(info, "beta", &vlen, &flag));
    CHECK_EQ(flag, 1);
    CHECK_EQ(vlen, 9);
    /* A short buffer gets a truncated, terminated value. */
    if (!QUIRK_MPICH_INFO_GET_TRUNCATE) {
        memset(value, 'x', sizeof value);
        MPI_OK(MPI_Info_get(info, "beta", 3, value, &flag));
        CHECK_EQ(flag, 1);
        CHECK(strncmp(value, "two", 3) == 0);
    }
    flag = 1;
    MPI_OK(MPI_Info_get(info, "missing", MPI_MAX_INFO_VAL, value, &flag));
    CHECK_EQ(flag, 0);
    flag = 1;
    MPI_OK(MPI_Info_get_valuelen(info, "missing", &vlen, &flag));
    CHECK_EQ(flag, 0);

    /* nthkey enumerates exactly the keys set, in some order. */
    int seen_alpha = 0, seen_beta = 0, seen_gamma = 0;
    for (int i = 0; i < nkeys; ++i) {
        char key[MPI_MAX_INFO_KEY + 1] = "";
        MPI_OK(MPI_Info_get_nthkey(info, i, key));
        seen_alpha += strcmp(key, "alpha") == 0;
        seen_beta += strcmp(key, "beta") == 0;
        seen_gamma += strcmp(key, "gamma") == 0;
    }
    CHECK(seen_alpha == 1 && seen_beta == 1 && seen_gamma == 1);

#if MPI_VERSION >= 4
    /* Info_get_string: buflen in/out, the length includes the terminator. */
    char sv[64];
    int buflen = (int)sizeof sv;
    flag = 0;
    MPI_OK(MPI_Info_get_string(info, "beta", &buflen, sv, &flag));
    CHECK_EQ(flag, 1);
    CHECK_STREQ(sv, "two words");
    CHECK_EQ(buflen, 10);
    buflen = 0;
    MPI_OK(MPI_Info_get_string(info, "beta", &buflen, sv, &flag));
    CHECK_EQ(flag, 1);
    CHECK_EQ(buflen, 10);
    buflen = (int)sizeof sv;
    flag = 1;
    MPI_OK(MPI_Info_get_string(info, "missing", &buflen, sv, &flag));
    CHECK_EQ(flag, 0);
#endif

    /* Dup is deep: changing the copy leaves the original. */
    MPI_Info copy = MPI_INFO_NULL;
    MPI_OK(MPI_Info_dup(info, &copy));
    CHECK(copy != MPI_INFO_NULL && copy != info);
    MPI_OK(MPI_Info_set(copy, "alpha", "changed"));
    MPI_OK(MPI_Info_delete(copy, "gamma"));
    MPI_OK(MPI_Info_get(info, "alpha", MPI_MAX_INFO_VAL, value, &flag));
    CHECK_STREQ(value, "one");
    MPI_OK(MPI_Info_get(copy, "alpha", MPI_MAX_INFO_VAL, value, &flag));
    CHECK_STREQ(value, "changed");
    int n1 = -1, n2 = -1;
    MPI_OK(MPI_Info_get_nkeys(info, &n1));
    MPI_OK(MPI_Info_get_nkeys(copy, &n2));
    CHECK_EQ(n1, 3);
    CHECK_EQ(n2, 2);

    /* Errors: deleting a missing key, a key longer than MPI_MAX_INFO_KEY. */
    int rc = MPI_Info_delete(info, "missing"), cls = -1;
    CHECK(rc != MPI_SUCCESS);
    MPI_Error_class(rc, &cls);
    CHECK_EQ(cls, MPI_ERR_INFO_NOKEY);
    char longkey[MPI_MAX_INFO_KEY + 20];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    rc = MPI_Info_set(info, longkey, "v");
    CHECK(rc != MPI_SUCCESS);
    MPI_Error_class(rc, &cls);
    CHECK_EQ(cls, MPI_ERR_INFO_KEY);

    /* MPI_INFO_ENV exists and can be read. */
    int envkeys = -1;
    MPI_OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &envkeys));
    CHECK(envkeys >= 0);

    MPI_OK(MPI_Info_free(&copy));
    CHECK(copy == MPI_INFO_NULL);
    MPI_OK(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL);
    return check_finish();
}
