#!/usr/bin/env python3
"""APSP's Table III from the runs of profiles/scenarios/apsp (bench/apsp-table.sh runs them).

Usage: bench/apsp_table.py RESULTS_DIR   (the --out directory of `testbed regress`)

Prints, per topology and model, the measured communication time per iteration (the median
iteration after a warm-up) of a random server (the mean of the ResNet-50 sweep over every
node; for the other models that mean times the model-size ratio, marked *, since only
ResNet-50 is swept), the most-connected server and APSP's v*, the reductions beside the
paper's, the model's prediction beside each measurement, then the checks of the issue:
APSP < MC < random, each within 10% of its T_v, time proportional to the model size within
3%, the rate/model scaling within 5%, and native mode's v* against the best native server.
"""
import json
import os
import sys

PAPER = {  # Table III (s): random, most connected, APSP
    ("b4", "resnet50"): (14.88, 7.36, 5.88), ("b4", "resnet152"): (37.68, 19.20, 14.40),
    ("b4", "alexnet"): (39.74, 20.48, 18.20), ("b4", "vgg16"): (87.18, 44.16, 39.26),
    ("internet2", "resnet50"): (12.54, 12.26, 9.82), ("internet2", "resnet152"): (32.72, 32.00, 25.60),
    ("internet2", "alexnet"): (34.90, 34.14, 27.30), ("internet2", "vgg16"): (75.24, 73.60, 58.88),
}
MODELS = ["resnet50", "resnet152", "alexnet", "vgg16"]
PARAMS = {"resnet50": 23e6, "resnet152": 60e6, "alexnet": 64e6, "vgg16": 138e6}


def runs(root, scenario):
    d = os.path.join(root, scenario, "runs")
    out = {}
    if not os.path.isdir(d):
        return out
    for f in sorted(os.listdir(d)):
        if f.endswith(".json") and "-timeline" not in f:
            out[f[: -len("-rep1.json")]] = json.load(open(os.path.join(d, f)))
    return out


def main():
    root = sys.argv[1]
    ok = True
    lines = []
    p = lines.append
    for topo in ["internet2", "b4"]:
        base = runs(root, f"apsp-{topo}-resnet50")
        sweep = {k.split("@")[1]: v for k, v in base.items() if "@" in k}
        if not sweep:
            p(f"{topo}: no ResNet-50 sweep in {root}")
            ok = False
            continue
        random50 = sum(r["comm_time_s"] for r in sweep.values()) / len(sweep)
        random50_model = sum(r["placement"]["paced_s"] for r in sweep.values()) / len(sweep)
        p(f"\n{topo}: communication time per iteration, s (rates x1/20, models x1/100; "
          "model = T_v x 1514/1448)")
        p("| model | random | MC | APSP (v*) | -vs random | -vs MC | model: -vs random | -vs MC "
          "| paper: -vs random | -vs MC |")
        p("|---|---|---|---|---|---|---|---|---|---|")
        t50 = {}
        for m in MODELS:
            r = runs(root, f"apsp-{topo}-{m}")
            if "apsp" not in r or "ps-most-connected" not in r:
                p(f"| {m} | not run |")
                ok = False
                continue
            ratio = PARAMS[m] / PARAMS["resnet50"]
            rnd = random50 * ratio
            rnd_model = random50_model * ratio
            mc, ap = r["ps-most-connected"]["comm_time_s"], r["apsp"]["comm_time_s"]
            mc_model, ap_model = r["ps-most-connected"]["predicted_s"], r["apsp"]["predicted_s"]
            star = "" if m == "resnet50" else "*"
            pr, pm, pa = PAPER[(topo, m)]
            p(f"| {m} | {rnd:.3f}{star} | {mc:.3f} ({r['ps-most-connected']['placement']['server']}) "
              f"| {ap:.3f} ({r['apsp']['placement']['server']}) | {100*(1-ap/rnd):.1f}% "
              f"| {100*(1-ap/mc):.1f}% | {100*(1-ap_model/rnd_model):.1f}% | {100*(1-ap_model/mc_model):.1f}% "
              f"| {100*(1-pa/pr):.1f}% | {100*(1-pa/pm):.1f}% |")
            if not (ap < mc < rnd):
                p(f"  FAIL order APSP < MC < random for {m}")
                ok = False
            for name in ["apsp", "ps-most-connected"]:
                q = r[name]["model_ratio"]
                if abs(q - 1) > 0.10:
                    p(f"  FAIL {m} {name}: measured/model {q:.3f}")
                    ok = False
            t50[m] = (ap, mc)
        if "resnet50" in t50:
            p(f"\n{topo}: time against model size (measured / (ResNet-50's x size ratio))")
            for m, (ap, mc) in t50.items():
                ratio = PARAMS[m] / PARAMS["resnet50"]
                ea = ap / (t50["resnet50"][0] * ratio) - 1
                em = mc / (t50["resnet50"][1] * ratio) - 1
                flag = "" if max(abs(ea), abs(em)) <= 0.03 else "  FAIL (over 3%)"
                ok &= not flag
                p(f"  {m}: APSP {100*ea:+.1f}%, MC {100*em:+.1f}%{flag}")
        p(f"\n{topo}: ResNet-50 sweep of the server, measured (model) s")
        for node, v in sweep.items():
            mark = " v*" if node == v["placement"]["apsp"] else ""
            mark += " MC" if node == v["placement"]["most_connected"] else ""
            p(f"  {node:14s} {v['comm_time_s']:.3f} ({v['predicted_s']:.3f}) ratio "
              f"{v['model_ratio']:.3f}{mark}")
        native = {k.split("@")[1]: v for k, v in runs(root, f"apsp-{topo}-resnet50-native").items()}
        if native:
            vstar = next(iter(native.values()))["placement"]["apsp"]
            best = min(native, key=lambda k: native[k]["comm_time_s"])
            gap = native[vstar]["comm_time_s"] / native[best]["comm_time_s"] - 1
            p(f"\n{topo}: native mode (cut-through, unpaced TCP), ResNet-50, s")
            for node, v in native.items():
                p(f"  {node:14s} {v['comm_time_s']:.3f}  (model mode {sweep[node]['comm_time_s']:.3f})")
            p(f"  v* = {vstar}: {native[vstar]['comm_time_s']:.3f} s; best measured {best} "
              f"{native[best]['comm_time_s']:.3f} s; v* is {100*gap:.1f}% slower "
              f"({'within' if gap <= 0.10 else 'NOT within'} 10%)")
    x2 = runs(root, "apsp-internet2-resnet50-x2")
    x1 = runs(root, "apsp-internet2-resnet50")
    if x2 and x1:
        p("\nscaling: rates x1/10 with models x2/100 against rates x1/20 with models x1/100")
        for name in ["apsp", "ps-most-connected"]:
            d = x2[name]["comm_time_s"] / x1[name]["comm_time_s"] - 1
            flag = "" if abs(d) <= 0.05 else "  FAIL (over 5%)"
            ok &= not flag
            p(f"  {name}: {x2[name]['comm_time_s']:.3f} s vs {x1[name]['comm_time_s']:.3f} s "
              f"({100*d:+.1f}%){flag}")
    print("\n".join(lines))
    print("\nall checks passed" if ok else "\nsome checks FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
