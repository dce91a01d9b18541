#!/usr/bin/env python3
"""The model's time against measured time, variant by variant.

For every row of the given `warpscope bench --json` files (measured on a GPU, or read
from a recording), runs `warpscope metrics --json` at the same parameters and takes the
time the model makes of the counts (`modelled.time_us`: the largest of DRAM, shared,
issue and compute time, plus launch overhead). Prints a Markdown table per family with
measured and modelled milliseconds, their ratio and the model's bound, then two checks:
whether each family's variants come out in the measured order, and whether the
DRAM-bound variants are within 25% of the measured time.

    scripts/calibrate.py --warpscope build/warpscope --backend cuda bench_*.json

The metrics run on the backend given (cuda: the traced build's whole-grid counts; emu:
the emulator's, which are the same counts but only for sizes the emulator can run).
With --ncu, each row also runs the fast build once under Nsight Compute and sets the
DRAM bytes it read and wrote beside the bytes the model streams. --ncu-cache FILE keeps
those measurements (written after a run with --ncu, read without it), so the table can be
remade on a machine with no GPU: the measured times come from the bench files, the counts
from the emulator (equal to the traced GPU build's), the DRAM bytes from the cache.

Two variants whose modelled times are equal (the same counts) are a tie the model cannot
break; the order check lists them apart from pairs the model orders the wrong way.
"""
import argparse
import csv
import io
import json
import subprocess
import sys

DRAM = ["dram__bytes_read.sum", "dram__bytes_write.sum"]


def metrics(ws, backend, family, variant, params):
    cmd = [ws, "metrics", "--kernel", family, "--variant", variant, "--backend", backend, "--json"]
    for k, v in sorted(params.items()):
        cmd += ["--set", f"{k}={v}"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["metrics failed"])[-1]
    return json.loads(p.stdout), ""


def ncu_dram(ncu, ws, family, variant, params):
    """DRAM bytes (read, written) of the fast build's kernels (ws_entry), or None."""
    cmd = [ncu, "--metrics", ",".join(DRAM), "--csv", "--page", "raw", "--clock-control",
           "none", "-k", "regex:ws_entry", ws, "metrics", "--kernel", family, "--variant",
           variant, "--backend", "cuda", "--fast-only"]
    for k, v in sorted(params.items()):
        cmd += ["--set", f"{k}={v}"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    start = p.stdout.find('"ID"')
    if p.returncode != 0 or start < 0:
        return None
    rows = list(csv.reader(io.StringIO(p.stdout[start:])))
    h = rows[0]
    sums = [0.0, 0.0]
    for r in rows[1:]:
        if len(r) == len(h) and r[0].isdigit() and "ws_entry" in r[h.index("Kernel Name")]:
            for i, m in enumerate(DRAM):
                sums[i] += float(r[h.index(m)].replace(",", "") or 0)
    return sums


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0] * len(values)
    for pos, i in enumerate(order):
        r[i] = pos
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--warpscope", required=True)
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--tolerance", type=float, default=0.25)
    ap.add_argument("--ncu", default="", help="Nsight Compute, to measure DRAM bytes")
    ap.add_argument("--ncu-cache", default="", help="JSON of DRAM bytes measured by --ncu")
    ap.add_argument("--copy-gbps", type=float, default=2986.0,
                    help="the device's measured copy rate (sim::h100::kCopyGbps)")
    ap.add_argument("bench", nargs="+")
    a = ap.parse_args()

    cache = {}
    if a.ncu_cache:
        try:
            cache = json.load(open(a.ncu_cache))
        except (OSError, ValueError):
            cache = {}
    groups = {}  # title -> rows; files with one family, sweep and set merge into one group
    device = ""
    for path in a.bench:
        try:
            j = json.load(open(path))
        except (OSError, ValueError) as e:
            print(f"{path}: unreadable ({e})", file=sys.stderr)
            continue
        device = j.get("device", {}).get("name", device)
        fam = j["kernel"]
        sweep = j.get("sweep") or {}
        sets = j.get("set") or {}
        title = fam + "".join(f" {k}={v}" for k, v in sorted(sets.items()))
        title += "" if not sweep else " (sweep " + ", ".join(sweep) + ")"
        rows = groups.setdefault(title, [])
        for r in j["rows"]:
            t = r.get("timing") or {}
            if not r.get("verified") or not t.get("median_ms"):
                continue
            m, err = metrics(a.warpscope, a.backend, fam, r["variant"], r["params"])
            key = fam + "/" + r["variant"] + " " + " ".join(
                f"{k}={v}" for k, v in sorted(r["params"].items()))
            hw = ncu_dram(a.ncu, a.warpscope, fam, r["variant"], r["params"]) if a.ncu else None
            if hw:
                cache[key] = hw
            hw = hw or cache.get(key)
            mod = (m or {}).get("modelled") or {}
            label = r["variant"]
            if sweep:
                label += " " + " ".join(f"{k}={r['params'].get(k)}" for k in sweep)
            rows.append({
                "label": label,
                "measured": t["median_ms"],
                "modelled": mod.get("time_us", float("nan")) / 1000.0 if mod else float("nan"),
                "bound": mod.get("bound", "-") if mod else "-",
                "simd": mod.get("simd_efficiency"),
                "dram_model": mod.get("dram_bytes") if mod else None,
                "dram_hw": hw,
                "error": err,
            })

    if a.ncu_cache and a.ncu:
        with open(a.ncu_cache, "w") as f:
            json.dump(cache, f, indent=1, sort_keys=True)
    print(f"# Modelled against measured time ({device}; counts from the {a.backend} backend)\n")
    summary = []
    for title, rows in groups.items():
        print(f"## {title}\n")
        ncu = any(r["dram_hw"] for r in rows)
        print("| variant | measured ms | modelled ms | modelled / measured | bound | SIMD eff. |"
              + (" DRAM MB modelled | DRAM MB read + written (ncu) | DRAM GB/s (ncu) |"
                 if ncu else ""))
        print("| --- | --- | --- | --- | --- | --- |" + (" --- | --- | --- |" if ncu else ""))
        for r in rows:
            ratio = r["modelled"] / r["measured"] if r["measured"] else float("nan")
            simd = "" if r["simd"] is None else f"{100 * r['simd']:.0f}%"
            note = f" ({r['error']})" if r["error"] else ""
            extra = ""
            if ncu:
                mb = "" if r["dram_model"] is None else f"{r['dram_model'] / 1e6:.0f}"
                hw = rate = ""
                if r["dram_hw"]:
                    hw = f"{r['dram_hw'][0] / 1e6:.0f} + {r['dram_hw'][1] / 1e6:.0f}"
                    # What DRAM sustained over the measured median: a kernel far below the
                    # copy rate is bound by something other than DRAM bandwidth.
                    rate = f"{sum(r['dram_hw']) / (r['measured'] * 1e6):.0f}"
                extra = f" {mb} | {hw} | {rate} |"
            print(f"| {r['label']}{note} | {r['measured']:.4f} | {r['modelled']:.4f} | "
                  f"{ratio:.2f} | {r['bound']} | {simd} |{extra}")
        ok = [r for r in rows if r["modelled"] == r["modelled"]]
        # Same order: every pair the measurement tells apart by more than 5% is ordered
        # the same way by the model (pairs within 5% are measured ties).
        wrong_pairs, ties = [], []
        for i in range(len(ok)):
            for k in range(i + 1, len(ok)):
                x, y = ok[i], ok[k]
                if abs(x["measured"] - y["measured"]) <= 0.05 * max(x["measured"], y["measured"]):
                    continue
                pair = f"{x['label']} / {y['label']}"
                if abs(x["modelled"] - y["modelled"]) <= 1e-9 * max(x["modelled"], y["modelled"]):
                    ties.append(pair)
                elif (x["measured"] < y["measured"]) != (x["modelled"] < y["modelled"]):
                    wrong_pairs.append(pair)
        dram = [r for r in ok if r["bound"] == "dram"]
        off = [r for r in dram if abs(r["modelled"] / r["measured"] - 1) > a.tolerance]
        # The same check from the hardware's side, so the model cannot pass it by calling a
        # row something else: rows whose DRAM sustained at least half the copy rate.
        hw_dram = [r for r in ok if r["dram_hw"] and
                   sum(r["dram_hw"]) / (r["measured"] * 1e6) >= 0.5 * a.copy_gbps]
        hw_off = [r for r in hw_dram if abs(r["modelled"] / r["measured"] - 1) > a.tolerance]
        print()
        print(f"- order: {'as measured' if not wrong_pairs else 'differs for ' + '; '.join(wrong_pairs)}")
        if ties:
            print(f"- ties (equal counts, measured apart): {'; '.join(ties)}")
        print(f"- DRAM-bound within {int(100 * a.tolerance)}%: {len(dram) - len(off)} of {len(dram)}"
              + ("" if not off else " (not: " + ", ".join(
                  f"{r['label']} {r['modelled'] / r['measured']:.2f}" for r in off) + ")"))
        if ncu:
            print(f"- DRAM-bound on the GPU (DRAM >= {0.5 * a.copy_gbps:.0f} GB/s) within "
                  f"{int(100 * a.tolerance)}%: {len(hw_dram) - len(hw_off)} of {len(hw_dram)}"
                  + ("" if not hw_off else " (not: " + ", ".join(
                      f"{r['label']} {r['modelled'] / r['measured']:.2f}" for r in hw_off) + ")"))
        print()
        summary.append((title, not wrong_pairs, len(ties), len(dram) - len(off), len(dram),
                        f"{len(hw_dram) - len(hw_off)} of {len(hw_dram)}" if ncu else "-"))
    print("## Summary\n")
    print("| family | order as measured | ties | DRAM-bound (model) within tolerance |"
          " DRAM-bound (GPU) within tolerance |")
    print("| --- | --- | --- | --- | --- |")
    for title, order_ok, n_ties, good, n, hw in summary:
        print(f"| {title} | {'yes' if order_ok else 'no'} | {n_ties} | {good} of {n} | {hw} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
