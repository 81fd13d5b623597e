// MPI-4.0 sessions and process sets. Where the MPI underneath predates MPI-4.0 (native
// Open MPI 4.1) the type exists and every operation throws mpi_error with class
// MPI_ERR_UNSUPPORTED_OPERATION.
#pragma once

#include <mpi/communicator.hpp>
#include <mpi/errhandler.hpp>
#include <mpi/group.hpp>
#include <mpi/info.hpp>
#include <mpi/thread_level.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

inline MPI_Session session_init(MPI_Info info, MPI_Errhandler eh) {
  MPI_Session s;
  MPI_CXX_CALL(MPI_Session_init, info, eh, &s);
  return s;
}
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
  // The names of the process sets, in MPI's order (at least "mpi://WORLD" and "mpi://SELF").
  std::vector<std::string> psets() const {
    int const n = num_psets();
    std::vector<std::string> names;
    names.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) names.push_back(nth_pset(i));
    return names;
  }
  mpi::info pset_info(std::string_view name) const {
    MPI_Info i;
    MPI_CXX_CALL(MPI_Session_get_pset_info, h(), detail::c_string(name), &i);
    return mpi::info::from_native(i);
  }
  // nullopt when the session has no process set of that name; other errors throw. MPI-4.0
  // takes only names that MPI_Session_get_nth_pset gave (mpi-issues #811 relaxes that in
  // MPI-4.2), and MPICH 4.0.2 raises an unknown one through MPI_COMM_WORLD's handler, which
  // aborts when MPI_Init was not called, whatever the session's: so the name is looked up
  // among psets() first, and MPI never sees one it does not list.
  std::optional<mpi::group> group_from_pset(std::string_view name) const {
    bool listed = false;
    for (auto const& n : psets()) listed = listed || n == name;
    if (!listed) return std::nullopt;
    MPI_Group g;
    MPI_CXX_CALL(MPI_Group_from_session_pset, h(), detail::c_string(name), &g);
    return mpi::group::from_native(g);
  }
  // A communicator of a process set's members (MPI_Comm_create_from_group, collective over
  // them), with errors returned; nullopt as for group_from_pset. Concurrent calls over the
  // same processes need distinct stringtags.
  std::optional<mpi::comm> comm_from_pset(std::string_view name,
                                          std::string_view stringtag = "org.anympi.comm_from_pset") const {
    auto g = group_from_pset(name);
    if (!g) return std::nullopt;
    return comm_create_from_group(*g, stringtag, info_view{}, errors_return);
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
// Default construction initializes one (the paper's API), with MPI_ERRORS_RETURN so that its
// errors are mpi_errors; session{mpi::null_handle} holds MPI_SESSION_NULL, as a moved-from
// session does.
class session : public detail::owner_base<detail::session_kind, session, session_view>,
                public session_ops<session> {
public:
  session() : owner_base(detail::session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN)) {}
  // Asks for a thread support level (the info key "thread_level"); get_info() tells the one
  // provided.
  explicit session(thread_level required)
      : owner_base(detail::session_init(mpi::info::create({{"thread_level", std::string(detail::name_of(required))}}).native(),
                                        MPI_ERRORS_RETURN)) {}
  explicit session(null_handle_t) noexcept {}
  template <info_handle I = info_null_t, errhandler_handle E = errors_return_t>
  static session init(I const& info = I{}, E const& eh = E{}) {
    return from_native(detail::session_init(mpi::handle(info), mpi::handle(eh)));
  }
  void finalize() { free(); }
};
#else
// Without MPI-4.0 sessions no session can be made: only the null one (session{null_handle},
// moved-from) exists, which finalize() leaves alone.
class session {
public:
  session() { detail::unsupported("MPI_Session_init"); }
  explicit session(thread_level) { detail::unsupported("MPI_Session_init"); }
  explicit session(null_handle_t) noexcept {}
  template <class... A>
  static session init(A const&...) {
    detail::unsupported("MPI_Session_init");
  }
  int num_psets() const { detail::unsupported("MPI_Session_get_num_psets"); }
  std::string nth_pset(int) const { detail::unsupported("MPI_Session_get_nth_pset"); }
  std::vector<std::string> psets() const { detail::unsupported("MPI_Session_get_num_psets"); }
  mpi::info pset_info(std::string_view) const { detail::unsupported("MPI_Session_get_pset_info"); }
  std::optional<mpi::group> group_from_pset(std::string_view) const {
    detail::unsupported("MPI_Group_from_session_pset");
  }
  std::optional<mpi::comm> comm_from_pset(std::string_view, std::string_view = {}) const {
    detail::unsupported("MPI_Group_from_session_pset");
  }
  mpi::info get_info() const { detail::unsupported("MPI_Session_get_info"); }
  void finalize() noexcept {}
  bool is_null() const noexcept { return true; }
};
#endif

}  // namespace mpi
