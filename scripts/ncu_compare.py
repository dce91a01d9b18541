#!/usr/bin/env python3
"""Holds Nsight Compute's hardware counters against warpscope's model.

For every variant of the catalogue at its default parameters (or the ones given):
  model:    `warpscope metrics --backend emu --json`  (the emulator's trace through the model)
  hardware: `ncu --metrics ... --csv --page raw warpscope metrics --backend cuda --fast-only`,
            summed over the launches of our kernels (ws::fast::ws_entry<...>)
and writes a table of both, with the differences, as Markdown and JSON.

  scripts/ncu_compare.py --warpscope build/warpscope --out DIR [--only family/variant ...]
  scripts/ncu_compare.py --warpscope build/warpscope --out DIR --cases scripts/ncu_second_set.txt

--cases FILE: one "family/variant key=value ..." a line (# comments), each variant at its own
parameters (a second parameter set), instead of every variant at --set's. Besides the full
table (ncu_compare.md) it writes ncu_summary.md: one row a run, "equal" or the differences,
to paste into docs/HARDWARE.md.

Exit status 0 when every comparison ran (differences are findings, not failures);
1 when a run failed.
"""
import argparse
import csv
import io
import json
import os
import subprocess
import sys
import time

METRICS = [
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    # cp.async (LDGSTS) and mma.sync (HMMA): kernels/families/tensor.cuh
    "l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
    "smsp__inst_executed_pipe_tensor_op_hmma.sum",
    # cp.async.bulk's stores (TMA): kernels/families/transpose.cuh's bulk
    "l1tex__m_l1tex2xbar_write_sectors_mem_global_op_tma_st.sum",
    # atomics (histogram, partial_histogram): global atom / red, shared atom passes
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
]
SHORT = {
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": "gld req",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "gld sect",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": "gst req",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": "gst sect",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "sld wave",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "sst wave",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "sld confl",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "sst confl",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum": "ldgsts req",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum": "ldgsts sect",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum": "ldgsts wave",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum": "ldgsts confl",
    "smsp__inst_executed_pipe_tensor_op_hmma.sum": "hmma inst",
    "l1tex__m_l1tex2xbar_write_sectors_mem_global_op_tma_st.sum": "tma st sect",
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum": "gatom req",
    "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum": "gred req",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum": "gred sect",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum": "satom wave",
}
HMMA = "smsp__inst_executed_pipe_tensor_op_hmma.sum"


def known_metrics(ncu):
    """Drops the metrics this ncu does not know (one unknown name fails the whole run)."""
    global METRICS
    try:
        p = subprocess.run([ncu, "--query-metrics", "--csv"], capture_output=True, text=True,
                           timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return []
    names = set()
    for row in csv.reader(io.StringIO(p.stdout)):
        if row:
            names.add(row[0].strip())
    if p.returncode != 0 or not names:
        return []
    dropped = [m for m in METRICS if m.rsplit(".", 1)[0] not in names]
    METRICS = [m for m in METRICS if m not in dropped]
    return dropped


def number(s):
    """ncu prints numbers with thousands separators in some versions; '' and 'n/a' are 0."""
    s = (s or "").replace(",", "").strip()
    if s in ("", "n/a", "N/A"):
        return 0.0
    return float(s)


def parse_ncu_csv(text):
    """Sums each metric over the rows of our fast kernels. Returns (sums, kernel names)."""
    start = text.find('"ID"')
    if start < 0:
        raise ValueError("no CSV table in ncu's output")
    rows = list(csv.reader(io.StringIO(text[start:])))
    header = rows[0]
    name_col = header.index("Kernel Name")
    cols = {m: header.index(m) for m in METRICS if m in header}
    sums = {m: 0.0 for m in METRICS}
    names = []
    for r in rows[1:]:
        if len(r) != len(header) or r[0] == "" or not r[0].isdigit():
            continue  # the units row, or a partial line
        if "ws_entry" not in r[name_col]:
            continue
        names.append(r[name_col])
        for m, c in cols.items():
            sums[m] += number(r[c])
    missing = [m for m in METRICS if m not in cols]
    return sums, names, missing


def run(cmd, timeout):
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p, time.time() - t0


def variants(warpscope):
    p, _ = run([warpscope, "list", "--json"], 60)
    d = json.loads(p.stdout)
    return [(f["family"], v["name"]) for f in d["families"] for v in f["variants"]]


def read_cases(path):
    """[(family, variant, ["k=v", ...])] from a --cases file; ValueError names a bad line."""
    cases = []
    with open(path) as f:
        for no, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if words[0].count("/") != 1 or any("=" not in w for w in words[1:]):
                raise ValueError(f"{path}:{no}: expected 'family/variant key=value ...', "
                                 f"got '{line.strip()}'")
            fam, var = words[0].split("/")
            cases.append((fam, var, words[1:]))
    return cases


def grid_warps(model):
    """The warps of every launch of a model run (metrics --json's launches)."""
    w = 0
    for l in model.get("launches", []):
        g, b = l.get("grid", [1, 1, 1]), l.get("block", [1, 1, 1])
        w += g[0] * g[1] * g[2] * ((b[0] * b[1] * b[2] + 31) // 32)
    return w


def summary_row(e):
    """One line of ncu_summary.md: equal, or each differing counter (the GPU's, model)."""
    params = " ".join(f"{k}={v}" for k, v in (e.get("params") or {}).items())
    head = f"| {e['family']}/{e['variant']} | {params} | "
    if "error" in e:
        return head + f"error: {e['error'][:160]} |"
    diffs = []
    for m in METRICS:
        mo, hw = int(e["model"][m]), int(e["ncu"][m])
        if mo == hw:
            continue
        why = ""
        if m == HMMA and hw - mo == e.get("warps"):
            why = ": one a warp, HFMA2.MMA moves (§9b)"
        diffs.append(f"**{SHORT[m]}** {hw:,} (model {mo:,}{why})")
    if not diffs:
        shown = [f"{SHORT[m]} {int(e['ncu'][m]):,}" for m in METRICS if e["ncu"][m]]
        return head + "**equal** in every counter (" + ", ".join(shown) + ") |"
    return head + "; ".join(diffs) + " |"


def gpu_name():
    """The GPU the counters come from, as nvidia-smi names it ("the GPU" if it cannot)."""
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        name = p.stdout.strip().splitlines()[0] if p.returncode == 0 and p.stdout.strip() else ""
    except (OSError, subprocess.TimeoutExpired):
        name = ""
    return name or "the GPU"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warpscope", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--set", nargs="*", default=[], help="key=value for every variant")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=1,
                    help="profile each variant this many times (the spread shows noise)")
    ap.add_argument("--cases", help="a file of 'family/variant key=value ...' lines: each "
                    "variant at its own parameters (--set is added to every case)")
    a = ap.parse_args()
    try:
        cases = read_cases(a.cases) if a.cases else [(f, v, []) for f, v in variants(a.warpscope)]
    except (OSError, ValueError) as e:
        print(f"ncu_compare: {e}", file=sys.stderr)
        return 1
    os.makedirs(a.out, exist_ok=True)
    dropped = known_metrics(a.ncu)
    if dropped:
        print("not known to this ncu, left out: " + ", ".join(dropped), flush=True)

    results = []
    failed = False
    for fam, var, own in cases:
        if a.only and f"{fam}/{var}" not in a.only:
            continue
        sets = sum((["--set", s] for s in own + a.set), [])
        base = ["metrics", "--kernel", fam, "--variant", var] + sets
        entry = {"family": fam, "variant": var}
        try:
            p, secs = run([a.warpscope] + base + ["--backend", "emu", "--json"], a.timeout)
            if p.returncode != 0:
                raise RuntimeError("model: " + (p.stderr or p.stdout).strip()[-400:])
            model = json.loads(p.stdout)
            entry["params"] = model.get("params")
            entry["warps"] = grid_warps(model)
            entry["model"] = {m: float(model["totals"].get(m, 0)) for m in METRICS}
            entry["model_seconds"] = round(secs, 1)
            # --clock-control none: leave the GPU's clocks as they are (counts do not
            # depend on them).
            cmd = [a.ncu, "--metrics", ",".join(METRICS), "--csv", "--page", "raw",
                   "--clock-control", "none", "-k", "regex:ws_entry", a.warpscope] + base + [
                   "--backend", "cuda", "--fast-only"]
            runs = []
            for rep in range(a.repeat):
                p, secs = run(cmd, a.timeout)
                with open(os.path.join(a.out, f"ncu_{fam}_{var}_{rep}.csv"), "w") as f:
                    f.write(p.stdout)
                    f.write(p.stderr)
                if p.returncode != 0:
                    raise RuntimeError("ncu: " + (p.stderr or p.stdout).strip()[-400:])
                sums, names, missing = parse_ncu_csv(p.stdout)
                if not names:
                    raise RuntimeError("ncu profiled no ws_entry kernel")
                runs.append(sums)
            entry["ncu_runs"] = runs
            if a.repeat > 1:
                entry["spread"] = {m: [min(r[m] for r in runs), max(r[m] for r in runs)]
                                   for m in METRICS}
            entry["ncu"] = sums
            entry["kernels"] = sorted(set(names))
            entry["launches"] = len(names)
            entry["missing"] = missing
            entry["ncu_seconds"] = round(secs, 1)
            entry["diff"] = {m: sums[m] - entry["model"][m] for m in METRICS}
        except Exception as e:  # one variant's failure is reported, the rest still run
            entry["error"] = str(e)
            failed = True
        results.append(entry)
        print(f"{fam}/{var}: " + ("ERROR " + entry["error"] if "error" in entry else
              ("equal" if not any(entry["diff"].values()) else
               "differs: " + ", ".join(f"{SHORT[m]} {entry['diff'][m]:+.0f}"
                                       for m in METRICS if entry["diff"][m]))) +
              ("" if "spread" not in entry else "  runs: " + "; ".join(
                  f"{SHORT[m]} {int(lo)}..{int(hi)}" for m, (lo, hi) in entry["spread"].items()
                  if entry["diff"][m] or lo != hi)), flush=True)

    with open(os.path.join(a.out, "ncu_compare.json"), "w") as f:
        json.dump(results, f, indent=1)
    lines = ["| variant | params | " + " | ".join(SHORT[m] for m in METRICS) + " |",
             "| --- | --- | " + " | ".join("---" for _ in METRICS) + " |"]
    for e in results:
        params = " ".join(f"{k}={v}" for k, v in (e.get("params") or {}).items())
        if "error" in e:
            lines.append(f"| {e['family']}/{e['variant']} | {params} | error: {e['error'][:120]} |")
            continue
        cells = []
        for m in METRICS:
            mo, hw = int(e["model"][m]), int(e["ncu"][m])
            cells.append(f"{hw:,}" if mo == hw else f"**{hw:,}** (model {mo:,})")
        lines.append(f"| {e['family']}/{e['variant']} | {params} | " + " | ".join(cells) + " |")
    table = "\n".join(lines) + "\n"
    with open(os.path.join(a.out, "ncu_compare.md"), "w") as f:
        f.write("Hardware counters (ncu) vs the model (emulator), whole grid; "
                "bold: the counter differs from the model.\n\n" + table)
    summary = (f"| variant | params | {gpu_name()} (Nsight Compute) against the model |\n"
               "| --- | --- | --- |\n" + "\n".join(summary_row(e) for e in results) + "\n")
    with open(os.path.join(a.out, "ncu_summary.md"), "w") as f:
        f.write(summary)
    print(table)
    print(summary)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
