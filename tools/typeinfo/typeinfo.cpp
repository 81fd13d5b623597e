// anympi-typeinfo: explain (and draw) an MPI datatype written as an expression.
//
// The expression is built into a real datatype with MPI calls and then decoded back with
// MPI_Type_get_envelope/get_contents, so everything printed is what the MPI really built.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>

#include <anympi/types.hpp>

namespace at = anympi::types;

namespace {

constexpr int exit_ok = 0, exit_incompatible = 1, exit_usage = 2;

const char* usage =
    "usage: anympi-typeinfo [options] SEND-EXPR\n"
    "\n"
    "Explains the MPI datatype SEND-EXPR: type map, signature, value bytes, span,\n"
    "gaps and count x extent. 'T * n' at the top is the send count.\n"
    "\n"
    "options:\n"
    "  --recv EXPR        also explain the receive side and check type matching\n"
    "  --svg FILE         draw the send layout as SVG\n"
    "  --json             machine-readable output instead of text (errors too)\n"
    "  --max-rows N       rows of type map / offsets listed in text (default 64)\n"
    "  --max-entries N    refuse to expand type maps larger than N (default 4194304)\n"
    "  -h, --help         this text\n"
    "\n"
    "example:\n"
    "  anympi-typeinfo 'resized(struct(double@0, double@16), lb=0, extent=32) * 3' --recv 'double * 6'\n"
    "\n"
    "constructors: contiguous(n,T) vector(count,blocklen,stride,T) hvector(count,blocklen,bytes,T)\n"
    "  indexed([bl..],[disp..],T) hindexed([bl..],[bytes..],T) indexed_block(bl,[disp..],T)\n"
    "  hindexed_block(bl,[bytes..],T) struct(T@bytes, T*bl@bytes, ...) resized(T, lb=L, extent=E)\n"
    "  subarray([sizes],[subsizes],[starts],T[,order=c|fortran]) dup(T)\n"
    "  darray(size,rank,[gsizes],[block|cyclic|none..],[darg|dflt..],[psizes],T[,order=c|fortran])\n"
    "  f90_real(p,r) f90_complex(p,r) f90_integer(r) value_index(V,I) (MPI_Type_get_value_index)\n"
    "  basic names: double, int, MPI_DOUBLE_INT, 2int, byte, ...\n"
    "\n"
    "exit status: 0 explained (and compatible), 1 the receive does not match, 2 bad input\n";

struct options {
  std::string send, recv, svg;
  bool has_recv = false, json = false;
  std::size_t max_rows = 64;
  std::int64_t max_entries = at::default_entry_limit;
};

std::optional<options> parse_args(int argc, char** argv) {
  options o;
  bool have_send = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* opt) -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "anympi-typeinfo: " << opt << " needs a value\n";
        std::exit(exit_usage);
      }
      return argv[++i];
    };
    auto number = [&](const char* opt) -> long long {
      std::string v = value(opt);
      char* end = nullptr;
      long long n = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end || n <= 0) {
        std::cerr << "anympi-typeinfo: " << opt << " needs a positive number, not '" << v << "'\n";
        std::exit(exit_usage);
      }
      return n;
    };
    if (a == "-h" || a == "--help") {
      std::cout << usage;
      std::exit(exit_ok);
    } else if (a == "--recv") {
      o.recv = value("--recv");
      o.has_recv = true;
    } else if (a == "--svg") {
      o.svg = value("--svg");
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--max-rows") {
      o.max_rows = static_cast<std::size_t>(number("--max-rows"));
    } else if (a == "--max-entries") {
      o.max_entries = number("--max-entries");
    } else if (a.size() > 1 && a[0] == '-' && a[1] == '-') {
      std::cerr << "anympi-typeinfo: unknown option " << a << "\n" << usage;
      return std::nullopt;
    } else if (!have_send) {
      o.send = a;
      have_send = true;
    } else {
      std::cerr << "anympi-typeinfo: more than one send expression ('" << o.send << "' and '" << a
                << "'); quote the expression\n";
      return std::nullopt;
    }
  }
  if (!have_send) {
    std::cerr << usage;
    return std::nullopt;
  }
  return o;
}

bool json_output = false;

// The caret for people on stderr; with --json also an object on stdout for tools.
void report_error(const char* role, const std::string& text, const at::expression_error& e) {
  std::cerr << "anympi-typeinfo: in the " << role << " datatype:\n" << at::format_error(text, e);
  if (json_output)
    std::cout << "{\"error\": {\"side\": " << at::detail::json_string(role) << ", \"expression\": "
              << at::detail::json_string(text) << ", \"column\": " << e.column()
              << ", \"message\": " << at::detail::json_string(e.what()) << "}}\n";
}
void report_error(const char* role, const std::string& message) {
  std::cerr << "anympi-typeinfo: " << role << " datatype: " << message << "\n";
  if (json_output)
    std::cout << "{\"error\": {\"side\": " << at::detail::json_string(role)
              << ", \"message\": " << at::detail::json_string(message) << "}}\n";
}

// Parsing needs no MPI: syntax errors are reported before MPI starts.
std::optional<at::message_expr> parse_or_report(const std::string& text, const char* role) {
  try {
    at::message_expr m = at::parse_message(text);
    if (m.count < 0) throw at::expression_error(m.count_offset, "the count must not be negative");
    return m;
  } catch (const at::expression_error& e) {
    report_error(role, text, e);
    return std::nullopt;
  }
}

at::side explain(const std::string& text, const at::message_expr& m, std::int64_t limit) {
  at::datatype t = at::build(m.type);
  t.commit();
  at::type_node node = at::decode(t.get());
  at::side s;
  s.written = text;
  s.decoded = at::to_string(at::to_expr(node));
  s.l = at::describe(at::expand(node, limit), m.count, limit);
  return s;
}

int run(const options& o, const at::message_expr* send, const at::message_expr* recv) {
  at::report r;
  const char* role = "send";
  const std::string* text = &o.send;
  try {
    r.send = explain(o.send, *send, o.max_entries);
    if (recv) {
      role = "receive";
      text = &o.recv;
      r.recv = explain(o.recv, *recv, o.max_entries);
      r.compat = at::check(r.send.l.sig, r.recv->l.sig);
    }
  } catch (const at::expression_error& e) {
    report_error(role, *text, e);
    return exit_usage;
  } catch (const at::type_map_too_large& e) {
    report_error(role, std::string(e.what()) + " (raise it with --max-entries)");
    return exit_usage;
  } catch (const std::exception& e) {
    report_error(role, e.what());
    return exit_usage;
  }

  std::cout << (o.json ? at::render_json(r) : at::render_text(r, o.max_rows));
  if (!o.svg.empty()) {
    std::ofstream f(o.svg, std::ios::binary);
    f << at::render_svg(r.send);
    if (!f.good()) {
      std::cerr << "anympi-typeinfo: cannot write " << o.svg << "\n";
      return exit_usage;
    }
  }
  return r.compat && !r.compat->ok() ? exit_incompatible : exit_ok;
}

}  // namespace

int main(int argc, char** argv) {
  auto o = parse_args(argc, argv);
  if (!o) return exit_usage;
  json_output = o->json;
  // Syntax first, so a typo costs no MPI start-up.
  auto send = parse_or_report(o->send, "send");
  if (!send) return exit_usage;
  std::optional<at::message_expr> recv;
  if (o->has_recv && !(recv = parse_or_report(o->recv, "receive"))) return exit_usage;
  MPI_Init(nullptr, nullptr);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int rc = run(*o, &*send, recv ? &*recv : nullptr);
  MPI_Finalize();
  return rc;
}
