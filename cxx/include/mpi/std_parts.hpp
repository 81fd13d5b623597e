// The parts of the standard library the core uses from <ranges>, <functional>, <algorithm>,
// <memory>, <iterator>, <complex> and <string>, without the rest of those headers.
//
// libstdc++'s versions of the first six bring in views, hash tables, <chrono>, streams and
// shared_ptr, which the core never uses: in bench/compile_tu.cpp they were more than half of
// what a translation unit including <mpi/point_to_point.hpp> and <mpi/collectives.hpp> parsed
// (about 55 000 of 101 000 lines). libstdc++ declares what the core does use (range concepts and
// access, the function objects, std::min/max, std::addressof, iterator tags) in internal
// headers that those standard headers include themselves, so the names are the same entities
// either way; std::complex the core only names (the type map), so it is declared as libstdc++
// declares it, and a program that makes one includes <complex>. Likewise std::string: the
// headers every call needs only name it (the result of a communicator's name()), the headers
// that make strings include <string> themselves, and <string> was a seventh of what
// bench/compile_tu.cpp cost.
// Any other standard library, or a libstdc++ that lacks one of those headers, gets the standard
// headers; so does -DMPI_CXX_STANDARD_HEADERS.
#pragma once

#include <version>

#if defined(__GLIBCXX__) && !defined(MPI_CXX_STANDARD_HEADERS) && __has_include(<bits/move.h>) && \
    __has_include(<bits/ranges_base.h>) && __has_include(<bits/stl_algobase.h>) &&                    \
    __has_include(<bits/stl_function.h>) && __has_include(<bits/stl_iterator_base_types.h>) &&         \
    __has_include(<bits/stringfwd.h>)
#include <span>                            // before bits/ranges_base.h, which needs what it includes
#include <bits/move.h>                     // std::addressof
#include <bits/ranges_base.h>              // range concepts, std::ranges::data/size
#include <bits/stl_algobase.h>             // std::min, std::max
#include <bits/stl_function.h>             // std::plus and the other function objects
#include <bits/stl_iterator_base_types.h>  // std::input_iterator_tag
#include <bits/stringfwd.h>                // std::basic_string, std::string declared
namespace std _GLIBCXX_VISIBILITY(default) {
_GLIBCXX_BEGIN_NAMESPACE_VERSION
template <typename _Tp>
class complex;
_GLIBCXX_END_NAMESPACE_VERSION
}  // namespace std
#else
#include <complex>
#include <algorithm>
#include <functional>
#include <iterator>
#include <memory>
#include <ranges>
#include <string>
#endif
