/* The program the PMPI tool watches.  Its call counts are fixed by its rank and
 * size (check_counts.cmake computes the same numbers): 2 MPI_Barrier,
 * 5 MPI_Allreduce, and 4 MPI_Send from each even rank r with r+1 < size to r+1,
 * which makes 4 MPI_Recv.  It also checks its own data, so a tool that forwards
 * wrongly fails here. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 5; ++i) {
        int in = rank + i, out = -1;
        MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (out != size * (size - 1) / 2 + size * i) bad = 1;
    }
    for (int i = 0; i < 4; ++i) {
        int v = rank * 100 + i, got = -1;
        if (rank % 2 == 0 && rank + 1 < size) {
            MPI_Send(&v, 1, MPI_INT, rank + 1, i, MPI_COMM_WORLD);
        } else if (rank % 2 == 1) {
            MPI_Recv(&got, 1, MPI_INT, rank - 1, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (got != (rank - 1) * 100 + i) bad = 1;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (bad) fprintf(stderr, "pmpi target: rank %d received wrong data\n", rank);
    MPI_Finalize();
    return bad;
}
