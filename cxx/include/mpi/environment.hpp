// mpi::environment: MPI_Init_thread / MPI_Finalize as RAII; the library's version and
// thread level; wtime / wtick.
#pragma once

#include <mpi/communicator.hpp>
#include <mpi/errhandler.hpp>
#include <mpi/thread_level.hpp>

#include <string>
#include <utility>

namespace mpi {

inline bool initialized() {
  int f = 0;
  MPI_Initialized(&f);
  return f != 0;
}
inline bool finalized() {
  int f = 0;
  MPI_Finalized(&f);
  return f != 0;
}
inline double wtime() { return MPI_Wtime(); }
inline double wtick() { return MPI_Wtick(); }
inline thread_level query_thread() {
  int t = 0;
  MPI_CXX_CALL(MPI_Query_thread, &t);
  return detail::from_native(t);
}
inline bool is_thread_main() {
  int f = 0;
  MPI_CXX_CALL(MPI_Is_thread_main, &f);
  return f != 0;
}
inline std::pair<int, int> version() {
  int v = 0, s = 0;
  MPI_CXX_CALL(MPI_Get_version, &v, &s);
  return {v, s};
}
inline std::string library_version() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING + 1] = {};
  int len = 0;
  MPI_CXX_CALL(MPI_Get_library_version, buf, &len);
  return std::string(buf, static_cast<std::size_t>(len));
}
inline std::string processor_name() {
  char buf[MPI_MAX_PROCESSOR_NAME + 1] = {};
  int len = 0;
  MPI_CXX_CALL(MPI_Get_processor_name, buf, &len);
  return std::string(buf, static_cast<std::size_t>(len));
}

// Initializes MPI (unless it already is) and finalizes it on destruction if it did.
// Passing mpi::errors_return sets MPI_ERRORS_RETURN on MPI_COMM_WORLD and MPI_COMM_SELF,
// so errors surface as mpi::mpi_error (communicators created later inherit it).
class environment {
public:
  environment() : environment(nullptr, nullptr, thread_level::single) {}
  explicit environment(thread_level required) : environment(nullptr, nullptr, required) {}
  environment(int& argc, char**& argv, thread_level required = thread_level::single)
      : environment(&argc, &argv, required) {}
  environment(int& argc, char**& argv, errors_return_t) : environment(&argc, &argv, thread_level::single) {
    use_errors_return();
  }
  environment(int& argc, char**& argv, thread_level required, errors_return_t)
      : environment(&argc, &argv, required) {
    use_errors_return();
  }
  explicit environment(errors_return_t) : environment(nullptr, nullptr, thread_level::single) {
    use_errors_return();
  }
  environment(environment const&) = delete;
  environment& operator=(environment const&) = delete;
  ~environment() {
    if (owns_ && !finalized()) MPI_Finalize();
  }

  thread_level provided() const noexcept { return provided_; }
  // Finalizes now, reporting errors.
  void finalize() {
    if (owns_ && !finalized()) {
      owns_ = false;
      MPI_CXX_CALL(MPI_Finalize);
    }
  }

private:
  environment(int* argc, char*** argv, thread_level required) {
    if (initialized()) {
      provided_ = query_thread();
      return;
    }
    int p = 0;
    MPI_CXX_CALL(MPI_Init_thread, argc, argv, detail::to_native(required), &p);
    provided_ = detail::from_native(p);
    owns_ = true;
  }
  static void use_errors_return() {
    comm_world().set_errhandler(errors_return);
    comm_self().set_errhandler(errors_return);
  }
  bool owns_ = false;
  thread_level provided_ = thread_level::single;
};

}  // namespace mpi
