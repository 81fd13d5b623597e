// Showing a layout to people (text, SVG) and to tools (JSON). No MPI in here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <anympi/types/layout.hpp>

namespace anympi::types {

// One side of a message as the CLI explains it.
struct side {
  std::string written;  // the expression as given
  std::string decoded;  // what the MPI built, decoded back (types of count 1)
  layout l;
};

struct report {
  side send;
  std::optional<side> recv;
  std::optional<compatibility> compat;
};

namespace detail {

inline std::string range_text(std::int64_t lo, std::int64_t hi) {  // [lo, hi) as inclusive bytes
  if (hi - lo == 1) return std::to_string(lo);
  return std::to_string(lo) + "\u2013" + std::to_string(hi - 1);
}

inline std::string pad(std::string s, std::size_t w, bool right = false) {
  // Width in characters, not bytes: the en dash and times sign are one column each.
  std::size_t cols = 0;
  for (unsigned char c : s) cols += (c & 0xC0) != 0x80;
  if (cols >= w) return s;
  return right ? std::string(w - cols, ' ') + s : s + std::string(w - cols, ' ');
}

inline std::string gaps_text(const layout& l, std::size_t max_listed = 16) {
  std::string s = std::to_string(l.gap_bytes) + (l.gap_bytes == 1 ? " byte" : " bytes");
  if (l.gaps.empty()) return s;
  s += ": ";
  for (std::size_t i = 0; i < l.gaps.size() && i < max_listed; ++i)
    s += (i ? ", " : "") + range_text(l.gaps[i].lo, l.gaps[i].hi);
  if (l.gaps.size() > max_listed) s += ", ... (" + std::to_string(l.gaps.size()) + " gaps)";
  return s;
}

inline void text_side(std::ostringstream& o, const char* role, const side& s, std::size_t max_rows) {
  const auto& l = s.l;
  const auto& m = l.map;
  o << pad(role, 17) << s.written << "\n";
  o << pad("decoded", 17) << s.decoded << (l.count != 1 ? " * " + std::to_string(l.count) : std::string()) << "\n\n";
  o << "type map of one instance (" << m.entries.size() << (m.entries.size() == 1 ? " entry" : " entries") << ")\n";
  o << "  " << pad("#", 6, true) << "  " << pad("type", 24) << pad("disp", 10, true) << "  bytes\n";
  for (std::size_t i = 0; i < m.entries.size() && i < max_rows; ++i) {
    const auto& e = m.entries[i];
    const auto& t = m.type_of(e);
    o << "  " << pad(std::to_string(i), 6, true) << "  " << pad(t.name, 24) << pad(std::to_string(e.disp), 10, true) << "  "
      << (t.size ? range_text(e.disp, e.disp + t.size) : std::string("(none)")) << "\n";
  }
  if (m.entries.size() > max_rows) o << "  ... " << m.entries.size() - max_rows << " more\n";
  o << "  size " << m.b.size << ", lb " << m.b.lb << ", ub " << m.b.ub() << ", extent " << m.b.extent << ", true lb "
    << m.b.true_lb << ", true extent " << m.b.true_extent << "\n";
  if (!l.monotonic)
    o << "  not monotonic: entry " << l.first_decrease << " lies below entry " << l.first_decrease - 1
      << " (allowed; the signature keeps type map order)\n";
  o << "\n";

  const std::size_t n = m.entries.size();
  const std::int64_t values = static_cast<std::int64_t>(n) * l.count;
  if (l.count != 1 && values > 0) {
    o << "message: " << l.count << " instances, " << values << " values\n";
    o << "  " << pad("#", 6, true) << "  " << pad("instance", 10) << pad("type", 24) << pad("offset", 10, true) << "  bytes\n";
    std::size_t shown = 0;
    for (std::int64_t k = 0; k < l.count && shown < max_rows; ++k)
      for (std::size_t i = 0; i < n && shown < max_rows; ++i, ++shown) {
        const auto& e = m.entries[i];
        const auto& t = m.type_of(e);
        const std::int64_t off = e.disp + k * m.b.extent;
        o << "  " << pad(std::to_string(static_cast<std::int64_t>(n) * k + static_cast<std::int64_t>(i)), 6, true) << "  "
          << pad(std::to_string(k), 10) << pad(t.name, 24) << pad(std::to_string(off), 10, true) << "  "
          << (t.size ? range_text(off, off + t.size) : std::string("(none)")) << "\n";
      }
    if (values > static_cast<std::int64_t>(max_rows)) o << "  ... " << values - static_cast<std::int64_t>(max_rows) << " more\n";
    o << "\n";
  }
  o << pad("signature", 17) << to_string(l.sig) << "\n";
  o << pad("value bytes", 17) << l.value_bytes;
  if (l.count != 1) o << " (" << l.count << " \u00d7 size " << m.b.size << ")";
  o << "\n";
  if (l.span.size() > 0 || l.value_bytes > 0)
    o << pad("span", 17) << l.span.size() << " (offsets " << range_text(l.span.lo, l.span.hi) << ")\n";
  else
    o << pad("span", 17) << "0 (no bytes selected)\n";
  o << pad("gaps", 17) << gaps_text(l) << "\n";
  if (l.overlap_bytes > 0)
    o << pad("overlaps", 17) << l.overlap_bytes << " bytes are selected more than once (erroneous in a receive)\n";
  o << pad("count \u00d7 extent", 17) << l.count_extent << " (" << l.count << " \u00d7 " << m.b.extent
    << "; a next instance would start at offset " << m.b.lb + l.count_extent << ")\n";
}

inline std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += static_cast<char>(c);
    else if (c < 0x20) {
      static const char* hex = "0123456789abcdef";
      o += "\\u00";
      o += hex[c >> 4];
      o += hex[c & 15];
    } else o += static_cast<char>(c);
  }
  return o + "\"";
}

inline std::string json_range(byte_range r) {
  return "{\"lo\": " + std::to_string(r.lo) + ", \"hi\": " + std::to_string(r.hi) + ", \"bytes\": " + std::to_string(r.size()) + "}";
}

inline std::string json_side(const side& s, std::int64_t max_offsets) {
  const auto& l = s.l;
  const auto& m = l.map;
  std::ostringstream o;
  o << "{\"expression\": " << json_string(s.written) << ", \"decoded\": " << json_string(s.decoded)
    << ", \"count\": " << l.count << ",\n   \"instance\": {\"size\": " << m.b.size << ", \"lb\": " << m.b.lb
    << ", \"ub\": " << m.b.ub() << ", \"extent\": " << m.b.extent << ", \"true_lb\": " << m.b.true_lb
    << ", \"true_extent\": " << m.b.true_extent << ", \"span\": " << json_range(l.instance_span)
    << ", \"gap_bytes\": " << l.instance_gap_bytes << ", \"monotonic\": " << (l.monotonic ? "true" : "false")
    << ",\n     \"type_map\": [";
  for (std::size_t i = 0; i < m.entries.size() && static_cast<std::int64_t>(i) < max_offsets; ++i) {
    const auto& t = m.type_of(m.entries[i]);
    o << (i ? ", " : "") << "{\"type\": " << json_string(t.name) << ", \"disp\": " << m.entries[i].disp
      << ", \"size\": " << t.size << "}";
  }
  o << "]},\n   \"signature\": {\"text\": " << json_string(to_string(l.sig)) << ", \"repeat\": " << l.sig.repeat << ", \"runs\": [";
  for (std::size_t i = 0; i < l.sig.runs.size(); ++i)
    o << (i ? ", " : "") << "{\"type\": " << json_string(l.sig.runs[i].type) << ", \"size\": " << l.sig.runs[i].size
      << ", \"length\": " << l.sig.runs[i].length << "}";
  o << "]},\n   \"elements\": " << l.elements << ", \"value_bytes\": " << l.value_bytes << ", \"span\": " << json_range(l.span)
    << ", \"gap_bytes\": " << l.gap_bytes << ", \"overlap_bytes\": " << l.overlap_bytes
    << ", \"count_extent\": " << l.count_extent << ",\n   \"gaps\": [";
  for (std::size_t i = 0; i < l.gaps.size() && static_cast<std::int64_t>(i) < max_offsets; ++i)
    o << (i ? ", " : "") << json_range(l.gaps[i]);
  o << "],\n   \"offsets\": [";
  std::int64_t shown = 0;
  for (std::int64_t k = 0; k < l.count && shown < max_offsets; ++k)
    for (std::size_t i = 0; i < m.entries.size() && shown < max_offsets; ++i, ++shown)
      o << (shown ? ", " : "") << m.entries[i].disp + k * m.b.extent;
  o << "], \"offsets_complete\": " << (shown == l.elements || l.elements == 0 ? "true" : "false") << "}";
  return o.str();
}

}  // namespace detail

inline std::string render_text(const report& r, std::size_t max_rows = 64) {
  std::ostringstream o;
  detail::text_side(o, "send", r.send, max_rows);
  if (r.recv) {
    o << "\n";
    detail::text_side(o, "receive", *r.recv, max_rows);
  }
  if (r.compat) {
    o << "\n" << detail::pad("verdict", 17) << to_string(r.compat->result) << ": " << r.compat->explanation << "\n";
  }
  return o.str();
}

inline std::string render_json(const report& r, std::int64_t max_offsets = 1 << 16) {
  std::ostringstream o;
  o << "{\"send\": " << detail::json_side(r.send, max_offsets);
  if (r.recv) o << ",\n \"recv\": " << detail::json_side(*r.recv, max_offsets);
  if (r.compat) {
    const auto& c = *r.compat;
    o << ",\n \"compatibility\": {\"verdict\": " << detail::json_string(to_string(c.result))
      << ", \"ok\": " << (c.ok() ? "true" : "false") << ", \"untyped\": " << (c.untyped ? "true" : "false")
      << ", \"send_elements\": " << c.send_elements << ", \"recv_elements\": " << c.recv_elements
      << ", \"send_bytes\": " << c.send_bytes << ", \"recv_bytes\": " << c.recv_bytes
      << ", \"mismatch_element\": " << c.mismatch_element << ", \"send_type\": " << detail::json_string(c.send_type)
      << ", \"recv_type\": " << detail::json_string(c.recv_type)
      << ", \"explanation\": " << detail::json_string(c.explanation) << "}";
  }
  o << "}\n";
  return o.str();
}

// The layout as a picture: a byte ruler, one box per selected value (type and index),
// gaps inside the span hatched, bytes beyond the span up to count x extent shaded, and a
// dashed line at every instance boundary (lb + i x extent).
inline std::string render_svg(const side& s, std::int64_t max_values = 4096) {
  const auto& l = s.l;
  const auto& m = l.map;
  std::int64_t lo = l.span.lo, hi = l.span.hi;
  if (l.count > 0) {
    const std::int64_t a = m.b.lb, b = m.b.lb + l.count_extent;
    lo = std::min({lo, a, b});
    hi = std::max({hi, a, b});
  }
  if (hi <= lo) hi = lo + 1;
  const std::int64_t range = hi - lo;
  const double width_px = 960;
  double scale = std::clamp(width_px / static_cast<double>(range), 2.0, 16.0);
  if (scale > 3) scale = static_cast<double>(static_cast<std::int64_t>(scale));
  const std::int64_t per_row = std::max<std::int64_t>(1, static_cast<std::int64_t>(width_px / scale));
  const std::int64_t rows_needed = (range + per_row - 1) / per_row;
  const std::int64_t rows = std::min<std::int64_t>(rows_needed, 48);
  const double left = 40, top = 64, row_h = 96, band_y = 38, band_h = 34;
  const double svg_w = std::max(900.0, left * 2 + static_cast<double>(std::min(per_row, range)) * scale);
  const double svg_h = top + static_cast<double>(rows) * row_h + 60;

  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(1);
  auto esc = [](const std::string& t) {
    std::string r;
    for (char c : t) r += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
    return r;
  };
  // Draws [a, b) (byte offsets) on every row it touches.
  auto segments = [&](std::int64_t a, std::int64_t b, auto&& draw) {
    a = std::max(a, lo);
    b = std::min(b, hi);
    while (a < b) {
      const std::int64_t row = (a - lo) / per_row;
      if (row >= rows) return;
      const std::int64_t row_end = lo + (row + 1) * per_row;
      const std::int64_t e = std::min(b, row_end);
      draw(left + static_cast<double>((a - lo) % per_row) * scale, top + static_cast<double>(row) * row_h,
           static_cast<double>(e - a) * scale, a == std::max(a, lo));
      a = e;
    }
  };
  static const char* palette[] = {"#7fb3e6", "#f2b56b", "#8fd18f", "#e58f8f", "#c5a3e0", "#e6d36f", "#8fd1d1", "#d8a0b8"};

  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << svg_w << "\" height=\"" << svg_h << "\" viewBox=\"0 0 "
    << svg_w << " " << svg_h << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n";
  o << "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
       "<rect width=\"6\" height=\"6\" fill=\"#ffffff\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#c0392b\" stroke-width=\"2\"/>"
       "</pattern></defs>\n";
  o << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  o << "<text x=\"" << left << "\" y=\"22\" font-size=\"15\" font-weight=\"bold\">" << esc(s.decoded)
    << (l.count != 1 ? " * " + std::to_string(l.count) : std::string()) << "</text>\n";
  o << "<text x=\"" << left << "\" y=\"42\" font-size=\"12\">" << esc(to_string(l.sig)) << " \u00b7 value bytes "
    << l.value_bytes << " \u00b7 span " << l.span.size()
    << (l.span.size() ? " (" + detail::range_text(l.span.lo, l.span.hi) + ")" : std::string()) << " \u00b7 gaps "
    << l.gap_bytes << " \u00b7 count \u00d7 extent " << l.count_extent << "</text>\n";

  // Ruler: a tick every byte when there is room, labels where they do not collide.
  std::int64_t label_every = 1;
  while (static_cast<double>(label_every) * scale < 36) label_every *= 2;
  for (std::int64_t r = 0; r < rows; ++r) {
    const double y = top + static_cast<double>(r) * row_h;
    const std::int64_t first = lo + r * per_row, last = std::min(hi, first + per_row);
    o << "<line x1=\"" << left << "\" y1=\"" << y + 20 << "\" x2=\"" << left + static_cast<double>(last - first) * scale
      << "\" y2=\"" << y + 20 << "\" stroke=\"#555\"/>\n";
    for (std::int64_t b = first; b <= last; ++b) {
      const double x = left + static_cast<double>(b - first) * scale;
      const bool labelled = (b % label_every) == 0;
      if (scale >= 4 || labelled)
        o << "<line x1=\"" << x << "\" y1=\"" << y + (labelled ? 12 : 16) << "\" x2=\"" << x << "\" y2=\"" << y + 20
          << "\" stroke=\"#555\"/>\n";
      if (labelled && b < last + (r == rows - 1 ? 1 : 0))
        o << "<text x=\"" << x << "\" y=\"" << y + 9 << "\" font-size=\"9\" text-anchor=\"middle\" fill=\"#333\">" << b
          << "</text>\n";
    }
  }
  // Beyond the span but inside count x extent: addressed by no value, yet inside the repetition.
  auto shade = [&](std::int64_t a, std::int64_t b, const char* fill, const char* cls) {
    segments(a, b, [&](double x, double y, double w, bool) {
      o << "<rect class=\"" << cls << "\" x=\"" << x << "\" y=\"" << y + band_y << "\" width=\"" << w << "\" height=\""
        << band_h << "\" fill=\"" << fill << "\" stroke=\"#999\" stroke-width=\"0.5\"/>\n";
    });
  };
  shade(lo, hi, "#eeeeee", "beyond-span");
  for (const auto& g : l.gaps) shade(g.lo, g.hi, "url(#hatch)", "gap");

  std::int64_t drawn = 0;
  for (std::int64_t k = 0; k < l.count && drawn < max_values; ++k)
    for (std::size_t i = 0; i < m.entries.size() && drawn < max_values; ++i, ++drawn) {
      const auto& e = m.entries[i];
      const auto& t = m.type_of(e);
      if (t.size == 0) continue;
      const std::int64_t off = e.disp + k * m.b.extent;
      std::string label = t.name.rfind("MPI_", 0) == 0 ? t.name.substr(4) : t.name;
      const std::int64_t index = drawn;
      segments(off, off + t.size, [&](double x, double y, double w, bool) {
        o << "<g class=\"value\"><title>#" << index << " " << esc(t.name) << " at offset " << off << " (bytes "
          << detail::range_text(off, off + t.size) << ")</title><rect x=\"" << x << "\" y=\"" << y + band_y << "\" width=\""
          << w << "\" height=\"" << band_h << "\" fill=\"" << palette[e.type % 8] << "\" stroke=\"#222\"/>";
        if (w >= 7.0 * static_cast<double>(label.size()))
          o << "<text x=\"" << x + w / 2 << "\" y=\"" << y + band_y + 14 << "\" font-size=\"11\" text-anchor=\"middle\">"
            << esc(label) << "</text>";
        if (w >= 7.0 * static_cast<double>(std::to_string(index).size() + 1))
          o << "<text x=\"" << x + w / 2 << "\" y=\"" << y + band_y + 28 << "\" font-size=\"11\" text-anchor=\"middle\">#"
            << index << "</text>";
        o << "</g>\n";
      });
    }
  // Instance boundaries.
  if (m.b.extent != 0)
    for (std::int64_t k = 0; k <= l.count && k <= max_values; ++k) {
      const std::int64_t at = m.b.lb + k * m.b.extent;
      if (at < lo || at > hi) continue;
      std::int64_t row = (at - lo) / per_row;
      if (row >= rows) row = rows - 1;
      if (at == hi && (at - lo) % per_row == 0 && row > 0) --row;
      const double x = left + static_cast<double>(at - lo - row * per_row) * scale;
      const double y = top + static_cast<double>(row) * row_h;
      o << "<line class=\"instance\" x1=\"" << x << "\" y1=\"" << y + band_y - 12 << "\" x2=\"" << x << "\" y2=\""
        << y + band_y + band_h + 8 << "\" stroke=\"#1a5fb4\" stroke-width=\"2\" stroke-dasharray=\"5,3\"/>\n";
      // The last boundary is labelled to its left, so it stays inside the picture.
      const bool last = k == l.count;
      o << "<text x=\"" << (last ? x - 3 : x + 3) << "\" y=\"" << y + band_y + band_h + 20 << "\" font-size=\"10\" fill=\"#1a5fb4\""
        << (last ? " text-anchor=\"end\"" : "") << ">"
        << (last ? "lb + " + std::to_string(l.count) + " \u00d7 extent" : "instance " + std::to_string(k)) << "</text>\n";
    }
  // Legend.
  const double ly = top + static_cast<double>(rows) * row_h + 18;
  o << "<rect x=\"" << left << "\" y=\"" << ly << "\" width=\"18\" height=\"12\" fill=\"" << palette[0] << "\" stroke=\"#222\"/>"
    << "<text x=\"" << left + 24 << "\" y=\"" << ly + 10 << "\" font-size=\"11\">selected value (#index in the message)</text>\n";
  o << "<rect x=\"" << left + 260 << "\" y=\"" << ly << "\" width=\"18\" height=\"12\" fill=\"url(#hatch)\" stroke=\"#999\"/>"
    << "<text x=\"" << left + 284 << "\" y=\"" << ly + 10 << "\" font-size=\"11\">gap inside the span</text>\n";
  o << "<rect x=\"" << left + 430 << "\" y=\"" << ly << "\" width=\"18\" height=\"12\" fill=\"#eeeeee\" stroke=\"#999\"/>"
    << "<text x=\"" << left + 454 << "\" y=\"" << ly + 10 << "\" font-size=\"11\">outside the span</text>\n";
  o << "<line x1=\"" << left + 580 << "\" y1=\"" << ly - 2 << "\" x2=\"" << left + 580 << "\" y2=\"" << ly + 14
    << "\" stroke=\"#1a5fb4\" stroke-width=\"2\" stroke-dasharray=\"5,3\"/>"
    << "<text x=\"" << left + 588 << "\" y=\"" << ly + 10 << "\" font-size=\"11\">instance boundary (lb + i \u00d7 extent)</text>\n";
  if (rows < rows_needed || drawn < l.elements)
    o << "<text x=\"" << left << "\" y=\"" << ly + 34 << "\" font-size=\"11\" fill=\"#c0392b\">picture truncated: "
      << "showing bytes " << lo << "\u2013" << lo + rows * per_row - 1 << " and " << drawn << " of " << l.elements
      << " values</text>\n";
  o << "</svg>\n";
  return o.str();
}

}  // namespace anympi::types
