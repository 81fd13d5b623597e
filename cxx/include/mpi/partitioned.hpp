// MPI-4.0 partitioned communication. The buffer is the whole message; it is split into
// `partitions` equal partitions (its count must divide evenly). On an MPI older than 4.0
// every call throws mpi_error with class MPI_ERR_UNSUPPORTED_OPERATION.
#pragma once

#include <mpi/buffer.hpp>
#include <mpi/communicator.hpp>
#include <mpi/info.hpp>
#include <mpi/large_count.hpp>
#include <mpi/rank_tag.hpp>
#include <mpi/request.hpp>

#include <span>
#include <string>

namespace mpi {

namespace detail {
inline MPI_Count partition_count(MPI_Count total, int partitions, char const* fn) {
  if (partitions <= 0) fail(MPI_ERR_ARG, fn, "partitions must be positive");
  if (total % partitions != 0)
    fail(MPI_ERR_COUNT, fn,
         error_text{} << "buffer count " << total << " is not divisible by " << partitions << " partitions");
  return total / partitions;
}
// MPI-4.0 (MPICH 4.0) declares the per-partition count MPI_Count; MPI-4.1 and the
// standard ABI declare it int and add the _c form.
#define MPI_CXX_PARTITIONED_C_ (MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1))
}  // namespace detail

namespace detail {
#if !MPI_CXX_HAS_PARTITIONED
#define MPI_CXX_PARTITIONED_FN_(fn) MPI_CXX_MISSING_FN(fn)
#elif MPI_CXX_PARTITIONED_C_
#define MPI_CXX_PARTITIONED_FN_(fn) MPI_CXX_COUNTED_FN(fn)
#else
#define MPI_CXX_PARTITIONED_FN_(fn) MPI_CXX_UNCOUNTED_FN(fn)
#endif
inline constexpr auto psend_init_fn = MPI_CXX_PARTITIONED_FN_(MPI_Psend_init);
inline constexpr auto precv_init_fn = MPI_CXX_PARTITIONED_FN_(MPI_Precv_init);
#undef MPI_CXX_PARTITIONED_FN_

// The per-partition count: counted (int or MPI_Count) where the MPI has both bindings, the
// MPI_Count of MPI-4.0's only binding otherwise.
inline auto per_partition(MPI_Count n) {
#if MPI_CXX_PARTITIONED_C_
  return counted{n};
#else
  return n;
#endif
}

template <class F, class B, class R, class T, class C, class I>
request partitioned_init(F const& f, B& buf, int partitions, R const& peer, T const& tag, C const& comm,
                         I const& info) {
  request req;
  call_with(f, mpi::ptr(buf), partitions, per_partition(partition_count(count_of(buf, f.name), partitions, f.name)),
            type_of(buf), mpi::to_rank(peer), mpi::to_tag(tag), mpi::handle(comm), mpi::handle(info),
            req.mpi_handle_ptr());
  return req;
}
}  // namespace detail

template <send_buffer B, rank_like R, tag_like T, comm_handle C, info_handle I = info_null_t>
  requires buffer_outlives_call<B>
[[nodiscard]] request psend_init(B&& buf, int partitions, R const& dest, T const& tag, C const& comm,
                                 I const& info = I{}) {
  return detail::partitioned_init(detail::psend_init_fn, buf, partitions, dest, tag, comm, info);
}
template <recv_buffer B, rank_like R, tag_like T, comm_handle C, info_handle I = info_null_t>
  requires buffer_outlives_call<B>
[[nodiscard]] request precv_init(B&& buf, int partitions, R const& source, T const& tag, C const& comm,
                                 I const& info = I{}) {
  return detail::partitioned_init(detail::precv_init_fn, buf, partitions, source, tag, comm, info);
}

template <request_handle_ptr R>
void pready(int partition, R& req) {
#if MPI_CXX_HAS_PARTITIONED
  MPI_CXX_CALL(MPI_Pready, partition, *mpi::handle_ptr(req));
#else
  (void)partition, (void)req;
  detail::unsupported("MPI_Pready");
#endif
}
template <request_handle_ptr R>
void pready_range(int low, int high, R& req) {
#if MPI_CXX_HAS_PARTITIONED
  MPI_CXX_CALL(MPI_Pready_range, low, high, *mpi::handle_ptr(req));
#else
  (void)low, (void)high, (void)req;
  detail::unsupported("MPI_Pready_range");
#endif
}
template <request_handle_ptr R>
void pready_list(std::span<int const> partitions, R& req) {
#if MPI_CXX_HAS_PARTITIONED
  // MPICH 4.0 declares the array non-const; MPI does not write it.
  MPI_CXX_CALL(MPI_Pready_list, detail::range_size(partitions, "MPI_Pready_list"),
               const_cast<int*>(partitions.data()), *mpi::handle_ptr(req));
#else
  (void)partitions, (void)req;
  detail::unsupported("MPI_Pready_list");
#endif
}
template <request_handle_ptr R>
bool parrived(R& req, int partition) {
#if MPI_CXX_HAS_PARTITIONED
  int flag = 0;
  MPI_CXX_CALL(MPI_Parrived, *mpi::handle_ptr(req), partition, &flag);
  return flag != 0;
#else
  (void)partition, (void)req;
  detail::unsupported("MPI_Parrived");
#endif
}

}  // namespace mpi
