#!/usr/bin/env python3
"""Generate the runtime's wrappers from the standard's data.

Inputs: abi/spec/mpi-5.0-c-functions.tsv (prototypes), abi/spec/mpi-4.1-apis.json
(parameter kinds, directions, lengths), abi/spec/mpi-5.0-abi-constants.tsv, the native
headers of each backend (only to learn which functions and constants exist there), and
abi/runtime/backend/manual.cpp and emulated_types.cpp (the hand-written functions, each with
its reason).

Outputs (committed; a CTest regenerates them and checks there is no diff):
  abi/runtime/generated/abi_types.h      ABI types/constants renamed abi_* / ABI_* for the backend
  abi/runtime/generated/abi_consts.inc   X-macro of every constant, guarded by native availability
  abi/runtime/generated/fn_index.h       the index of every function in the dispatch table
  abi/runtime/generated/backend_sigs.h   abi_MPI_X signatures for the backend
  abi/runtime/generated/backend.gen.cpp  one line per function: forwarded or unsupported
  abi/runtime/generated/native_calls.h   every native MPI_X the backend names: a call through
                                         the pointer resolved when the backend is loaded
  abi/runtime/generated/have_<mpi>.h     which functions/constants the native mpi.h has
  abi/runtime/generated/front.gen.c      PMPI_X (dispatch) and MPI_X (weak alias) for all 664
  abi/runtime/generated/libmpi_abi.map   the version script: exactly the header's names
  docs/coverage.md                       per function and backend: forwarded/emulated/unsupported
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import anympi_spec as spec  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
GEN = os.path.join(ROOT, "abi", "runtime", "generated")
MANUAL = [os.path.join(ROOT, "abi", "runtime", "backend", f) for f in ("manual.cpp", "emulated_types.cpp", "requests.cpp",
                                                                     "partitioned.cpp", "large_counts.cpp", "large_count_types.cpp",
                                                                     "sessions.cpp", "buffers.cpp", "hw_resources.cpp",
                                                                     "datarep.cpp")]
BACKENDS = ["mpich", "openmpi"]

# Functions a native MPI has that anympi does not call, each for a defect of that MPI's version
# (as its mpi.h names it) where anympi's own implementation (requests.hpp) is faithful: the
# backend is generated as if the MPI lacked them, and docs/coverage.md gives the reason.  Only
# functions anympi can emulate on that MPI are dropped (an entry never makes one unsupported).
PERSISTENT_COLLECTIVE = (r"MPI_(Barrier|Bcast|Gatherv?|Scatterv?|Allgatherv?|Alltoall[vw]?|Reduce|Allreduce|"
                         r"Reduce_scatter(_block)?|Scan|Exscan|Neighbor_(allgatherv?|alltoall[vw]?))_init(_c)?")
DEFECTS = [
    ("mpich", "4.0.", PERSISTENT_COLLECTIVE,
     "MPICH 4.0.2's own restart wrongly (gather: the root's own block; allgather at 2 processes: stale data; "
     "scatter at 4: 'Invalid communicator'), are not complete when never started (MPI_Request_get_status) "
     "and are completed again when inactive (MPI_Waitany)"),
    ("mpich", "4.0.", r"MPI_Isendrecv(_c)?", "MPICH 4.0.2's own leaves the status unset"),
    ("mpich", "4.0.", r"MPI_(Psend_init|Precv_init|Pready|Pready_range|Pready_list|Parrived)",
     "MPICH 4.0.2's own fails MPI_Parrived on an inactive request, faults on MPI_REQUEST_NULL there and in "
     "MPI_Psend_init to MPI_PROC_NULL, and sends nothing before every partition is ready"),
    ("mpich", "4.0.", r"MPI_Isendrecv_replace(_c)?",
     "MPICH 4.0.2's own receives wrong data with a noncontiguous datatype, then crashes"),
    ("mpich", "4.0.", r"MPI_I?[Rr]educe_scatter_c",
     "MPICH 4.0.2's own (blocking, nonblocking and so persistent), with a count past INT_MAX, gives the other "
     "processes wrong data and crashes in place (measured at 2 processes)"),
]

HANDLE_KINDS = ["Op", "Comm", "Group", "Win", "File", "Session", "Message", "Info",
                "Errhandler", "Request", "Datatype"]
TOOL_HANDLES = ["T_enum", "T_cvar_handle", "T_pvar_handle", "T_pvar_session",
                "T_event_registration", "T_event_instance"]

# Functions the front answers itself (they must work before any backend is loaded).
FRONT_ONLY = {
    "MPI_Get_version": "answered by the front: the ABI's MPI version, valid before init",
    "MPI_Abi_get_version": "answered by the front: the ABI version, valid before init",
    "MPI_Pcontrol": "variadic; a no-op outside a profiling tool, which interposes MPI_Pcontrol",
}

# Functions whose PMPI_ the front writes by hand (they answer before a backend is loaded)
# but which the backend still provides once it is.
FRONT_FIRST = {"MPI_Initialized", "MPI_Finalized"}

# Native functions called without switching the thread to the native scope (backend.hpp):
# queries that read the object's own fields, make no progress and call no MPI function by
# name, so nothing inside them can reach anympi's exports.  Saves the two TLS writes of the
# switch on the calls programs make most often between messages.
LEAF_CALLS = {f"MPI_{n}" for n in (
    "Comm_rank", "Comm_size", "Comm_remote_size", "Comm_test_inter", "Group_rank", "Group_size",
    "Type_size", "Type_size_x", "Type_size_c", "Type_get_extent", "Type_get_extent_x",
    "Type_get_extent_c", "Type_get_true_extent", "Type_get_true_extent_x", "Type_get_true_extent_c",
    "Wtime", "Wtick", "Query_thread", "Is_thread_main", "Get_count", "Get_count_c",
    "Get_elements", "Get_elements_x", "Get_elements_c", "Test_cancelled")}

# The data accesses of MPI-IO (reads and writes: every positioning, blocking, nonblocking and
# split): the generated forward, unless the file's view uses a data representation registered
# with MPI_Register_datarep, which anympi converts itself (datarep.hpp): ANYMPI_FILE_DATA.
FILE_DATA = re.compile(r"MPI_File_i?(read|write)(_at)?(_all|_shared|_ordered)?(_begin|_end)?(_c)?")


def file_data_line(f, byname):
    """ANYMPI_FILE_DATA for a data access: its forward's parameters, what datarep_access takes,
    and the native call of the int form over anympi's buffer (b_, n_ elements of t_; o_ the
    native status or request)."""
    b = byname[f.name[:-2]] if f.name.endswith("_c") else f
    short = f.short
    shape = ("end" if short.endswith("_end") else "begin" if "_begin" in short else
             "nonblocking" if short.startswith("File_i") else "blocking")
    data = {"end": "(buf, 0, nullptr, status)", "begin": "(buf, count, datatype, nullptr)",
            "nonblocking": "(buf, count, datatype, request)", "blocking": "(buf, count, datatype, status)"}[shape]
    own = {"buf": "b_", "count": "n_", "datatype": "t_", "status": "static_cast<MPI_Status *>(o_)",
           "request": "static_cast<MPI_Request *>(o_)"}
    native = ", ".join(own.get(p.name) or convert(b, p) for p in b.params)
    params = ", ".join(p.name for p in f.params)
    return (f"ANYMPI_FILE_DATA({f.name}, {'read' if 'read' in short else 'write'}, {shape}, ({params}), {data}, "
            f"{b.name}({native}))")


# Functions deliberately not provided, with the reason (everything else is generated or manual).
# MPI_T events and sources where the MPI has none (Open MPI 4.1): the faithful answer is that
# there are zero of them, not an error -- counts are 0 and every index, name and handle is
# invalid, once MPI_T is initialized.  The body of each where the MPI lacks it (backend.hpp).
NO_EVENTS = {
    "MPI_T_event_get_num": "t_none_counted(num_events)",
    "MPI_T_source_get_num": "t_none_counted(num_sources)",
    "MPI_T_category_get_num_events": "t_none_in_category(cat_index, num_events)",
    "MPI_T_category_get_events": "t_none_in_category(cat_index, nullptr)",
    "MPI_T_event_get_index": "t_none_named(name, event_index)",
    "MPI_T_source_get_info": "t_none_at(source_index)",
    "MPI_T_source_get_timestamp": "t_none_at(source_index)",
    **{f"MPI_T_event_{f}": "t_no_handle()" for f in ("callback_get_info", "callback_set_info", "copy", "get_source",
                                                     "get_timestamp", "handle_get_info", "handle_set_info", "read")},
}

UNSUPPORTED = {
    "MPI_Abi_set_fortran_info": "anympi has no Fortran bindings to configure",
    "MPI_Abi_get_fortran_info": "anympi has no Fortran bindings",
    "MPI_Abi_set_fortran_booleans": "anympi has no Fortran bindings",
    "MPI_Abi_get_fortran_booleans": "anympi has no Fortran bindings",
}

TYPE_RE = re.compile(r"\bMPI_([A-Za-z_0-9]+)")


def abi_type(t):
    """Rename a standard C type for the backend side (MPI_Comm -> abi_Comm)."""
    return TYPE_RE.sub(lambda m: "abi_" + m.group(1), t)


class Unexpressible(Exception):
    pass


def base(t):
    t = t.replace("const ", "").strip()
    return t


def length_expr(fn, p):
    ln = p.length
    if isinstance(ln, list):
        raise Unexpressible(f"{p.name}: multi-dimensional array")
    if (not ln or ln == "*") and p.kind == "STATUS":
        # the statuses of Waitall/Testall: as many as the requests
        for q in fn.params:
            if q is not p and q.kind == "REQUEST" and q.length not in (None, "", "*"):
                return length_expr(fn, q)
    if not ln or ln == "*":
        raise Unexpressible(f"{p.name}: array length not given by a parameter")
    names = {q.name: q for q in fn.params}
    if ln in names and names[ln].ctype.strip() in ("int", "const int", "MPI_Count", "MPI_Aint"):
        return ln
    raise Unexpressible(f"{p.name}: array length '{ln}' is not an input parameter")


INT_CATEGORY_BY_KIND = {
    "THREAD_LEVEL": "thread", "COMM_COMPARISON": "compare", "GROUP_COMPARISON": "compare",
    "TOPOLOGY_TYPE": "topology", "COMBINER": "combiner", "SPLIT_TYPE": "split",
    "LOCK_TYPE": "lock", "UPDATE_MODE": "seek", "ORDER": "order", "TYPECLASS": "typeclass",
    "DISTRIB_ENUM": "distribute", "DTYPE_DISTRIBUTION": "darg", "COLOR": "undefined",
    "INDEX": "undefined", "XFER_NUM_ELEM": "undefined", "BIND_TYPE": "t_bind",
    "VARIABLE_SCOPE": "t_scope", "TOOL_VAR_VERBOSITY": "t_verbosity", "PVAR_CLASS": "t_pvar_class",
    "CALLBACK_SAFETY": "t_cb_safety",
}
BITS_CATEGORY_BY_KIND = {"ACCESS_MODE": "amode", "ASSERT": "assert_"}


def is_reduction(fn):
    """A collective reduction: its op applies to its one datatype (not RMA's accumulate)."""
    return any(q.name == "datatype" and base(q.ctype) == "MPI_Datatype" for q in fn.params) and not (
        "ccumulate" in fn.name or fn.name.startswith("MPI_Fetch_and_op"))


def derived_from(fn):
    """The communicator or group a new one is made from: the first one the function takes.  The
    new one derives from the same session, or from the world model (buffers.cpp)."""
    for q in fn.params:
        if q.direction == "in" and not q.array and base(q.ctype.strip()) in ("MPI_Comm", "MPI_Group"):
            return q.name
    return None


def built_on(fn):
    """The datatypes a constructor builds its new one on, as (pointer, count) arguments."""
    names = {q.name for q in fn.params if q.direction == "in"}
    if "oldtype" in names:
        return "&oldtype, 1"
    if "array_of_types" in names:
        return "array_of_types, count"
    return None


# Calls that write their request, request array and status outputs only when they set *flag
# (nothing completed or matched: nothing changed): those converters convert back only then
# (if_flag in backend.hpp).  Not MPI_Improbe's message, which the MPI sets to the null message.
FLAG_GUARDED = {"MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Iprobe", "MPI_Improbe", "MPI_Request_get_status"}


# Rank outputs that are never a sentinel (MPI_UNDEFINED, MPI_PROC_NULL, ...): the native int as
# it is, as cheap as MPI_Comm_size's.  A communicator's rank of its caller always exists.
PLAIN_RANK_OUT = {("MPI_Comm_rank", "rank")}


def convert(fn, p):
    """The native-call argument for one ABI parameter, or Unexpressible."""
    c = convert_kind(fn, p)
    m = re.fullmatch(r"c_(hio|st_out|harr_io|sts_out)\((.*)\)", c)
    if fn.name in FLAG_GUARDED and m:
        return f"c_{m.group(1)}_if(flag, {m.group(2)})"
    return c


def convert_kind(fn, p):
    """convert, before FLAG_GUARDED."""
    t = p.ctype.strip()
    b = base(t)
    kind = p.kind
    d = p.direction
    arr = p.array
    n = p.name
    if n == "...":
        raise Unexpressible("variadic")
    if kind is None:
        raise Unexpressible(f"{n}: no kind in apis.json (MPI-5.0-only function)")
    if fn.short.startswith("File_") and fn.short.endswith("_view") and n == "disp":
        return "c_disp_in(disp)" if d == "in" else "c_disp_out(disp)"  # MPI_DISPLACEMENT_CURRENT
    if "_function" in b or kind in ("FUNCTION", "POLYFUNCTION", "EVENT_CB_FUNCTION",
                                    "EVENT_DROP_CB_FUNCTION", "EVENT_FREE_CB_FUNCTION"):
        raise Unexpressible(f"{n}: callback")
    if kind in ("ATTRIBUTE_VAL", "ATTRIBUTE_VAL_10") and d != "in":
        raise Unexpressible(f"{n}: predefined attribute values need conversion")
    if kind == "TOOL_MPI_OBJ":
        raise Unexpressible(f"{n}: MPI object bound to a tool variable (pointer to a handle of unknown kind)")
    if kind == "TOOL_VAR_VALUE":
        raise Unexpressible(f"{n}: tool variable value of runtime-determined type")
    if arr.startswith("[]["):
        raise Unexpressible(f"{n}: two-dimensional array")
    if b == "MPI_Op" and not arr and is_reduction(fn):
        return f"c_op_in({n}, datatype)"  # MAXLOC/MINLOC over a value-index type (manual.cpp)
    # handles
    for k in HANDLE_KINDS:
        if b == f"MPI_{k}" and not arr:
            return f"c_hin({n})"
        if b == f"MPI_{k} *" and not arr:
            if p.length not in (None, "", "*") or p.pointer is False:
                return f"c_harr_{'out' if d == 'out' else 'io'}({n}, {length_expr(fn, p)})"
            if p.length == "*":
                length_expr(fn, p)
            if d == "out" and k == "Request" and re.search(r"_init(_c)?$", fn.name):
                return f"c_hout_persistent({n})"  # whether it is active (requests.cpp)
            if d == "out" and k in ("Comm", "Group") and derived_from(fn):
                return f"c_hout_derived({n}, {derived_from(fn)})"  # a session's buffer (buffers.cpp)
            if d == "out" and k == "Datatype" and built_on(fn):
                return f"c_hout_built({n}, {built_on(fn)})"  # a _c-made member's record (large_count_types.cpp)
            if d == "out":
                return f"c_hout({n})"
            if d == "inout":
                return f"c_hio({n})"
            if fn.short == "Cancel":
                return f"c_hio({n})"  # read only, but passed by address
            raise Unexpressible(f"{n}: handle pointer with direction {d}")
        if b == f"MPI_{k}" and arr == "[]":
            ln = length_expr(fn, p)
            return {"in": "c_harr_in", "out": "c_harr_out", "inout": "c_harr_io"}[d] + f"({n}, {ln})"
    for k in TOOL_HANDLES:
        if b == f"MPI_{k}" and not arr:
            return f"c_tin({n})"
        if b == f"MPI_{k} *" and not arr:
            return {"out": "c_tout", "inout": "c_tio"}.get(d, "c_tio") + f"({n})"
    if b.startswith("MPI_T_"):
        if b == "MPI_T_cb_safety":
            return f"c_cin<cat::t_cb_safety>({n})"
        if b == "MPI_T_source_order *":
            return f"c_cout<cat::t_source_order>({n})"
        raise Unexpressible(f"{n}: tool type {b}")
    # statuses
    if b == "MPI_Status *":
        if p.length not in (None, "") or p.pointer is False:
            return f"c_sts_out({n}, {length_expr(fn, p)})"
        return {"out": "c_st_out", "inout": "c_st_io", "in": "c_st_in"}[d] + f"({n})"
    if b == "MPI_Status" and arr == "[]":
        return f"c_sts_out({n}, {length_expr(fn, p)})"
    # buffers
    if b in ("void *",) and kind == "BUFFER":
        return f"c_buf({n})"
    # integers by meaning
    if kind in ("RANK", "RANK_NNI"):
        if b == "int" and not arr:
            return f"c_rank_in({n})"
        if b == "int *" and not arr and d == "out":
            return n if (fn.name, n) in PLAIN_RANK_OUT else f"c_rank_out({n})"
        if b == "int" and arr == "[]":
            ln = length_expr(fn, p)
            return (f"c_ranks_in({n}, {ln})" if d == "in" else f"c_ranks_out({n}, {ln})")
        raise Unexpressible(f"{n}: rank as {t}{arr}")
    if kind == "TAG":
        if b == "int" and not arr:
            return f"c_tag_in({n})"
        raise Unexpressible(f"{n}: tag as {t}")
    if kind in ("ERROR_CODE", "ERROR_CLASS"):
        if fn.short == "Abort":
            return n  # the exit status, not an error code
        if b == "int" and not arr and d == "in":
            return f"c_errc_in({n})"
        if b == "int *" and not arr and d == "out":
            return f"c_errc_out({n})"
        raise Unexpressible(f"{n}: array of error codes")
    if kind == "KEYVAL":
        if b == "int" and not arr:
            return f"c_kv_in({n})"
        if b == "int *" and not arr:
            return {"out": "c_kv_out", "inout": "c_kv_io"}.get(d, "c_kv_io") + f"({n})"
        raise Unexpressible(f"{n}: keyval as {t}")
    if b in ("MPI_Count *", "MPI_Count") and kind == "XFER_NUM_ELEM":
        return f"c_i64p({n})" if b.endswith("*") else n  # MPI_UNDEFINED has one value everywhere
    if kind in INT_CATEGORY_BY_KIND:
        c = INT_CATEGORY_BY_KIND[kind]
        if b == "int" and not arr:
            return f"c_cin<cat::{c}>({n})"
        if b == "int *" and not arr:
            return f"c_cout<cat::{c}>({n})"
        if b == "int" and arr == "[]" and d == "in":
            return f"c_cins<cat::{c}>({n}, {length_expr(fn, p)})"
        if b == "int" and arr == "[]" and d == "out":
            return f"c_couts<cat::{c}>({n}, {length_expr(fn, p)})"
        raise Unexpressible(f"{n}: {kind} as {t}{arr}")
    if kind in BITS_CATEGORY_BY_KIND:
        c = BITS_CATEGORY_BY_KIND[kind]
        if b == "int":
            return f"c_bin<cat::{c}>({n})"
        if b == "int *":
            return f"c_bout<cat::{c}>({n})"
    if kind == "WEIGHT":
        return f"c_weights({n})"
    if kind == "ERROR_CODE":
        raise Unexpressible(f"{n}: error codes")
    # 64-bit integer types: same size on both sides, the pointer type may differ
    if b in ("MPI_Aint *", "MPI_Offset *", "MPI_Count *") or (
            b in ("MPI_Aint", "MPI_Offset", "MPI_Count") and arr == "[]"):
        return f"c_i64p({n})"
    if b in ("MPI_Aint", "MPI_Offset", "MPI_Count"):
        return n
    if t in ("const int",) and arr == "[]":
        return f"c_mut({n})"  # some native prototypes lack the const
    if b in ("int", "int *", "char *", "char **", "char ***", "void *", "double",
             "int **", "char"):
        return n
    raise Unexpressible(f"{n}: type {t}{arr} kind {kind}")


def scan_native(header):
    """Names of functions and constants a native mpi.h (and headers next to it) declares."""
    d = os.path.dirname(header)
    files = [header]
    for extra in ("mpio.h", "mpi_proto.h"):
        if os.path.exists(os.path.join(d, extra)):
            files.append(os.path.join(d, extra))
    text = ""
    for f in files:
        text += open(f, errors="replace").read() + "\n"
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    funcs = set(re.findall(r"\b(?:int|double|MPI_Aint|MPI_[A-Za-z_]+)\s+(MPI_[A-Za-z0-9_]+)\s*\(", text))
    consts = set(re.findall(r"#\s*define\s+(MPIX?_[A-Za-z0-9_]+)", text))
    for body in re.findall(r"enum\s*\w*\s*\{(.*?)\}", text, flags=re.S):
        consts |= set(re.findall(r"(MPIX?_[A-Za-z0-9_]+)\s*(?:=[^,]*)?(?:,|$)", body.strip()))
    consts |= set(re.findall(r"extern\s+[^;]*?\b(MPIX?_[A-Z][A-Z0-9_]+)\s*(?:MPICH_API_PUBLIC)?\s*;", text))
    version = re.search(r'#\s*define\s+MPICH_VERSION\s+"([^"]+)"', text)
    if not version:
        m = [re.search(rf"#\s*define\s+OMPI_{k}_VERSION\s+(\d+)", text) for k in ("MAJOR", "MINOR", "RELEASE")]
        version = ".".join(x.group(1) for x in m) if all(m) else None
    else:
        version = version.group(1)
    return funcs, consts, version


def shun_defective(mpi, version, nf, cls, persistent):
    """{name: reason} of the functions of DEFECTS this MPI has and anympi can do without; removed from nf."""
    out = {}
    for m, prefix, pattern, reason in DEFECTS:
        if m != mpi or not (version or "").startswith(prefix):
            continue
        for name in sorted(nf):
            if not re.fullmatch(pattern, name):
                continue
            emulable = any(v in nf for v, _ in persistent.get(name) or []) or cls[name][:2] == ("manual", "fallback")
            if emulable:
                out[name] = reason
    nf -= set(out)
    return out


def parse_manual():
    """{name: (status, reason)} from the ANYMPI_MANUAL(...) markers of the MANUAL files.
    status: forwarded (needs the native function), emulated (never uses it),
    fallback (forwarded where the native MPI has it, emulated where it does not), or
    extended (forwarded by the generated fwd_MPI_X, which the hand-written function calls
    for everything it does not handle itself)."""
    out = {}
    for path in MANUAL:
        if not os.path.exists(path):
            continue
        for m in re.finditer(r'^ANYMPI_MANUAL\((MPI_\w+),\s*(forwarded|emulated|fallback|extended),\s*"([^"]*)"\)',
                             open(path).read(), flags=re.M):
            if m.group(1) in out:
                sys.exit(f"{m.group(1)} is hand-written twice")
            out[m.group(1)] = (m.group(2), m.group(3))
    return out


def const_category(name, kind, value):
    n = name
    if kind != "int" and not kind.startswith("enum"):
        return None
    if n == "MPI_SUCCESS" or (n.startswith("MPI_ERR_") and n != "MPI_ERR_LASTCODE") or n.startswith("MPI_T_ERR_"):
        return "error"
    table = [
        (("MPI_ANY_SOURCE", "MPI_PROC_NULL", "MPI_ROOT"), "rank"),
        (("MPI_ANY_TAG",), "tag"),
        (("MPI_UNDEFINED",), "undefined"),
        (("MPI_IDENT", "MPI_CONGRUENT", "MPI_SIMILAR", "MPI_UNEQUAL"), "compare"),
        (("MPI_CART", "MPI_GRAPH", "MPI_DIST_GRAPH"), "topology"),
        (("MPI_LOCK_EXCLUSIVE", "MPI_LOCK_SHARED"), "lock"),
        (("MPI_WIN_UNIFIED", "MPI_WIN_SEPARATE"), "model"),
        (("MPI_DISTRIBUTE_DFLT_DARG",), "darg"),
        (("MPI_KEYVAL_INVALID", "MPI_TAG_UB", "MPI_IO", "MPI_HOST", "MPI_WTIME_IS_GLOBAL",
          "MPI_APPNUM", "MPI_LASTUSEDCODE", "MPI_UNIVERSE_SIZE", "MPI_WIN_BASE",
          "MPI_WIN_DISP_UNIT", "MPI_WIN_SIZE", "MPI_WIN_CREATE_FLAVOR", "MPI_WIN_MODEL"), "keyval"),
    ]
    for names, cat in table:
        if n in names:
            return cat
    prefixes = [("MPI_THREAD_", "thread"), ("MPI_ORDER_", "order"), ("MPI_DISTRIBUTE_", "distribute"),
                ("MPI_COMBINER_", "combiner"), ("MPI_TYPECLASS_", "typeclass"),
                ("MPIX_TYPECLASS_", "typeclass"), ("MPI_COMM_TYPE_", "split"),
                ("MPI_WIN_FLAVOR_", "flavor"), ("MPI_SEEK_", "seek"),
                ("MPI_T_VERBOSITY_", "t_verbosity"), ("MPI_T_BIND_", "t_bind"),
                ("MPI_T_SCOPE_", "t_scope"), ("MPI_T_PVAR_CLASS_", "t_pvar_class"),
                ("MPI_T_CB_REQUIRE_", "t_cb_safety"), ("MPI_T_SOURCE_", "t_source_order")]
    for pre, cat in prefixes:
        if n.startswith(pre):
            return cat
    if n.startswith("MPI_MODE_"):
        return "amode" if int(value, 0) < 1024 else "assert_"
    if n.startswith("MPI_MAX_") or n == "MPI_BSEND_OVERHEAD":
        return "limit"
    return None


CATEGORIES = ["error", "rank", "tag", "undefined", "thread", "order", "distribute", "darg",
              "combiner", "typeclass", "compare", "topology", "split", "lock", "flavor", "model",
              "seek", "keyval", "amode", "assert_", "t_verbosity", "t_bind", "t_scope",
              "t_pvar_class", "t_cb_safety", "t_source_order", "limit"]

HEADER_NOTE = "Generated by abi/gen/gen_wrappers.py from abi/spec/. Do not edit."


def gen_abi_types(consts):
    L = [f"/* abi_types.h -- the MPI-5.0 ABI's types and constants, renamed for code that also",
         f" * includes a native mpi.h (the backends). {HEADER_NOTE} */",
         "#ifndef ANYMPI_ABI_TYPES_H", "#define ANYMPI_ABI_TYPES_H", "#include <stdint.h>", "",
         "typedef intptr_t abi_Aint;", "typedef int64_t abi_Offset;", "typedef int64_t abi_Count;",
         "typedef struct abi_Status { int MPI_SOURCE; int MPI_TAG; int MPI_ERROR; int MPI_internal[5]; } abi_Status;",
         "typedef int abi_T_cb_safety;", "typedef int abi_T_source_order;"]
    for k in HANDLE_KINDS + TOOL_HANDLES:
        L.append(f"typedef struct MPI_ABI_{k}* abi_{k};")
    for line in open(os.path.join(spec.SPEC_DIR, "mpi-5.0-abi-types.tsv")).read().splitlines()[1:]:
        line = line.strip()
        m = re.match(r"^(void|int) \((MPI_\w+)\)\((.*)\)$", line)
        if m:
            L.append(f"typedef {m.group(1)} ({abi_type(m.group(2))})({abi_type(m.group(3))});")
    L.append("")
    for name, kind, value in consts:
        short = name[4:] if name.startswith("MPI_") else name[5:]
        if kind == "alias":
            continue
        if kind in ["MPI_" + k for k in HANDLE_KINDS]:
            L.append(f"#define ABI_{short} ((uintptr_t){value})")
        elif kind == "int" or kind.startswith("enum"):
            L.append(f"#define ABI_{short} ({int(value, 0)})")
        elif kind == "MPI_Offset":
            L.append(f"#define ABI_{short} ((abi_Offset){value})")
        elif kind.endswith("*") or kind.startswith("MPI_T_"):
            L.append(f"#define ABI_{short} ((uintptr_t){value})")
    L += ["", "#endif", ""]
    return "\n".join(L)


def gen_consts_inc(consts, have):
    """Every predefined handle and integer constant with its native twin, where there is one."""
    L = [f"/* abi_consts.inc -- {HEADER_NOTE}",
         " * ANYMPI_HANDLE(Kind, abi_value, native_name) for predefined handles,",
         " * ANYMPI_CONST(category, abi_value, native_name) for integer constants by meaning.",
         " * Guarded by ANYMPI_HAVE_<name> from have_<mpi>.h: a constant the native MPI lacks has no twin. */"]
    for name, kind, value in consts:
        if kind == "alias":
            continue
        guard = f"ANYMPI_HAVE_{name}"
        if kind in ["MPI_" + k for k in HANDLE_KINDS]:
            # predefined handles are macros in every MPI (some only conditionally): #ifdef
            L.append(f"#ifdef {name}\nANYMPI_HANDLE({kind[4:]}, {value}, {name})\n#endif")
        else:
            cat = const_category(name, kind, value)
            if cat:
                L.append(f"#if {guard}\nANYMPI_CONST({cat}, {int(value, 0)}, {name})\n#endif")
    return "\n".join(L) + "\n"


def gen_have(funcs, consts, native_funcs, native_consts, mpi, shunned):
    L = [f"/* have_{mpi}.h -- what the native {mpi} mpi.h declares, less what anympi does not call",
         f" * (DEFECTS in the generator: 0 here, with the reason). {HEADER_NOTE} */"]
    for f in funcs:
        why = f"  /* has it, but {shunned[f.name]} */" if f.name in shunned else ""
        L.append(f"#define ANYMPI_HAVE_{f.name} {1 if f.name in native_funcs else 0}{why}")
    for name, kind, value in consts:
        if kind != "alias":
            L.append(f"#define ANYMPI_HAVE_{name} {1 if name in native_consts else 0}")
    return "\n".join(L) + "\n"


def gen_fn_index(funcs):
    L = [f"/* fn_index.h -- slot of every function in the dispatch table. {HEADER_NOTE} */",
         "#ifndef ANYMPI_FN_INDEX_H", "#define ANYMPI_FN_INDEX_H", "enum anympi_fn_index {"]
    for i, f in enumerate(funcs):
        L.append(f"    ANYMPI_IX_{f.name} = {i},")
    L += [f"    ANYMPI_NFUNCS = {len(funcs)}", "};",
          "/* bumped whenever the table's layout changes: front and backend must agree */",
          f"#define ANYMPI_TABLE_VERSION {len(funcs)}03", "#endif", ""]
    return "\n".join(L)


def params_decl(f, rename=lambda t: t):
    if not f.params:
        return "(void)"
    return "(" + ", ".join("..." if p.name == "..." else p.decl(rename) for p in f.params) + ")"


def gen_sigs(funcs, cls):
    L = [f"/* backend_sigs.h -- abi_MPI_X: each function's ABI signature for the backend. {HEADER_NOTE} */",
         "#ifndef ANYMPI_BACKEND_SIGS_H", "#define ANYMPI_BACKEND_SIGS_H"]
    for f in funcs:
        L.append(f"#define ANYMPI_SIG_{f.name} {abi_type(f.ret)} abi_{f.name}{params_decl(f, abi_type)}")
    L.append("/* the generated forwards that hand-written (extended) functions call: fwd_MPI_X */")
    for f in funcs:
        if cls[f.name][:2] == ("manual", "extended") or (cls[f.name][0] == "generated" and FILE_DATA.fullmatch(f.name)):
            L.append(f"#define ANYMPI_SIG_FWD_{f.name} {abi_type(f.ret)} fwd_{f.name}{params_decl(f, abi_type)}")
            L.append(f"ANYMPI_SIG_FWD_{f.name};")
    L += ["#endif", ""]
    return "\n".join(L)


def first_errh_object(f):
    """The object whose error handler reports an error of this function (MPI-4: else COMM_SELF)."""
    for p in f.params:
        b = base(p.ctype)
        if not p.array and b in ("MPI_Comm", "MPI_Win", "MPI_File", "MPI_Session"):
            return f"errh_of({p.name})"
    return "errh_none()"


def acc_guard(f):
    """For one-sided accumulation (the op applies to datatypes, not a reduction): the check that
    refuses an arithmetic op on an emulated predefined datatype (emulated_types.cpp), whose
    native stand-in the MPI would add as the integers it is made of.  None for other functions."""
    if is_reduction(f) or not any(base(p.ctype) == "MPI_Op" for p in f.params):
        return None
    types = [p.name for p in f.params if base(p.ctype) == "MPI_Datatype" and not p.array]
    if not types:
        return None
    return f'emulated_acc_refused("{f.name}", {first_errh_object(f)}, op, {", ".join(types)})'


def narrow_line(f, byname, cls):
    """For a large-count MPI_X_c: the same call through MPI_X with int counts, for an MPI
    that lacks the _c form; None when the difference is more than scalar counts."""
    if not f.name.endswith("_c") or cls.get(f.name, ("",))[0] != "generated":
        return None
    # An MPI-3 _x twin with the same parameters serves the full MPI_Count range; through the
    # int form an output past int would come back as MPI_UNDEFINED.
    x = byname.get(f.name[:-2] + "_x")
    if x is not None and [(base(p.ctype), p.array) for p in x.params] == [(base(p.ctype), p.array) for p in f.params]:
        return x.name, "its MPI-3 form, MPI_Count-wide", guarded(f, f"ANYMPI_NARROW({f.name}, {x.name}, {first_errh_object(f)}, true, {cls[f.name][1]})")
    b = byname.get(f.name[:-2])
    if b is None or len(b.params) != len(f.params):
        return None
    conv = [convert(f, p) for p in f.params]
    checks = []
    # A count followed by its datatype, in a function with a buffer: past int it becomes one
    # element of a datatype holding them all (large_counts.hpp), except in a reduction, whose
    # predefined ops take no derived datatype: a blocking one runs in int-sized chunks.
    has_buf = any(p.kind == "BUFFER" for p in f.params)
    bufs = [p.name for p in f.params if p.kind == "BUFFER"]
    blocking = not any(base(p.ctype) == "MPI_Request *" for p in f.params)
    reduction = is_reduction(f) and any(base(p.ctype) == "MPI_Op" for p in f.params)
    chunked = reduction and len(bufs) == 2 and "scatter" not in f.name.lower() and (
        blocking or f.name[:-2] in ("MPI_Iallreduce", "MPI_Ireduce", "MPI_Iscan", "MPI_Iexscan"))
    names = {p.name for p in f.params}
    pairs = []
    for i, (pc, pb) in enumerate(zip(f.params, b.params)):
        tc, tb = base(pc.ctype), base(pb.ctype)
        if tc == tb and pc.array == pb.array:
            continue
        if pc.array and pb.array and tc == "MPI_Count" and blocking and pc.length in names:
            if tb == "MPI_Aint":  # the same width: only the spelling differs
                conv[i] = f"c_i64p({pc.name})"
                continue
            if tb == "int":  # copied to int for the call, each checked to fit
                checks.append(f"c_fits_int_all({pc.name}, {pc.length})")
                conv[i] = f"c_narrow_array({pc.name}, {pc.length})"
                continue
        if pc.array or pb.array:
            return None
        if tc == "MPI_Count" and tb == "MPI_Aint":  # the same width
            continue
        if tc == "MPI_Count *" and tb == "MPI_Aint *":
            conv[i] = f"c_i64p({pc.name})"
            continue
        nxt = f.params[i + 1] if i + 1 < len(f.params) else None
        paired = (tc == "MPI_Count" and tb == "int" and has_buf and nxt is not None and not nxt.array
                  and base(nxt.ctype) == "MPI_Datatype")
        if paired and chunked:
            conv[i] = "n_"
        elif paired and not reduction:
            conv[i], conv[i + 1] = f"w_.count({len(pairs)})", f"w_.type({len(pairs)})"
            pairs.append(f"{pc.name}, {convert(f, nxt)}")
        elif tc in ("MPI_Count", "MPI_Aint") and tb == "int":
            checks.append(f"c_fits_int({pc.name})")
            conv[i] = f"int({pc.name})"
        elif tc in ("MPI_Count *", "MPI_Aint *") and tb == "int *" and pc.direction == "inout":
            checks.append(f"c_fits_int_at({pc.name})")
            conv[i] = f"c_narrow_io({pc.name})"
        elif tc in ("MPI_Count *", "MPI_Aint *") and tb == "int *":
            conv[i] = f"c_widen_out({pc.name})"
        else:
            return None
    fits = " && ".join(checks) or "true"
    obj = first_errh_object(f)
    if chunked:
        count = next(p.name for p in f.params if base(p.ctype) == "MPI_Count")
        dt = next(p.name for p in f.params if base(p.ctype) == "MPI_Datatype")
        conv = ["s_" if c == f"c_buf({bufs[0]})" else "r_" if c == f"c_buf({bufs[1]})" else c for c in conv]
        if not blocking:  # each chunk its own native request, all in one request of anympi's
            conv = ["q_" if c in ("c_hout(request)", "c_hout_persistent(request)") else c for c in conv]
            return b.name, "in chunks of 2^30 elements, one request of anympi's over them", guarded(
                f, f"ANYMPI_CHUNKED_NB({f.name}, {b.name}, {bufs[0]}, {bufs[1]}, {count}, {dt}, ({', '.join(conv)}))")
        return b.name, "in chunks of 2^30 elements", guarded(
            f, f"ANYMPI_CHUNKED({f.name}, {b.name}, {bufs[0]}, {bufs[1]}, {count}, {dt}, ({', '.join(conv)}))")
    if pairs:
        return b.name, "a count past int as one element of a derived datatype", guarded(
            f, f"ANYMPI_WIDE({f.name}, {b.name}, {obj}, {fits}, ({', '.join(pairs)}), ({', '.join(conv)}))")
    return b.name, "counts must fit in int", guarded(f, f'ANYMPI_NARROW({f.name}, {b.name}, {obj}, '
                                                        f'{fits}, ({", ".join(conv)}))')


# MPI-4.1 12.4.1 (Table 9): callable before MPI starts and after it ends.  Open MPI 4.1 aborts
# in them before its MPI_Init: anympi starts it first (sessions.cpp: always_available).
ALWAYS_AVAILABLE = {"MPI_Info_create", "MPI_Info_create_env", "MPI_Info_set", "MPI_Info_delete", "MPI_Info_get",
                    "MPI_Info_get_string", "MPI_Info_get_valuelen", "MPI_Info_get_nkeys", "MPI_Info_get_nthkey",
                    "MPI_Info_dup", "MPI_Info_free", "MPI_Session_create_errhandler", "MPI_Errhandler_free",
                    "MPI_Error_string", "MPI_Error_class", "MPI_Add_error_class", "MPI_Add_error_code",
                    "MPI_Add_error_string"}


def pre_check(f):
    """The check made before the native call, for what the MPI underneath gets wrong or does
    not check before it faults; None for most functions."""
    if f.name in ("MPI_Error_string", "MPI_Error_class"):
        return f'c_error_code("{f.name}", errorcode)'
    if f.name in ALWAYS_AVAILABLE:
        return f'c_always_available("{f.name}")'
    if f.name in IN_PLACE_ROOT:
        buf = IN_PLACE_ROOT[f.name]
        return f'c_in_place_root("{f.name}", "{buf}", {buf}, root, comm)'
    # A status the call reads (MPI_Get_count, MPI_Status_set_elements): MPI_STATUS_IGNORE is none,
    # and MPICH faults on its own ignore value, Open MPI on a null status.
    read = [q.name for q in f.params if re.fullmatch(r"c_st_(in|io)\(.*\)", convert(f, q) if q.kind else "")]
    if read:
        return f'c_status_given("{f.name}", {read[0]})'
    return acc_guard(f)


def guarded(f, line):
    """ANYMPI_FWD(name, ...) / ANYMPI_NARROW(name, ...), as its _IF form when pre_check has one."""
    g = pre_check(f)
    if g is None:
        return line
    macro, rest = line.split("(", 1)
    name, tail = rest.split(", ", 1)
    return f"{macro}_IF({name}, {g}, {tail}"


def classify(funcs, manual):
    """{name: (how, detail)}: how in generated|manual|front|unsupported."""
    out = {}
    for f in funcs:
        if f.name in FRONT_ONLY:
            out[f.name] = ("front", FRONT_ONLY[f.name])
        elif f.name in manual:
            out[f.name] = ("manual",) + manual[f.name]
            if manual[f.name][0] == "extended":
                out[f.name] += ("(" + ", ".join(convert(f, p) for p in f.params) + ")",)
        elif f.name in UNSUPPORTED:
            out[f.name] = ("unsupported", UNSUPPORTED[f.name])
        else:
            try:
                args = [convert(f, p) for p in f.params]
                out[f.name] = ("generated", "(" + ", ".join(args) + ")")
            except Unexpressible as e:
                out[f.name] = ("unsupported", f"not yet converted: {e}")
    return out


# MPI_IN_PLACE at a non-root of a rooted collective, as the buffer only the root may pass so:
# MPICH 4.0.2 does not check and reads (void *)-1 (pre_check; the check is 0 where the native
# MPI makes it, native.hpp).  Every blocking, nonblocking, persistent and _c form.
IN_PLACE_ROOT = {f"MPI_{form}{c}": buf
                 for name, buf in (("Reduce", "sendbuf"), ("Gather", "sendbuf"), ("Gatherv", "sendbuf"),
                                   ("Scatter", "recvbuf"), ("Scatterv", "recvbuf"))
                 for form in (name, "I" + name.lower(), name + "_init")
                 for c in ("", "_c")}


def unsupported_line(f, reason):
    obj = first_errh_object(f)
    if f.ret == "int":
        # output handles become the null handle, so that a caller that ignores the error
        # does not go on to use garbage
        outs = [p.name for p in f.params if p.direction == "out" and not p.array and
                base(p.ctype) in [f"MPI_{k} *" for k in HANDLE_KINDS] and p.length in (None, "")]
        if outs:
            return f'ANYMPI_UNSUPPORTED_OUT({f.name}, {obj}, "{reason}", {", ".join(outs)})'
        return f'ANYMPI_UNSUPPORTED({f.name}, {obj}, "{reason}")'
    return f'ANYMPI_UNSUPPORTED_RET({f.name}, {obj}, "{reason}", {abi_type(f.ret)})'


# The persistent reductions whose _c form runs, where the MPI has only the int form, in chunks
# of 2^30 elements at every MPI_Start (chunked_nb, large_counts.hpp): two buffers and one
# count, reduced element by element.
CHUNKED_REDUCTIONS = ("Allreduce", "Reduce", "Scan", "Exscan")


def persistent_checks(f):
    """What MPI_X_init checks of its arguments (init_checks, requests.hpp), as the MPI checks the
    nonblocking call's where it is made: the root; a reduction's or broadcast's count, datatype
    and op (significant at every process); MPI_IN_PLACE at the root only."""
    names = [p.name for p in f.params]
    chain = f'init_checks("{f.name}", comm)'
    for p in f.params:
        if p.name in ("count", "recvcount") and "datatype" in names and not p.array:
            chain += f'.count({p.name}, "{p.name}")'
        elif p.name == "datatype":
            chain += '.type(datatype, "datatype")'
        elif p.name == "op":
            chain += ".op(op, datatype)"
    if "root" in names:
        chain += ".root(root)"
    if f.name in IN_PLACE_ROOT:  # refused at init, as a native init would; the nonblocking call is later
        buf = IN_PLACE_ROOT[f.name]
        chain += f'.in_place_root({buf}, "{buf}", root)'
    return chain


def persistent_lines(f, byname, cls):
    """For a persistent collective MPI_X_init[_c] that an MPI may lack: [(needed native function,
    line)] that emulate it with anympi's own request, which MPI_Start starts as the nonblocking
    MPI_Ix[_c] with the same arguments (info aside) -- through the int form, counts checked at
    init, for a _c one whose large-count nonblocking form is missing too.  None otherwise."""
    m = re.fullmatch(r"MPI_(\w+)_init(_c)?", f.name)
    if not m or cls[f.name][0] != "generated" or [p.name for p in f.params[-2:]] != ["info", "request"]:
        return None
    coll, c = m.group(1), m.group(2) or ""
    nb_name = "MPI_I" + coll[0].lower() + coll[1:]
    kept = []
    for p in f.params[:-2]:
        arg = convert(f, p)
        if base(p.ctype) == "MPI_Datatype" and not p.array:
            arg = f"c_type_kept({p.name})"  # the request keeps the user's datatype alive
        elif arg.startswith("c_op_in("):
            arg = "c_op_kept(" + arg[len("c_op_in("):]  # and the user's op
        kept.append(arg)
    out = []
    for nb, fits, args in ((byname.get(nb_name + c), "true", kept), (byname.get(nb_name) if c else None, None, None)):
        if nb is None or [(base(q.ctype), q.array) for q in nb.params[:-1]] != (
                [(base(q.ctype), q.array) for q in f.params[:-2]] if args is not None else
                [(base(q.ctype).replace("MPI_Count", "int"), q.array) for q in f.params[:-2]]):
            continue
        nb_call = nb.name
        if args is None and coll in CHUNKED_REDUCTIONS:  # in int-sized chunks at every start
            nb_call, fits, args = f"chunked_nb<{nb.name}>{{}}", "true", kept
        elif args is None:  # a _c one through the int form: scalar counts only, checked at init
            if any(q.array and "MPI_Count" in q.ctype for q in f.params):
                continue
            checks = [f"c_fits_int({q.name})" for q in f.params[:-2] if base(q.ctype) == "MPI_Count"]
            args = [f"int({q.name})" if base(q.ctype) == "MPI_Count" else a for q, a in zip(f.params[:-2], kept)]
            fits = " && ".join(checks) or "true"
        line = f"ANYMPI_PERSISTENT({f.name}, {persistent_checks(f)}, {nb_call}, {fits}, ({', '.join(args)}))"
        out.append((nb.name, line))
    return out or None


def gen_backend(funcs, cls, haves, narrow, persistent):
    L = [f"// backend.gen.cpp -- one line per function. {HEADER_NOTE}",
         "// ANYMPI_FWD(name, native arguments): convert, call the native MPI, convert the result back.",
         "// ANYMPI_UNSUPPORTED(name, object): MPI_ERR_UNSUPPORTED_OPERATION through object's error handler.",
         "// ANYMPI_PERSISTENT(name, checks, nonblocking, ...): anympi's persistent request (requests.hpp) where the MPI lacks name.",
         "// ANYMPI_FWD_AS(name, ...): fwd_name, the forward that the hand-written (extended) name calls.",
         "// ANYMPI_WIDE / ANYMPI_CHUNKED(name, int form, ...): a _c function where the MPI lacks it (large_counts.hpp).",
         "// ANYMPI_FILE_DATA(name, ...): a data access, converted where the view uses a registered representation (datarep.hpp).",
         '#include "backend.hpp"', '#include "requests.hpp"', '#include "large_counts.hpp"', '#include "datarep.hpp"', "", "#include <cstdio>", "#include <cstdlib>", "",
         "using namespace anympi::backend;", "",
         "// The op of a reduction, seen with its datatype (manual.cpp: value-index types).",
         "namespace anympi::backend { MPI_Op c_op_in(abi_Op op, abi_Datatype datatype); }",
         "// One-sided accumulation's check for emulated predefined datatypes (ANYMPI_FWD_IF).",
         '#include "emulated_types.hpp"', "",
         "// hand-written in manual.cpp and emulated_types.cpp"]
    for f in funcs:
        if cls[f.name][0] == "manual":
            if cls[f.name][1] == "forwarded" and not (f.name in haves[0][1] and f.name in haves[1][1]):
                L.append(f"#if ANYMPI_HAVE_{f.name}")
                L.append(f"ANYMPI_SIG_{f.name};")
                L.append("#endif")
            else:
                L.append(f"ANYMPI_SIG_{f.name};")
    L.append("")
    byname = {f.name: f for f in funcs}
    for f in funcs:
        how = cls[f.name]
        both = all(h[0] for h in haves)
        if how[0] == "generated":
            line = guarded(f, f"ANYMPI_FWD({f.name}, {how[1]})")
            unsup = unsupported_line(f, "not provided by this MPI")
            block = []
            if f.name in haves[0][1] and f.name in haves[1][1]:
                block.append(line)
            else:  # the native function, else anympi's persistent request, else the int form
                block += [f"#if ANYMPI_HAVE_{f.name}", line]
                for via, emulated in persistent.get(f.name) or []:
                    block += [f"#elif ANYMPI_HAVE_{via}", emulated]
                if narrow.get(f.name) and not persistent.get(f.name):
                    via, _, narrowed = narrow[f.name]
                    block += [f"#elif ANYMPI_HAVE_{via}", narrowed]
                if f.name in NO_EVENTS:
                    unsup = f"ANYMPI_SIG_{f.name} {{ return {NO_EVENTS[f.name]}; }}"
                block += ["#else", unsup, "#endif"]
            if FILE_DATA.fullmatch(f.name):  # the forward is fwd_name; name checks the view first
                for i, x in enumerate(block):
                    if x.startswith(("ANYMPI_FWD(", "ANYMPI_WIDE(")):
                        block[i] = x.replace("(", "_AS(", 1)
                    elif x.startswith("ANYMPI_UNSUPPORTED"):  # every MPI-IO has the int forms
                        block[i] = f'#error "{f.name}: the MPI underneath has no MPI-IO"'
                    elif not x.startswith("#"):
                        sys.exit(f"{f.name}: no forward under another name for {x}")
                block.append(file_data_line(f, byname))
            L += block
        elif how[0] in ("unsupported", "front"):
            reason = how[1].replace('"', "'")
            L.append(unsupported_line(f, reason))
        elif how[:2] == ("manual", "extended"):
            L.append(f"ANYMPI_FWD_AS({f.name}, {how[3]})")
        elif how[0] == "manual" and how[1] == "forwarded":
            if not (f.name in haves[0][1] and f.name in haves[1][1]):
                L += [f"#if !ANYMPI_HAVE_{f.name}",
                      unsupported_line(f, "not provided by this MPI"),
                      "#endif"]
    L += ["", "// The dispatch table, in fn_index.h order.",
          "void* const anympi::backend::dispatch_table[ANYMPI_NFUNCS] = {"]
    for f in funcs:
        L.append(f"    reinterpret_cast<void*>(&abi_{f.name}),")
    L += ["};", "",
          "// What the native MPI's functions are called in its library: resolved when the backend is",
          "// loaded (backend.cpp) into native_table, through which every native call goes.",
          "const char* const anympi::backend::native_names[ANYMPI_NFUNCS] = {"]
    for f in funcs:
        L.append(f'    "P{f.name}",')
    L += ["};", ""]
    del both
    return "\n".join(L)


def gen_native_calls(funcs):
    """Every MPI_X the backend names becomes a call through native_table: the backend never
    refers to an MPI function by name, so neither anympi's exports nor a PMPI tool can catch
    the backend's own calls, and each call runs with the thread in the native scope."""
    L = [f"/* native_calls.h -- the backend's calls of the native MPI. {HEADER_NOTE}",
         " * Included after the native mpi.h: MPI_X names native_call<slot, type of PMPI_X>{}, whose",
         " * call runs the function resolved in the native library at load (backend.hpp); `true`",
         " * marks the leaf calls (LEAF_CALLS in the generator), made without the native scope. */",
         "#ifndef ANYMPI_NATIVE_CALLS_H", "#define ANYMPI_NATIVE_CALLS_H"]
    unknown = LEAF_CALLS - {f.name for f in funcs}
    assert not unknown, f"LEAF_CALLS names no such function: {sorted(unknown)}"
    for f in funcs:
        leaf = ", true" if f.name in LEAF_CALLS else ""
        L += [f"#if ANYMPI_HAVE_{f.name}", f"#undef {f.name}",
              f"#define {f.name} (::anympi::backend::native_call<ANYMPI_IX_{f.name}, decltype(&::P{f.name}){leaf}>{{}})",
              "#endif"]
    L += ["#endif", ""]
    return "\n".join(L)


def gen_front(funcs):
    L = [f"/* front.gen.c -- PMPI_X dispatches to the loaded backend; MPI_X is a weak alias of",
         f" * PMPI_X so that a PMPI tool can interpose it. {HEADER_NOTE} */",
         '#include "front.h"', "", "#pragma GCC visibility push(default)", ""]
    loaders = []
    for f in funcs:
        if f.name in FRONT_ONLY:
            continue  # written, with its alias, in front/front.c
        types = ", ".join(p.decl_type for p in f.params) or "void"
        args = ", ".join(p.name for p in f.params)
        loaders.append(f"ANYMPI_LOADER({f.ret}, {f.name}, {params_decl(f)}, ({types}), ({args}))")
        if f.name in FRONT_FIRST:
            continue  # its PMPI_ and alias are in front/front.c
        L.append(f"{f.ret} P{f.name}{params_decl(f)} {{ ANYMPI_DISPATCH({f.ret}, {f.name}, ({types}), ({args})); }}")
        L.append(f"ANYMPI_ALIAS({f.name})")
    L += ["", "#pragma GCC visibility pop", "",
          "/* The loader table: where a thread's first call lands (front.h). */"]
    L += loaders
    L += ["void *const anympi_loader_table[ANYMPI_NFUNCS] = {"]
    L += [f"    [ANYMPI_IX_{f.name}] = (void *)load_{f.name}," for f in funcs if f.name not in FRONT_ONLY]
    L += ["};", ""]
    return "\n".join(L)


def gen_map(funcs):
    L = ["/* libmpi_abi.map -- exactly the header's MPI_ and PMPI_ names. " + HEADER_NOTE + " */",
         "MPI_ABI_1.0 {", "  global:"]
    for f in funcs:
        L.append(f"    {f.name};")
        L.append(f"    P{f.name};")
    L += ["  local: *;", "};", ""]
    return "\n".join(L)


def gen_coverage(funcs, cls, haves, narrow, persistent, shunned):
    rows = []
    totals = {b: {"forwarded": 0, "emulated": 0, "unsupported": 0} for b in BACKENDS}
    for f in funcs:
        how = cls[f.name]
        cells = []
        for (mpi, nf) in zip(BACKENDS, [h[1] for h in haves]):
            if how[0] == "generated":
                st = "forwarded" if f.name in nf else "unsupported"
                why = "" if f.name in nf else f"not in {mpi}"
                if f.name not in nf and narrow.get(f.name) and narrow[f.name][0] in nf:
                    st, why = "emulated", f"through {narrow[f.name][0]}, {narrow[f.name][1]}"
                if f.name not in nf and f.name in NO_EVENTS:
                    st, why = "emulated", "the MPI has no events or sources: there are zero of them (counts 0; every index, name and handle invalid)"
                via = [v for v, _ in persistent.get(f.name) or [] if v in nf]
                if f.name not in nf and via:
                    st = "emulated"
                    line = dict(persistent[f.name])[via[0]]
                    why = f"anympi's persistent request; MPI_Start starts {via[0]}" + (
                        "" if via[0].endswith("_c") or not f.name.endswith("_c") else
                        " in chunks of 2^30 elements" if "chunked_nb<" in line else " (counts must fit in int)")
            elif how[0] == "manual":
                if how[1] == "extended":
                    st, why = ("forwarded", how[2]) if f.name in nf else ("unsupported", f"not in {mpi}")
                elif how[1] == "forwarded" and f.name not in nf:
                    st, why = "unsupported", f"not in {mpi}"
                elif how[1] == "fallback":
                    st, why = ("forwarded", how[2]) if f.name in nf else (
                        "emulated", how[2] if f.name in shunned[mpi] else f"not in {mpi}: {how[2]}")
                else:
                    st, why = how[1], how[2]
            elif how[0] == "front":
                st, why = "emulated", how[1]
            else:
                st, why = "unsupported", how[1]
            if f.name in shunned[mpi]:
                why += f" (the MPI has it, but {shunned[mpi][f.name]})"
            totals[mpi][st] += 1
            cells.append((st, why))
        note = ""
        if cells[0][1] == cells[1][1]:
            note = cells[0][1]
        else:
            note = "; ".join(f"{m}: {c[1]}" for m, c in zip(BACKENDS, cells) if c[1])
        rows.append(f"| `{f.name}` | {cells[0][0]} | {cells[1][0]} | {note.replace('|', '/')} |")
    L = ["# anympi coverage of the MPI-5.0 C functions", "",
         f"<!-- {HEADER_NOTE} (python3 abi/gen/gen_wrappers.py) -->", "",
         "For each of the 664 functions of MPI-5.0 and each backend: **forwarded** (converted and",
         "passed to the MPI underneath), **emulated** (implemented by anympi on top of it), or",
         "**unsupported** (returns `MPI_ERR_UNSUPPORTED_OPERATION` through the error handler, with",
         "a message naming the function). Generated wrappers come from `abi/gen/gen_wrappers.py`;",
         "hand-written ones live in `abi/runtime/backend/manual.cpp` and `emulated_types.cpp`, each",
         "with its reason.", "",
         "| backend | forwarded | emulated | unsupported | total |", "| --- | ---: | ---: | ---: | ---: |"]
    for b in BACKENDS:
        t = totals[b]
        L.append(f"| {b} | {t['forwarded']} | {t['emulated']} | {t['unsupported']} | {sum(t.values())} |")
    L += ["", "| function | mpich | openmpi | note |", "| --- | --- | --- | --- |"] + rows + [""]
    return "\n".join(L)


def write(path, text, check, stale):
    if check:
        old = open(path).read() if os.path.exists(path) else None
        if old != text:
            stale.append(path)
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if not os.path.exists(path) or open(path).read() != text:
        with open(path, "w") as f:
            f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mpich-header", default="/usr/include/x86_64-linux-gnu/mpich/mpi.h")
    ap.add_argument("--openmpi-header", default="/usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h")
    ap.add_argument("--check", action="store_true", help="fail if a generated file is out of date")
    a = ap.parse_args()
    funcs = spec.load_functions()
    consts = spec.load_constants()
    manual = parse_manual()
    unknown = set(manual) - {f.name for f in funcs}
    if unknown:
        sys.exit(f"hand-written functions the standard does not have: {sorted(unknown)}")
    cls = classify(funcs, manual)
    byname = {f.name: f for f in funcs}
    persistent = {f.name: persistent_lines(f, byname, cls) for f in funcs}
    haves, shunned = [], {}
    for mpi, hdr in (("mpich", a.mpich_header), ("openmpi", a.openmpi_header)):
        nf, nc, version = scan_native(hdr)
        shunned[mpi] = shun_defective(mpi, version, nf, cls, persistent)
        haves.append((mpi, nf, nc))
    narrow = {f.name: narrow_line(f, byname, cls) for f in funcs}
    stale = []
    w = lambda rel, text: write(os.path.join(ROOT, rel), text, a.check, stale)  # noqa: E731
    w("abi/runtime/generated/abi_types.h", gen_abi_types(consts))
    w("abi/runtime/generated/abi_consts.inc", gen_consts_inc(consts, haves))
    w("abi/runtime/generated/fn_index.h", gen_fn_index(funcs))
    w("abi/runtime/generated/backend_sigs.h", gen_sigs(funcs, cls))
    w("abi/runtime/generated/backend.gen.cpp", gen_backend(funcs, cls, haves, narrow, persistent))
    w("abi/runtime/generated/native_calls.h", gen_native_calls(funcs))
    for mpi, nf, nc in haves:
        w(f"abi/runtime/generated/have_{mpi}.h", gen_have(funcs, consts, nf, nc, mpi, shunned[mpi]))
    w("abi/runtime/generated/front.gen.c", gen_front(funcs))
    w("abi/runtime/generated/libmpi_abi.map", gen_map(funcs))
    w("docs/coverage.md", gen_coverage(funcs, cls, haves, narrow, persistent, shunned))
    if stale:
        sys.exit("out of date (run python3 abi/gen/gen_wrappers.py): " + ", ".join(os.path.relpath(s, ROOT) for s in stale))


if __name__ == "__main__":
    main()
