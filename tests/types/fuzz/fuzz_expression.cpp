// libFuzzer target for the datatype expression parser (MPI-free by design).
// Properties: parsing never crashes, errors point inside the text (or just past it), and
// the canonical spelling of anything accepted parses back to the same canonical spelling.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <anympi/types/expression.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  namespace at = anympi::types;
  try {
    const at::message_expr m = at::parse_message(text);
    const std::string canon = at::to_string(m);
    const std::string again = at::to_string(at::parse_message(canon));
    if (again != canon) std::abort();
  } catch (const at::expression_error& e) {
    if (e.offset() > size) std::abort();
    (void)at::format_error(text, e);
  }
  return 0;
}
