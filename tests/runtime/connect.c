/* MPI_Open_port, MPI_Comm_accept, MPI_Comm_connect, MPI_Comm_disconnect, MPI_Close_port.
 *
 * One job (the default): the first half of MPI_COMM_WORLD accepts on a port its root opened, the
 * second half connects to it (the port name passed over MPI_COMM_WORLD).  The intercommunicator
 * must have the other half as its remote group, carry messages both ways between the roots and
 * a reduction across it, merge into an intracommunicator that orders the accepting side first
 * when asked, and disconnect.  At one process: the port's name only.
 *
 * Two jobs (tests/runtime/two_jobs.sh): `connect serve FILE` opens a port, writes its name to
 * FILE and accepts on its MPI_COMM_WORLD; `connect join FILE` waits for the name and connects on
 * its own; the two jobs exchange their sizes, messages and a reduction.
 *
 * Debian's MPICH 4.0.2 (ch4:ucx) has no ports: MPI_Open_port fails with MPI_ERR_OTHER ("not
 * supported with ucx netmod"), natively and over anympi alike (QUIRK_MPICH_PORTS). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "check.h"

#include <string.h>
#include <time.h>

/* Over the intercommunicator `inter`, on side `accepting` (1) or connecting (0) of `local`:
 * the remote size, a message each way between the roots, an allreduce, the merge. */
static void exchange(MPI_Comm inter, MPI_Comm local, int accepting, int remote_expected)
{
    int lrank, lsize, rsize = -1, flag = 0;
    MPI_OK(MPI_Comm_rank(local, &lrank));
    MPI_OK(MPI_Comm_size(local, &lsize));
    MPI_OK(MPI_Comm_test_inter(inter, &flag));
    CHECK(flag);
    MPI_OK(MPI_Comm_remote_size(inter, &rsize));
    if (remote_expected > 0) CHECK_EQ(rsize, remote_expected);
    if (lrank == 0) {
        int mine = accepting ? 1000 + lsize : 2000 + lsize, theirs = -1;
        MPI_Status st;
        MPI_OK(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 7, &theirs, 1, MPI_INT, 0, 7, inter, &st));
        CHECK_EQ(theirs, (accepting ? 2000 : 1000) + rsize);
        CHECK_EQ(st.MPI_SOURCE, 0);
        CHECK_EQ(st.MPI_TAG, 7);
    }
    /* Each side contributes its size per process: the other side's sum is rsize * rsize. */
    int sum = -1, contribution = lsize;
    MPI_OK(MPI_Allreduce(&contribution, &sum, 1, MPI_INT, MPI_SUM, inter));
    CHECK_EQ(sum, rsize * rsize);
    MPI_Comm merged;
    MPI_OK(MPI_Intercomm_merge(inter, accepting ? 0 : 1, &merged)); /* the accepting side first */
    int mrank = -1, msize = -1;
    MPI_OK(MPI_Comm_rank(merged, &mrank));
    MPI_OK(MPI_Comm_size(merged, &msize));
    CHECK_EQ(msize, lsize + rsize);
    CHECK_EQ(mrank, accepting ? lrank : rsize + lrank);
    MPI_OK(MPI_Comm_free(&merged));
    MPI_OK(MPI_Comm_disconnect(&inter));
    CHECK(inter == MPI_COMM_NULL);
}

static void one_job(void)
{
    int rank, size;
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    char port[MPI_MAX_PORT_NAME + 1] = "";
    if (QUIRK_MPICH_PORTS) {
        if (rank == 0) {
            int cls = -1;
            MPI_Error_class(MPI_Open_port(MPI_INFO_NULL, port), &cls);
            CHECK_MSG(cls == MPI_ERR_OTHER, "MPICH's MPI_Open_port: class %d, MPI_ERR_OTHER expected", cls);
        }
        return;
    }
    if (size == 1) {
        MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
        CHECK(strlen(port) > 0 && strlen(port) < MPI_MAX_PORT_NAME);
        MPI_OK(MPI_Close_port(port));
        return;
    }
    const int half = size / 2, accepting = rank < half;
    MPI_Comm local;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, accepting ? 0 : 1, rank, &local));
    if (rank == 0) {
        MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
        MPI_OK(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, half, 0, MPI_COMM_WORLD));
    } else if (rank == half) {
        MPI_OK(MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    MPI_Comm inter = MPI_COMM_NULL;
    if (accepting) MPI_OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, local, &inter));
    else MPI_OK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, local, &inter));
    CHECK(inter != MPI_COMM_NULL);
    exchange(inter, local, accepting, accepting ? size - half : half);
    if (rank == 0) MPI_OK(MPI_Close_port(port));
    MPI_OK(MPI_Comm_free(&local));
}

/* One of two jobs, meeting through the port named in `file`. */
static void two_jobs(int serve, const char *file)
{
    int rank;
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    char port[MPI_MAX_PORT_NAME + 1] = "", tmp[4096];
    if (serve && rank == 0) {
        MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
        snprintf(tmp, sizeof tmp, "%s.tmp", file);
        FILE *f = fopen(tmp, "w");
        CHECK_FATAL(f != NULL);
        fprintf(f, "%s\n", port);
        CHECK_FATAL(fclose(f) == 0 && rename(tmp, file) == 0); /* whole, or not there */
    } else if (!serve && rank == 0) {
        FILE *f = NULL;
        for (int i = 0; i < 600 && !(f = fopen(file, "r")); ++i) {
            struct timespec t = {0, 100 * 1000 * 1000};
            nanosleep(&t, NULL);
        }
        CHECK_FATAL(f != NULL && fgets(port, sizeof port, f) != NULL);
        fclose(f);
        port[strcspn(port, "\n")] = '\0';
    }
    MPI_Comm inter = MPI_COMM_NULL;
    if (serve) MPI_OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
    else MPI_OK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
    CHECK_FATAL(inter != MPI_COMM_NULL);
    exchange(inter, MPI_COMM_WORLD, serve, 0);
    if (serve && rank == 0) MPI_OK(MPI_Close_port(port));
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "connect");
    if (argc > 2 && (strcmp(argv[1], "serve") == 0 || strcmp(argv[1], "join") == 0)) two_jobs(argv[1][0] == 's', argv[2]);
    else one_job();
    return check_finish();
}
