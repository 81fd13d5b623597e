"""The MPI standard as data, read once for the runtime's generators.

Reads the repo copies under abi/spec/ (never ../shared): the MPI-5.0 ABI
constants, the C prototypes of all 664 functions, and the MPI Forum's
mpi-4.1-apis.json (parameter kinds, directions, length expressions).
"""
import json
import os
import re

import spec as tables  # the one reader of the TSV tables; this module adds apis.json

SPEC_DIR = tables.SPEC_DIR


class Param:
    def __init__(self, ctype, name, array):
        self.ctype = ctype          # C type without the name, arrays as written ("const int", "int *")
        self.name = name
        self.array = array          # text of the [] suffix, "" if none ("[]", "[][3]")
        self.kind = None            # apis.json kind, None for MPI-5.0-only functions
        self.direction = None
        self.length = None
        self.pointer = None

    @property
    def decl_type(self):
        """The type as a function pointer parameter would need it (arrays decay)."""
        t = self.ctype.strip()
        if self.array == "[]":
            return t + " *"
        if self.array.startswith("[]["):
            return t + " (*)" + self.array[2:]
        return t

    def decl(self, rename=lambda t: t):
        t = rename(self.ctype.strip())
        sep = "" if t.endswith("*") else " "
        return f"{t}{sep}{self.name}{self.array}"


class Function:
    def __init__(self, name, ret, params, note):
        self.name = name
        self.ret = ret
        self.params = params
        self.note = note
        self.varargs = any(p.name == "..." for p in params)
        self.in_apis = False        # described by apis.json (the MPI-5.0-only ones are not)

    @property
    def short(self):
        return self.name[4:]


def _parse_params(text):
    text = text.strip()
    if text in ("", "void"):
        return []
    out = []
    for piece in text.split(","):
        piece = piece.strip()
        if piece == "...":
            out.append(Param("", "...", ""))
            continue
        m = re.match(r"^(.*?)([A-Za-z_][A-Za-z_0-9]*)((?:\[[^\]]*\])*)$", piece)
        if not m:
            raise ValueError(f"cannot parse parameter {piece!r}")
        out.append(Param(m.group(1).strip(), m.group(2), m.group(3)))
    return out


def load_functions():
    funcs = [Function(r["name"], r["return"], _parse_params(r["parameters"]), r["note"] or "")
             for r in tables.function_rows()]
    apis = json.load(open(os.path.join(SPEC_DIR, "mpi-4.1-apis.json")))
    for fn in funcs:
        key = fn.name.lower()
        entry = apis.get(key)
        if entry is None and key.endswith("_c"):
            entry = apis.get(key[:-2])
        if entry is None:
            continue
        fn.in_apis = True
        byname = {p["name"]: p for p in entry["parameters"]
                  if "c_parameter" not in p["suppress"]}
        jlist = [p for p in entry["parameters"] if "c_parameter" not in p["suppress"]]
        for i, p in enumerate(fn.params):
            j = byname.get(p.name)
            if j is None and len(jlist) == len(fn.params):
                j = jlist[i]  # the 5.0 prototype renamed the parameter: same position, same meaning
            if j is None:
                continue
            p.kind = j["kind"]
            p.direction = j["param_direction"]
            p.length = j["length"]
            p.pointer = j["pointer"]
            p.root_only = bool(j.get("root_only"))
    return funcs


def load_constants():
    """[(name, kind, value)] in file order; aliases keep kind 'alias' and the target as value."""
    return [(c.name, c.kind, c.value) for c in tables.constants()]


def int_value(v):
    return int(v, 0)
