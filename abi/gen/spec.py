"""Reads the MPI-5.0 standard ABI tables in abi/spec/ (facts of the standard, kept as data).

Shared by every generator, so that each fact is parsed in one place.
"""
import csv
import os
import re
from dataclasses import dataclass, field

SPEC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "spec")


@dataclass
class Constant:
    name: str
    kind: str   # C type ('int', 'MPI_Comm', 'void*', ...), 'alias' or 'enum <tag>'
    value: str  # as written in the standard's table

    @property
    def enum_tag(self):
        return self.kind.split()[1] if self.kind.startswith("enum ") else None


@dataclass
class Param:
    text: str   # the declaration as the standard writes it: 'const int recvcounts[]'
    name: str   # 'recvcounts' ('' for 'void' and '...')


@dataclass
class Function:
    name: str
    ret: str
    params: list = field(default_factory=list)
    note: str = ""

    @property
    def param_text(self):
        return ", ".join(p.text for p in self.params) if self.params else "void"


def _rows(filename):
    with open(os.path.join(SPEC_DIR, filename), newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def constants():
    return [Constant(r["name"], r["kind"], r["value"]) for r in _rows("mpi-5.0-abi-constants.tsv")]


def _param(text):
    text = text.strip()
    if text in ("void", "..."):
        return Param(text if text == "..." else "", "")
    m = re.search(r"([A-Za-z_][A-Za-z_0-9]*)\s*(\[[^\]]*\]\s*)*$", text)
    return Param(text, m.group(1))


def function_rows():
    """The rows of mpi-5.0-c-functions.tsv: name, return, parameters, note."""
    return _rows("mpi-5.0-c-functions.tsv")


def functions():
    out = []
    for r in function_rows():
        params = [] if r["parameters"].strip() == "void" else [_param(p) for p in r["parameters"].split(",")]
        out.append(Function(r["name"], r["return"], [p for p in params if p.text], r["note"] or ""))
    return out


def typedefs():
    """The typedef declarations of mpi-5.0-abi-types.tsv, each without 'typedef' and ';'."""
    with open(os.path.join(SPEC_DIR, "mpi-5.0-abi-types.tsv")) as f:
        lines = [l.strip() for l in f.read().splitlines()]
    assert lines[0] == "typedef", "unexpected header of mpi-5.0-abi-types.tsv"
    return [l for l in lines[1:] if l]


# The ABI's integer types on 64-bit Linux (the standard's A64O64 choice): MPI_Aint is intptr_t,
# MPI_Offset and MPI_Count are int64_t.
ABI_INTEGER_TYPES = {"MPI_ABI_Aint": "intptr_t", "MPI_ABI_Offset": "int64_t", "MPI_ABI_Count": "int64_t"}

# The handle types: every 'struct MPI_ABI_X* MPI_X' typedef.
def handle_types():
    out = []
    for t in typedefs():
        m = re.fullmatch(r"struct (MPI_ABI_\w+)\* (MPI_\w+)", t)
        if m:
            out.append(m.group(2))
    return out
