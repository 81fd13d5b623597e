/* A minimal PMPI tool: counts MPI_Send, MPI_Recv, MPI_Allreduce and MPI_Barrier,
 * forwards each to its PMPI_ name, and prints the counts at MPI_Finalize.
 * Built once against the standard header, it is LD_PRELOADed on every backend. */
#include <mpi.h>
#include <stdio.h>

static long n_send, n_recv, n_allreduce, n_barrier;

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    ++n_send;
    return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    ++n_recv;
    return PMPI_Recv(buf, count, type, source, tag, comm, status);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    ++n_allreduce;
    return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Barrier(MPI_Comm comm)
{
    ++n_barrier;
    return PMPI_Barrier(comm);
}

int MPI_Finalize(void)
{
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("pmpi_count rank %d: MPI_Send=%ld MPI_Recv=%ld MPI_Allreduce=%ld MPI_Barrier=%ld\n", rank,
           n_send, n_recv, n_allreduce, n_barrier);
    fflush(stdout);
    return PMPI_Finalize();
}
