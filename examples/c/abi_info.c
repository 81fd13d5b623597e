/* What the standard ABI header says about itself: compiled against abi/include/mpi.h only.
 * No MPI call is made, so it needs no MPI library. */
#include <mpi.h>
#include <stdio.h>

int main(void)
{
    printf("anympi: compiled against the MPI-%d.%d standard ABI header, ABI version %d.%d\n",
           MPI_VERSION, MPI_SUBVERSION, MPI_ABI_VERSION, MPI_ABI_SUBVERSION);
    printf("  sizeof(MPI_Status) = %zu, sizeof(MPI_Comm) = %zu, sizeof(MPI_Aint) = %zu, sizeof(MPI_Count) = %zu\n",
           sizeof(MPI_Status), sizeof(MPI_Comm), sizeof(MPI_Aint), sizeof(MPI_Count));
    printf("  MPI_COMM_WORLD = %#lx, MPI_INT32_T = %#lx (fixed-size types carry their size: %d bytes)\n",
           (unsigned long)(uintptr_t)MPI_COMM_WORLD, (unsigned long)(uintptr_t)MPI_INT32_T,
           1 << (((uintptr_t)MPI_INT32_T >> 3) & 7));
    printf("  MPI_ANY_SOURCE = %d, MPI_ANY_TAG = %d, MPI_PROC_NULL = %d, MPI_UNDEFINED = %d\n",
           MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_PROC_NULL, MPI_UNDEFINED);
    return 0;
}
