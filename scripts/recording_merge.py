#!/usr/bin/env python3
"""Merges a partial recording (`warpscope record --kernel F --out part.json`) into a shipped
one: the part's runs replace the shipped runs of the same family, variant and parameters
(the others are added), its peers replace those of the same peer and parameters. The
shipped file's device, date and tool stay; a note of the merge is added to its tool.

  scripts/recording_merge.py assets/recordings/nvidia-h100-80gb-hbm3.json part.json
"""
import json
import sys


def key(run):
    return (run["family"], run["variant"], json.dumps(run["params"], sort_keys=True))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    base_path, part_path = sys.argv[1], sys.argv[2]
    base = json.load(open(base_path))
    part = json.load(open(part_path))
    if base["device"]["name"] != part["device"]["name"]:
        sys.exit("the part was recorded on %s, the recording on %s" % (part["device"]["name"], base["device"]["name"]))
    runs = {key(r): r for r in base["runs"]}
    order = [key(r) for r in base["runs"]]
    for r in part["runs"]:
        if key(r) not in runs:
            order.append(key(r))
        runs[key(r)] = r
    base["runs"] = [runs[k] for k in order]
    peers = {(p["peer"], json.dumps(p["params"], sort_keys=True)): p for p in base["peers"]}
    for p in part["peers"]:
        peers[(p["peer"], json.dumps(p["params"], sort_keys=True))] = p
    base["peers"] = list(peers.values())
    fams = sorted({r["family"] for r in part["runs"]})
    base["tool"] = base.get("tool", "") + "; %s recorded %s and merged" % (", ".join(fams), part["date"])
    with open(base_path, "w") as f:
        json.dump(base, f, indent=1, sort_keys=True)
    print("%s: %d runs (%d from %s), %d peers" % (base_path, len(base["runs"]), len(part["runs"]), part_path, len(base["peers"])))


if __name__ == "__main__":
    main()
