/* The smallest real MPI program: who am I, how many are we, which MPI runs us, and a barrier. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  int rank = -1, size = -1, len = 0;
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 10;
  if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS) return 11;
  if (MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS) return 12;
  if (MPI_Get_library_version(version, &len) != MPI_SUCCESS) return 13;
  if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS) return 14;
  /* Everybody contributes its rank: proves the ranks really talk to each other. */
  int sum = -1;
  if (MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS) return 15;
  if (rank == 0) {
    char *nl = strchr(version, '\n');
    if (nl) *nl = '\0';
    printf("library: %s\n", version);
  }
  printf("hello %d of %d, sum %d\n", rank, size, sum);
  MPI_Finalize();
  return sum == size * (size - 1) / 2 ? 0 : 1;
}
