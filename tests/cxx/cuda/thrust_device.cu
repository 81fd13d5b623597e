// Compiled, never run (the build machines have no GPU): anympi/thrust.hpp under Thrust's CUDA
// device system, where a device_vector is a buffer whose address is a device pointer.
#include <anympi.hpp>
#include <anympi/thrust.hpp>

static_assert(THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA);
static_assert(!anympi::device_memory_is_host_memory);
static_assert(mpi::recv_buffer<thrust::device_vector<float>&>);
static_assert(mpi::send_buffer<thrust::device_vector<float> const&>);
static_assert(mpi::send_buffer<thrust::host_vector<int> const&>);

// What a program over a CUDA-aware MPI writes: the device pointer goes to MPI as it is.
void exchange(thrust::device_vector<float>& d, int peer, mpi::comm_view comm) {
  float* p = mpi::ptr(d);
  (void)p;
  anympi::sendrecv(d, peer, 0, thrust::device_vector<float>{} | anympi::views::resize, peer, 0, comm);
  anympi::allreduce(d, thrust::device_vector<float>(d.size()), std::plus<>{}, comm);
}

// The automatic types of <anympi.hpp> under nvcc's front end (a tuple's concept, a struct's).
struct particle {
  double x, y;
  int id;
};
static_assert(anympi::derivable_type<std::pair<int, double>>);
static_assert(anympi::derivable_type<std::tuple<int, float, char>>);
static_assert(anympi::derivable_type<particle>);
void send_particles(std::vector<particle> const& v, int peer, mpi::comm_view comm) { anympi::send(v, peer, 0, comm); }
