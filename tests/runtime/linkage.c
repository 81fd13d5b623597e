/* The built-once binary of the linkage tests: prints the library version line
 * (which must name the MPI underneath) and does a little real communication. */
#include "check.h"

int main(int argc, char **argv)
{
    check_init(&argc, &argv, "linkage");
    int rank, size, sum = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    MPI_OK(MPI_Get_library_version(lib, &len));
    if (rank == 0) {
        /* Only the first line: the version string may run over several. */
        char *nl = strchr(lib, '\n');
        if (nl) *nl = '\0';
        printf("linkage: library: %s\n", lib);
    }
    MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_EQ(sum, size * (size - 1) / 2);
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    MPI_OK(MPI_Sendrecv(&rank, 1, MPI_INT, right, 0, &got, 1, MPI_INT, left, 0, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    CHECK_EQ(got, left);
    return check_finish();
}
