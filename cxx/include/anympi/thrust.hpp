// Thrust's vectors as buffers of the core and of the layer (not included by <anympi.hpp>:
// include it where Thrust is available).
//
//   thrust::host_vector<int> h(n);  mpi::send(h, dest, tag, comm);
//   auto [d, st] = anympi::recv(thrust::device_vector<int>{} | views::resize, src, tag, comm);
//
// Both are contiguous: MPI is given the address of the first element, the size and the
// element's datatype (mpi::buffer_traits below), with no copy. They resize like a
// std::vector, so views::resize, grow_only and no_resize work on them unchanged.
//
// Where a device_vector's elements live is the device system's choice (THRUST_DEVICE_SYSTEM):
// - CPP, OMP, TBB: host memory; the pointer is an ordinary host pointer, any MPI takes it.
// - CUDA (and HIP): GPU memory; the pointer is a device pointer, which only a CUDA-aware
//   (ROCm-aware) MPI can read and write. Nothing is staged through the host: an MPI that is
//   not device-aware faults or reads garbage, so with such an MPI copy to a host_vector first.
//   Thrust's algorithms without thrust::cuda::par_nosync synchronize before they return, so
//   the elements are in place when MPI is given the pointer.
// device_memory_is_host_memory says which of the two this translation unit was built for.
#pragma once

#include <anympi/buffer.hpp>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/memory.h>

#include <cstddef>

namespace anympi {

inline constexpr bool device_memory_is_host_memory =
    THRUST_DEVICE_SYSTEM != THRUST_DEVICE_SYSTEM_CUDA
#ifdef THRUST_DEVICE_SYSTEM_HIP
    && THRUST_DEVICE_SYSTEM != THRUST_DEVICE_SYSTEM_HIP
#endif
    ;

namespace detail {
// Thrust's vectors are not std::ranges::contiguous_range (their iterators do not say
// contiguous_iterator_tag), so the core's fallback cannot take them; these traits say the same
// thing through raw_pointer_cast, which unwraps device_ptr to the address MPI needs.
template <class V>
struct thrust_vector_traits {
  static auto ptr(V& v) noexcept { return thrust::raw_pointer_cast(v.data()); }
  static auto ptr(V const& v) noexcept { return thrust::raw_pointer_cast(v.data()); }
  static std::size_t count(V const& v) noexcept { return v.size(); }
  static MPI_Datatype type(V const&) { return mpi::datatype_of<typename V::value_type>(); }
};
}  // namespace detail

}  // namespace anympi

template <mpi::mapped_type T, class Alloc>
struct mpi::buffer_traits<thrust::host_vector<T, Alloc>>
    : anympi::detail::thrust_vector_traits<thrust::host_vector<T, Alloc>> {};

template <mpi::mapped_type T, class Alloc>
struct mpi::buffer_traits<thrust::device_vector<T, Alloc>>
    : anympi::detail::thrust_vector_traits<thrust::device_vector<T, Alloc>> {};
