#!/usr/bin/env python3
"""Regenerates the sample outputs of README.md and docs/*.md from the program itself.

Every code block under a `<!-- readme-check[ MODE]: ARGS -->` comment (see
tests/app/cli/test_readme.cpp) is compared with what `build/warpscope ARGS` prints on the
emulator without a display. A sample line that the output no longer holds is replaced by
the output line that starts with the same words (a table row keeps its variant, a text
line its first words); lines with `...` and JSON samples are left alone and reported.

  scripts/readme_samples.py [--check] [FILE.md ...]     (default: README.md docs/*.md)

--check only reports the lines that drifted (exit 1 when any did).
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "build", "warpscope")
MARK = re.compile(r"^<!-- readme-check( [a-z=0-9]+)?:(.*)-->\s*$")


def squeeze(s):
    return re.sub(r" +", " ", s).rstrip()


def matches(sample, line):
    parts = [re.escape(p) for p in squeeze(sample).split("...")]
    return re.fullmatch(".*".join(parts), squeeze(line)) is not None


def run(args):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    with tempfile.TemporaryDirectory() as d:
        cwd = d if not args else ROOT
        p = subprocess.run(f"'{BIN}' {args}", shell=True, cwd=cwd, env=env,
                           capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr


def key(line, words=2):
    w = squeeze(line).split(" ")[:words]
    # A table's rule of dashes matches the output's rule, whatever its length.
    return ["-rule-"] if w and set(w[0]) == {"-"} else w


def refresh(sample, out_lines):
    """The sample with each line that is not found (in order) replaced by its output twin."""
    new, at, drifted = [], 0, []
    for s in sample:
        if not squeeze(s):
            new.append(s)
            continue
        j = at
        while j < len(out_lines) and not matches(s, out_lines[j]):
            j += 1
        if j < len(out_lines):
            new.append(s)
            at = j + 1
            continue
        twin = None
        if "..." not in s:
            for words in (2, 1):
                for k in range(at, len(out_lines)):
                    if key(out_lines[k], words) == key(s, words):
                        twin = k
                        break
                if twin is not None:
                    break
        if twin is None:
            new.append(s)
            drifted.append(("kept", s))
        else:
            new.append(out_lines[twin].rstrip())
            drifted.append(("new", s + "\n      -> " + out_lines[twin].rstrip()))
            at = twin + 1
    return new, drifted


def process(path, check):
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i, bad = [], 0, 0
    while i < len(lines):
        out.append(lines[i])
        m = MARK.match(lines[i])
        i += 1
        if not m:
            continue
        mode = (m.group(1) or "").strip()
        args = m.group(2).strip()
        while i < len(lines) and not lines[i].startswith("```"):
            out.append(lines[i])
            i += 1
        out.append(lines[i])  # the opening fence
        i += 1
        body = []
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        if mode == "json":
            out.extend(body)
            continue
        code, so, se = run(args)
        # exit=N: its error (stderr) or a verdict on stdout, as tests/app/cli/test_readme.cpp reads it
        text = so + se if mode.startswith("exit=") else so
        new, drifted = refresh(body, text.split("\n"))
        if mode.startswith("exit=") and str(code) != mode[5:]:
            drifted.append(("exit", f"{code}, the comment says {mode[5:]}"))
        for what, s in drifted:
            bad += 1
            print(f"{os.path.relpath(path, ROOT)}: warpscope {args}: {what}: {s}")
        out.extend(body if check else new)
    if not check:
        open(path, "w", encoding="utf-8").write("\n".join(out))
    return bad


def main():
    check = "--check" in sys.argv
    files = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not files:
        files = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    bad = sum(process(f, check) for f in files)
    return 1 if (check and bad) else 0


if __name__ == "__main__":
    sys.exit(main())
