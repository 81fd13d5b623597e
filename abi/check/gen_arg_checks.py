#!/usr/bin/env python3
"""Writes the checking mode's argument checks of every function from the standard's data
(docs/check.md, "Argument checks"): for each function that has something to check, an
args_MPI_X(...) that checks its arguments (0 or the error it raised) and a wrapper that calls
it, then the slot it replaced, then records the handles the call handed out or took back.

What is checked, by the parameter's kind in abi/spec/mpi-4.1-apis.json (read through
abi/gen/anympi_spec.py) and its C type in the MPI-5.0 prototype:
  handles passed in (by value, by address when inout, arrays with a length): not 0, not another
      kind's predefined constant, not the kind's null unless allowed here (null_ok), not freed;
  RANK / RANK_NNI: no sentinel except those the argument accepts, in range where its
      communicator, group or size argument is known;
  TAG: not negative (MPI_ANY_TAG where a receive accepts it);
  the count and length kinds (COUNT_KINDS): not negative.
Handles passed out are valid from then on (the MPI may hand out a value again); an inout
handle the call turns into its null was released (freed, completed, received).

Usage: gen_arg_checks.py OUT_DIR   (writes args.gen.cpp and args.gen.hpp there)"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gen"))
import anympi_spec as spec  # noqa: E402
import gen_wrappers  # noqa: E402  (which functions the front answers or nobody provides)

HANDLES = {"MPI_Comm": "comm", "MPI_Datatype": "datatype", "MPI_Op": "op", "MPI_Group": "group",
           "MPI_Info": "info", "MPI_Errhandler": "errhandler", "MPI_Win": "win", "MPI_File": "file",
           "MPI_Session": "session", "MPI_Message": "message", "MPI_Request": "request"}
ERRH_OBJECTS = ("MPI_Comm", "MPI_Win", "MPI_File", "MPI_Session")
PER_RANK_KINDS = ("POLYXFER_NUM_ELEM_NNI", "DATATYPE")  # the kinds of the v/w collectives' arrays

# Kinds that are counts or lengths, never negative, and the class a negative one gets.
COUNT_KINDS = {
    "POLYXFER_NUM_ELEM_NNI": "MPI_ERR_COUNT", "XFER_NUM_ELEM_NNI": "MPI_ERR_COUNT",
    "POLYXFER_NUM_ELEM": "MPI_ERR_COUNT",  # the file reads and writes: elements in the buffer
    "POLYDTYPE_NUM_ELEM_NNI": "MPI_ERR_COUNT", "POLYDTYPE_NUM_ELEM_PI": "MPI_ERR_COUNT",
    "POLYNUM_BYTES_NNI": "MPI_ERR_ARG", "ARRAY_LENGTH_NNI": "MPI_ERR_ARG", "ARRAY_LENGTH_PI": "MPI_ERR_ARG",
    "COMM_SIZE_PI": "MPI_ERR_ARG",
}

# ---- the hand-written exceptions, each with its reason

# Functions not wrapped at all.
SKIP_FUNCTIONS = {
    "MPI_Abort": "must abort whatever it is given, not return an error",
}
SKIP_SUFFIXES = {
    "_toint": "returns the handle's integer, not an error code, and takes the null handles too (MPI-5.0)",
}
SKIP_PREFIXES = {
    "MPI_T_": "the tools interface runs before and without MPI initialization and has handles of its own",
}

# Arguments not checked (passed through unchanged).
SKIP_PARAMS = {
    ("MPI_Session_init", "info"): "may run before anything is initialized, when no error can be raised",
    ("MPI_Session_init", "errhandler"): "may run before anything is initialized, when no error can be raised",
    ("MPI_Intercomm_create", "peer_comm"): "significant only at local_leader (MPI-4.1 section 7.6.2)",
    ("MPI_Intercomm_create", "remote_leader"): "significant only at local_leader",
    ("MPI_Intercomm_create", "tag"): "significant only at local_leader",
    ("MPI_Intercomm_create_from_groups", "remote_group"): "significant only at local_leader",
    ("MPI_Intercomm_create_from_groups", "remote_leader"): "significant only at local_leader",
}

# Handles passed out that are not "created": MPI_Type_get_contents hands out references to
# the constituents, which check.cpp counts (freeing one does not free the type).
NOT_CREATED = {"MPI_Type_get_contents", "MPI_Type_get_contents_c"}

# Kinds whose release check.cpp records itself (MPI_Comm_free/disconnect keep the shadow in
# step; MPI_Type_free knows the get_contents references).
RELEASED_BY_HAND = {"comm", "datatype"}

# Where a null handle is a valid argument.
COMPLETION = re.compile(r"^MPI_(Wait|Test)(all|any|some)?$|^MPI_Request_get_status(_all|_any|_some)?$")
FILE_NULL_OK = {"MPI_File_set_errhandler", "MPI_File_get_errhandler", "MPI_File_call_errhandler"}


def null_ok(fn, p, kind):
    if kind == "info":
        # "no hints" everywhere an info is passed, but not to the functions that work on one
        return not fn.name.startswith("MPI_Info_")
    if kind == "request":
        # MPI-4.1 section 3.7.3: completion of a null request returns at once
        return bool(COMPLETION.match(fn.name))
    if kind == "file":
        # MPI-4.1 section 14.7: MPI_FILE_NULL stands for the default file error handler
        return fn.name in FILE_NULL_OK
    if kind == "datatype":
        # the per-block types of the w collectives: both MPIs accept MPI_DATATYPE_NULL for a
        # zero-count block, and programs rely on it
        return bool(p.array) and p.length == "*"
    return False


# Arguments significant only when a condition on another holds (a C++ expression).
SIGNIFICANT_IF = {
    # MPI-4.1 section 12.3.4: with MPI_NO_OP the origin buffer, count and datatype are
    # ignored (a program may pass NULL, 0, MPI_DATATYPE_NULL)
    (f, p): "op != MPI_NO_OP"
    for f in ("MPI_Get_accumulate", "MPI_Get_accumulate_c", "MPI_Rget_accumulate", "MPI_Rget_accumulate_c")
    for p in ("origin_count", "origin_datatype")
}

# The argument whose ranks a rank argument names, where that is not the function's 'comm'
# (or else 'group').
RANK_SPACE = {
    ("MPI_Intercomm_create", "local_leader"): "local_comm",
    ("MPI_Intercomm_create_from_groups", "local_leader"): "local_group",
    ("MPI_Group_translate_ranks", "ranks1"): "group1",
    ("MPI_Dist_graph_create", "sources"): "comm_old",
    ("MPI_Dist_graph_create_adjacent", "sources"): "comm_old",
    ("MPI_Dist_graph_create_adjacent", "destinations"): "comm_old",
    ("MPI_Type_create_darray", "rank"): "size",
    ("MPI_Type_create_darray_c", "rank"): "size",
}
RECEIVES = re.compile(r"^MPI_(Recv|Irecv|Recv_init|Probe|Iprobe|Mprobe|Improbe)(_c)?$")
# Arguments of one side of a collective, ignored when that side's buffer is MPI_IN_PLACE.
SIDE = {"sendbuf": {"sendcount", "sendcounts", "sendtype", "sendtypes", "sdispls"},
        "recvbuf": {"recvcount", "recvcounts", "recvtype", "recvtypes", "rdispls"}}


def rank_allowed(fn, p):
    """The sentinels a rank argument accepts, as a C++ expression."""
    if p.name == "source":
        # partitioned receives take no wildcard (MPI-4.1 section 4.2.2)
        return "allow_proc_null" if fn.name.startswith("MPI_Precv") else "allow_any_source | allow_proc_null"
    if p.name == "dest" or p.name == "target_rank":
        return "allow_proc_null"
    if p.name == "root":
        return "(is_inter(comm) ? allow_root | allow_proc_null | root_arg : unsigned{root_arg})"
    if p.kind == "RANK_NNI" and fn.name.startswith("MPI_Win_"):
        return "allow_proc_null"  # MPI_PROC_NULL is a valid target of every RMA call
    if (fn.name, p.name) == ("MPI_Group_translate_ranks", "ranks1"):
        return "allow_proc_null"  # MPI-4.1 section 7.3.1: translated to MPI_PROC_NULL
    return "0u"


# ---- reading one function

def base(p):
    return p.ctype.replace("const ", "").strip()


def is_int_type(t):
    return t in ("int", "MPI_Count", "MPI_Aint")


def root_only(fn, p):
    """Significant only at the root (apis.json's root_only)."""
    return getattr(p, "root_only", False)


class Gen:
    def __init__(self, fn):
        self.fn = fn
        self.by = {p.name: p for p in fn.params}
        self.checks = []    # C++ statements of args_MPI_X
        self.before = []    # of the wrapper, before the call
        self.after = []     # after the call (rc is its result)
        self.has_comm = "comm" in self.by and base(self.by["comm"]) == "MPI_Comm" and not self.by["comm"].array

    def length(self, p):
        """A C++ expression for an array argument's length, or None where it is not known."""
        ln = p.length
        if isinstance(ln, list) or not ln:
            return None
        if ln == "*":
            # the v/w collectives' counts and types: one per rank (not the neighbourhood ones:
            # one per neighbour; not MPI_Graph_create's edges: index[nnodes-1] of them)
            if self.has_comm and "neighbor" not in self.fn.name.lower() and p.kind in PER_RANK_KINDS:
                return "coll_size(comm)"
            return None
        q = self.by.get(ln)
        if q is not None and is_int_type(base(q)) and not q.array:
            return f"static_cast<std::int64_t>({ln})"
        return None

    def condition(self, p):
        """When the argument is significant (None: always)."""
        conds = []
        for buf, names in SIDE.items():
            if p.name in names and buf in self.by:
                conds.append(f"{buf} != MPI_IN_PLACE")
        if self.has_comm and "root" in self.by and root_only(self.fn, p):
            conds.append("x_root")
        if (self.fn.name, p.name) in SIGNIFICANT_IF:
            conds.append(SIGNIFICANT_IF[(self.fn.name, p.name)])
        return " && ".join(conds) or None

    def add(self, p, stmt):
        c = self.condition(p)
        self.checks.append(f"  if ({c}) RETURN_IF({stmt});" if c else f"  RETURN_IF({stmt});")

    def handle(self, p, where):
        b = base(p)
        fn = self.fn
        n = p.name
        for t, kind in HANDLES.items():
            ok = "true" if null_ok(fn, p, kind) else "false"
            hk = f"hkind::{kind}"
            if b == t and not p.array:  # by value: always input
                self.add(p, f'check_kind(x_fn, "{n}", bits({n}), {hk}, {ok}, {where})')
                return True
            arr = (b == t and p.array == "[]") or (b == t + " *" and p.length not in (None, ""))
            if arr:
                ln = self.length(p)
                if p.direction in ("in", "inout") and ln:
                    self.add(p, f'check_kinds(x_fn, "{n}", {n}, {ln}, {hk}, {ok}, {where})')
                if p.direction == "out" and ln and fn.name not in NOT_CREATED:
                    self.after.append(f"  if (rc == MPI_SUCCESS && {n}) for (std::int64_t i = 0; i < {ln}; ++i) "
                                      f"created({hk}, bits({n}[i]));")
                if p.direction == "inout" and ln and kind not in RELEASED_BY_HAND:
                    self.before.append(f"  std::vector<{t}> x_was_{n}({n} && {ln} > 0 ? {n} : nullptr, "
                                       f"{n} && {ln} > 0 ? {n} + {ln} : nullptr);")
                    self.after.append(f"  for (std::size_t i = 0; i < x_was_{n}.size(); ++i) "
                                      f"if (x_was_{n}[i] != {null_of(t)} && {n}[i] == {null_of(t)}) "
                                      f'released({hk}, bits(x_was_{n}[i]), "{fn.name}");')
                return True
            if b == t + " *" and not p.array:
                # an MPI-5.0-only function (no direction in apis.json) passes handles out by address
                if p.direction == "out" or p.direction is None:
                    if fn.name not in NOT_CREATED:
                        self.after.append(f"  if (rc == MPI_SUCCESS && {n}) created({hk}, bits(*{n}));")
                elif p.direction in ("in", "inout"):  # by address: MPI_Cancel's is read only
                    self.add(p, f'({n} ? check_kind(x_fn, "{n}", bits(*{n}), {hk}, {ok}, {where}) : 0)')
                    if p.direction == "inout" and kind not in RELEASED_BY_HAND:
                        self.before.append(f"  const {t} x_was_{n} = {n} ? *{n} : {null_of(t)};")
                        self.after.append(f"  if (x_was_{n} != {null_of(t)} && {n} && *{n} == {null_of(t)}) "
                                          f'released({hk}, bits(x_was_{n}), "{fn.name}");')
                return True
        return False

    def rank(self, p, where):
        fn = self.fn
        sp = RANK_SPACE.get((fn.name, p.name))
        if sp is None:
            sp = "comm" if self.has_comm else ("group" if "group" in self.by and base(self.by["group"]) == "MPI_Group" else None)
        if sp is None:
            space = "rank_space{}"
        elif base(self.by[sp]) == "int":
            space = f'space_of({sp}, "{sp}")'
        else:
            space = f"space_of({sp})"
        allowed = rank_allowed(fn, p)
        b = base(p)
        if b == "int" and not p.array:
            stmt = f'check_rank_in(x_fn, "{p.name}", {p.name}, {space}, {allowed}, {where})'
        elif b == "int" and p.array == "[]" and self.length(p):
            stmt = f'check_ranks_in(x_fn, "{p.name}", {p.name}, {self.length(p)}, {space}, {allowed}, {where})'
        else:
            return
        if p.name == "root":
            self.checks.append(f"  RETURN_IF({stmt});")
        else:
            self.add(p, stmt)

    def build(self):
        fn = self.fn
        params = [p for p in fn.params if (fn.name, p.name) not in SKIP_PARAMS]
        # the object whose error handler reports (checked first, on MPI_COMM_WORLD's)
        obj = next((p for p in params if base(p) in ERRH_OBJECTS and not p.array), None)
        where = f"at({obj.name})" if obj else "at_none()"
        if obj:
            self.handle(obj, "at_none()")
        root = self.by.get("root") if self.has_comm else None
        if root is not None and root.kind == "RANK":
            self.rank(root, where)
            self.checks.append("  if (is_inter(comm)) return 0;  // which side's arguments count: the MPI checks")
            if any(root_only(fn, p) for p in params):
                self.checks.append("  const bool x_root = at_root(comm, root);")
        for p in params:
            if p is obj or p is root or p.name == "...":
                continue
            if self.handle(p, where):
                continue
            if p.kind is None or p.direction not in ("in",):
                continue
            b = base(p)
            if p.kind in ("RANK", "RANK_NNI"):
                self.rank(p, where)
            elif p.kind == "TAG" and b == "int" and not p.array and self.has_comm:
                recv = "true" if p.name == "recvtag" or RECEIVES.match(fn.name) else "false"
                self.add(p, f'check_tag(x_fn, "{p.name}", {p.name}, comm, {recv})')
            elif p.kind in COUNT_KINDS and is_int_type(b):
                cls = COUNT_KINDS[p.kind]
                if not p.array:
                    self.add(p, f'check_count_at(x_fn, "{p.name}", {p.name}, {cls}, {where})')
                elif p.array == "[]" and self.length(p):
                    self.add(p, f'check_counts(x_fn, "{p.name}", {p.name}, {self.length(p)}, {cls}, {where})')
        return self


def null_of(t):
    return {"MPI_Comm": "MPI_COMM_NULL", "MPI_Datatype": "MPI_DATATYPE_NULL", "MPI_Op": "MPI_OP_NULL",
            "MPI_Group": "MPI_GROUP_NULL", "MPI_Info": "MPI_INFO_NULL", "MPI_Errhandler": "MPI_ERRHANDLER_NULL",
            "MPI_Win": "MPI_WIN_NULL", "MPI_File": "MPI_FILE_NULL", "MPI_Session": "MPI_SESSION_NULL",
            "MPI_Message": "MPI_MESSAGE_NULL", "MPI_Request": "MPI_REQUEST_NULL"}[t]


def wrapped(funcs):
    skip = set(gen_wrappers.FRONT_ONLY) | set(gen_wrappers.UNSUPPORTED) | set(SKIP_FUNCTIONS)
    out = []
    for f in funcs:
        if (f.ret != "int" or f.varargs or f.name in skip or any(f.name.startswith(x) for x in SKIP_PREFIXES)
                or any(f.name.endswith(x) for x in SKIP_SUFFIXES)):
            continue
        g = Gen(f).build()
        if g.checks or g.after:
            out.append(g)
    return out


NOTE = "Generated by abi/check/gen_arg_checks.py from abi/spec/ (docs/check.md). Do not edit."


def decl(f):
    return "(" + ", ".join(p.decl() for p in f.params) + ")" if f.params else "()"


def main():
    out_dir = sys.argv[1]
    gens = wrapped(spec.load_functions())
    if len(gens) < 300:
        sys.exit(f"gen_arg_checks.py: only {len(gens)} functions to wrap; the spec was not read right")
    H = [f"// args.gen.hpp -- each function's argument checks: 0 or the error raised. {NOTE}", "#pragma once",
         '#include "core.hpp"', "namespace anympi_check {"]
    C = [f"// args.gen.cpp -- the argument checks of {len(gens)} functions. {NOTE}", '#include "args.gen.hpp"',
         "", "#include <vector>", "", "namespace anympi_check {", "namespace {",
         "void* g_down[ANYMPI_NFUNCS];  // the slot each wrapper replaced", "}  // namespace", ""]
    for g in gens:
        f = g.fn
        names = ", ".join(p.name for p in f.params)
        if g.checks:
            H.append(f"int args_{f.name}{decl(f)};")
            C.append(f"int args_{f.name}{decl(f)} {{")
            C.append(f'  static const char* const x_fn = "{f.name}";')
            C += g.checks
            C.append("  return 0;")
            C.append("}")
        C.append(f"static int gw_{f.name}{decl(f)} {{")
        if g.checks:
            # the types library decoding a datatype calls MPI_Type_get_contents & co. by name,
            # on constituents the program may have freed (they live on in the type)
            C.append(f"  if (!t_in_decode) RETURN_IF(args_{f.name}({names}));")
        C += g.before
        C.append(f"  const int rc = reinterpret_cast<decltype(&P{f.name})>(g_down[ANYMPI_IX_{f.name}])({names});")
        C += g.after
        C.append("  return rc;")
        C.append("}")
        C.append("")
    C.append("void install_arg_checks() {")
    C.append("  if (!g_args) return;")
    for g in gens:
        n = g.fn.name
        C.append(f"  g_down[ANYMPI_IX_{n}] = g_table[ANYMPI_IX_{n}], "
                 f"g_table[ANYMPI_IX_{n}] = reinterpret_cast<void*>(&gw_{n});")
    C += ["}", "", "}  // namespace anympi_check", ""]
    H += ["}  // namespace anympi_check", ""]
    for name, lines in (("args.gen.hpp", H), ("args.gen.cpp", C)):
        path = os.path.join(out_dir, name)
        text = "\n".join(lines)
        if not os.path.exists(path) or open(path).read() != text:
            with open(path, "w") as fh:
                fh.write(text)


if __name__ == "__main__":
    main()
