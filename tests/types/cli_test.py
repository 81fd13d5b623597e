#!/usr/bin/env python3
"""anympi-typeinfo end to end: the MPI-6 case in text and JSON, errors with carets, exit codes,
and the one binary (built over anympi's ABI) on both backends, value-index pairs included."""
import json
import os
import subprocess
import sys
import tempfile

CLI = sys.argv[1]
MPI6 = "resized(struct(double@0, double@16), lb=0, extent=32) * 3"
failures = []


def run(*args, backend=None):
    env = dict(os.environ)
    if backend:
        env.update(ANYMPI_BACKEND=backend, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    p = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=60, env=env)
    # MPICH reports datatypes alive at MPI_Finalize: the CLI must free all it built and decoded.
    expect("leaked" not in p.stderr, f"no leaked datatypes for {args}: {p.stderr!r}")
    return p.returncode, p.stdout, p.stderr


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def field(text, label):
    """The value printed after a left-aligned label, or None."""
    for line in text.splitlines():
        if line.startswith(label + " ") or line == label:
            return line[len(label):].strip()
    return None


# Text output of MPI-6.
rc, out, err = run(MPI6, "--recv", "double * 6")
expect(rc == 0, f"MPI-6 exits 0 (got {rc}, stderr {err!r})")
expect(field(out, "signature") == "6 \u00d7 MPI_DOUBLE", f"signature line: {field(out, 'signature')!r}")
expect(field(out, "value bytes") == "48 (3 \u00d7 size 16)", f"value bytes line: {field(out, 'value bytes')!r}")
expect(field(out, "span") == "88 (offsets 0\u201387)", f"span line: {field(out, 'span')!r}")
expect(field(out, "gaps") == "40 bytes: 8\u201315, 24\u201331, 40\u201347, 56\u201363, 72\u201379",
       f"gaps line: {field(out, 'gaps')!r}")
expect((field(out, "count \u00d7 extent") or "").startswith("96 (3 \u00d7 32"),
       f"count x extent line: {field(out, 'count × extent')!r}")
expect((field(out, "verdict") or "").startswith("compatible: all 6 elements match (48 bytes)"),
       f"verdict line: {field(out, 'verdict')!r}")
expect("resized(struct(MPI_DOUBLE@0, MPI_DOUBLE@16), lb=0, extent=32) * 3" in out, "decoded expression shown")

# JSON output of MPI-6, and the extent-24 variant.
rc, out, err = run(MPI6, "--recv", "double * 6", "--json")
expect(rc == 0, f"--json exits 0 (got {rc})")
try:
    d = json.loads(out)
    s = d["send"]
    expect(s["signature"]["text"] == "6 \u00d7 MPI_DOUBLE", "json signature")
    expect(s["signature"]["runs"] == [{"type": "MPI_DOUBLE", "size": 8, "length": 6}], "json runs")
    expect(s["value_bytes"] == 48, "json value_bytes")
    expect(s["span"] == {"lo": 0, "hi": 88, "bytes": 88}, f"json span {s['span']}")
    expect(s["gap_bytes"] == 40, "json gap_bytes")
    expect(s["count_extent"] == 96, "json count_extent")
    expect(s["offsets"] == [0, 16, 32, 48, 64, 80], f"json offsets {s['offsets']}")
    expect(s["instance"]["extent"] == 32 and s["instance"]["true_extent"] == 24, "json instance bounds")
    expect(d["compatibility"]["verdict"] == "compatible" and d["compatibility"]["ok"] is True, "json verdict")
    expect(d["recv"]["span"]["bytes"] == 48, "json recv span")
except (ValueError, KeyError) as e:
    expect(False, f"--json parses and has the fields: {e}\n{out}")

rc, out, err = run(MPI6.replace("extent=32", "extent=24"), "--json")
try:
    s = json.loads(out)["send"]
    expect(s["offsets"] == [0, 16, 24, 40, 48, 64], f"extent 24 offsets {s['offsets']}")
    expect(s["signature"]["text"] == "6 \u00d7 MPI_DOUBLE", "extent 24 signature")
except (ValueError, KeyError) as e:
    expect(False, f"extent 24 --json: {e}")

# Errors point at the column: syntax (before MPI starts) and names (checked against the MPI).
for expr, col in [("vector(2, 1, , double)", 14), ("struct(double@0, doubel@8)", 18)]:
    rc, out, err = run(expr)
    expect(rc == 2, f"{expr!r} exits 2 (got {rc})")
    lines = err.splitlines()
    caret = [l for l in lines if l.strip() == "^"]
    expect(len(caret) == 1 and caret[0].index("^") == 2 + col - 1, f"caret under column {col}:\n{err}")
    expect(f"column {col}" in err, f"message names column {col}: {err!r}")
    expect(out == "", "no output on error")

rc, out, err = run("struct(double@0, doubel@8)", "--json")
try:
    e = json.loads(out)["error"]
    expect(rc == 2 and e["column"] == 18 and e["side"] == "send" and "doubel" in e["message"], f"--json error {e}")
except (ValueError, KeyError) as x:
    expect(False, f"--json error object: {x}: {out!r}")

rc, out, err = run("double", "--recv", "int * 2 *")
expect(rc == 2 and "receive" in err and "^" in err, f"receive errors are reported as such: {err!r}")

# Verdicts that fail give exit status 1.
rc, out, err = run("struct(double*3@0, int@24) * 2", "--recv", "double * 8")
expect(rc == 1, f"mismatch exits 1 (got {rc})")
expect("mismatch: element 3 (counting from 0) is MPI_INT in the send but MPI_DOUBLE in the receive" in out,
       "mismatch verdict names element and types")
rc, out, err = run("double * 6", "--recv", "double * 4")
expect(rc == 1 and "truncation" in out and "48 bytes" in out and "32 bytes" in out, "truncation verdict with sizes")
rc, out, err = run("double * 6", "--recv", "double * 10")
expect(rc == 0 and "compatible (spare capacity)" in out, "spare capacity verdict")

# --svg writes a picture with one box per value and the instance boundaries.
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "t.svg")
    rc, out, err = run(MPI6, "--svg", path)
    expect(rc == 0 and os.path.exists(path), "--svg writes the file")
    if os.path.exists(path):
        svg = open(path, encoding="utf-8").read()
        expect(svg.count('class="value"') == 6, "six value boxes")
        expect(svg.count('class="instance"') == 4, "four instance boundaries (0, 32, 64, 96)")
        expect(svg.count('class="gap"') == 5, "five hatched gaps")

# The same binary on each backend (it links only libmpi_abi.so.1): the same figures, and
# MPI-4.1's value-index pairs, which anympi provides on MPI libraries that lack them.
for b in ("mpich", "openmpi"):
    rc, out, err = run(MPI6, "--recv", "double * 6", "--json", backend=b)
    try:
        s = json.loads(out)["send"]
        expect(rc == 0 and s["offsets"] == [0, 16, 32, 48, 64, 80] and s["span"]["bytes"] == 88,
               f"{b}: MPI-6 figures {s['offsets']} {s['span']}")
    except (ValueError, KeyError) as e:
        expect(False, f"{b}: MPI-6 --json: {e}: {out!r} {err!r}")
    rc, out, err = run("value_index(float, long) * 2", "--recv", "struct(float@0, long@8) * 2", backend=b)
    expect(rc == 0, f"{b}: value_index exits 0 (got {rc}, stderr {err!r})")
    expect(field(out, "decoded") == "value_index(MPI_FLOAT, MPI_LONG) * 2", f"{b}: decoded {field(out, 'decoded')!r}")
    expect(field(out, "signature") == "2 \u00d7 (MPI_FLOAT, MPI_LONG)", f"{b}: signature {field(out, 'signature')!r}")
    expect(field(out, "gaps") == "8 bytes: 4\u20137, 20\u201323", f"{b}: gaps {field(out, 'gaps')!r}")
    expect((field(out, "verdict") or "").startswith("compatible: all 4 elements match (24 bytes)"),
           f"{b}: verdict {field(out, 'verdict')!r}")
    rc, out, err = run("value_index(double, int)", backend=b)
    expect(rc == 0 and field(out, "decoded") == "MPI_DOUBLE_INT", f"{b}: value_index(double, int) is MPI_DOUBLE_INT: {out!r}")
    rc, out, err = run("dup(value_index(float, float))", backend=b)
    expect(rc == 2 and "column 5" in err and "no pair type" in err, f"{b}: no pair for (float, float): {err!r}")

rc, out, err = run("--help")
expect(rc == 0 and "usage: anympi-typeinfo" in out, "--help")
rc, out, err = run()
expect(rc == 2, "no expression is a usage error")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
