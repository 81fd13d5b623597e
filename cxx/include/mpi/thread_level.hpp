// mpi::thread_level: the four MPI thread support levels, as MPI_Init_thread takes them and
// as the standard spells them in info values (a session's "thread_level").
#pragma once

#include <mpi/config.hpp>

#include <optional>
#include <string_view>

namespace mpi {

enum class thread_level : int { single, funneled, serialized, multiple };

namespace detail {
inline int to_native(thread_level t) {
  switch (t) {
    case thread_level::single: return MPI_THREAD_SINGLE;
    case thread_level::funneled: return MPI_THREAD_FUNNELED;
    case thread_level::serialized: return MPI_THREAD_SERIALIZED;
    default: return MPI_THREAD_MULTIPLE;
  }
}
inline thread_level from_native(int t) {
  if (t == MPI_THREAD_SINGLE) return thread_level::single;
  if (t == MPI_THREAD_FUNNELED) return thread_level::funneled;
  if (t == MPI_THREAD_SERIALIZED) return thread_level::serialized;
  return thread_level::multiple;
}
// MPI-4.0 §11.3.1: the values of the info key "thread_level" are the constants' names.
inline std::string_view name_of(thread_level t) noexcept {
  switch (t) {
    case thread_level::single: return "MPI_THREAD_SINGLE";
    case thread_level::funneled: return "MPI_THREAD_FUNNELED";
    case thread_level::serialized: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
  }
}
inline std::optional<thread_level> thread_level_named(std::string_view s) noexcept {
  for (thread_level t : {thread_level::single, thread_level::funneled, thread_level::serialized,
                         thread_level::multiple})
    if (s == name_of(t)) return t;
  return std::nullopt;
}
}  // namespace detail

}  // namespace mpi
