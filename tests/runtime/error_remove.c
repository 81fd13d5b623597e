/* MPI-5.0's removal of the error classes, codes and strings a program added: added, used
 * through MPI_Comm_call_errhandler, removed in the order the standard requires (string, then
 * code, then class; each other order is refused with MPI_ERR_ARG), and added again.  Neither
 * MPI here has these functions (they are anympi's, over the MPI's own additions): this
 * program runs over the ABI only. */
#include "check.h"

#include <string.h>

static int seen_code = -1, calls = 0;

/* A refused removal: class MPI_ERR_ARG, with a message that names the function. */
static void refused(int rc, const char *call, int line)
{
    int cls = -1, len = 0;
    char msg[MPI_MAX_ERROR_STRING] = "";
    CHECK_MSG(rc != MPI_SUCCESS, "line %d: %s succeeded", line, call);
    MPI_Error_class(rc, &cls);
    CHECK_MSG(cls == MPI_ERR_ARG, "line %d: %s: class %d, expected MPI_ERR_ARG", line, call, cls);
    MPI_Error_string(rc, msg, &len);
    CHECK_MSG(strstr(msg, "MPI_Remove_error") != NULL, "line %d: %s: message \"%s\"", line, call, msg);
}
#define REFUSED(call) refused((call), #call, __LINE__)

static void record(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    seen_code = *code;
    ++calls;
}

/* A class with one code and strings on both, used, then removed; returns the class. */
static int add_use_remove(MPI_Comm comm, const char *text)
{
    int cls = -1, code = -1;
    MPI_OK(MPI_Add_error_class(&cls));
    MPI_OK(MPI_Add_error_code(cls, &code));
    CHECK(cls > MPI_ERR_LASTCODE);
    CHECK(code > MPI_ERR_LASTCODE && code != cls);
    MPI_OK(MPI_Add_error_string(code, (char *)text));
    MPI_OK(MPI_Add_error_string(cls, "anympi test class"));
    int last = -1, flag = 0;
    int *lastp = NULL;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastp, &flag));
    CHECK(flag);
    if (flag) last = *lastp;
    CHECK(last >= code && last >= cls);

    /* used: the handler sees the code, which belongs to the class and says its string */
    int before = calls;
    CHECK_EQ(MPI_Comm_call_errhandler(comm, code), MPI_SUCCESS);
    CHECK_EQ(calls, before + 1);
    CHECK_EQ(seen_code, code);
    int c = -1, len = 0;
    char s[MPI_MAX_ERROR_STRING];
    MPI_OK(MPI_Error_class(code, &c));
    CHECK_EQ(c, cls);
    MPI_OK(MPI_Error_string(code, s, &len));
    CHECK(strcmp(s, text) == 0);

    /* removals out of order, and of what was never added, are refused */
    REFUSED(MPI_Remove_error_class(cls));   /* its code is still there */
    REFUSED(MPI_Remove_error_code(code));   /* its string is still there */
    REFUSED(MPI_Remove_error_code(cls));    /* a class, not a code */
    REFUSED(MPI_Remove_error_class(code));  /* a code, not a class */
    REFUSED(MPI_Remove_error_string(MPI_ERR_TRUNCATE)); /* predefined */
    REFUSED(MPI_Remove_error_class(MPI_ERR_OTHER));
    REFUSED(MPI_Remove_error_code(MPI_ERR_OTHER));

    /* in order: string, code, class */
    MPI_OK(MPI_Remove_error_string(code));
    MPI_OK(MPI_Error_string(code, s, &len));
    CHECK_EQ(len, 0); /* the string is gone */
    REFUSED(MPI_Remove_error_string(code));  /* twice */
    MPI_OK(MPI_Remove_error_code(code));
    REFUSED(MPI_Remove_error_code(code));    /* twice */
    MPI_OK(MPI_Remove_error_class(cls));                   /* its string goes with it */
    REFUSED(MPI_Remove_error_class(cls));    /* twice */
    REFUSED(MPI_Remove_error_string(cls));
    /* the predefined classes are untouched */
    MPI_OK(MPI_Error_class(MPI_ERR_TRUNCATE, &c));
    CHECK_EQ(c, MPI_ERR_TRUNCATE);
    return cls;
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "error_remove");
    /* the refusals are raised on MPI_COMM_SELF's handler: returned, not fatal */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Comm comm;
    MPI_Errhandler eh;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_OK(MPI_Comm_create_errhandler(record, &eh));
    MPI_OK(MPI_Comm_set_errhandler(comm, eh));
    int first = add_use_remove(comm, "anympi test code: first");
    /* added again after the removal: works the same way */
    int second = add_use_remove(comm, "anympi test code: second");
    CHECK(first > MPI_ERR_LASTCODE && second > MPI_ERR_LASTCODE);
    /* a class with two codes: both codes must go before the class */
    int cls = -1, a = -1, b = -1;
    MPI_OK(MPI_Add_error_class(&cls));
    MPI_OK(MPI_Add_error_code(cls, &a));
    MPI_OK(MPI_Add_error_code(cls, &b));
    MPI_OK(MPI_Remove_error_code(a));
    REFUSED(MPI_Remove_error_class(cls));
    MPI_OK(MPI_Remove_error_code(b));
    MPI_OK(MPI_Remove_error_class(cls));
    MPI_OK(MPI_Errhandler_free(&eh));
    MPI_OK(MPI_Comm_free(&comm));
    return check_finish();
}
