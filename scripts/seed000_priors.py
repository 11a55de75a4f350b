#!/usr/bin/env python3
"""Seed 000 deployment priors from the real records and what they cannot identify (issue 32), stored in
results/000/priors/:

1. fit-*.json: `packlab admission fit` (seed 000 App. B, src/models/admission/fit.rs) on every deployment-level record
   in the shared data: the Azure-2017 tenant batches (the bundled arrivals; λ, n0 and the arrival rate; no
   deployment ids, scale-outs or kills), the Azure-2017 vmtable excerpt (10 rows) and the Azure-2019 vmtable rows
   with deployment ids (520 VMs). A record the fit rejects is stored with its error message.
2. eps-*.json: `packlab admission tune --calibrate-eps 400` (ε_m of seed 000 App. E: the candidate's smallest mean over
   the look-ahead for m = 0, 1, 5, 50 and the share marginal somewhere per ε) under each prior setting.
3. sensitivity.json: the lead-time diagnostic (first failing lead time of the rejections of SECOND+MARGINAL m=5,
   E0.3's arm, at θ2 = 0.01 and 0.1 on the quick scale's R = 4 runs of C = 500 cores) for the settings of ν, σ,
   κ the records cannot identify, under the Azure λ fit (`--azure`: arrival rate = the cluster share with the
   §2.13 load ratio) and under the §2.13 λ prior.
About 3 minutes on 2 cores. Usage: python3 scripts/seed000_priors.py   (from the repository root, after
`make native`)
"""
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "results/000/priors")
BIN = "target/release/packlab"
DATA = "../shared/data"  # beside the checkout, relative to ROOT (the commands run there)
FITS = {
    "fit-azure2017-arrivals.json": [BIN, "admission", "fit", "--json"],
    "fit-azure2017-vmtable-excerpt.json": [BIN, "admission", "fit", "--json", "--vmtable",
                                           f"{DATA}/azure-v1-excerpt-opendc/vmtable.csv"],
    "fit-azure2019-vmtable-500.json": [BIN, "admission", "fit", "--json", "--vmtable",
                                       f"{DATA}/azure-v2-20vm-cpu-readings/selected_vms_500.csv"],
    "fit-azure2019-vmtable-20.json": [BIN, "admission", "fit", "--json", "--vmtable",
                                      f"{DATA}/azure-v2-20vm-cpu-readings/deep_study_vms_metadata.csv"],
}
# settings of (ν, σ, κ), the parameters no record identifies: the §2.13 defaults, deployments that shrink
# (ν·(1 + σ) = 0.4 < 1 on average) and κ a quarter / four times the default
SETTINGS = {
    "defaults": None,
    "shrinking": "results/000/priors/shrinking.json",
    "kappa5": "results/000/priors/kappa5.json",
    "kappa80": "results/000/priors/kappa80.json",
}
QUICK = ["--runs", "4", "--seed", "1", "--capacity", "500", "--iterations", "6"]


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if p.returncode != 0:
        return {"command": cmd, "error": p.stderr.strip()}
    return {"command": cmd, "output": json.loads(p.stdout)}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, cmd in FITS.items():
        with open(os.path.join(OUT, name), "w") as f:
            json.dump(run(cmd), f, indent=1)
            f.write("\n")
        print(name)
    sens = []
    for lam in ("azure", "defaults"):
        for setting, params in SETTINGS.items():
            extra = (["--azure"] if lam == "azure" else ["--arrival-rate", "0.025"]) + (
                ["--params", params] if params else [])
            if lam == "defaults" and setting == "shrinking":
                continue  # the §2.13 arrival rate then gives a 2% load (no rejections): not informative
            eps = run([BIN, "admission", "tune", "--calibrate-eps", "400", "--seed", "1", "--capacity", "500"] + extra)
            with open(os.path.join(OUT, f"eps-{lam}-lambda-{setting}.json"), "w") as f:
                json.dump(eps, f, indent=1)
                f.write("\n")
            r = run([BIN, "admission", "tune", "--preset", "E0.3", "--arm", "SECOND+MARGINAL m=5", "--scan", "0.01,0.1"]
                    + QUICK + extra)
            sens.append({"lambda": lam, "setting": setting, **r})
            print(lam, setting)
    with open(os.path.join(OUT, "sensitivity.json"), "w") as f:
        json.dump(sens, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
