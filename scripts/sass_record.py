#!/usr/bin/env python3
"""Turns the fast build's SASS into assets/sass/<family>.sass (run on the GPU machine,
where nvdisasm and cuobjdump exist; scripts/device_run.sh stage sass_record).

Input: `nvdisasm -c -gi` of the fast build's cubin and `cuobjdump -res-usage` of its
object. Output, per family: a header line keyed by the hash of the family header and the
dialect (kernels/dialect/simt.h, kernels/dialect/simt_cuda.h) and by the compiler version, then every
function whose code comes from that family header: a marker, its resources, and its
location and instruction lines (paths made repository-relative, spacing compacted). The
result is still nvdisasm's text, so kernels/hardware/sass.cpp parses both.

  sass_record.py --root REPO --nvdisasm FILE --res-usage FILE --compiler 13.0.88
                 --arch sm_90 --families '{"transpose": "kernels/families/transpose.cuh", ...}' --out DIR
  sass_record.py --remap OLD_REV FAMILIES_JSON     (after edits that only moved lines)
"""
import argparse
import json
import os
import re
import subprocess
import sys


def fnv1a(data: bytes) -> int:
    h = 14695981039346656037
    for c in data:
        h ^= c
        h = (h * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def source_hash(root, header):
    data = b""
    for rel in (header, "kernels/dialect/simt.h", "kernels/dialect/simt_cuda.h"):
        with open(os.path.join(root, rel), "rb") as f:
            data += f.read()
    return "%016x" % fnv1a(data)


def rel_path(p):
    i = p.rfind("/kernels/")
    return p[i + 1:] if i >= 0 else p


LABEL = re.compile(r"^\s*\.text\.([A-Za-z0-9_$.]+):\s*$")
FILE = re.compile(r'//##\s*File\s+"([^"]+)",\s*line\s+(\d+)(.*)$')
INLINED = re.compile(r'inlined at\s+"([^"]+)",\s*line\s+(\d+)')
INS = re.compile(r"^\s*/\*([0-9a-fA-F]+)\*/\s*(.*?;)")


def functions(text):
    """[(name, [lines])] with location and instruction lines, compacted."""
    out = []
    cur = None
    for line in text.splitlines():
        m = LABEL.match(line)
        if m:
            cur = (m.group(1), [])
            out.append(cur)
            continue
        if cur is None:
            continue
        m = FILE.search(line)
        if m:
            s = '//## File "%s", line %s' % (rel_path(m.group(1)), m.group(2))
            mi = INLINED.search(m.group(3))
            if mi:
                s += ' inlined at "%s", line %s' % (rel_path(mi.group(1)), mi.group(2))
            cur[1].append("\t" + s)
            continue
        m = INS.match(line)
        if m:
            body = re.sub(r"\s+", " ", m.group(2).replace("{", " ").replace("}", " ")).strip()
            cur[1].append("/*%s*/ %s" % (m.group(1), body))
    return out


def resources(text):
    res = {}
    name = None
    for line in text.splitlines():
        m = re.search(r"Function\s+(\S+?):?\s*$", line)
        if m:
            name = m.group(1)
            continue
        if name and "REG:" in line:
            res[name] = " ".join(re.findall(r"(?:REG|STACK|SHARED|LOCAL):\d+", line))
            name = None
    return res


def remap(root, old_rev, families):
    """Re-keys recorded SASS after edits that only moved lines: every location line of a
    family header or kernels/dialect/simt_cuda.h is mapped from the source at `old_rev` (the one
    recorded) to the current one through the unchanged lines between them. A referenced
    line whose text changed stops it: then the SASS must be recorded again on a GPU."""
    import difflib
    texts = {}

    def line_map(rel):
        if rel not in texts:
            old = subprocess.run(["git", "-C", root, "show", "%s:%s" % (old_rev, rel)],
                                 capture_output=True, text=True, check=True).stdout.splitlines()
            new = open(os.path.join(root, rel)).read().splitlines()
            m = {}
            for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
                if tag == "equal":
                    for k in range(i2 - i1):
                        m[i1 + k + 1] = j1 + k + 1
            texts[rel] = m
        return texts[rel]

    def fix(match):
        rel, line = match.group(1), int(match.group(2))
        if rel not in [h for h in families.values()] + ["kernels/dialect/simt_cuda.h"]:
            return match.group(0)
        m = line_map(rel)
        if line == 0:
            return match.group(0)  # no line (nvdisasm prints 0)
        if line not in m:
            raise SystemExit("%s line %d changed since %s: record the SASS again on a GPU" % (rel, line, old_rev))
        return '"%s", line %d' % (rel, m[line])

    for fam, header in families.items():
        p = os.path.join(root, "assets", "sass", fam + ".sass")
        s = open(p).read()
        s = re.sub(r'"([^"]+)", line (\d+)', fix, s)
        s = re.sub(r"source_hash=[0-9a-f]+", "source_hash=" + source_hash(root, header), s, count=1)
        open(p, "w").write(s)
        print("%s: re-keyed from %s" % (fam, old_rev))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--remap":
        # sass_record.py --remap OLD_REV FAMILIES_JSON [ROOT]
        root = sys.argv[4] if len(sys.argv) > 4 else os.getcwd()
        remap(root, sys.argv[2], json.loads(sys.argv[3]))
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--nvdisasm", required=True)
    ap.add_argument("--res-usage", required=True)
    ap.add_argument("--compiler", required=True)
    ap.add_argument("--arch", required=True)
    ap.add_argument("--families", required=True, help="JSON: family -> header")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    fams = json.loads(a.families)
    by_header = {h: f for f, h in fams.items()}
    text = open(a.nvdisasm).read()
    res = resources(open(a.res_usage).read())
    per = {f: [] for f in fams}
    for name, lines in functions(text):
        fam = None
        for l in lines:
            m = FILE.search(l)
            if m and m.group(1) in by_header:
                fam = by_header[m.group(1)]
                break
            mi = INLINED.search(l)
            if mi and mi.group(1) in by_header:
                fam = by_header[mi.group(1)]
                break
        if fam:
            per[fam].append((name, lines))
    os.makedirs(a.out, exist_ok=True)
    for fam, fs in per.items():
        h = source_hash(a.root, fams[fam])
        with open(os.path.join(a.out, fam + ".sass"), "w") as f:
            f.write("//## warpscope family=%s source_hash=%s compiler=%s arch=%s\n"
                    % (fam, h, a.compiler, a.arch))
            f.write("// The fast build's SASS, recorded on a GPU machine by scripts/sass_record.py "
                    "(nvdisasm -c -gi); do not edit by hand.\n")
            for name, lines in sorted(fs):
                f.write("//--------------------- .text.%s --------------------------\n" % name)
                f.write("//## resources %s\n" % res.get(name, ""))
                f.write("\n".join(lines) + "\n")
        print("%s: %d functions, %d bytes" % (fam, len(fs), os.path.getsize(os.path.join(a.out, fam + ".sass"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
