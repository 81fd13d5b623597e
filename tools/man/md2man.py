#!/usr/bin/env python3
"""Turns one of anympi's man page sources (tools/man/*.md, a small Markdown subset) into roff
for man(7).
    md2man.py <source.md> <out.roff> <version> <docs/coverage.md>

The subset, one construct per block (blocks are separated by blank lines):
    # name(section) -- one-line description      first line: the title and the NAME section
    ## HEADING                                   a section (.SH)
    ### Heading                                  a subsection (.SS)
    ```                                          a literal block, indented, no filling
    * item                                       a bullet item; its lines continue indented
    term                                         tagged paragraphs (.TP): each term alone on its
    : description                                line, its description after ': ', continued on
      more description                           lines indented by two spaces
    anything else                                a filled paragraph (.PP)
Inline: `code` is bold, *word* italic. @VERSION@ is anympi's version; @COVERAGE@ (a block of
its own) the per-backend summary of docs/coverage.md as a tagged list.
"""
import re
import sys


def inline(text):
    """Escapes roff's specials, then sets `code` bold and *words* italic."""
    text = text.replace("\\", "\\e")
    out = []
    for i, part in enumerate(re.split(r"`([^`]*)`", text)):
        if i % 2:
            out.append("\\fB" + part.replace("-", "\\-") + "\\fR")
        else:
            part = re.sub(r"(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])", r"\\fI\1\\fR", part)
            # An option in prose (-n, --json) is a minus sign, not a hyphen.
            part = re.sub(r"(?<![\w-])-(?=[-\w])", r"\\-", part)
            part = re.sub(r"(?<=\\-)-", r"\\-", part)
            out.append(part)
    return "".join(out)


def line_safe(line):
    """A text line that starts with . or ' would be read as a request."""
    return "\\&" + line if line[:1] in (".", "'") else line


def coverage_rows(path):
    rows = []
    for line in open(path, encoding="utf-8"):
        m = re.fullmatch(r"\| (\w+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|\n", line)
        if m:
            rows.append(m.groups())
    if not rows:
        sys.exit(f"md2man: no summary rows in {path}")
    return rows


def convert(src, version, coverage):
    lines = open(src, encoding="utf-8").read().replace("@VERSION@", version).split("\n")
    m = re.fullmatch(r"# ([\w.+-]+)\((\d)\) -- (.+)", lines[0])
    if not m:
        sys.exit(f"md2man: {src}: the first line must be '# name(section) -- description'")
    name, section, desc = m.groups()
    out = [f'.\\" Generated from {src.rsplit("/", 1)[-1]} by tools/man/md2man.py; do not edit.',
           f'.TH "{name.upper()}" "{section}" "" "anympi {version}" "anympi manual"',
           ".SH NAME", f"{inline(name)} \\- {inline(desc)}"]
    blocks, block, fenced = [], [], False
    for line in lines[1:]:
        if line.startswith("```"):
            if fenced:
                blocks.append(("code", block))
                block, fenced = [], False
            else:
                if block:
                    blocks.append(("text", block))
                block, fenced = [], True
            continue
        if fenced:
            block.append(line)
        elif line.strip() == "":
            if block:
                blocks.append(("text", block))
            block = []
        else:
            block.append(line)
    if fenced:
        sys.exit(f"md2man: {src}: unclosed ``` block")
    if block:
        blocks.append(("text", block))

    for kind, block in blocks:
        first = block[0]
        if kind == "code":
            out += [".PP", ".RS 4", ".nf"]
            out += [line_safe(line.replace("\\", "\\e").replace("-", "\\-")) for line in block]
            out += [".fi", ".RE"]
        elif first.startswith("## "):
            out.append(".SH " + first[3:].upper())
            if len(block) > 1:
                sys.exit(f"md2man: {src}: a heading must stand alone: {block}")
        elif first.startswith("### "):
            out.append(".SS " + inline(first[4:]))
        elif first == "@COVERAGE@":
            for b, fwd, emu, uns, total in coverage:
                out += [".TP 10", f"\\fB{b}\\fR",
                        f"{fwd} forwarded, {emu} emulated, {uns} unsupported of {total} functions"]
        elif first.startswith("* "):
            items = []
            for line in block:
                if line.startswith("* "):
                    items.append([line[2:]])
                elif line.startswith("  ") and items:
                    items[-1].append(line.strip())
                else:
                    sys.exit(f"md2man: {src}: a list line must start with '* ' or two spaces: {line!r}")
            for item in items:
                out += [".IP \\(bu 2", line_safe(inline(" ".join(item)))]
        elif len(block) > 1 and block[1].startswith(": "):
            pairs = []  # [term, [description lines]]
            for line in block:
                if line.startswith(": ") and pairs and not pairs[-1][1]:
                    pairs[-1][1].append(line[2:])
                elif line.startswith("  ") and pairs and pairs[-1][1]:
                    pairs[-1][1].append(line.strip())
                elif not line.startswith((" ", ":")):
                    pairs.append([line, []])
                else:
                    sys.exit(f"md2man: {src}: bad line in a term list: {line!r}")
            for term, desc in pairs:
                if not desc:
                    sys.exit(f"md2man: {src}: term without ': description': {term!r}")
                out += [".TP", line_safe(inline(term)), line_safe(inline(" ".join(desc)))]
        else:
            out += [".PP", line_safe(inline(" ".join(l.strip() for l in block)))]
    return "\n".join(out) + "\n"


def main():
    src, dst, version, coverage = sys.argv[1:5]
    text = convert(src, version, coverage_rows(coverage))
    with open(dst, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
