// Serialized buffers (cereal's binary archive) for types MPI cannot describe by a datatype:
//
//   anympi::send(table | views::serialize, dest, tag, comm);
//   auto [table, st] = anympi::recv(views::deserialize<table_type>(), source, tag, comm);
//   auto table = anympi::bcast(table | views::serialize, root, comm);   // every process
//
// `obj | views::serialize` encodes obj once, when the view is made, into bytes it owns, sent
// as MPI_BYTE. views::deserialize<T>() is the same buffer around a value-initialized T, with no
// bytes yet. Either is a deferred_count buffer: a receive learns the byte count the way the
// layer learns any count (recv: the matched probe; bcast: one count exchange), and a
// finishing_buffer: the wrapper hands back the object, decoded where this process received
// the bytes (a bcast's root keeps its object as it was, decoded from nothing). Over an lvalue,
// the object decoded into is the caller's, and a reference to it comes back; over an rvalue,
// the object itself.
//
// The archives of the standard containers most messages use are included here; a type of
// one's own needs cereal's serialize() (or save/load) and, for other standard types, their
// <cereal/types/...> header.
#pragma once

#include <anympi/buffer.hpp>

#include <cereal/archives/binary.hpp>
#include <cereal/types/array.hpp>
#include <cereal/types/map.hpp>
#include <cereal/types/optional.hpp>
#include <cereal/types/set.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/tuple.hpp>
#include <cereal/types/unordered_map.hpp>
#include <cereal/types/utility.hpp>
#include <cereal/types/vector.hpp>

#include <cstddef>
#include <sstream>
#include <streambuf>
#include <string>
#include <type_traits>
#include <utility>

namespace anympi::views {

namespace detail {
// Reads bytes where they are, without a copy into a std::string.
class byte_source : public std::streambuf {
public:
  byte_source(char* data, std::size_t n) { setg(data, data, data + n); }
};
}  // namespace detail

// O: the object as held_t says (a reference to the caller's, or owned).
template <class O>
class serialized_view {
  using object_type = std::remove_cvref_t<O>;

public:
  struct encode_t {};
  struct empty_t {};

  template <class U>
  serialized_view(encode_t, U&& obj) : obj_(std::forward<U>(obj)) {
    std::ostringstream out(std::ios::binary);
    {
      cereal::BinaryOutputArchive archive(out);
      archive(obj_);
    }  // the archive flushes as it goes out of scope
    bytes_ = std::move(out).str();
  }
  template <class U>
  serialized_view(empty_t, U&& obj) : obj_(std::forward<U>(obj)) {}

  char* mpi_ptr() noexcept { return bytes_.data(); }
  char const* mpi_ptr() const noexcept { return bytes_.data(); }
  MPI_Count mpi_count() const noexcept { return static_cast<MPI_Count>(bytes_.size()); }
  MPI_Datatype mpi_type() const noexcept { return MPI_BYTE; }
  void mpi_set_count(MPI_Count n) { bytes_.resize(static_cast<std::size_t>(n)); }

  // The object, decoded from the bytes if they were received.
  std::remove_reference_t<O>& mpi_finish(bool received) & {
    if (received) decode();
    return obj_;
  }
  O mpi_finish(bool received) && {
    if (received) decode();
    return std::forward<O>(obj_);
  }

  // The encoded bytes (for a look at the size of a message, or a test).
  std::string const& bytes() const noexcept { return bytes_; }

private:
  void decode() {
    static_assert(!std::is_const_v<std::remove_reference_t<O>>, "views::serialize: a received object cannot be const");
    detail::byte_source in(bytes_.data(), bytes_.size());
    std::istream stream(&in);
    cereal::BinaryInputArchive archive(stream);
    object_type value{};
    archive(value);
    obj_ = std::move(value);
  }

  held_t<O> obj_;
  std::string bytes_;
};

// `obj | views::serialize`: obj encoded, to send (or to broadcast from the root).
struct serialize_fn {
  template <class T>
  friend serialized_view<held_t<T>> operator|(T&& obj, serialize_fn) {
    return serialized_view<held_t<T>>(typename serialized_view<held_t<T>>::encode_t{}, std::forward<T>(obj));
  }
  constexpr serialize_fn operator()() const noexcept { return *this; }
};
inline constexpr serialize_fn serialize{};

// A receive buffer for a serialized T; the receive hands back the T.
template <class T>
  requires std::is_default_constructible_v<T> && (!std::is_reference_v<T>)
serialized_view<T> deserialize() {
  return serialized_view<T>(typename serialized_view<T>::empty_t{}, T{});
}

}  // namespace anympi::views
