#!/usr/bin/env python3
"""Generates the header tests from the standard's tables (abi/spec/), independently of the
header generator: every constant's value and type, every function's exact type.

    gen_header_tests.py OUTDIR

writes OUTDIR/header_check.cpp (C++11..23: static_assert + std::is_same for everything),
OUTDIR/header_check.c (C11+: _Static_assert + _Generic) and OUTDIR/header_cases.c (C99+:
every integer constant as a case label; groups that must be distinct share one switch).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "abi", "gen"))
import spec  # noqa: E402  (the table reader; it does not know the header)

INTEGER_KINDS = ("int", "MPI_Offset")
# Groups of integer constants whose values the standard keeps distinct: one switch each, so a
# clash is a compile error and each value must come back as its own label.
DISTINCT_GROUPS = {
    "sentinels": lambda n: n in ("MPI_ANY_SOURCE", "MPI_ANY_TAG", "MPI_PROC_NULL", "MPI_ROOT", "MPI_UNDEFINED"),
    "error_classes": lambda n: n.startswith("MPI_ERR_") and n != "MPI_ERR_LASTCODE" or n == "MPI_SUCCESS",
    "thread_levels": lambda n: n.startswith("MPI_THREAD_"),
    "combiners": lambda n: n.startswith("MPI_COMBINER_"),
    "comparisons": lambda n: n in ("MPI_IDENT", "MPI_CONGRUENT", "MPI_SIMILAR", "MPI_UNEQUAL"),
    "topologies": lambda n: n in ("MPI_CART", "MPI_GRAPH", "MPI_DIST_GRAPH"),
    "tool_errors": lambda n: n.startswith("MPI_T_ERR_"),
}


def is_integer(c):
    return c.kind in INTEGER_KINDS or c.enum_tag is not None


def cpp(consts, funcs):
    o = ['#include <mpi.h>', '#include <cstdint>', '#include <cstdio>', '#include <type_traits>', '']
    o.append("#define SAME(a, b) static_assert(std::is_same<a, b>::value, #a \" is not \" #b)")
    o.append("static int failures = 0;")
    o.append("static void expect_code(const void *p, std::uintptr_t v, const char *name) {")
    o.append("  if (reinterpret_cast<std::uintptr_t>(p) != v) { std::printf(\"%s has the wrong value\\n\", name); ++failures; }")
    o.append("}")
    o.append("static void check_pointers() {")
    for c in consts:
        if c.kind == "alias":
            o.append(f"  SAME(decltype({c.name}), decltype({c.value}));")
            o.append(f"  expect_code(reinterpret_cast<const void *>({c.name}), reinterpret_cast<std::uintptr_t>({c.value}), \"{c.name}\");")
        elif not is_integer(c):
            o.append(f"  SAME(decltype({c.name}), {c.kind});")
            o.append(f"  expect_code(reinterpret_cast<const void *>({c.name}), {c.value}, \"{c.name}\");")
    o.append("}")
    for c in consts:
        if is_integer(c):
            t = c.enum_tag or c.kind
            o.append(f"SAME(decltype({c.name}), {t}); static_assert({c.name} == ({c.value}), \"{c.name}\");")
    for f in funcs:
        for p in ("", "P"):
            o.append(f"SAME(decltype(&{p}{f.name}), {f.ret} (*)({f.param_text}));")
    o.append("SAME(MPI_Aint, std::intptr_t); SAME(MPI_Offset, std::int64_t); SAME(MPI_Count, std::int64_t);")
    o.append("static_assert(sizeof(MPI_Status) == 32, \"MPI_Status is 32 bytes\");")
    for h in spec.handle_types():
        o.append(f"static_assert(sizeof({h}) == sizeof(void *), \"{h} is pointer-sized\");")
    o.append(f"static_assert({len(consts)} == 365 && {len(funcs)} == 664, \"the standard has 365 constants and 664 functions\");")
    o.append("int main() { check_pointers(); if (!failures) std::printf(\"header_check: all constants and functions match\\n\"); return failures != 0; }")
    return "\n".join(o) + "\n"


def c11(consts, funcs):
    o = ['#include <mpi.h>', '#include <stddef.h>', '#include <stdint.h>', '#include <stdio.h>', '']
    o.append("#define IS(x, T) _Static_assert(_Generic((x), T: 1, default: 0), #x \" is not \" #T)")
    o.append("static int failures;")
    o.append("static void expect_code(uintptr_t got, uintptr_t want, const char *name) {")
    o.append("  if (got != want) { printf(\"%s has the wrong value\\n\", name); ++failures; }")
    o.append("}")
    for c in consts:
        if is_integer(c):
            o.append(f"IS({c.name}, int); _Static_assert({c.name} == ({c.value}), \"{c.name}\");"
                     if c.kind != "MPI_Offset" else
                     f"IS({c.name}, MPI_Offset); _Static_assert({c.name} == ({c.value}), \"{c.name}\");")
    for f in funcs:
        for p in ("", "P"):
            o.append(f"IS(&{p}{f.name}, {f.ret} (*)({f.param_text}));")
    o.append("IS((MPI_Aint)0, intptr_t); IS((MPI_Offset)0, int64_t); IS((MPI_Count)0, int64_t);")
    o.append("_Static_assert(sizeof(MPI_Status) == 32, \"MPI_Status is 32 bytes\");")
    for field, offset in (("MPI_SOURCE", 0), ("MPI_TAG", 4), ("MPI_ERROR", 8)):
        o.append(f"_Static_assert(offsetof(MPI_Status, {field}) == {offset}, \"MPI_Status.{field} at {offset}\");")
    o.append("int main(void) {")
    for c in consts:
        if c.kind == "alias":
            o.append(f"  expect_code((uintptr_t){c.name}, (uintptr_t){c.value}, \"{c.name}\");")
        elif not is_integer(c):
            o.append(f"  IS({c.name}, {c.kind}); expect_code((uintptr_t){c.name}, {c.value}, \"{c.name}\");")
    o.append("  if (!failures) printf(\"header_check (C): all constants and functions match\\n\");")
    o.append("  return failures != 0;")
    o.append("}")
    return "\n".join(o) + "\n"


def c99(consts):
    o = ['#include <mpi.h>', '#include <stdio.h>', '']
    o.append("/* C99 has no _Static_assert: a negative array size is the compile-time check. */")
    o.append("typedef char status_is_32_bytes[sizeof(MPI_Status) == 32 ? 1 : -1];")
    o.append("typedef char aint_is_pointer_sized[sizeof(MPI_Aint) == sizeof(void *) ? 1 : -1];")
    o.append("static int failures;")
    groups = {}
    ints = [c for c in consts if is_integer(c) and c.kind != "MPI_Offset"]
    for c in ints:
        for g, member in DISTINCT_GROUPS.items():
            if member(c.name):
                groups.setdefault(g, []).append(c)
    for g, members in groups.items():
        o.append(f"static int {g}(int v) {{")
        o.append("  switch (v) {")
        for i, c in enumerate(members):
            o.append(f"  case {c.name}: return {i};")
        o.append("  default: return -1;")
        o.append("  }")
        o.append("}")
    o.append("/* Every integer constant, alone, as a case label with its standard value. */")
    o.append("static int one(int v, int want) { return v == want; }")
    o.append("#define CASE(name, value) switch (value) { case name: failures += !one(name, value); break; default: printf(\"%s is not %s\\n\", #name, #value); ++failures; }")
    o.append("int main(void) {")
    for c in ints:
        o.append(f"  CASE({c.name}, ({c.value}))")
    for g, members in groups.items():
        for i, c in enumerate(members):
            o.append(f"  if ({g}({c.name}) != {i}) {{ printf(\"{c.name} is not distinct in {g}\\n\"); ++failures; }}")
    o.append("  if (!failures) printf(\"header_cases: every integer constant works as a case label\\n\");")
    o.append("  return failures != 0;")
    o.append("}")
    return "\n".join(o) + "\n"


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    consts, funcs = spec.constants(), spec.functions()
    for name, text in (("header_check.cpp", cpp(consts, funcs)), ("header_check.c", c11(consts, funcs)),
                       ("header_cases.c", c99(consts))):
        path = os.path.join(out, name)
        old = open(path).read() if os.path.exists(path) else None
        if old != text:  # keep timestamps when nothing changed
            with open(path, "w") as f:
                f.write(text)


if __name__ == "__main__":
    main()
