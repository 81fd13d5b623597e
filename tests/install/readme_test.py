#!/usr/bin/env python3
"""README.md's code blocks, run against an installed anympi, so that the README cannot drift.

Every fenced block in README.md follows a comment that says what to do with it:
  <!-- readme-test: file NAME -->           the block is written to NAME
  <!-- readme-test: run -->                 each line is run by bash; all must succeed
  <!-- readme-test: run; expect A | B -->   ... and their output must contain A and B
  <!-- readme-test: transcript -->          "$ command" lines are run; the lines after each are
                                            its output, in order ("..." stands for any lines)
  <!-- readme-test: not run: REASON -->     shown only (the reason says why)
A block with no such comment fails the test, so a new block is never left unchecked.
Blocks are taken in order, in one folder, with the installed bin/ first on PATH.

    readme_test.py <build-dir> <source-dir> <work-dir>
"""
import os
import re
import shutil
import subprocess
import sys

build, source, work = sys.argv[1:4]
failures = []


def fail(what):
    failures.append(what)
    print('FAIL:', what)


def blocks(text):
    """(line number, directive or None, language, body) for every fenced block."""
    lines = text.split('\n')
    i = 0
    while i < len(lines):
        m = re.match(r'^```(\w*)\s*$', lines[i])
        if not m:
            i += 1
            continue
        start, lang = i, m.group(1)
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        d = re.match(r'^<!-- readme-test: (.*?) -->$', lines[j].strip()) if j >= 0 else None
        end = i + 1
        while end < len(lines) and lines[end].strip() != '```':
            end += 1
        yield start + 1, d.group(1) if d else None, lang, '\n'.join(lines[i + 1:end]) + '\n'
        i = end + 1


def run(cmd, where):
    r = subprocess.run(['bash', '-c', cmd], cwd=folder, env=env, capture_output=True, text=True,
                       timeout=300)
    out = r.stdout + r.stderr
    if r.returncode != 0:
        fail(f'{where}: `{cmd}` exited {r.returncode}:\n{out}')
    return out


def words(line):
    return ' '.join(line.split())


def check_transcript(body, where):
    """Each "$ command" runs; the shown lines must appear in its output in that order."""
    steps, current = [], None
    for line in body.rstrip('\n').split('\n'):
        if line.startswith('$ '):
            current = (line[2:], [])
            steps.append(current)
        elif current is None:
            fail(f'{where}: a transcript begins with "$ command", not {line!r}')
            return
        elif line.strip() != '...':
            current[1].append(words(line))
    for cmd, shown in steps:
        got = [words(l) for l in run(cmd, where).split('\n')]
        at = 0
        for want in shown:
            while at < len(got) and got[at] != want:
                at += 1
            if at == len(got):
                fail(f'{where}: `{cmd}` did not print, in this order, the line {want!r}; it printed:\n'
                     + '\n'.join(got))
                break
            at += 1


folder = os.path.join(work, 'readme')
prefix = os.path.join(work, 'prefix')
shutil.rmtree(work, ignore_errors=True)
os.makedirs(folder)
inst = subprocess.run(['cmake', '--install', build, '--prefix', prefix], capture_output=True, text=True)
if inst.returncode != 0:
    sys.exit(f'FAIL: cmake --install:\n{inst.stdout}{inst.stderr}')
env = dict(os.environ)
for var in ('ANYMPI_BACKEND', 'ANYMPI_LAUNCHER', 'LD_LIBRARY_PATH', 'CC', 'CXX'):
    env.pop(var, None)
env['PATH'] = os.path.join(prefix, 'bin') + os.pathsep + env['PATH']

readme = open(os.path.join(source, 'README.md')).read()
counts = {}
for line, directive, lang, body in blocks(readme):
    where = f'README.md:{line}'
    kind = (directive or '').split(':')[0].split(';')[0].split(' ')[0]
    counts[kind] = counts.get(kind, 0) + 1
    if directive is None:
        fail(f'{where}: a ```{lang} block with no <!-- readme-test: ... --> comment before it')
    elif kind == 'file':
        open(os.path.join(folder, directive.split(' ', 1)[1].strip()), 'w').write(body)
    elif kind == 'run':
        out = ''.join(run(cmd, where) for cmd in body.split('\n') if cmd.strip())
        if ';' in directive:
            expect = directive.split(';', 1)[1].strip()
            if not expect.startswith('expect '):
                fail(f'{where}: unknown run directive {directive!r}')
                continue
            for want in expect[len('expect '):].split('|'):
                if want.strip() not in out:
                    fail(f'{where}: the output lacks {want.strip()!r}:\n{out}')
    elif kind == 'transcript':
        check_transcript(body, where)
    elif directive.startswith('not run: ') and len(directive) > len('not run: '):
        pass
    else:
        fail(f'{where}: unknown directive {directive!r}')

print('README.md blocks:', ', '.join(f'{n} {k or "unmarked"}' for k, n in sorted(counts.items())))
if failures:
    sys.exit(f'{len(failures)} failure(s)')
