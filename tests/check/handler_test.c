/* Where the checking mode's errors go, and what a fatal one prints (issue R2, item 8), one
 * scenario per run:
 *   returns          MPI_COMM_SELF keeps MPI_ERRORS_ARE_FATAL throughout: a bad argument next
 *                    to a communicator, window or file comes back through that object's handler
 *                    (MPI_ERRORS_RETURN), with its class, and the program goes on; a bad
 *                    communicator or window itself, and a call that names none, go through
 *                    MPI_COMM_WORLD's, where both MPIs raise theirs (MPI-4.1 section 9.3 names
 *                    MPI_COMM_SELF, which would abort here)
 *   fatal_rank       every rank sends to rank `size` under the default MPI_ERRORS_ARE_FATAL;
 *                    natively the MPI reports MPI_ERR_RANK and aborts. Under the checker, its
 *                    report, then the MPI's own rendering of the same error and exit
 *                    (expect_fatal.cmake compares both runs)
 *   fatal_new_class  a freed error handler set on MPI_COMM_WORLD (MPI_ERR_ERRHANDLER, a class the
 *                    MPIs underneath lack): the report, then the class named, not a blank line
 * Built against the standard header and run over libmpi_abi with ANYMPI_CHECK set; the fatal
 * scenarios are also built natively (the same source) for the comparison. */
#include <stdlib.h>
#include <unistd.h>

#include "check_util.h"

static void returns(void)
{
    const char *mode = getenv("ANYMPI_CHECK");
    const int signatures = mode && strstr(mode, "signatures");
    const int next = (rank + 1) % size;
    int buf[8] = {0}, out[64] = {0};
    int rc;

    /* MPI_COMM_WORLD returns; MPI_COMM_SELF (untouched) would abort */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    rc = MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_RANK, "MPI_Send: argument dest is");
    rc = MPI_Send(buf, 1, MPI_INT, 0, -5, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_TAG, "MPI_Send: argument tag is -5");
    rc = MPI_Recv(buf, -1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    EXPECT_ERROR(rc, MPI_ERR_COUNT, "MPI_Recv: argument count is -1");
    rc = MPI_Bcast(buf, 1, MPI_INT, size, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_ROOT, "MPI_Bcast: argument root is");
    rc = MPI_Allreduce(buf, out, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
    EXPECT_ERROR(rc, MPI_ERR_OP, "MPI_Allreduce: argument op is MPI_OP_NULL");
    rc = MPI_Comm_set_info(MPI_COMM_WORLD, (MPI_Info)0);
    EXPECT_ERROR(rc, MPI_ERR_INFO, "MPI_Comm_set_info: argument info is 0");
    int one = 1, sum = 0;
    OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(sum == size, "the program goes on: allreduce %d", sum);

    /* a communicator of the program's returns, MPI_COMM_WORLD is fatal again */
    MPI_Comm c, c_was;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    rc = MPI_Send(buf, -1, MPI_INT, 0, 0, c);
    EXPECT_ERROR(rc, MPI_ERR_COUNT, "MPI_Send: argument count is -1");
    rc = MPI_Allgather(buf, 1, MPI_INT, out, 1, (MPI_Datatype)MPI_COMM_WORLD, c);
    EXPECT_ERROR(rc, MPI_ERR_TYPE, "MPI_Allgather: argument recvtype is MPI_COMM_WORLD");
    OK(MPI_Barrier(c));
    c_was = c;
    OK(MPI_Comm_free(&c));

    /* a window returns, both predefined communicators are fatal */
    int *mem = malloc(2 * sizeof(int)); /* heap: MPICH 4.0.2 over UCX and windows on the stack */
    mem[0] = mem[1] = rank;
    MPI_Win win, win_was;
    OK(MPI_Win_create(mem, 2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    OK(MPI_Win_fence(0, win));
    rc = MPI_Put(buf, -1, MPI_INT, next, 0, 1, MPI_INT, win);
    EXPECT_ERROR(rc, MPI_ERR_COUNT, "MPI_Put: argument origin_count is -1");
    rc = MPI_Get(out, 1, MPI_DATATYPE_NULL, next, 0, 1, MPI_INT, win);
    EXPECT_ERROR(rc, MPI_ERR_TYPE, "MPI_Get: argument origin_datatype is MPI_DATATYPE_NULL");
    /* the origin is ignored with MPI_NO_OP only: with MPI_SUM it is still checked */
    rc = MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, out, 1, MPI_INT, next, 0, 1, MPI_INT, MPI_SUM, win);
    EXPECT_ERROR(rc, MPI_ERR_TYPE, "MPI_Get_accumulate: argument origin_datatype is MPI_DATATYPE_NULL");
    if (signatures) {
        double d = 1.5;
        rc = MPI_Put(&d, 1, MPI_DOUBLE, next, 0, 1, MPI_INT, win);
        EXPECT_ERROR(rc, MPI_ERR_TYPE, "MPI_Put on window", "the origin's 1 \xc3\x97 MPI_DOUBLE into 1 \xc3\x97 MPI_INT");
    }
    int v = 100 + rank;
    OK(MPI_Put(&v, 1, MPI_INT, next, 1, 1, MPI_INT, win));
    OK(MPI_Win_fence(0, win));
    EXPECT(mem[1] == 100 + (rank + size - 1) % size, "the window goes on: %d", mem[1]);
    win_was = win;
    OK(MPI_Win_free(&win));
    free(mem);

    /* a file returns (the default file handler), both predefined communicators are fatal */
    char path[128];
    snprintf(path, sizeof path, "/tmp/anympi_handler_test_%d_%d", (int)getpid(), rank);
    MPI_File f;
    OK(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &f));
    rc = MPI_File_write(f, buf, -1, MPI_INT, MPI_STATUS_IGNORE);
    EXPECT_ERROR(rc, MPI_ERR_COUNT, "MPI_File_write: argument count is -1");
    rc = MPI_File_read_at(f, 0, out, 1, (MPI_Datatype)MPI_SUM, MPI_STATUS_IGNORE);
    EXPECT_ERROR(rc, MPI_ERR_TYPE, "MPI_File_read_at: argument datatype is MPI_SUM");
    OK(MPI_File_write(f, buf, 2, MPI_INT, MPI_STATUS_IGNORE));
    OK(MPI_File_close(&f));

    /* the object named is itself bad, or the call names none: MPI_COMM_WORLD's handler
     * (MPI_COMM_SELF stays fatal) */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    rc = MPI_Send(buf, 1, MPI_INT, 0, 0, c_was);
    EXPECT_ERROR(rc, MPI_ERR_COMM, "MPI_Send: argument comm is a freed communicator");
    rc = MPI_Win_fence(0, win_was);
    EXPECT_ERROR(rc, MPI_ERR_WIN, "MPI_Win_fence: argument win is a freed window");
    MPI_Datatype i = MPI_INT;
    rc = MPI_Type_free(&i);
    EXPECT_ERROR(rc, MPI_ERR_TYPE, "MPI_Type_free: argument datatype is MPI_INT, a predefined datatype");
    int n = -1;
    rc = MPI_Group_size((MPI_Group)MPI_INT, &n);
    EXPECT_ERROR(rc, MPI_ERR_GROUP, "MPI_Group_size: argument group is MPI_INT");
}

static void ignore_error(MPI_Comm *c, int *code, ...)
{
    (void)c;
    (void)code;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s returns|fatal_rank|fatal_new_class\n", argv[0]);
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* every handler is the default one here: MPI_ERRORS_ARE_FATAL */
    if (!strcmp(argv[1], "returns")) {
        returns();
    } else if (!strcmp(argv[1], "fatal_rank")) {
        int x = 0;
        MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
        printf("FAIL rank %d survived a fatal error\n", rank);
        failures = 1;
    } else if (!strcmp(argv[1], "fatal_new_class")) {
        MPI_Errhandler eh, eh_was;
        OK(MPI_Comm_create_errhandler(ignore_error, &eh));
        eh_was = eh;
        OK(MPI_Errhandler_free(&eh));
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh_was);
        printf("FAIL rank %d survived a fatal error\n", rank);
        failures = 1;
    } else {
        fprintf(stderr, "handler_test: unknown scenario %s\n", argv[1]);
        failures = 1;
    }
    return finish(argv[1]);
}
