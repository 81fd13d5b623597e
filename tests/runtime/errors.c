/* Error handling: MPI_ERRORS_RETURN on a communicator gives codes whose class is
 * the standard one (MPI_ERR_RANK, _TAG, _COUNT, _TYPE, _COMM, _ROOT, _OP, _BUFFER)
 * with a non-empty MPI_Error_string; Comm_get_errhandler gives back the standard
 * constant; a user handler from Comm_create_errhandler is called with the right
 * communicator and code (also through Comm_call_errhandler); user error classes,
 * codes and strings; the class of every standard class is itself; the default
 * file error handler is MPI_ERRORS_RETURN; window error handlers. */
#include "check.h"

static int rank, size;

static void expect_class(int rc, int cls_expected, const char *what, int line)
{
    int cls = -1, len = -1;
    char msg[MPI_MAX_ERROR_STRING];
    msg[0] = '\0';
    CHECK_MSG(rc != MPI_SUCCESS, "line %d: %s succeeded", line, what);
    MPI_Error_class(rc, &cls);
    CHECK_MSG(cls == cls_expected, "line %d: %s: class %d, expected %d", line, what, cls,
              cls_expected);
    MPI_OK(MPI_Error_string(rc, msg, &len));
    CHECK_MSG(len > 0 && (int)strlen(msg) == len, "line %d: %s: error string \"%s\" (%d)", line,
              what, msg, len);
}

static int handler_calls, handler_comm_ok, handler_last_class;
static MPI_Comm handler_expected_comm;
static void comm_handler(MPI_Comm *comm, int *code, ...)
{
    ++handler_calls;
    if (*comm == handler_expected_comm) ++handler_comm_ok;
    MPI_Error_class(*code, &handler_last_class);
}

static int win_handler_calls, win_handler_class;
static MPI_Win win_expected;
static void win_handler(MPI_Win *win, int *code, ...)
{
    if (*win == win_expected) ++win_handler_calls;
    MPI_Error_class(*code, &win_handler_class);
}

static void test_errors_return(void)
{
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_OK(MPI_Comm_get_errhandler(c, &eh));
    CHECK_HANDLE(eh, MPI_ERRORS_RETURN);

    int buf[4] = {0};
    expect_class(MPI_Send(buf, 1, MPI_INT, size, 0, c), MPI_ERR_RANK, "send to rank size",
                 __LINE__);
    expect_class(MPI_Send(buf, 1, MPI_INT, -5, 0, c), MPI_ERR_RANK, "send to rank -5", __LINE__);
#if MPI_VERSION >= 4
    /* a partitioned operation's peer is checked at init (anympi's own over Open MPI faulted) */
    MPI_Request part = MPI_REQUEST_NULL;
    expect_class(MPI_Psend_init(buf, 1, 1, MPI_INT, size, 0, c, MPI_INFO_NULL, &part), MPI_ERR_RANK,
                 "partitioned send to rank size", __LINE__);
    expect_class(MPI_Precv_init(buf, 1, 1, MPI_INT, size + 3, 0, c, MPI_INFO_NULL, &part), MPI_ERR_RANK,
                 "partitioned receive from rank size + 3", __LINE__);
    /* and its tag and count, with MPICH's classes (anympi's own took tag -7; a negative count
     * was MPI_ERR_ARG) */
    expect_class(MPI_Psend_init(buf, 1, 1, MPI_INT, rank, -7, c, MPI_INFO_NULL, &part), MPI_ERR_TAG,
                 "partitioned send with tag -7", __LINE__);
    expect_class(MPI_Precv_init(buf, 1, -1, MPI_INT, rank, 0, c, MPI_INFO_NULL, &part), MPI_ERR_COUNT,
                 "partitioned receive of count -1", __LINE__);
    if (CHECK_OVER_ABI) /* no wildcard in partitioned communication (MPI-4.1 4.2.2) */
        expect_class(MPI_Precv_init(buf, 1, 1, MPI_INT, rank, MPI_ANY_TAG, c, MPI_INFO_NULL, &part), MPI_ERR_TAG,
                     "partitioned receive with MPI_ANY_TAG", __LINE__);
#endif
    /* A buffered send's arguments are checked before any buffer (none is attached here), and
     * MPI_Bsend_init's at init, as natively (anympi's own buffered sends answered
     * MPI_ERR_BUFFER, and MPI_Bsend_init success). */
    MPI_Request bs = MPI_REQUEST_NULL;
    expect_class(MPI_Bsend(buf, 1, MPI_INT, size, 0, c), MPI_ERR_RANK, "bsend to rank size", __LINE__);
    expect_class(MPI_Ibsend(buf, 1, MPI_INT, -5, 0, c, &bs), MPI_ERR_RANK, "ibsend to rank -5", __LINE__);
    expect_class(MPI_Bsend_init(buf, 1, MPI_INT, size, 0, c, &bs), MPI_ERR_RANK, "bsend_init to rank size", __LINE__);
    expect_class(MPI_Bsend_init(buf, 1, MPI_INT, rank, -3, c, &bs), MPI_ERR_TAG, "bsend_init with tag -3", __LINE__);
    expect_class(MPI_Bsend_init(buf, 1, MPI_DATATYPE_NULL, rank, 0, c, &bs), MPI_ERR_TYPE,
                 "bsend_init of MPI_DATATYPE_NULL", __LINE__);
    CHECK_HANDLE(bs, MPI_REQUEST_NULL);
#if MPI_VERSION >= 4
    /* A persistent collective's root and op are checked at init, as MPICH natively checks them
     * (anympi's own checked them only at MPI_Start). */
    MPI_Request pc = MPI_REQUEST_NULL;
    expect_class(MPI_Bcast_init(buf, 1, MPI_INT, size, c, MPI_INFO_NULL, &pc), MPI_ERR_ROOT, "bcast_init root size",
                 __LINE__);
    expect_class(MPI_Reduce_init(buf, buf + 2, 1, MPI_INT, MPI_SUM, -7, c, MPI_INFO_NULL, &pc), MPI_ERR_ROOT,
                 "reduce_init root -7", __LINE__);
    expect_class(MPI_Gather_init(buf, 1, MPI_INT, buf + 1, 1, MPI_INT, size + 2, c, MPI_INFO_NULL, &pc), MPI_ERR_ROOT,
                 "gather_init root size + 2", __LINE__);
    expect_class(MPI_Allreduce_init(buf, buf + 2, 1, MPI_INT, MPI_OP_NULL, c, MPI_INFO_NULL, &pc), MPI_ERR_OP,
                 "allreduce_init MPI_OP_NULL", __LINE__);
    /* an op that does not apply to the datatype (anympi's own took it until MPI_Start) */
    float fl[2] = {1.0f, 2.0f};
    expect_class(MPI_Reduce_init(fl, fl + 1, 1, MPI_FLOAT, MPI_BAND, 0, c, MPI_INFO_NULL, &pc), MPI_ERR_OP,
                 "reduce_init MPI_BAND on MPI_FLOAT", __LINE__);
    expect_class(MPI_Allreduce_init(buf, buf + 2, 1, MPI_2INT, MPI_SUM, c, MPI_INFO_NULL, &pc), MPI_ERR_OP,
                 "allreduce_init MPI_SUM on MPI_2INT", __LINE__);
    if (CHECK_OVER_ABI) { /* MPICH 4.0.2 natively answers MPI_ERR_OTHER and MPI_ERR_OP for these */
        expect_class(MPI_Allreduce_init(buf, buf + 2, -1, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &pc), MPI_ERR_COUNT,
                     "allreduce_init count -1", __LINE__);
        expect_class(MPI_Scan_init(buf, buf + 2, 1, MPI_DATATYPE_NULL, MPI_SUM, c, MPI_INFO_NULL, &pc), MPI_ERR_TYPE,
                     "scan_init of MPI_DATATYPE_NULL", __LINE__);
    }
    CHECK_HANDLE(pc, MPI_REQUEST_NULL);
#endif
    expect_class(MPI_Send(buf, 1, MPI_INT, rank, -3, c), MPI_ERR_TAG, "send with tag -3",
                 __LINE__);
    expect_class(MPI_Send(buf, -1, MPI_INT, rank, 0, c), MPI_ERR_COUNT, "send count -1",
                 __LINE__);
    expect_class(MPI_Send(buf, 1, MPI_DATATYPE_NULL, rank, 0, c), MPI_ERR_TYPE,
                 "send MPI_DATATYPE_NULL", __LINE__);
    expect_class(MPI_Bcast(buf, 1, MPI_INT, size + 1, c), MPI_ERR_ROOT, "bcast root size+1",
                 __LINE__);
    expect_class(MPI_Allreduce(buf, buf + 2, 1, MPI_INT, MPI_OP_NULL, c), MPI_ERR_OP,
                 "allreduce MPI_OP_NULL", __LINE__);
    MPI_Request req;
    expect_class(MPI_Irecv(buf, 1, MPI_INT, size + 3, 0, c, &req), MPI_ERR_RANK,
                 "irecv from size+3", __LINE__);
    /* An invalid communicator is reported through MPI_COMM_WORLD's handler. */
    expect_class(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM,
                 "send on MPI_COMM_NULL", __LINE__);
    int r;
    expect_class(MPI_Comm_rank(MPI_COMM_NULL, &r), MPI_ERR_COMM, "rank of MPI_COMM_NULL",
                 __LINE__);

    /* A rank output of a call that failed keeps what the program put there, whatever the
     * value: each one here is a rank sentinel of one MPI or of the standard ABI (MPI_UNDEFINED,
     * and MPI_ANY_SOURCE, MPI_PROC_NULL and MPI_ROOT, numbered differently by each). */
    static const int kept[] = {-1, -2, -3, -4, -32766};
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; ++i) {
        const int v = kept[i];
        int out = v, src = v, dst = v, coords[1] = {0};
        CHECK(MPI_Comm_rank(MPI_COMM_NULL, &out) != MPI_SUCCESS);
        CHECK_EQ(out, v);
        CHECK(MPI_Cart_rank(c, coords, &out) != MPI_SUCCESS);  /* c has no topology */
        CHECK_EQ(out, v);
        CHECK(MPI_Cart_shift(c, 0, 1, &src, &dst) != MPI_SUCCESS);
        CHECK(src == v && dst == v);
    }

    /* Error strings of classes, and Error_class of a class is the class. */
    int classes[] = {MPI_SUCCESS,      MPI_ERR_BUFFER,  MPI_ERR_COUNT,     MPI_ERR_TYPE,
                     MPI_ERR_TAG,      MPI_ERR_COMM,    MPI_ERR_RANK,      MPI_ERR_REQUEST,
                     MPI_ERR_ROOT,     MPI_ERR_GROUP,   MPI_ERR_OP,        MPI_ERR_TOPOLOGY,
                     MPI_ERR_DIMS,     MPI_ERR_ARG,     MPI_ERR_UNKNOWN,   MPI_ERR_TRUNCATE,
                     MPI_ERR_OTHER,    MPI_ERR_INTERN,  MPI_ERR_IN_STATUS, MPI_ERR_PENDING,
                     MPI_ERR_KEYVAL,   MPI_ERR_NO_MEM,  MPI_ERR_BASE,      MPI_ERR_INFO_KEY,
                     MPI_ERR_INFO_VALUE, MPI_ERR_INFO_NOKEY, MPI_ERR_SPAWN, MPI_ERR_PORT,
                     MPI_ERR_SERVICE,  MPI_ERR_NAME,    MPI_ERR_WIN,       MPI_ERR_SIZE,
                     MPI_ERR_DISP,     MPI_ERR_INFO,    MPI_ERR_LOCKTYPE,  MPI_ERR_ASSERT,
                     MPI_ERR_RMA_CONFLICT, MPI_ERR_RMA_SYNC, MPI_ERR_FILE, MPI_ERR_NOT_SAME,
                     MPI_ERR_AMODE,    MPI_ERR_UNSUPPORTED_DATAREP, MPI_ERR_UNSUPPORTED_OPERATION,
                     MPI_ERR_NO_SUCH_FILE, MPI_ERR_FILE_EXISTS, MPI_ERR_BAD_FILE, MPI_ERR_ACCESS,
                     MPI_ERR_NO_SPACE, MPI_ERR_QUOTA, MPI_ERR_READ_ONLY, MPI_ERR_FILE_IN_USE,
                     MPI_ERR_DUP_DATAREP, MPI_ERR_CONVERSION, MPI_ERR_IO, MPI_ERR_RMA_RANGE,
                     MPI_ERR_RMA_ATTACH, MPI_ERR_RMA_SHARED, MPI_ERR_RMA_FLAVOR};
    int nclasses = (int)(sizeof classes / sizeof classes[0]);
    int *lastused = NULL, flag = 0;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag));
    CHECK_EQ(flag, 1);
    for (int i = 0; i < nclasses; ++i) {
        int cls = -1, len = -1;
        char msg[MPI_MAX_ERROR_STRING] = "";
        MPI_OK(MPI_Error_class(classes[i], &cls));
        CHECK_MSG(cls == classes[i], "class of class %d is %d", classes[i], cls);
        MPI_OK(MPI_Error_string(classes[i], msg, &len));
        CHECK_MSG(len > 0, "empty error string for class %d", classes[i]);
        CHECK(classes[i] <= MPI_ERR_LASTCODE);
        if (i > 0) CHECK(classes[i] > 0);
        if (flag && lastused) CHECK(classes[i] <= *lastused);
    }
    CHECK_EQ(MPI_SUCCESS, 0);
    MPI_OK(MPI_Comm_free(&c));
}

static void test_user_handler(void)
{
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_Errhandler eh;
    MPI_OK(MPI_Comm_create_errhandler(comm_handler, &eh));
    MPI_OK(MPI_Comm_set_errhandler(c, eh));
    MPI_Errhandler got;
    MPI_OK(MPI_Comm_get_errhandler(c, &got));
    CHECK_HANDLE(got, eh);
    MPI_OK(MPI_Errhandler_free(&got));
    handler_expected_comm = c;

    int buf = 0;
    int rc = MPI_Send(&buf, 1, MPI_INT, size + 2, 0, c);
    CHECK(rc != MPI_SUCCESS);
    CHECK_EQ(handler_calls, 1);
    CHECK_EQ(handler_comm_ok, 1);
    CHECK_EQ(handler_last_class, MPI_ERR_RANK);

    /* Comm_call_errhandler hands our code to the handler. */
    MPI_OK(MPI_Comm_call_errhandler(c, MPI_ERR_TAG));
    CHECK_EQ(handler_calls, 2);
    CHECK_EQ(handler_comm_ok, 2);
    CHECK_EQ(handler_last_class, MPI_ERR_TAG);

    /* User classes, codes and strings. */
    int ucls = -1, ucode = -1;
    MPI_OK(MPI_Add_error_class(&ucls));
    MPI_OK(MPI_Add_error_code(ucls, &ucode));
    MPI_OK(MPI_Add_error_string(ucode, "anympi test error"));
    CHECK(ucls > MPI_ERR_LASTCODE);
    int cls = -1, len = -1;
    char msg[MPI_MAX_ERROR_STRING];
    MPI_OK(MPI_Error_class(ucode, &cls));
    CHECK_EQ(cls, ucls);
    MPI_OK(MPI_Error_string(ucode, msg, &len));
    CHECK_STREQ(msg, "anympi test error");
    int *lastused = NULL, flag = 0;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag));
    CHECK_EQ(flag, 1);
    if (flag && lastused && !QUIRK_MPICH_LASTUSEDCODE) CHECK(*lastused >= ucode && *lastused >= ucls);
    MPI_OK(MPI_Comm_call_errhandler(c, ucode));
    CHECK_EQ(handler_calls, 3);
    CHECK_EQ(handler_last_class, ucls);

    MPI_OK(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL);
    /* The handler stays attached to the communicator after the handle is freed. */
    rc = MPI_Send(&buf, 1, MPI_INT, -7, 0, c);
    CHECK_EQ(handler_calls, 4);
    MPI_OK(MPI_Comm_free(&c));
}

static void test_file_and_win_handlers(void)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_OK(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
    CHECK_HANDLE(eh, MPI_ERRORS_RETURN);

    int *mem = calloc(4, sizeof(int));
    MPI_Win win;
    MPI_OK(MPI_Win_create(mem, 4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_get_errhandler(win, &eh));
    CHECK_HANDLE(eh, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler weh;
    MPI_OK(MPI_Win_create_errhandler(win_handler, &weh));
    MPI_OK(MPI_Win_set_errhandler(win, weh));
    win_expected = win;
    MPI_OK(MPI_Win_call_errhandler(win, MPI_ERR_RMA_SYNC));
    CHECK_EQ(win_handler_calls, 1);
    CHECK_EQ(win_handler_class, MPI_ERR_RMA_SYNC);
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    /* A put outside any epoch is an RMA synchronization error. */
    int one = 1;
    int rc = MPI_Put(&one, 1, MPI_INT, rank, 0, 1, MPI_INT, win);
    CHECK(rc != MPI_SUCCESS);
    MPI_OK(MPI_Errhandler_free(&weh));
    MPI_OK(MPI_Win_free(&win));
    free(mem);
}

/* A receive that truncates beside a buffered send (a request of anympi's over both MPIs),
 * completed by each of MPI_Waitall, MPI_Testall, MPI_Waitsome and MPI_Testsome: the call
 * returns MPI_ERR_IN_STATUS and writes every completed request's MPI_ERROR -- the receive's
 * MPI_ERR_TRUNCATE, the send's success (MPICH natively says MPI_ERR_PENDING there). */
static int written_ok(int e)
{
    int cls = -1;
    if (e == 777) return 0;
    MPI_Error_class(e, &cls);
    return cls == MPI_SUCCESS || cls == MPI_ERR_PENDING;
}
/* A negative number handed to MPI_Error_string: an error (Open MPI: MPI_ERR_ARG) or an answer
 * (MPICH natively), never a fault.  MPICH 4.0.2 faults once any error class was added -- over
 * anympi always, which adds its own; natively only after MPI_Add_error_class, not done here. */
static void test_not_a_code(void)
{
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    char text[MPI_MAX_ERROR_STRING];
    int len = -1, cls = -1;
    int rc = MPI_Error_string(-77, text, &len);
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
        CHECK_EQ(cls, MPI_ERR_ARG);
    }
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
}

/* MPI_COMM_WORLD's and MPI_COMM_SELF's handlers set for a test, the ones they had kept in was;
 * restore_handlers puts those back. */
static void set_handlers(MPI_Errhandler world, MPI_Errhandler self, MPI_Errhandler was[2])
{
    MPI_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &was[0]));
    MPI_OK(MPI_Comm_get_errhandler(MPI_COMM_SELF, &was[1]));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, world));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, self));
}
static void restore_handlers(MPI_Errhandler was[2])
{
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, was[0]));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, was[1]));
    MPI_OK(MPI_Errhandler_free(&was[0]));
    MPI_OK(MPI_Errhandler_free(&was[1]));
}

/* Errors of calls that name no object go to MPI_COMM_WORLD's handler, where both MPIs raise
 * their own: a program that sets a handler on MPI_COMM_WORLD alone (the common idiom) has them
 * returned.  anympi raised its own on MPI_COMM_SELF, whose default handler aborted. */
static void test_no_object_errors(void)
{
    MPI_Errhandler was[2];
    set_handlers(MPI_ERRORS_RETURN, MPI_ERRORS_ARE_FATAL, was);
    expect_class(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, NULL, NULL), MPI_ERR_ARG,
                 "MPI_Comm_create_keyval without keyval", __LINE__);
    int len = 0;
    expect_class(MPI_Get_library_version(NULL, &len), MPI_ERR_ARG, "MPI_Get_library_version without version",
                 __LINE__);
    restore_handlers(was);
}

/* A program's handler that makes calls anympi answers itself: one that fails again, one that
 * attaches the buffer a buffered send lacked.  Both hung: anympi held its locks (the raise's,
 * the buffers') while the handler ran. */
static MPI_Comm again_comm;
static int again_calls, again_class = -1, attach_calls;
static char *attached;
static void raise_again(MPI_Comm *comm, int *code, ...)
{
    (void)comm, (void)code;
    ++again_calls;
    int x = 0;
    MPI_Error_class(MPI_Bsend(&x, -1, MPI_INT, 0, 0, again_comm), &again_class);
}
static void attach_buffer(MPI_Comm *comm, int *code, ...)
{
    (void)comm, (void)code;
    ++attach_calls;
    attached = malloc(1 << 16);
    MPI_Buffer_attach(attached, 1 << 16);
}
static void test_handler_calls_mpi(void)
{
    MPI_Errhandler was, again, attach;
    MPI_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &was));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &again_comm));
    MPI_OK(MPI_Comm_set_errhandler(again_comm, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_create_errhandler(raise_again, &again));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, again));
    int x = 7;
    expect_class(MPI_Bsend(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Bsend of count -1", __LINE__);
    CHECK_EQ(again_calls, 1);
    CHECK_EQ(again_class, MPI_ERR_COUNT);
    /* a buffered send to oneself without a buffer: natively Open MPI sends small ones without */
    if (CHECK_OVER_ABI || check_under() == CHECK_UNDER_MPICH) {
        int rank = 0, y = -1;
        MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
        MPI_OK(MPI_Comm_create_errhandler(attach_buffer, &attach));
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, attach));
        expect_class(MPI_Bsend(&x, 1, MPI_INT, rank, 3, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Bsend without a buffer",
                     __LINE__);
        CHECK_EQ(attach_calls, 1);
        MPI_OK(MPI_Bsend(&x, 1, MPI_INT, rank, 3, MPI_COMM_WORLD));  /* the handler's buffer */
        MPI_OK(MPI_Recv(&y, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_EQ(y, 7);
        void *back = NULL;
        int n = 0;
        MPI_OK(MPI_Buffer_detach(&back, &n));
        CHECK(back == attached && n == 1 << 16);
        free(attached);
        MPI_OK(MPI_Errhandler_free(&attach));
    }
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, was));
    MPI_OK(MPI_Errhandler_free(&was));
    MPI_OK(MPI_Errhandler_free(&again));
    MPI_OK(MPI_Comm_free(&again_comm));
}

/* Null where the call needs something: MPI_ERR_ARG, neither a fault (MPICH faulted over anympi
 * on a null status given to a call that reads one) nor silent success (a null outcount,
 * a null user function that faulted when first called, a null version output).
 * A null status, not MPI_STATUS_IGNORE: that is MPICH's (MPI_Status *)1, where it faults natively;
 * it is null in the ABI, as in Open MPI. */
static void test_null_arguments(void)
{
    MPI_Errhandler was[2];
    set_handlers(MPI_ERRORS_RETURN, MPI_ERRORS_RETURN, was);
    int n = 0, flag = 0, v = 0, sv = 0, idx[1];
    MPI_Count nx = 0;
    expect_class(MPI_Get_elements(NULL, MPI_INT, &n), MPI_ERR_ARG, "MPI_Get_elements of a null status", __LINE__);
    expect_class(MPI_Get_elements_x(NULL, MPI_INT, &nx), MPI_ERR_ARG, "MPI_Get_elements_x of a null status", __LINE__);
    expect_class(MPI_Test_cancelled(NULL, &flag), MPI_ERR_ARG, "MPI_Test_cancelled of a null status", __LINE__);
    expect_class(MPI_Status_set_cancelled(NULL, 1), MPI_ERR_ARG, "MPI_Status_set_cancelled of a null status", __LINE__);
    if (CHECK_OVER_ABI || check_under() != CHECK_UNDER_OPENMPI) {  /* native Open MPI faults; takes it */
        expect_class(MPI_Get_count(NULL, MPI_INT, &n), MPI_ERR_ARG, "MPI_Get_count of a null status", __LINE__);
        expect_class(MPI_Status_set_elements(NULL, MPI_INT, 1), MPI_ERR_ARG,
                     "MPI_Status_set_elements of a null status", __LINE__);
    }
    MPI_Request none = MPI_REQUEST_NULL;
    expect_class(MPI_Waitsome(1, &none, NULL, idx, MPI_STATUSES_IGNORE), MPI_ERR_ARG, "MPI_Waitsome without outcount", __LINE__);
    expect_class(MPI_Testsome(1, &none, NULL, idx, MPI_STATUSES_IGNORE), MPI_ERR_ARG, "MPI_Testsome without outcount", __LINE__);
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    expect_class(MPI_Comm_create_errhandler(NULL, &eh), MPI_ERR_ARG, "MPI_Comm_create_errhandler of no function", __LINE__);
    MPI_Op op = MPI_OP_NULL;
    expect_class(MPI_Op_create(NULL, 1, &op), MPI_ERR_ARG, "MPI_Op_create of no function", __LINE__);
    expect_class(MPI_Get_version(NULL, &sv), MPI_ERR_ARG, "MPI_Get_version without version", __LINE__);
    expect_class(MPI_Get_version(&v, NULL), MPI_ERR_ARG, "MPI_Get_version without subversion", __LINE__);
    restore_handlers(was);
}

static void test_error_in_status(void)
{
    static const char *const names[] = {"MPI_Waitall", "MPI_Testall", "MPI_Waitsome", "MPI_Testsome"};
    static char attached[4096];
    if (size == 1) return;  /* Open MPI 4.1 natively truncates a message to itself without a word */
    MPI_OK(MPI_Buffer_attach(attached, (int)sizeof attached));
    const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int m = 0; m < 8; ++m) {  /* m >= 4: the same without statuses, still MPI_ERR_IN_STATUS on both MPIs */
        int out4[4] = {1, 2, 3, 4}, in2[2] = {0, 0}, x = rank, y = -1, flag = 0, outcount = 0, idx[2] = {-1, -1};
        MPI_Request r[2];
        MPI_Status st[2];
        st[0].MPI_ERROR = st[1].MPI_ERROR = 777;
        MPI_OK(MPI_Irecv(in2, 2, MPI_INT, prev, 8, MPI_COMM_WORLD, &r[0]));
        MPI_OK(MPI_Ibsend(&x, 1, MPI_INT, next, 9, MPI_COMM_WORLD, &r[1]));
        MPI_OK(MPI_Send(out4, 4, MPI_INT, next, 8, MPI_COMM_WORLD));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        int rc = MPI_SUCCESS;
        MPI_Status *sts = m < 4 ? st : MPI_STATUSES_IGNORE;
        switch (m % 4) {
        case 0: rc = MPI_Waitall(2, r, sts); break;
        case 1: do rc = MPI_Testall(2, r, &flag, sts); while (rc == MPI_SUCCESS && !flag); break;
        case 2: rc = MPI_Waitsome(2, r, &outcount, idx, sts); break;
        default: do rc = MPI_Testsome(2, r, &outcount, idx, sts); while (rc == MPI_SUCCESS && outcount == 0); break;
        }
        expect_class(rc, MPI_ERR_IN_STATUS, names[m % 4], __LINE__);
        if (m >= 4) outcount = 0;
        else if (m < 2) {
            outcount = 2, idx[0] = 0, idx[1] = 1;
        }
        for (int k = 0; k < outcount && k < 2; ++k) {
            int cls = -1;
            if (idx[k] == 0) {
                MPI_Error_class(st[k].MPI_ERROR, &cls);
                CHECK_MSG(st[k].MPI_ERROR != 777 && cls == MPI_ERR_TRUNCATE, "%s: the receive's MPI_ERROR %d", names[m % 4],
                          st[k].MPI_ERROR);
            } else {
                CHECK_MSG(written_ok(st[k].MPI_ERROR), "%s: the buffered send's MPI_ERROR %d", names[m % 4], st[k].MPI_ERROR);
            }
        }
        for (int i = 0; i < 2; ++i)
            if (r[i] != MPI_REQUEST_NULL) MPI_OK(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
        MPI_OK(MPI_Recv(&y, 1, MPI_INT, prev, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_EQ(y, prev);
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    void *back;
    int back_size;
    MPI_OK(MPI_Buffer_detach(&back, &back_size));
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "errors");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_not_a_code();  /* first: before this program adds error classes (see there) */
    test_errors_return();
    test_user_handler();
    test_file_and_win_handlers();
    test_error_in_status();
    test_null_arguments();
    test_no_object_errors();
    test_handler_calls_mpi();
    return check_finish();
}
