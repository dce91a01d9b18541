#!/usr/bin/env python3
"""The model against CUPTI's hardware counters for every variant, at its defaults and at a
second parameter set per family, several profiled runs each; then the probes that ask
whether the shared-memory surplus comes from concurrent warps (one block, one warp per
SM, the full grid). Runs `warpscope metrics --hardware --json` (GPU machine).

  hardware_table.py --warpscope build/warpscope --out DIR [--runs 5] [--only probes|table]

Writes DIR/hardware.json (every run's figures) and DIR/hardware.md (the tables). Exit 0
when every run happened (differences are findings), 1 when one failed.
"""
import argparse
import json
import os
import subprocess
import sys
import time

SHORT = [
    ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "gld req"),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "gld sect"),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "gst req"),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "gst sect"),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", "red req"),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum", "red sect"),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "sld wave"),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "sst wave"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "sld confl"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "sst confl"),
    ("smsp__sass_inst_executed_op_shared_ld.sum", "sld inst"),
    ("smsp__sass_inst_executed_op_shared_st.sum", "sst inst"),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", "satom wave"),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum", "ldgsts req"),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum", "ldgsts sect"),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum", "ldgsts wave"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum", "ldgsts confl"),
    ("smsp__inst_executed_pipe_tensor_op_hmma.sum", "hmma inst"),
    ("l1tex__m_l1tex2xbar_write_sectors_mem_global_op_tma_st.sum", "tma st sect"),
]
HW_ONLY = [("dram__bytes_read.sum", "DRAM read"), ("dram__bytes_write.sum", "DRAM write"),
           ("sm__warps_active.avg.pct_of_peak_sustained_active", "occupancy %")]

# The second parameter set of each family (keys a variant lacks are dropped for it).
SECOND = {
    "access": {"n": 4194304, "block": 128, "elem": 8, "offset": 8, "stride": 4},
    "transpose": {"n": 2048, "tile": 16, "block_rows": 4},
    "reduce": {"n": 4194304, "block": 128},
    "matmul": {"n": 512, "tile": 8},
    "tensor": {"n": 512, "stages": 2},
    "async_copy": {"n": 1048576, "per_block": 4, "work": 64, "stages": 8},
    "divergence": {"n": 1048576, "block": 128, "work": 16, "k": 48, "tile": 8},
}
# Where one variant's ranges differ from its family's.
SECOND_VARIANT = {("divergence", "boundary"): {"n": 200, "tile": 8}}

# Concurrency probes: the same kernel at one block, at one block (of one warp where the
# shape allows) per SM at most, and at a full grid.
PROBES = [
    ("transpose", "tiled", {"tile": 16, "block_rows": 4, "pad": 0}, [("4 blocks", {"n": 32}), ("<=132 blocks", {"n": 176}), ("full grid", {"n": 2048})]),
    ("transpose", "tiled", {"tile": 32, "block_rows": 1, "pad": 0}, [("one block, one warp", {"n": 32}), ("one warp per SM (121)", {"n": 352}), ("full grid", {"n": 2048})]),
    ("transpose", "tiled", {"tile": 32, "block_rows": 1, "pad": 1}, [("one block, one warp", {"n": 32}), ("one warp per SM (121)", {"n": 352}), ("full grid", {"n": 2048})]),
    ("matmul", "tiled", {"tile": 8}, [("4 blocks", {"n": 16}), ("<=132 blocks", {"n": 88}), ("full grid", {"n": 512})]),
    ("matmul", "reg_2d", {}, [("one block", {"n": 128}), ("<=132 blocks", {"n": 1408}), ("full grid", {"n": 2048})]),
    ("reduce", "sequential", {"block": 1024}, [("one block", {"n": 1024}), ("132 blocks", {"n": 135168}), ("full grid", {"n": 4194304})]),
    ("reduce", "interleaved_modulo", {"block": 1024}, [("one block", {"n": 1024}), ("132 blocks", {"n": 135168}), ("full grid", {"n": 4194304})]),
    ("reduce", "warp_shuffle", {"block": 1024}, [("one block", {"n": 2048}), ("132 blocks", {"n": 135168}), ("full grid", {"n": 4194304})]),
]


def run(cmd, timeout):
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p, time.time() - t0


def catalogue(ws):
    p, _ = run([ws, "list", "--json"], 60)
    d = json.loads(p.stdout)
    out = []
    for f in d["families"]:
        for v in f["variants"]:
            out.append((f["family"], v["name"], [q["name"] for q in v["params"]]))
    return out


def measure(ws, fam, var, params, runs, timeout):
    cmd = [ws, "metrics", "--kernel", fam, "--variant", var, "--backend", "cuda", "--json",
           "--hardware", "--runs", str(runs)]
    for k, v in sorted(params.items()):
        cmd += ["--set", "%s=%d" % (k, v)]
    p, secs = run(cmd, timeout)
    e = {"family": fam, "variant": var, "set": params, "seconds": round(secs, 1)}
    try:
        j = json.loads(p.stdout)
        e["params"] = j.get("params")
        e["hardware"] = j.get("hardware")
        e["model"] = j.get("totals")
        e["verified"] = j.get("verified")
    except Exception:
        e["error"] = (p.stderr or p.stdout)[-600:]
    if p.returncode != 0 and "error" not in e:
        e["error"] = p.stderr[-600:]
    return e


def fmtn(v):
    if v is None:
        return "-"
    if float(v).is_integer():
        return "{:,}".format(int(v))
    return "%.3g" % v


def cell(e, metric):
    h = (e.get("hardware") or {}).get("metrics", {}).get(metric)
    if not h:
        return "n/a", None
    lo, hi, model = h["min"], h["max"], h["model"]
    spread = fmtn(lo) if lo == hi else "%s..%s" % (fmtn(lo), fmtn(hi))
    if model is None:
        return spread, None
    if lo == model and hi == model:
        return fmtn(model), True
    return "**%s** (%s)" % (spread, fmtn(model)), False


def table(entries, title):
    lines = ["### " + title, "",
             "| variant | params | " + " | ".join(s for _, s in SHORT) + " | " +
             " | ".join(s for _, s in HW_ONLY) + " |",
             "| --- | --- | " + " | ".join("---" for _ in SHORT + HW_ONLY) + " |"]
    eq = ne = 0
    for e in entries:
        if "error" in e or not (e.get("hardware") or {}).get("metrics"):
            why = e.get("error") or (e.get("hardware") or {}).get("unavailable")
            lines.append("| %s/%s | %s | %s |" % (e["family"], e["variant"], e.get("params"), str(why).strip().replace("\n", " ")[:200]))
            continue
        cells = []
        for m, _ in SHORT:
            c, same = cell(e, m)
            cells.append(c)
            if same is True:
                eq += 1
            elif same is False:
                ne += 1
        for m, _ in HW_ONLY:
            cells.append(cell(e, m)[0])
        ps = " ".join("%s=%s" % (k, v) for k, v in sorted((e.get("params") or {}).items()))
        lines.append("| %s/%s | %s | %s |" % (e["family"], e["variant"], ps, " | ".join(cells)))
    lines += ["", "%d cells equal, %d different (hardware median of each run shown as min..max when runs differ; model in brackets)." % (eq, ne), ""]
    return "\n".join(lines), eq, ne


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--warpscope", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=int, default=240)
    ap.add_argument("--deadline", type=float, default=0, help="seconds since epoch to stop starting runs")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    res = {"defaults": [], "second": [], "probes": []}
    failed = False

    def save():
        with open(os.path.join(a.out, "hardware.json"), "w") as f:
            json.dump(res, f, indent=1)

    def late():
        return a.deadline and time.time() > a.deadline

    cat = catalogue(a.warpscope)
    if a.only in ("", "table"):
        for fam, var, names in cat:
            if late():
                break
            e = measure(a.warpscope, fam, var, {}, a.runs, a.timeout)
            failed |= "error" in e
            res["defaults"].append(e)
            print("defaults %s/%s %.1fs %s" % (fam, var, e["seconds"], e.get("error", "")[:200]), flush=True)
            save()
    if a.only in ("", "probes") or a.only.startswith("probes:"):
        pick = a.only.split(":", 1)[1].split(",") if a.only.startswith("probes:") else []
        for fam, var, base, sizes in PROBES:
            for label, extra in sizes:
                if late():
                    break
                if pick and label not in pick:
                    continue
                p = dict(base)
                p.update(extra)
                e = measure(a.warpscope, fam, var, p, a.runs, a.timeout)
                e["probe"] = label
                failed |= "error" in e
                res["probes"].append(e)
                print("probe %s/%s %s %s" % (fam, var, label, e.get("error", "")[:200]), flush=True)
                save()
    if a.only in ("", "table", "second") or a.only.startswith("second:"):
        pick = a.only.split(":", 1)[1].split(",") if a.only.startswith("second:") else []
        for fam, var, names in cat:
            if late():
                break
            if pick and "%s/%s" % (fam, var) not in pick:
                continue
            p = SECOND_VARIANT.get((fam, var)) or {k: v for k, v in SECOND.get(fam, {}).items() if k in names}
            e = measure(a.warpscope, fam, var, p, a.runs, a.timeout)
            failed |= "error" in e
            res["second"].append(e)
            print("second %s/%s %.1fs %s" % (fam, var, e["seconds"], e.get("error", "")[:200]), flush=True)
            save()
    md = []
    tot_eq = tot_ne = 0
    for key, title in (("defaults", "Every variant at its defaults"), ("second", "A second parameter set per family"), ("probes", "Concurrency probes")):
        if not res[key]:
            continue
        if key == "probes":
            for e in res[key]:
                e["variant"] = e["variant"] + " (" + e["probe"] + ")"
        t, eq, ne = table(res[key], title)
        md.append(t)
        if key != "probes":
            tot_eq += eq
            tot_ne += ne
    md.append("Table totals (defaults + second set): %d equal, %d different." % (tot_eq, tot_ne))
    with open(os.path.join(a.out, "hardware.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
