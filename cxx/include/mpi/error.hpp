// Errors: mpi::mpi_error and the one helper every wrapper uses to check a return code.
//
// MPI only returns an error code when the error handler of the object involved is
// MPI_ERRORS_RETURN (or a user handler that returns); under the default
// MPI_ERRORS_ARE_FATAL the program is aborted inside MPI, and so it is for the errors the
// bindings detect (detail::fail). Ask for exceptions with
//   mpi::environment env(argc, argv, mpi::errors_return);     // world + self
//   mpi::comm_world().set_errhandler(mpi::errors_return);     // one communicator
#pragma once

#include <mpi/config.hpp>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string_view>

namespace mpi {

namespace detail {
// Whether MPI is between its start and its end: only then may an MPI-3.1 be asked about an
// error, and only then can an error handler be called.
inline bool mpi_running() noexcept {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}
}  // namespace detail

class mpi_error : public std::exception {
public:
  // The paper's form: `throw mpi::mpi_error{err};`.
  explicit mpi_error(int code) noexcept : mpi_error(code, nullptr) {}
  mpi_error(int code, char const* function, std::string_view detail = {}) noexcept : code_(code) {
    // MPI_Error_class/MPI_Error_string may be called before MPI_Init and after MPI_Finalize
    // since MPI-4.0 (§11.4.1); an MPI-3.1 (Open MPI 4.1) aborts in them then, so there the
    // code stands for itself.
#if MPI_VERSION < 4
    bool const ask = detail::mpi_running();
#else
    bool const ask = true;
#endif
    if (!ask || MPI_Error_class(code, &class_) != MPI_SUCCESS) class_ = code;
    if (function) std::snprintf(function_, sizeof function_, "%s", function);
    char text[MPI_MAX_ERROR_STRING + 32] = {};
    int len = 0;
    if (!ask || MPI_Error_string(code, text, &len) != MPI_SUCCESS || len < 0)
      len = std::snprintf(text, sizeof text, "MPI error code %d", code);
    else if (len >= MPI_MAX_ERROR_STRING)  // an MPI that counts past what it may write
      len = static_cast<int>(std::strlen(text));
    // A text that already names the procedure (anympi's runtime writes "MPI_X: ...") is not
    // prefixed again.
    std::size_t const n = std::strlen(function_);
    bool const named = n != 0 && static_cast<std::size_t>(len) > n && std::strncmp(function_, text, n) == 0 && text[n] == ':';
    bool const prefix = n != 0 && !named;
    std::snprintf(message_, sizeof message_, "%s%s%.*s%s%.*s%s", prefix ? function_ : "", prefix ? ": " : "", len,
                  text, detail.empty() ? "" : " (", static_cast<int>(detail.size()), detail.empty() ? "" : detail.data(),
                  detail.empty() ? "" : ")");
  }

  int code() const noexcept { return code_; }
  int error_class() const noexcept { return class_; }
  // The MPI procedure that reported the error ("MPI_Send", ...); empty if unknown.
  std::string_view function() const noexcept { return function_; }
  char const* what() const noexcept override { return message_; }

private:
  // Fixed buffers, not std::string: every translation unit that calls MPI through the core
  // compiles this constructor, and std::string's appends here and in the details were a tenth
  // of what compiling bench/compile_tu.cpp cost. The longest MPI procedure name has 32
  // characters; a message longer than the buffer is cut.
  int code_;
  int class_ = 0;
  char function_[64] = {};
  char message_[MPI_MAX_ERROR_STRING + 512] = {};
};

namespace detail {

// The detail of an error the bindings detect, built in a fixed buffer as mpi_error's text is:
//   fail(MPI_ERR_COUNT, fn, error_text{} << "count " << n << " exceeds MPI_Count");
// Text beyond the buffer is cut.
class error_text {
public:
  error_text() noexcept { text_[0] = '\0'; }  // only the terminator: the rest is written before it is read
  error_text& operator<<(std::string_view s) noexcept {
    std::size_t const room = sizeof text_ - 1 - size_, n = s.size() < room ? s.size() : room;
    std::memcpy(text_ + size_, s.data(), n);
    size_ += n;
    text_[size_] = '\0';
    return *this;
  }
  template <class N>
    requires std::is_integral_v<N> && (!std::is_same_v<N, bool>) && (!std::is_same_v<N, char>)
  error_text& operator<<(N v) noexcept {
    char digits[24];
    int const n = std::is_signed_v<N> ? std::snprintf(digits, sizeof digits, "%lld", static_cast<long long>(v))
                                      : std::snprintf(digits, sizeof digits, "%llu", static_cast<unsigned long long>(v));
    return *this << (n < 0 ? "?" : digits);
  }
  // From the NUL-terminated text: string_view's (pointer, length) constructor would have the
  // compiler check its iterator-pair overload's iterator concepts in every translation unit.
  operator std::string_view() const noexcept { return text_; }

private:
  char text_[512];  // NUL-terminated at size_
  std::size_t size_ = 0;
};

// The one error-check helper. The throw is one function, not one at every call: a throw in
// place is the exception's allocation, construction and cleanup compiled at each call site.
MPI_CXX_COLD [[noreturn]] inline void throw_error(int err, char const* function) {
  throw mpi_error(err, function);
}
inline void check(int err, char const* function) {
  if (err != MPI_SUCCESS) [[unlikely]]
    throw_error(err, function);
}

// Errors detected by the bindings themselves (a count that cannot be represented, a buffer
// whose size does not divide by the group size, a feature the MPI underneath lacks) follow
// the MPI configuration exactly like errors MPI detects (the paper's rule): they are raised
// through the error handler of the communicator of the call, or of MPI_COMM_WORLD where the
// call has none (where MPICH, Open MPI and anympi's runtime raise their own errors tied to no
// object; MPI-4.0 §9.3 names MPI_COMM_SELF, but a program that sets a handler on
// MPI_COMM_WORLD alone, the common idiom, would see the bindings' errors abort). Under
// MPI_ERRORS_ARE_FATAL / MPI_ERRORS_ABORT the program ends there, after the message with the
// argument is printed (MPI's own text knows only the class); under MPI_ERRORS_RETURN, or a
// user handler that returns, the error is thrown as mpi_error, as a returned code would be.
// Before MPI_Init and after MPI_Finalize no handler can be called: it is thrown.
[[noreturn]] inline void fail(int error_class, char const* function, std::string_view detail, MPI_Comm comm = MPI_COMM_WORLD) {
  mpi_error e(error_class, function, detail);
  MPI_Errhandler h = MPI_ERRHANDLER_NULL;
  if (mpi_running() && comm != MPI_COMM_NULL && MPI_Comm_get_errhandler(comm, &h) == MPI_SUCCESS) {
    bool const returns = h == MPI_ERRORS_RETURN;
    bool const fatal = h == MPI_ERRORS_ARE_FATAL
#if MPI_VERSION >= 4
                       || h == MPI_ERRORS_ABORT
#endif
        ;
    // The reference MPI_Comm_get_errhandler gave; predefined handlers are never freed (as in
    // errhandler.hpp).
    if (!returns && !fatal) MPI_Errhandler_free(&h);
    if (!returns) {
      if (fatal) std::fprintf(stderr, "%s\n", e.what());
      MPI_Comm_call_errhandler(comm, e.code());
    }
  }
  throw e;
}

[[noreturn]] inline void unsupported(char const* function) {
  fail(MPI_ERR_UNSUPPORTED_OPERATION, function,
       error_text{} << "not provided by the MPI library this program was compiled against (MPI_VERSION "
                    << MPI_VERSION << "." << MPI_SUBVERSION << ")");
}

}  // namespace detail
}  // namespace mpi

// Calls an MPI procedure and throws mpi::mpi_error naming it if it returns an error.
#define MPI_CXX_CALL(fn, ...) ::mpi::detail::check(fn(__VA_ARGS__), #fn)
