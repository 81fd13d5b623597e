// The README's C++ example, compiled as g++ 12 compiles by default (C++17): <mpi.hpp> must stop
// with its one #error naming the flag, not with errors from deep inside the headers.
#include <mpi.hpp>
#include <vector>
int main(int argc, char **argv) {
    mpi::environment env(argc, argv);
    auto comm = mpi::comm_world();
    std::vector<double> v(3, 1.0 * comm.rank()), sum(3);
    mpi::allreduce(v, sum, std::plus<>{}, comm);
}
