// MPI-4.0 sessions and process sets. Where the MPI underneath predates MPI-4.0 (native
// Open MPI 4.1) the type exists and every operation throws mpi_error with class
// MPI_ERR_UNSUPPORTED_OPERATION.
#pragma once

#include <mpi/communicator.hpp>
#include <mpi/errhandler.hpp>
#include <mpi/group.hpp>
#include <mpi/info.hpp>

#include <string>

namespace mpi {

#if MPI_CXX_HAS_SESSIONS
namespace detail {
struct session_kind {
  using native_type = MPI_Session;
  static MPI_Session null() noexcept { return MPI_SESSION_NULL; }
  static bool is_predefined(MPI_Session) noexcept { return false; }
  static int free(MPI_Session* h) noexcept { return MPI_Session_finalize(h); }
  static constexpr char const* free_name = "MPI_Session_finalize";
};
}  // namespace detail

template <class D>
class session_ops {
  MPI_Session h() const noexcept { return static_cast<D const&>(*this).native(); }

public:
  int num_psets(info_view info = {}) const {
    int n = 0;
    MPI_CXX_CALL(MPI_Session_get_num_psets, h(), info.native(), &n);
    return n;
  }
  std::string nth_pset(int n, info_view info = {}) const {
    int len = 0;
    char probe_buf[1];
    MPI_CXX_CALL(MPI_Session_get_nth_pset, h(), info.native(), n, &len, probe_buf);
    std::string s(static_cast<std::size_t>(len), '\0');  // len includes the terminator
    MPI_CXX_CALL(MPI_Session_get_nth_pset, h(), info.native(), n, &len, s.data());
    s.resize(static_cast<std::size_t>(len > 0 ? len - 1 : 0));
    return s;
  }
  mpi::info pset_info(std::string const& name) const {
    MPI_Info i;
    MPI_CXX_CALL(MPI_Session_get_pset_info, h(), name.c_str(), &i);
    return mpi::info::from_native(i);
  }
  mpi::group group_from_pset(std::string const& name) const {
    MPI_Group g;
    MPI_CXX_CALL(MPI_Group_from_session_pset, h(), name.c_str(), &g);
    return mpi::group::from_native(g);
  }
  mpi::info get_info() const {
    MPI_Info i;
    MPI_CXX_CALL(MPI_Session_get_info, h(), &i);
    return mpi::info::from_native(i);
  }
};

class session_view : public detail::view_base<detail::session_kind>, public session_ops<session_view> {
public:
  using view_base::view_base;
};

// Owning session: finalized (MPI_Session_finalize) on destruction or by finalize().
class session : public detail::owner_base<detail::session_kind, session, session_view>,
                public session_ops<session> {
public:
  session() noexcept = default;
  template <info_handle I = info_view, errhandler_handle E = errors_return_t>
  static session init(I const& info = I{}, E const& eh = E{}) {
    MPI_Session s;
    MPI_CXX_CALL(MPI_Session_init, mpi::handle(info), mpi::handle(eh), &s);
    return from_native(s);
  }
  void finalize() { free(); }
};
#else
class session {
public:
  template <class... A>
  static session init(A const&...) {
    detail::unsupported("MPI_Session_init");
  }
  int num_psets() const { detail::unsupported("MPI_Session_get_num_psets"); }
  std::string nth_pset(int) const { detail::unsupported("MPI_Session_get_nth_pset"); }
  mpi::info pset_info(std::string const&) const { detail::unsupported("MPI_Session_get_pset_info"); }
  mpi::group group_from_pset(std::string const&) const { detail::unsupported("MPI_Group_from_session_pset"); }
  void finalize() { detail::unsupported("MPI_Session_finalize"); }
  bool is_null() const noexcept { return true; }
};
#endif

}  // namespace mpi
