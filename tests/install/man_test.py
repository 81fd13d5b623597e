#!/usr/bin/env python3
"""The man pages and share/doc/anympi/:
  * each page of the build tree renders with `man -l` without a warning, with its sections;
  * the pages do not drift from the programs: mpicc(1) and mpicxx(1) name every option of their
    -showme:help, anympi-typeinfo(1) and anympi-info(1) every option of their --help,
    mpiexec(1) every variable its --help names, anympi(7) every ANYMPI_* variable the runtime,
    the checker and the wrappers read, and the coverage summary of docs/coverage.md;
  * installed into a prefix, `man -M <prefix>/share/man <page>` finds each page, and
    share/doc/anympi/ holds the README, the docs it links and examples whose CMake project
    builds against the prefix and runs on both backends.
    man_test.py <bin-dir> <build-dir> <source-dir> <work-dir>"""
import glob
import os
import re
import shutil
import subprocess
import sys

BIN, BUILD, SRC, WORK = sys.argv[1:5]
PAGES = ["mpicc.1", "mpicxx.1", "mpiexec.1", "anympi-info.1", "anympi-typeinfo.1", "anympi.7"]
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def env(**extra):
    e = {k: v for k, v in os.environ.items() if not k.startswith(("ANYMPI_", "MAN", "PMI_", "OMPI_"))}
    e.update(MANWIDTH="100", **extra)
    return e


def sh(*args, timeout=120, **extra):
    p = subprocess.run(list(args), capture_output=True, text=True, timeout=timeout, env=env(**extra))
    return p.returncode, p.stdout, p.stderr


def render(*man_args):
    rc, out, err = sh("man", "--warnings", *man_args)
    expect(rc == 0 and err == "", f"man --warnings {' '.join(man_args)}: exit {rc}, stderr {err!r}")
    return out


def words(text):
    """The text with its lines joined, so a phrase broken by filling still matches."""
    return re.sub(r"\s+", " ", text.replace("\u2010\n", "").replace("-\n", "-"))


pages = {}
for page in PAGES:
    path = os.path.join(BUILD, "share", "man", "man" + page[-1], page)
    expect(os.path.isfile(path), f"the build made {path}")
    if not os.path.isfile(path):
        continue
    out = render("-l", path)
    name = page[:-2]
    expect(out.startswith(f"{name.upper()}({page[-1]})"), f"{page}: header line: {out[:80]!r}")
    for section in ["NAME", "DESCRIPTION" if page[-1] == "7" else "SYNOPSIS", "SEE ALSO"]:
        expect(f"\n{section}\n" in out, f"{page}: no {section} section")
    pages[page] = words(out)
    expect(f" NAME {name} - " in pages[page], f"{page}: NAME line")


def options_of(help_text):
    """The options a usage text lists: -x, --long, -showme:what, -cc= (without <arg>)."""
    found = set(re.findall(r"(?<![\w-])(--?[a-z][\w-]*(?::\w+|=)?)", help_text))
    return {o for o in found if o not in ("-showme:", "-std")}


def check_options(page, help_args, exe, expected_min):
    rc, out, err = sh(os.path.join(BIN, exe), *help_args)
    expect(rc == 0, f"{exe} {help_args}: exit {rc}")
    opts = options_of(out + err)
    expect(len(opts) >= expected_min, f"{exe}: only {sorted(opts)} parsed from its help")
    for o in sorted(opts):
        expect(o in pages.get(page, ""), f"{page} does not mention {exe}'s option {o}")


check_options("mpicc.1", ["-showme:help"], "mpicc", 12)
check_options("mpicxx.1", ["-showme:help"], "mpicxx", 12)
check_options("anympi-typeinfo.1", ["--help"], "anympi-typeinfo", 6)
check_options("anympi-info.1", ["--help"], "anympi-info", 1)
expect("--help" in pages.get("anympi-info.1", ""), "anympi-info(1): --help")
for var in ("ANYMPI_CC", "MPICH_CC", "OMPI_CC"):
    expect(var in pages.get("mpicc.1", ""), f"mpicc(1) lacks {var}")
for var in ("ANYMPI_CXX", "MPICH_CXX", "OMPI_CXX"):
    expect(var in pages.get("mpicxx.1", ""), f"mpicxx(1) lacks {var}")

rc, out, err = sh(os.path.join(BIN, "mpiexec"), "--help")
for var in set(re.findall(r"ANYMPI_[A-Z]+", out)) | {"--version", "--help"}:
    expect(var in pages.get("mpiexec.1", ""), f"mpiexec(1) lacks {var} (from mpiexec --help)")

# Every ANYMPI_* variable a user can set: read by the runtime or the checker, or by a wrapper.
variables = set()
for f in glob.glob(os.path.join(SRC, "abi", "runtime", "**", "*.c*"), recursive=True) + \
         glob.glob(os.path.join(SRC, "abi", "check", "*.c*"), recursive=True):
    variables |= set(re.findall(r'getenv\("(ANYMPI_\w+)"\)', open(f, encoding="utf-8").read()))
for f in glob.glob(os.path.join(SRC, "tools", "wrappers", "*.in")):
    text = open(f, encoding="utf-8").read()
    if "ANYMPI_@ANYMPI_W_CCVAR@" in text:  # mpicc.in reads ANYMPI_CC as mpicc, ANYMPI_CXX as mpicxx
        variables |= {"ANYMPI_CC", "ANYMPI_CXX"}
    variables |= {v for v in re.findall(r"\b(ANYMPI_[A-Z_]+)\b", text) if not v.startswith("ANYMPI_W_")}
variables.discard("ANYMPI_WRAPPER_ACTIVE")  # the wrappers' own guard against calling themselves
expect({"ANYMPI_BACKEND", "ANYMPI_CHECK", "ANYMPI_LAUNCHER", "ANYMPI_CC"} <= variables,
       f"variables found in the sources: {sorted(variables)}")
for var in sorted(variables):
    expect(var in pages.get("anympi.7", ""), f"anympi(7) lacks {var}")
for line in open(os.path.join(SRC, "docs", "coverage.md"), encoding="utf-8"):
    m = re.fullmatch(r"\| (\w+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|\n", line)
    if m:
        want = f"{m[1]} {m[2]} forwarded, {m[3]} emulated, {m[4]} unsupported of {m[5]} functions"
        expect(want in pages.get("anympi.7", ""), f"anympi(7) lacks the coverage line '{want}'")

# Installed.
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
prefix = os.path.join(WORK, "prefix")
rc, out, err = sh("cmake", "--install", BUILD, "--prefix", prefix)
expect(rc == 0, f"cmake --install: {out}{err}")
for page in PAGES:
    out = render("-M", os.path.join(prefix, "share", "man"), page[-1], page[:-2])
    expect(words(out) == pages.get(page), f"man -M <prefix>/share/man {page}: not the build tree's page")
doc = os.path.join(prefix, "share", "doc", "anympi")
readme = open(os.path.join(doc, "README.md"), encoding="utf-8").read()
expect(readme == open(os.path.join(SRC, "README.md"), encoding="utf-8").read(), "share/doc/anympi/README.md")
for link in set(re.findall(r"\]\((docs/[^)#]+)\)|`(docs/[\w./-]+\.md)`", readme)):
    target = link[0] or link[1]
    expect(os.path.isfile(os.path.join(doc, target)), f"share/doc/anympi/{target}, named by the README")

examples = os.path.join(doc, "examples")
build = os.path.join(WORK, "examples-build")
rc, out, err = sh("cmake", "-S", examples, "-B", build, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}", timeout=300)
expect(rc == 0 and f"run with {prefix}/bin/mpiexec" in out, f"the installed examples configure: {out}{err}")
rc, out, err = sh("cmake", "--build", build, timeout=600)
expect(rc == 0, f"the installed examples build: {out}{err}")
for backend, lib in (("mpich", "MPICH"), ("openmpi", "Open MPI")):
    for exe, ranks in (("demo-c", "4"), ("demo-cxx", "2"), ("fig4_allgatherv", "2"), ("mpi_t_list", "2")):
        rc, out, err = sh(os.path.join(prefix, "bin", "mpiexec"), "-n", ranks, os.path.join(build, exe),
                          timeout=120, ANYMPI_BACKEND=backend)
        expect(rc == 0, f"{exe} on {backend} at {ranks} ranks: exit {rc}: {out}{err}")
        if exe.startswith("demo"):
            expect(lib in out, f"{exe} on {backend} does not name {lib}: {out}")

if failures:
    print(f"man pages and docs: {len(failures)} failure(s)")
    sys.exit(1)
print("man pages and docs: ok")
