#!/usr/bin/env python3
"""anympi-info end to end, in text and JSON: both backends found with their native library,
version, launcher and the coverage of docs/coverage.md; the launch choice and its reason under
each rule (default, ANYMPI_BACKEND, a launcher's environment, a mismatch, a refused
ANYMPI_LAUNCHER, an unknown backend); the ANYMPI_* variables; and, installed into a prefix that
is then moved and lacks one backend module, the paths of that prefix and the missing backend.
    info_test.py <anympi-info> <source-dir> <build-dir> <work-dir>"""
import json
import os
import re
import shutil
import subprocess
import sys

INFO, SRC, BUILD, WORK = sys.argv[1:5]
failures = []
NATIVE = {"mpich": "libmpich.so.12", "openmpi": "libmpi.so.40"}
VERSION_WORD = {"mpich": "MPICH", "openmpi": "Open MPI"}


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


# The coverage summary, read here from docs/coverage.md independently of the build's reading.
coverage = {}
for line in open(os.path.join(SRC, "docs", "coverage.md")):
    m = re.fullmatch(r"\| (\w+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|\n", line)
    if m:
        coverage[m[1]] = [int(x) for x in m.groups()[1:]]
expect(set(coverage) == {"mpich", "openmpi"}, f"docs/coverage.md summary rows: {coverage}")


def clean_env(**extra):
    """The caller's environment without any launcher's or anympi's variables, plus extra."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANYMPI_", "PMI_", "PMIX_", "OMPI_", "HYDRA_"))}
    env.update(extra)
    return env


def run(exe, *args, **extra):
    p = subprocess.run([exe, *args], capture_output=True, text=True, timeout=30, env=clean_env(**extra))
    expect(p.returncode == 0, f"{exe} {args} with {extra} exits {p.returncode}: {p.stderr}")
    return p.stdout


def run_json(exe, **extra):
    out = run(exe, "--json", **extra)
    try:
        return json.loads(out)
    except json.JSONDecodeError as e:
        expect(False, f"--json with {extra} is not JSON ({e}): {out}")
        return None


def check_backends(exe, where, missing=()):
    """Text and JSON list every backend; those in missing are reported not usable."""
    text = run(exe)
    data = run_json(exe)
    if data is None:
        return text, data
    names = [b["name"] for b in data["backends"]]
    expect(names == ["mpich", "openmpi"], f"{where}: JSON backends {names}")
    for b in data["backends"]:
        n = b["name"]
        cov = b["coverage"]
        expect([cov["forwarded"], cov["emulated"], cov["unsupported"], cov["total"]] == coverage.get(n),
               f"{where}: {n} coverage {cov} is not docs/coverage.md's {coverage.get(n)}")
        f, e, u, t = coverage[n]
        expect(f"  coverage      {f} forwarded, {e} emulated, {u} unsupported of {t} functions" in text,
               f"{where}: text coverage of {n}")
        expect(b["module"] == os.path.join(data["anympi"]["backend_dir"], f"anympi_backend_{n}.so"),
               f"{where}: {n} module {b['module']}")
        if n in missing:
            expect(b["usable"] is False and "no backend module" in b["problem"],
                   f"{where}: missing {n} must be not usable with its reason: {b}")
            expect(f"backend {n}: NOT usable" in text and f"no backend module {b['module']}" in text,
                   f"{where}: text for missing {n}:\n{text}")
            continue
        expect(b["usable"] is True and b["problem"] == "", f"{where}: {n} not usable: {b}")
        expect(os.path.basename(b["native_library"]) == NATIVE[n] and os.path.isfile(b["native_library"]),
               f"{where}: {n} native library {b['native_library']!r}")
        expect(b["version"].startswith(VERSION_WORD[n]) and "\t" not in b["version"],
               f"{where}: {n} version {b['version']!r}")
        expect(os.path.basename(b["launcher"]) == f"mpiexec.{n}" and os.access(b["launcher"], os.X_OK),
               f"{where}: {n} launcher {b['launcher']!r}")
        expect(f"backend {n}: usable" in text, f"{where}: text says {n} is usable")
        for key in ("native_library", "version", "launcher"):
            expect(b[key] in text, f"{where}: text lacks {n}'s {key} {b[key]!r}")
    return text, data


# The build tree's anympi-info.
text, data = check_backends(INFO, "build tree")
if data:
    a = data["anympi"]
    expect(a["mpi_version"] == "5.0" and a["abi_version"] == "1.0", f"versions {a}")
    expect(os.path.realpath(a["prefix"]) == os.path.realpath(BUILD), f"build-tree prefix {a['prefix']}")
    expect(os.path.realpath(a["library"]).startswith(os.path.realpath(BUILD) + "/lib/libmpi_abi.so.1"),
           f"build-tree library {a['library']}")
    expect(a["mpiexec"] == os.path.join(os.path.dirname(INFO), "mpiexec"), f"mpiexec {a['mpiexec']}")
    expect(data["environment"] == {}, f"no ANYMPI_* variable in a clean environment: {data['environment']}")
    expect(text.startswith(f"anympi {a['version']}: the MPI-5.0 standard ABI (ABI version 1.0)"), f"text head:\n{text}")
    expect("no ANYMPI_* variable is set" in text, "text: no variable")

# The launch choice and its reason, under each rule: (environment, mpiexec's backend or None when
# it refuses, words of its reason or refusal, the program's backend, words of its reason).
cases = [
    ({}, "mpich", "ANYMPI_BACKEND unset: the default",
     "mpich", "no launcher started this process: mpich is the default"),
    ({"ANYMPI_BACKEND": "openmpi"}, "openmpi", "set in ANYMPI_BACKEND", "openmpi", "ANYMPI_BACKEND is set"),
    ({"ANYMPI_BACKEND": "mpich"}, "mpich", "set in ANYMPI_BACKEND", "mpich", "ANYMPI_BACKEND is set"),
    # What Open MPI's launcher sets in each rank: the runtime follows it.
    ({"OMPI_COMM_WORLD_SIZE": "2", "OMPI_COMM_WORLD_RANK": "0"}, "mpich", "ANYMPI_BACKEND unset: the default",
     "openmpi", "Open MPI's launcher started this process"),
    ({"PMI_FD": "9", "PMI_RANK": "0"}, "mpich", "ANYMPI_BACKEND unset: the default",
     "mpich", "MPICH's launcher started this process"),
    # Open MPI asked for under Hydra: the runtime would stop every rank.
    ({"ANYMPI_BACKEND": "openmpi", "PMI_FD": "9", "PMI_RANK": "0"}, "openmpi", "set in ANYMPI_BACKEND",
     "openmpi", "but MPICH's launcher started this process: the runtime would stop"),
    ({"ANYMPI_BACKEND": "mpich", "OMPI_COMM_WORLD_SIZE": "2"}, "mpich", "set in ANYMPI_BACKEND",
     "mpich", "but Open MPI's launcher started this process: the runtime would stop"),
    ({"ANYMPI_BACKEND": "openmpi", "ANYMPI_LAUNCHER": "mpiexec.mpich"}, None,
     "is MPICH's launcher, but ANYMPI_BACKEND=openmpi runs Open MPI", "openmpi", "ANYMPI_BACKEND is set"),
    ({"ANYMPI_BACKEND": "bogus"}, None, "unknown ANYMPI_BACKEND='bogus'",
     "bogus", "anympi_backend_bogus.so: the runtime would stop"),
]
for env, mb, mwhy, pb, pwhy in cases:
    text = run(INFO, **env)
    data = run_json(INFO, **env)
    if data is None:
        continue
    m, p = data["launch"]["mpiexec"], data["launch"]["program"]
    anympi_env = {k: v for k, v in env.items() if k.startswith("ANYMPI_")}
    expect(data["environment"] == anympi_env, f"{env}: environment {data['environment']}")
    for k, v in anympi_env.items():
        expect(f"\n  {k}={v}\n" in text, f"{env}: text lists {k}={v}")
    if mb is None:
        expect(m["backend"] == "" and mwhy in m["problem"], f"{env}: mpiexec must refuse ({mwhy}): {m}")
        expect("mpiexec       would refuse to start a job:" in text and mwhy in text, f"{env}: text refusal:\n{text}")
    else:
        expect(m["backend"] == mb and mwhy in m["why"] and m["problem"] == ""
               and os.path.basename(m["launcher"]) == f"mpiexec.{mb}", f"{env}: mpiexec {m}")
        expect(f"mpiexec       starts backend {mb} with {m['launcher']} ({mwhy}" in text, f"{env}: text:\n{text}")
    expect(p["backend"] == pb and pwhy in p["why"], f"{env}: program {p}")
    expect(f"a program     started without mpiexec loads {pb} (" in text and pwhy in text, f"{env}: text:\n{text}")

# Usage and a wrong argument.
p = subprocess.run([INFO, "--help"], capture_output=True, text=True, timeout=30)
expect(p.returncode == 0 and p.stdout.startswith("usage: anympi-info [--json]"), f"--help: {p}")
p = subprocess.run([INFO, "--nonsense"], capture_output=True, text=True, timeout=30)
expect(p.returncode == 2 and "unknown argument '--nonsense'" in p.stderr, f"--nonsense: {p}")

# Installed, then moved, with the Open MPI backend module removed.
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
inst = subprocess.run(["cmake", "--install", BUILD, "--prefix", os.path.join(WORK, "prefix")],
                      capture_output=True, text=True, timeout=120)
expect(inst.returncode == 0, f"cmake --install: {inst.stdout}{inst.stderr}")
prefix = os.path.join(WORK, "moved")
os.rename(os.path.join(WORK, "prefix"), prefix)
os.remove(os.path.join(prefix, "lib", "anympi", "anympi_backend_openmpi.so"))
installed = os.path.join(prefix, "bin", "anympi-info")
text, data = check_backends(installed, "installed", missing=("openmpi",))
if data:
    a = data["anympi"]
    expect(a["prefix"] == prefix and a["library"].startswith(prefix + "/lib/libmpi_abi.so.1")
           and a["backend_dir"] == prefix + "/lib/anympi" and a["mpiexec"] == prefix + "/bin/mpiexec",
           f"installed paths: {a}")
    expect(f"  prefix        {prefix}\n" in text, f"installed text prefix:\n{text}")
data = run_json(installed, ANYMPI_BACKEND="openmpi")
if data:
    p = data["launch"]["program"]
    expect("no " + prefix + "/lib/anympi/anympi_backend_openmpi.so" in p["why"], f"missing module choice: {p}")

if failures:
    print(f"anympi-info: {len(failures)} failure(s)")
    sys.exit(1)
print("anympi-info: ok")
