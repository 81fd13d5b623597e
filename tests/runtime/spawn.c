/* Dynamic processes: MPI_Comm_spawn and MPI_Comm_spawn_multiple of this same program.  The
 * parents check the error codes (one per process asked for, the entry past them untouched),
 * the intercommunicator (remote size, point-to-point both ways, MPI_Intercomm_merge and a
 * collective over the merged communicator); the children check their arguments (one with a
 * space), MPI_Comm_get_parent, MPI_APPNUM for spawn_multiple, and report their own failures
 * to the parents, which count them.  Over the ABI the children are this same binary and load
 * the parents' backend (they follow the launcher, which is the parents').
 *
 * Debian's MPICH 4.0.2 under Hydra fails every spawn on this platform ("Error in spawn call",
 * class MPI_ERR_OTHER) natively: there the test checks that anympi returns the same class. */
#include "check.h"

#include <signal.h>
#include <unistd.h>

enum { CHILDREN = 2, SPAWN_HANG_S = 30 };

/* Debian 12's Open MPI 4.1.4 over its PMIx 4.2 sometimes never returns from MPI_Comm_spawn or
 * MPI_Comm_spawn_multiple, natively as well: a child waits forever in PMIx_Init and the parents
 * in the connect/accept lookup (openpmix/openpmix#2735, open-mpi/ompi#9713).  Measured here
 * natively: one spawn_multiple of two commands in 16 to 40, one spawn of two processes in some
 * 100.  A spawn that has not returned after SPAWN_HANG_S seconds ends the run with the marker
 * QUIRK_OPENMPI_SPAWN_HANG, on which tests/rerun/rerun_if_known_fault runs the test again;
 * a hang anywhere else still runs into the test's timeout. */
static void spawn_hang(int sig)
{
    (void)sig;
    static const char line[] = "spawn: QUIRK_OPENMPI_SPAWN_HANG: a spawn did not return in time "
                               "(Open MPI 4.1 over PMIx 4, openpmix/openpmix#2735)\n";
    (void)!write(2, line, sizeof line - 1);  /* nothing to do if stderr is gone */
    _exit(75);
}
static void spawn_watch(int on)
{
    if (check_under() != CHECK_UNDER_OPENMPI) return;
    if (on) signal(SIGALRM, spawn_hang);
    alarm(on ? SPAWN_HANG_S : 0);
}

/* A child: checks what it was given, answers its parents, reports its failures. */
/* A communicator from the group of parents and children: over Open MPI 4.1, which lacks the
 * function, anympi builds it over MPI_COMM_WORLD, which reaches no spawned process. Refused on
 * every process as unsupported, saying so (it faulted in Open MPI); the error, which no object
 * carries, goes to MPI_COMM_SELF. */
static void from_merged_group(MPI_Comm merged)
{
#if MPI_VERSION >= 4
    if (!CHECK_OVER_ABI || check_under() != CHECK_UNDER_OPENMPI) return;
    MPI_Group g;
    MPI_Comm c = MPI_COMM_WORLD;
    MPI_OK(MPI_Comm_group(merged, &g));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int rc = MPI_Comm_create_from_group(g, "anympi.spawn.merged", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c), cls = -1;
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    MPI_Error_class(rc, &cls);
    CHECK_MSG(cls == MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Comm_create_from_group: class %d", cls);
    CHECK(c == MPI_COMM_WORLD || c == MPI_COMM_NULL);
    MPI_OK(MPI_Group_free(&g));
#else
    (void)merged;
#endif
}

static int child(MPI_Comm parent, int argc, char **argv)
{
    int rank, size, remote;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_OK(MPI_Comm_remote_size(parent, &remote));
    const int multiple = strcmp(argv[1], "child-multiple") == 0;
    CHECK(argc == 3 && (multiple || strcmp(argv[1], "child") == 0));
    CHECK_MSG(argc == 3 && strcmp(argv[2], "x y") == 0, "argv[2] is '%s'", argc > 2 ? argv[2] : "(none)");
    int *appnum = NULL, flag = 0;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag));
    if (multiple) /* one process per command: command i is application i */
        CHECK_MSG(flag && *appnum == rank, "MPI_APPNUM %d at child %d", flag ? *appnum : -1, rank);
    int token = -1;
    MPI_OK(MPI_Recv(&token, 1, MPI_INT, 0, 7, parent, MPI_STATUS_IGNORE));
    CHECK_EQ(token, 100 + rank);
    int answer = token * 2;
    MPI_OK(MPI_Send(&answer, 1, MPI_INT, 0, 8, parent));
    MPI_Comm merged;
    MPI_OK(MPI_Intercomm_merge(parent, 1, &merged));
    int msize = 0, one = 1, sum = 0;
    MPI_OK(MPI_Comm_size(merged, &msize));
    CHECK_EQ(msize, size + remote);
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK_EQ(sum, msize);
    from_merged_group(merged);
    int failures = check_failures_;
    MPI_OK(MPI_Reduce(&failures, NULL, 1, MPI_INT, MPI_SUM, 0, merged));
    MPI_OK(MPI_Comm_free(&merged));
    MPI_OK(MPI_Comm_disconnect(&parent));
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
}

/* The parents' side of one spawn: talk to the children, merge, collect their failures. */
static void with_children(MPI_Comm inter, int children)
{
    int rank, size, remote = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_OK(MPI_Comm_remote_size(inter, &remote));
    CHECK_EQ(remote, children);
    if (rank == 0)
        for (int c = 0; c < children; ++c) {
            int token = 100 + c, answer = -1;
            MPI_OK(MPI_Send(&token, 1, MPI_INT, c, 7, inter));
            MPI_OK(MPI_Recv(&answer, 1, MPI_INT, c, 8, inter, MPI_STATUS_IGNORE));
            CHECK_EQ(answer, 2 * token);
        }
    MPI_Comm merged;
    MPI_OK(MPI_Intercomm_merge(inter, 0, &merged));
    int msize = 0, mrank = -1, one = 1, sum = 0, zero = 0, child_failures = 0;
    MPI_OK(MPI_Comm_size(merged, &msize));
    MPI_OK(MPI_Comm_rank(merged, &mrank));
    CHECK_EQ(msize, size + children);
    CHECK_EQ(mrank, rank); /* the parents asked for the low group */
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK_EQ(sum, msize);
    from_merged_group(merged);
    MPI_OK(MPI_Reduce(&zero, &child_failures, 1, MPI_INT, MPI_SUM, 0, merged));
    if (rank == 0) CHECK_MSG(child_failures == 0, "the children failed %d checks", child_failures);
    MPI_OK(MPI_Comm_free(&merged));
    MPI_OK(MPI_Comm_disconnect(&inter));
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "spawn");
    MPI_Comm parent;
    MPI_OK(MPI_Comm_get_parent(&parent));
    if (parent != MPI_COMM_NULL) return child(parent, argc, argv);

    char *args[] = {"child", "x y", NULL};
    char *args_multiple[] = {"child-multiple", "x y", NULL};
    int codes[CHILDREN + 1] = {-1, -1, -1};
    MPI_Comm inter = MPI_COMM_NULL;
    spawn_watch(1);
    int rc = MPI_Comm_spawn(argv[0], args, CHILDREN, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes);
    spawn_watch(0);
    if (QUIRK_MPICH_SPAWN) {
        int cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK_MSG(cls == MPI_ERR_OTHER, "MPICH's failed spawn: class %d, MPI_ERR_OTHER expected", cls);
        CHECK(inter == MPI_COMM_NULL);
        for (int i = 0; i <= CHILDREN; ++i) CHECK_MSG(codes[i] == -1, "MPICH writes no error codes here, but code %d is %d", i, codes[i]);
        return check_finish();
    }
    MPI_OK(rc);
    for (int i = 0; i < CHILDREN; ++i) CHECK_MSG(codes[i] == MPI_SUCCESS, "error code %d is %d", i, codes[i]);
    CHECK_MSG(codes[CHILDREN] == -1, "the error code past the %d processes asked for was written", CHILDREN);
    with_children(inter, CHILDREN);

    /* MPI_ERRCODES_IGNORE */
    spawn_watch(1);
    MPI_OK(MPI_Comm_spawn(argv[0], args, CHILDREN, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE));
    spawn_watch(0);
    with_children(inter, CHILDREN);

    /* Two commands of one process each, the second with an info of its own. */
    char *commands[CHILDREN] = {argv[0], argv[0]};
    char **argvs[CHILDREN] = {args_multiple, args_multiple};
    int maxprocs[CHILDREN] = {1, 1};
    MPI_Info infos[CHILDREN] = {MPI_INFO_NULL, MPI_INFO_NULL};
    MPI_OK(MPI_Info_create(&infos[1]));
    MPI_OK(MPI_Info_set(infos[1], "wdir", "/tmp"));
    for (int i = 0; i <= CHILDREN; ++i) codes[i] = -1;
    spawn_watch(1);
    MPI_OK(MPI_Comm_spawn_multiple(CHILDREN, commands, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, &inter, codes));
    spawn_watch(0);
    for (int i = 0; i < CHILDREN; ++i) CHECK_MSG(codes[i] == MPI_SUCCESS, "error code %d is %d", i, codes[i]);
    CHECK_MSG(codes[CHILDREN] == -1, "the error code past the %d processes asked for was written", CHILDREN);
    with_children(inter, CHILDREN);
    MPI_OK(MPI_Info_free(&infos[1]));
    return check_finish();
}
