/* A program that names environ: the executable then carries a copy relocation of it, so the C
 * library's environ is the program's copy.  Such programs (Debian's python3 among them) must
 * start MPI and see one environment with the MPI's libraries: a backend bound to the C
 * library's own, never-initialised environ crashed in MPI_Init (UCX, Open MPI's setenv). */
#define _GNU_SOURCE
#include "check.h"

#include <stdlib.h>

extern char **environ;

static int in_environ(const char *entry)
{
    for (char **e = environ; e && *e; ++e)
        if (strcmp(*e, entry) == 0) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    CHECK(environ != NULL && environ[0] != NULL);
    CHECK_EQ(setenv("ANYMPI_ENVIRON_TEST", "before-init", 1), 0);
    CHECK(in_environ("ANYMPI_ENVIRON_TEST=before-init"));

    check_init(&argc, &argv, "environ");
    int rank = -1, size = 0, sum = 0;
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));

    /* the variable set before init is still there, in the one environment */
    CHECK_STREQ(getenv("ANYMPI_ENVIRON_TEST"), "before-init");
    CHECK(in_environ("ANYMPI_ENVIRON_TEST=before-init"));
    /* and the program's environ is the C library's: a change is seen by getenv */
    CHECK_EQ(setenv("ANYMPI_ENVIRON_TEST", "after-init", 1), 0);
    CHECK(in_environ("ANYMPI_ENVIRON_TEST=after-init"));
    CHECK_STREQ(getenv("ANYMPI_ENVIRON_TEST"), "after-init");

    MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_EQ(sum, size * (size - 1) / 2);
    return check_finish();
}
