/* anympi demo (C): compiled once against the MPI-5.0 standard ABI, run on any MPI.
 *
 *   mpicc -o anympi-demo-c demo.c
 *   ANYMPI_BACKEND=mpich   mpiexec -n 4 ./anympi-demo-c
 *   ANYMPI_BACKEND=openmpi mpiexec -n 4 ./anympi-demo-c
 *
 * Rank 0 says which library runs the job, then every rank takes part in a ring, a reduction with
 * a predefined and with a user-defined operation, and a gather. Every result is checked: a wrong
 * answer is a non-zero exit, so the demo is also a test (examples.demo_c.*). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A user reduction: element-wise (sum, max) over pairs of ints. The runtime calls it with
 * standard handles, whichever MPI runs underneath. */
static void sum_and_max(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  const int *a = in;
  int *b = inout;
  for (int i = 0; i < *len; i += 2) {
    b[i] += a[i];
    if (a[i + 1] > b[i + 1]) b[i + 1] = a[i + 1];
  }
}

static int failures;
static void expect(int rank, int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "demo: rank %d: FAILED: %s\n", rank, what);
    failures++;
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  if (rank == 0) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0, major = 0, minor = 0, abi_major = 0, abi_minor = 0;
    MPI_Get_library_version(lib, &len);
    MPI_Get_version(&major, &minor);
    MPI_Abi_get_version(&abi_major, &abi_minor);
    /* The first line names anympi and the MPI underneath (native strings go on for pages). */
    char *nl = strchr(lib, '\n');
    if (nl) *nl = '\0';
    printf("library: %s\n", lib);
    printf("MPI %d.%d, standard ABI %d.%d, %d ranks\n", major, minor, abi_major, abi_minor, size);
  }

  /* A token goes once around the ring; every rank adds its rank. */
  int token = 0, right = (rank + 1) % size, left = (rank + size - 1) % size;
  if (rank == 0) {
    token = 100;
    MPI_Send(&token, 1, MPI_INT, right, 0, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Status st;
    MPI_Recv(&token, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &st);
    expect(rank, st.MPI_SOURCE == left && st.MPI_TAG == 0, "ring status names the sender and tag");
    token += rank;
    MPI_Send(&token, 1, MPI_INT, right, 0, MPI_COMM_WORLD);
  }

  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  expect(rank, sum == size * (size - 1) / 2, "MPI_Allreduce(MPI_SUM)");

  MPI_Op op;
  MPI_Op_create(sum_and_max, 1, &op);
  int mine[2] = {rank + 1, 10 * rank}, both[2] = {0, 0};
  MPI_Allreduce(mine, both, 2, MPI_INT, op, MPI_COMM_WORLD);
  MPI_Op_free(&op);
  expect(rank, both[0] == size * (size + 1) / 2 && both[1] == 10 * (size - 1), "user MPI_Op");

  int square = rank * rank, *squares = rank == 0 ? calloc((size_t)size, sizeof *squares) : NULL;
  MPI_Gather(&square, 1, MPI_INT, squares, 1, MPI_INT, 0, MPI_COMM_WORLD);

  if (rank == 0) {
    expect(rank, token == 100 + size * (size - 1) / 2, "the ring");
    printf("ring: token 100 + ranks = %d\n", token);
    printf("allreduce(MPI_SUM) of ranks = %d\n", sum);
    printf("allreduce(user op: sum of rank+1, max of 10*rank) = (%d, %d)\n", both[0], both[1]);
    printf("gather of rank^2:");
    for (int i = 0; i < size; ++i) {
      printf(" %d", squares[i]);
      expect(rank, squares[i] == i * i, "MPI_Gather");
    }
    printf("\n");
    free(squares);
  }
  int all_failures = 0;
  MPI_Reduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("%s\n", all_failures ? "demo: FAILED" : "demo: all results correct");
  MPI_Finalize();
  return failures ? 1 : 0;
}
