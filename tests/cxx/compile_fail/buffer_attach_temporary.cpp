// Attaching a temporary vector as bsend's buffer: it is freed at the end of the statement while
// MPI keeps copying messages into it. Rejected (the lvalue and view forms are in
// outlives_call_ok.cpp).
#include <mpi.hpp>
#include <cstddef>
#include <vector>
void f() {
  mpi::buffer_attach(std::vector<std::byte>(1024));
  (void)mpi::buffer_detach();
}
