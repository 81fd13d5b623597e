/* Dynamic error classes and codes round-trip, and MPI_LASTUSEDCODE holds what the standard
 * says (MPI-4.1, 9.5 "Error Classes, Error Codes, and Error Handlers" at MPI_ADD_ERROR_CLASS):
 * the attribute of MPI_COMM_WORLD is "the current maximum error class including the
 * user-defined ones", "always greater than or equal to MPI_ERR_LASTCODE", and it "will not
 * change unless the user calls a function to explicitly add an error class/code".
 *
 * So: before anything is added it is MPI_ERR_LASTCODE itself (both MPIs); after each class
 * added it covers that class; after each code added it covers the code where the MPI counts
 * codes too (Open MPI, and anympi, which reports both MPIs' additions the same way; MPICH
 * 4.0.2 counts classes only: QUIRK_MPICH_LASTUSEDCODE); errors the library raises itself never
 * change it (anympi adds native classes and codes of its own to raise errors: they must not
 * show).  Every added code's class is the class it was added to, its string the one set; a
 * user error handler receives the code from MPI_Comm_call_errhandler unchanged; a code
 * returned by an attribute copy callback comes back from MPI_Comm_dup under
 * MPI_ERRORS_RETURN. */
#include "check.h"

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* MPI_Attr_get, on purpose */
#endif

static int rank;

/* Open MPI 4.1.4 answers MPI_ERR_UNKNOWN for the class of a class added with
 * MPI_Add_error_class (the class of a code added to it is right). */
#define QUIRK_OPENMPI_CLASS_OF_ADDED_CLASS (check_under() == CHECK_UNDER_OPENMPI)

static int lastused(int line)
{
    int *v = NULL, flag = -1;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
    CHECK_MSG(flag == 1 && v, "line %d: MPI_LASTUSEDCODE: flag %d", line, flag);
    if (flag != 1 || !v) return -1;
    CHECK_MSG(*v >= MPI_ERR_LASTCODE, "line %d: MPI_LASTUSEDCODE %d < MPI_ERR_LASTCODE %d", line, *v, MPI_ERR_LASTCODE);
    /* the deprecated getter agrees */
    int *w = NULL;
    flag = -1;
    MPI_OK(MPI_Attr_get(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &w, &flag));
    CHECK_MSG(flag == 1 && w && *w == *v, "line %d: MPI_Attr_get(MPI_LASTUSEDCODE) differs", line);
    return *v;
}
#define LASTUSED() lastused(__LINE__)

/* Over anympi the library version names it; there codes count on every MPI underneath. */
static int over_anympi(void)
{
    char s[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
    int len = 0;
    MPI_Get_library_version(s, &len);
    return strstr(s, "anympi") != NULL;
}
static int codes_counted(void) { return over_anympi() || !QUIRK_MPICH_LASTUSEDCODE; }

static void expect_string(int code, const char *expected, int line)
{
    char s[MPI_MAX_ERROR_STRING + 1] = "";
    int len = -1;
    MPI_OK(MPI_Error_string(code, s, &len));
    CHECK_MSG(strcmp(s, expected) == 0 && len == (int)strlen(expected), "line %d: MPI_Error_string(%d) = \"%s\" (%d), expected \"%s\"",
              line, code, s, len, expected);
}
static void expect_class(int code, int cls, int line)
{
    int c = -1;
    MPI_OK(MPI_Error_class(code, &c));
    CHECK_MSG(c == cls, "line %d: MPI_Error_class(%d) = %d, expected %d", line, code, c, cls);
}
static void expect_class_of_class(int cls, int line)
{
    int c = -1;
    MPI_OK(MPI_Error_class(cls, &c));
    CHECK_MSG(c == cls || (QUIRK_OPENMPI_CLASS_OF_ADDED_CLASS && c == MPI_ERR_UNKNOWN),
              "line %d: MPI_Error_class(%d) = %d, expected the class itself", line, cls, c);
}

/* An error the library raises itself: a NULL keyval output (MPI_ERR_ARG on both MPIs). */
static void raise_library_error(int line)
{
    int rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, NULL, NULL);
    CHECK_MSG(rc != MPI_SUCCESS, "line %d: MPI_Comm_create_keyval with a NULL keyval succeeded", line);
    expect_class(rc, MPI_ERR_ARG, line);
}

static int handler_calls, handler_code;
static MPI_Comm handler_comm;
static void handler(MPI_Comm *comm, int *code, ...)
{
    ++handler_calls;
    handler_code = *code;
    handler_comm = *comm;
}

static int copy_error; /* what the copy callback returns */
static int copy_fails(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)old; (void)keyval; (void)extra;
    *(void **)out = in;
    *flag = copy_error == MPI_SUCCESS;
    return copy_error;
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "error_codes");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* Errors not tied to an object go to MPI_COMM_SELF (MPI-4) or MPI_COMM_WORLD (MPI-3). */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

    /* Nothing added yet: MPI_ERR_LASTCODE itself, and stable. */
    int last = LASTUSED();
    CHECK_EQ(last, MPI_ERR_LASTCODE);
    CHECK_EQ(LASTUSED(), last);
    raise_library_error(__LINE__);
    CHECK_EQ(LASTUSED(), last);

    enum { NCLASSES = 3, NCODES = 2 };
    int classes[NCLASSES], codes[NCLASSES][NCODES], max_class = MPI_ERR_LASTCODE, max_any = MPI_ERR_LASTCODE;
    char text[64];
    for (int k = 0; k < NCLASSES; ++k) {
        classes[k] = -1;
        MPI_OK(MPI_Add_error_class(&classes[k]));
        CHECK_MSG(classes[k] > MPI_ERR_LASTCODE, "class %d = %d", k, classes[k]);
        for (int j = 0; j < k; ++j) CHECK(classes[k] != classes[j]);
        if (classes[k] > max_class) max_class = classes[k];
        if (classes[k] > max_any) max_any = classes[k];
        int now = LASTUSED();
        CHECK_MSG(now >= classes[k] && now >= last, "after class %d (%d): MPI_LASTUSEDCODE %d, before %d", k, classes[k], now, last);
        CHECK_MSG(now == (codes_counted() ? max_any : max_class), "MPI_LASTUSEDCODE %d: largest class %d, largest added %d", now,
                  max_class, max_any);
        last = now;
        snprintf(text, sizeof text, "anympi test class %d", k);
        MPI_OK(MPI_Add_error_string(classes[k], text));
        expect_string(classes[k], text, __LINE__);
        expect_class_of_class(classes[k], __LINE__);

        /* An error the library raises after the user's additions adds nothing the user sees. */
        raise_library_error(__LINE__);
        CHECK_EQ(LASTUSED(), last);

        for (int j = 0; j < NCODES; ++j) {
            codes[k][j] = -1;
            MPI_OK(MPI_Add_error_code(classes[k], &codes[k][j]));
            CHECK_MSG(codes[k][j] > MPI_ERR_LASTCODE, "code %d/%d = %d", k, j, codes[k][j]);
            CHECK(codes[k][j] != classes[k]);
            if (codes[k][j] > max_any) max_any = codes[k][j];
            now = LASTUSED();
            CHECK_MSG(now >= last, "MPI_LASTUSEDCODE went down: %d, before %d", now, last);
            if (codes_counted()) CHECK_MSG(now >= codes[k][j], "after code %d/%d (%d): MPI_LASTUSEDCODE %d", k, j, codes[k][j], now);
            CHECK_MSG(now == (codes_counted() ? max_any : max_class), "MPI_LASTUSEDCODE %d: largest class %d, largest added %d", now,
                      max_class, max_any);
            last = now;
            snprintf(text, sizeof text, "anympi test code %d/%d", k, j);
            MPI_OK(MPI_Add_error_string(codes[k][j], text));
            expect_string(codes[k][j], text, __LINE__);
            expect_class(codes[k][j], classes[k], __LINE__);
        }
    }
    /* Strings stay attached to their own codes. */
    for (int k = 0; k < NCLASSES; ++k) {
        snprintf(text, sizeof text, "anympi test class %d", k);
        expect_string(classes[k], text, __LINE__);
        for (int j = 0; j < NCODES; ++j) {
            snprintf(text, sizeof text, "anympi test code %d/%d", k, j);
            expect_string(codes[k][j], text, __LINE__);
            expect_class(codes[k][j], classes[k], __LINE__);
        }
    }

    /* A code in a predefined class.  MPICH 4.0.2 keeps its own string for such a code
     * (it appends a stack that names an unrelated function), so the string is checked where
     * the MPI underneath sets it. */
    int argcode = -1;
    MPI_OK(MPI_Add_error_code(MPI_ERR_ARG, &argcode));
    CHECK(argcode > MPI_ERR_LASTCODE || check_under() == CHECK_UNDER_MPICH);
    CHECK(argcode != MPI_ERR_ARG);
    expect_class(argcode, MPI_ERR_ARG, __LINE__);
    MPI_OK(MPI_Add_error_string(argcode, "anympi test code of MPI_ERR_ARG"));
    if (check_under() == CHECK_UNDER_OPENMPI) expect_string(argcode, "anympi test code of MPI_ERR_ARG", __LINE__);
    if (argcode > max_any) max_any = argcode;
    CHECK_EQ(LASTUSED(), codes_counted() ? max_any : max_class);
    last = LASTUSED();

    /* MPI_Comm_call_errhandler hands the very code to a user handler; under
     * MPI_ERRORS_RETURN it returns MPI_SUCCESS (the handler was called). */
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_call_errhandler(c, codes[1][0]));
    MPI_OK(MPI_Comm_call_errhandler(c, classes[2]));
    MPI_Errhandler eh;
    MPI_OK(MPI_Comm_create_errhandler(handler, &eh));
    MPI_OK(MPI_Comm_set_errhandler(c, eh));
    const int sent[] = {codes[0][0], codes[0][1], codes[2][1], classes[1], argcode, MPI_ERR_TAG};
    for (int i = 0; i < (int)(sizeof sent / sizeof sent[0]); ++i) {
        handler_code = -1;
        handler_comm = MPI_COMM_NULL;
        MPI_OK(MPI_Comm_call_errhandler(c, sent[i]));
        CHECK_EQ(handler_calls, i + 1);
        CHECK_MSG(handler_code == sent[i], "the handler got %d for %d", handler_code, sent[i]);
        CHECK(handler_comm == c);
    }

    /* A user code returned by an attribute copy callback: MPI_Comm_dup returns it under
     * MPI_ERRORS_RETURN, with its class and string. */
    MPI_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    int key = MPI_KEYVAL_INVALID;
    MPI_OK(MPI_Comm_create_keyval(copy_fails, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    MPI_OK(MPI_Comm_set_attr(c, key, (void *)42));
    copy_error = codes[2][0];
    MPI_Comm d = MPI_COMM_WORLD;
    int rc = MPI_Comm_dup(c, &d);
    CHECK_EQ(rc, codes[2][0]);
    CHECK(d == MPI_COMM_NULL);
    expect_class(rc, classes[2], __LINE__);
    expect_string(rc, "anympi test code 2/0", __LINE__);
    copy_error = MPI_SUCCESS;
    MPI_OK(MPI_Comm_dup(c, &d));
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Comm_delete_attr(c, key));
    MPI_OK(MPI_Comm_free_keyval(&key));
    MPI_OK(MPI_Errhandler_free(&eh));
    MPI_OK(MPI_Comm_free(&c));

    /* None of this added anything. */
    raise_library_error(__LINE__);
    CHECK_EQ(LASTUSED(), last);
    return check_finish();
}
