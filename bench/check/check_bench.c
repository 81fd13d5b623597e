/* What the checking mode costs: the same loops over libmpi_abi with ANYMPI_CHECK unset, set,
 * or over a front without the hook (docs/check.md; bench/check/measure runs them under
 * callgrind).  Built against the standard header.
 *   check_bench procnull N   N x MPI_Send(1 int) to MPI_PROC_NULL (one rank)
 *   check_bench pingpong N   N round trips of 1 int between ranks 0 and 1
 * Prints the loop's wall time per iteration; the loops are separate functions so that
 * callgrind can count their instructions alone (--toggle-collect). */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) int procnull_loop(long n, int *buf)
{
    int rc = MPI_SUCCESS;
    for (long i = 0; i < n; ++i) rc |= MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    return rc;
}

__attribute__((noinline)) int pingpong_loop(long n, int *buf, int rank)
{
    int rc = MPI_SUCCESS;
    for (long i = 0; i < n; ++i) {
        if (rank == 0) {
            rc |= MPI_Send(buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            rc |= MPI_Recv(buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            rc |= MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            rc |= MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        }
    }
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "procnull") && strcmp(argv[1], "pingpong"))) {
        fprintf(stderr, "usage: %s procnull|pingpong N\n", argv[0]);
        return 2;
    }
    long n = atol(argv[2]);
    int rank, size, buf = 0, rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!strcmp(argv[1], "pingpong") && size < 2) {
        fprintf(stderr, "check_bench: pingpong needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    rc = argv[1][0] == 'p' && argv[1][1] == 'r' ? procnull_loop(n, &buf) : pingpong_loop(n, &buf, rank);
    t = MPI_Wtime() - t;
    if (rank == 0)
        printf("%s %ld iterations: %.3f us/iteration (ANYMPI_CHECK=%s)\n", argv[1], n, n ? 1e6 * t / n : 0.0,
               getenv("ANYMPI_CHECK") ? getenv("ANYMPI_CHECK") : "");
    MPI_Finalize();
    return rc == MPI_SUCCESS ? 0 : 1;
}
