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
"""
import argparse
import json
import subprocess
import sys


def metrics(ws, backend, family, variant, params):
    cmd = [ws, "metrics", "--kernel", family, "--variant", variant, "--backend", backend, "--json"]
    for k, v in sorted(params.items()):
        cmd += ["--set", f"{k}={v}"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["metrics failed"])[-1]
    return json.loads(p.stdout), ""


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
    ap.add_argument("bench", nargs="+")
    a = ap.parse_args()

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
                "error": err,
            })

    print(f"# Modelled against measured time ({device}; counts from the {a.backend} backend)\n")
    summary = []
    for title, rows in groups.items():
        print(f"## {title}\n")
        print("| variant | measured ms | modelled ms | modelled / measured | bound | SIMD eff. |")
        print("| --- | --- | --- | --- | --- | --- |")
        for r in rows:
            ratio = r["modelled"] / r["measured"] if r["measured"] else float("nan")
            simd = "" if r["simd"] is None else f"{100 * r['simd']:.0f}%"
            note = f" ({r['error']})" if r["error"] else ""
            print(f"| {r['label']}{note} | {r['measured']:.4f} | {r['modelled']:.4f} | "
                  f"{ratio:.2f} | {r['bound']} | {simd} |")
        ok = [r for r in rows if r["modelled"] == r["modelled"]]
        # Same order: every pair the measurement tells apart by more than 5% is ordered
        # the same way by the model (pairs within 5% are measured ties).
        wrong_pairs = []
        for i in range(len(ok)):
            for k in range(i + 1, len(ok)):
                x, y = ok[i], ok[k]
                if abs(x["measured"] - y["measured"]) <= 0.05 * max(x["measured"], y["measured"]):
                    continue
                if (x["measured"] < y["measured"]) != (x["modelled"] < y["modelled"]):
                    wrong_pairs.append(f"{x['label']} / {y['label']}")
        dram = [r for r in ok if r["bound"] == "dram"]
        off = [r for r in dram if abs(r["modelled"] / r["measured"] - 1) > a.tolerance]
        print()
        print(f"- order: {'as measured' if not wrong_pairs else 'differs for ' + '; '.join(wrong_pairs)}")
        print(f"- DRAM-bound within {int(100 * a.tolerance)}%: {len(dram) - len(off)} of {len(dram)}"
              + ("" if not off else " (not: " + ", ".join(
                  f"{r['label']} {r['modelled'] / r['measured']:.2f}" for r in off) + ")"))
        print()
        summary.append((title, not wrong_pairs, len(dram) - len(off), len(dram)))
    print("## Summary\n")
    print("| family | order as measured | DRAM-bound within tolerance |")
    print("| --- | --- | --- |")
    for title, order_ok, good, n in summary:
        print(f"| {title} | {'yes' if order_ok else 'no'} | {good} of {n} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
