// Communicators: mpi::comm_view (non-owning) and mpi::comm (owning), with rank/size,
// duplication, splitting, creation from groups, comparison, intercommunicators, names,
// typed attributes, error handlers and info hints.
#pragma once

#include <mpi/errhandler.hpp>
#include <mpi/group.hpp>
#include <mpi/object.hpp>
#include <mpi/rank_tag.hpp>
#include <mpi/request.hpp>
#include <mpi/std_parts.hpp>

#include <optional>
#include <string_view>
#include <utility>

namespace mpi {

namespace detail {
struct comm_kind {
  using native_type = MPI_Comm;
  static MPI_Comm null() noexcept { return MPI_COMM_NULL; }
  static bool is_predefined(MPI_Comm h) noexcept { return h == MPI_COMM_WORLD || h == MPI_COMM_SELF; }
  static int free(MPI_Comm* h) noexcept { return MPI_Comm_free(h); }
  static constexpr char const* free_name = "MPI_Comm_free";
  // The processes a whole-message collective divides its buffers among (received from, sent
  // to), as a group and by the topology (-1: not asked yet), remembered by an owning mpi::comm
  // and by each comm_view, so that they are asked of MPI once, not per call: they cannot change
  // while the communicator lives. A value, copied with the handle (a view made from an owner
  // starts with what the owner knows), never a pointer to another object: a view stays valid
  // when its owner is moved, released or destroyed. Forgotten whenever the handle changes.
  // A struct of its own, not std::pair, whose class every translation unit with a communicator
  // would instantiate.
  struct peers {
    int from = -1;
    int to = -1;
  };
  struct facts {
    peers group_peers;
    peers neighbors;
  };
};
}  // namespace detail

class comm;
class info;
template <class T>
class attribute_key;

// Kinds of MPI_Comm_split_type; `undefined` (MPI_UNDEFINED) takes this process out: it gets a
// null communicator.
enum class split_kind { shared, undefined };
namespace detail {
constexpr int split_type_of(split_kind k) noexcept { return k == split_kind::shared ? MPI_COMM_TYPE_SHARED : MPI_UNDEFINED; }
}  // namespace detail

template <class D>
class comm_ops {
  MPI_Comm h() const noexcept { return static_cast<D const&>(*this).native(); }

public:
  int rank() const {
    int r = 0;
    MPI_CXX_CALL(MPI_Comm_rank, h(), &r);
    return r;
  }
  int size() const {
    int n = 0;
    MPI_CXX_CALL(MPI_Comm_size, h(), &n);
    return n;
  }
  bool is_inter() const {
    int f = 0;
    MPI_CXX_CALL(MPI_Comm_test_inter, h(), &f);
    return f != 0;
  }
  int remote_size() const {
    int n = 0;
    MPI_CXX_CALL(MPI_Comm_remote_size, h(), &n);
    return n;
  }
  mpi::group group() const {
    MPI_Group g;
    MPI_CXX_CALL(MPI_Comm_group, h(), &g);
    return mpi::group::from_native(g);
  }
  mpi::group remote_group() const {
    MPI_Group g;
    MPI_CXX_CALL(MPI_Comm_remote_group, h(), &g);
    return mpi::group::from_native(g);
  }
  comm dup() const;
  template <info_handle I>
  comm dup_with_info(I const& info) const;
  // Nonblocking duplication: `out` receives the new communicator when the request
  // completes, so it must stay where it is until then.
  request idup(comm& out) const;
  template <info_handle I>
  request idup_with_info(I const& info, comm& out) const;
  // color MPI_UNDEFINED (mpi::undefined) gives a null communicator.
  template <rank_like K = int>
  comm split(int color, K const& key = 0) const;
  template <rank_like K = int>
  comm split_type(split_kind kind, K const& key = 0) const;
  template <rank_like K, info_handle I>
  comm split_type(split_kind kind, K const& key, I const& info) const;
  template <group_handle G>
  comm create(G const& g) const;
  template <group_handle G, tag_like T = int>
  comm create_group(G const& g, T const& tag = 0) const;
  template <comm_handle C>
  comparison compare(C const& other) const {
    int r = 0;
    MPI_CXX_CALL(MPI_Comm_compare, h(), mpi::handle(other), &r);
    return detail::to_comparison(r);
  }
  comm merge(bool high) const;  // MPI_Intercomm_merge

  // A template only so that std::string must be complete only where a name is read: the
  // headers every call needs do without <string> (std_parts.hpp), and a program that reads a
  // name includes it (as <mpi.hpp> does).
  template <class String = std::string>
  String name() const {
    char buf[MPI_MAX_OBJECT_NAME + 1] = {};
    int len = 0;
    MPI_CXX_CALL(MPI_Comm_get_name, h(), buf, &len);
    return String(buf, static_cast<std::size_t>(len));
  }
  void set_name(std::string_view n) const { MPI_CXX_CALL(MPI_Comm_set_name, h(), detail::c_string(n)); }

  template <errhandler_handle E>
  void set_errhandler(E const& e) const {
    MPI_CXX_CALL(MPI_Comm_set_errhandler, h(), mpi::handle(e));
  }
  errhandler get_errhandler() const {
    MPI_Errhandler e;
    MPI_CXX_CALL(MPI_Comm_get_errhandler, h(), &e);
    return errhandler::from_native(e);
  }
  template <info_handle I>
  void set_info(I const& i) const {
    MPI_CXX_CALL(MPI_Comm_set_info, h(), mpi::handle(i));
  }
  // A template for the reason name() is: a program that reads the hints includes <mpi/info.hpp>.
  template <class Info = mpi::info>
  Info get_info() const {
    MPI_Info i;
    MPI_CXX_CALL(MPI_Comm_get_info, h(), &i);
    return Info::from_native(i);
  }
  [[noreturn]] void abort(int code) const {
    MPI_Abort(h(), code);
    std::terminate();
  }

  // Typed attributes (see attribute_key).
  template <class T>
  void set_attr(attribute_key<T> const& key, T value) const;
  template <class T>
  T* get_attr(attribute_key<T> const& key) const;
  template <class T>
  void delete_attr(attribute_key<T> const& key) const;
  // The predefined integer attributes (MPI_TAG_UB, MPI_UNIVERSE_SIZE, ...).
  std::optional<int> predefined_attr(int keyval) const {
    void* v = nullptr;
    int flag = 0;
    MPI_CXX_CALL(MPI_Comm_get_attr, h(), keyval, &v, &flag);
    if (!flag) return std::nullopt;
    return *static_cast<int*>(v);
  }
  int tag_ub() const { return predefined_attr(MPI_TAG_UB).value_or(32767); }
};

// Unlike the other views, implicit from a native MPI_Comm, as in the paper, so that a
// function taking a comm_view takes MPI_COMM_WORLD. Only this view: under MPICH every handle
// type is int, and one implicit view per C type keeps an int from choosing among them.
//
// A view also remembers what the collectives learn of its communicator (detail::comm_kind::
// facts): a view kept and passed by reference asks MPI once.
class comm_view : public detail::view_base<detail::comm_kind>, public comm_ops<comm_view> {
public:
  comm_view() noexcept = default;
  comm_view(MPI_Comm h) noexcept : view_base(h) {}
  comm_view(MPI_Comm h, detail::comm_kind::facts const& f) noexcept : view_base(h), facts_(f) {}
  // The handle may be replaced through this pointer, so what was remembered of it is forgotten.
  MPI_Comm* mpi_handle_ptr() noexcept {
    facts_ = {};
    return view_base::mpi_handle_ptr();
  }
  detail::comm_kind::facts& facts() const noexcept { return facts_; }

private:
  mutable detail::comm_kind::facts facts_{};
};

class comm : public detail::owner_base<detail::comm_kind, comm, comm_view>, public comm_ops<comm> {
public:
  comm() noexcept = default;
};

inline comm_view comm_world() noexcept { return comm_view{MPI_COMM_WORLD}; }
inline comm_view comm_self() noexcept { return comm_view{MPI_COMM_SELF}; }
inline comm_view comm_null() noexcept { return comm_view{}; }

template <class D>
comm comm_ops<D>::dup() const {
  MPI_Comm c;
  MPI_CXX_CALL(MPI_Comm_dup, h(), &c);
  return comm::from_native(c);
}
template <class D>
template <info_handle I>
comm comm_ops<D>::dup_with_info(I const& info) const {
  MPI_Comm c;
  MPI_CXX_CALL(MPI_Comm_dup_with_info, h(), mpi::handle(info), &c);
  return comm::from_native(c);
}
template <class D>
request comm_ops<D>::idup(comm& out) const {
  out = comm{};
  request r;
  MPI_CXX_CALL(MPI_Comm_idup, h(), out.mpi_handle_ptr(), r.mpi_handle_ptr());
  return r;
}
template <class D>
template <info_handle I>
request comm_ops<D>::idup_with_info(I const& info, comm& out) const {
#if MPI_CXX_HAS_COMM_IDUP_WITH_INFO
  out = comm{};
  request r;
  MPI_CXX_CALL(MPI_Comm_idup_with_info, h(), mpi::handle(info), out.mpi_handle_ptr(), r.mpi_handle_ptr());
  return r;
#else
  (void)info;
  (void)out;
  detail::unsupported("MPI_Comm_idup_with_info");
#endif
}
template <class D>
template <rank_like K>
comm comm_ops<D>::split(int color, K const& key) const {
  MPI_Comm c;
  MPI_CXX_CALL(MPI_Comm_split, h(), color, mpi::to_rank(key), &c);
  return comm::from_native(c);
}
template <class D>
template <rank_like K>
comm comm_ops<D>::split_type(split_kind kind, K const& key) const {
  MPI_Comm c;
  MPI_CXX_CALL(MPI_Comm_split_type, h(), detail::split_type_of(kind), mpi::to_rank(key), MPI_INFO_NULL, &c);
  return comm::from_native(c);
}
template <class D>
template <rank_like K, info_handle I>
comm comm_ops<D>::split_type(split_kind kind, K const& key, I const& info) const {
  MPI_Comm c;
  MPI_CXX_CALL(MPI_Comm_split_type, h(), detail::split_type_of(kind), mpi::to_rank(key), mpi::handle(info), &c);
  return comm::from_native(c);
}
template <class D>
template <group_handle G>
comm comm_ops<D>::create(G const& g) const {
  MPI_Comm c;
  MPI_CXX_CALL(MPI_Comm_create, h(), mpi::handle(g), &c);
  return comm::from_native(c);
}
template <class D>
template <group_handle G, tag_like T>
comm comm_ops<D>::create_group(G const& g, T const& tag) const {
  MPI_Comm c;
  MPI_CXX_CALL(MPI_Comm_create_group, h(), mpi::handle(g), mpi::to_tag(tag), &c);
  return comm::from_native(c);
}
template <class D>
comm comm_ops<D>::merge(bool high) const {
  MPI_Comm c;
  MPI_CXX_CALL(MPI_Intercomm_merge, h(), high ? 1 : 0, &c);
  return comm::from_native(c);
}

// The paper's out-parameter forms of comm.dup() and comm.split(color, key): `out` frees what
// it held and receives the new communicator (null for color mpi::undefined).
template <comm_handle C>
void dup(C const& comm, mpi::comm& out) {
  out = comm_view(mpi::handle(comm)).dup();
}
template <comm_handle C, rank_like K>
void split(C const& comm, int color, K const& key, mpi::comm& out) {
  out = comm_view(mpi::handle(comm)).split(color, key);
}

// MPI_Intercomm_create: local_comm's leader talks to the remote leader over peer_comm.
template <comm_handle L, rank_like R1, comm_handle P, rank_like R2, tag_like T>
comm intercomm_create(L const& local_comm, R1 const& local_leader, P const& peer_comm,
                      R2 const& remote_leader, T const& tag) {
  MPI_Comm c;
  MPI_CXX_CALL(MPI_Intercomm_create, mpi::handle(local_comm), mpi::to_rank(local_leader),
               mpi::handle(peer_comm), mpi::to_rank(remote_leader), mpi::to_tag(tag), &c);
  return comm::from_native(c);
}

// MPI-4.0: a communicator from a group without a parent communicator (sessions model).
template <group_handle G, info_handle I = info_null_t, errhandler_handle E = errors_are_fatal_t>
comm comm_create_from_group(G const& g, std::string_view stringtag, I const& info = I{},
                            E const& eh = E{}) {
#if MPI_VERSION >= 4
  MPI_Comm c;
  MPI_CXX_CALL(MPI_Comm_create_from_group, mpi::handle(g), detail::c_string(stringtag), mpi::handle(info),
               mpi::handle(eh), &c);
  return comm::from_native(c);
#else
  (void)g, (void)stringtag, (void)info, (void)eh;
  detail::unsupported("MPI_Comm_create_from_group");
#endif
}

// A typed attribute key: values of T are copied with the communicator (MPI_Comm_dup) and
// destroyed with it. The key is freed when the attribute_key is destroyed.
template <class T>
class attribute_key {
public:
  attribute_key() {
    MPI_CXX_CALL(MPI_Comm_create_keyval, &copy_fn, &delete_fn, &keyval_, nullptr);
  }
  attribute_key(attribute_key const&) = delete;
  attribute_key& operator=(attribute_key const&) = delete;
  ~attribute_key() {
    if (keyval_ != MPI_KEYVAL_INVALID && !detail::mpi_finalized()) MPI_Comm_free_keyval(&keyval_);
  }
  int native() const noexcept { return keyval_; }

private:
  static int copy_fn(MPI_Comm, int, void*, void* in, void* out, int* flag) {
    try {
      *static_cast<void**>(out) = new T(*static_cast<T*>(in));
      *flag = 1;
      return MPI_SUCCESS;
    } catch (...) {
      *flag = 0;
      return MPI_ERR_OTHER;
    }
  }
  static int delete_fn(MPI_Comm, int, void* v, void*) {
    delete static_cast<T*>(v);
    return MPI_SUCCESS;
  }
  int keyval_ = MPI_KEYVAL_INVALID;
};

template <class D>
template <class T>
void comm_ops<D>::set_attr(attribute_key<T> const& key, T value) const {
  auto* p = new T(std::move(value));  // owned by the communicator once set; freed by delete_fn
  if (int const err = MPI_Comm_set_attr(h(), key.native(), p); err != MPI_SUCCESS) {
    delete p;
    detail::check(err, "MPI_Comm_set_attr");
  }
}
template <class D>
template <class T>
T* comm_ops<D>::get_attr(attribute_key<T> const& key) const {
  void* v = nullptr;
  int flag = 0;
  MPI_CXX_CALL(MPI_Comm_get_attr, h(), key.native(), &v, &flag);
  return flag ? static_cast<T*>(v) : nullptr;
}
template <class D>
template <class T>
void comm_ops<D>::delete_attr(attribute_key<T> const& key) const {
  MPI_CXX_CALL(MPI_Comm_delete_attr, h(), key.native());
}

}  // namespace mpi
