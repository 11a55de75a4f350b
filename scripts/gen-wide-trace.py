#!/usr/bin/env python3
"""Writes a synthetic usage trace in packlab's wide format (`#packlab-wide v1 unit=percent interval_s=300`),
deterministically from a seed, for measuring the readers on large inputs (scripts/bench-large-trace.sh).

    scripts/gen-wide-trace.py OUT.tsv [--vms 100000] [--samples 288] [--decimals 0] [--seed 1]

Each VM has a base level drawn log-normally (median about 6 % CPU, like PlanetLab VMs, most below 20 %), a
daily swing and Gaussian noise; values are clipped to 0..100 and written as CPU percents with `--decimals`
decimals (0: integers as in PlanetLab, 1: e.g. `12.5`). The same arguments give the same bytes (Python's
`random.Random(seed)` is a Mersenne Twister with a fixed algorithm); 100,000 × 288 integer percents are
about 70 MB.
"""
import argparse
import math
import random
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--vms", type=int, default=100_000)
    ap.add_argument("--samples", type=int, default=288)
    ap.add_argument("--decimals", type=int, default=0, choices=[0, 1, 2])
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    scale = 10 ** a.decimals
    top = 100 * scale
    # every value as text, indexed by value × 10^decimals
    if a.decimals == 0:
        text = [str(k) for k in range(top + 1)]
    else:
        text = [f"{k / scale:.{a.decimals}f}".rstrip("0").rstrip(".") for k in range(top + 1)]
    day = [math.sin(2 * math.pi * t / 288) for t in range(a.samples)]
    gauss = rng.gauss
    with open(a.out, "w", encoding="ascii", newline="\n") as f:
        f.write(f"#packlab-wide v1 unit=percent interval_s=300 source=synthetic/seed{a.seed}\n")
        for i in range(a.vms):
            base = min(80.0, math.exp(gauss(math.log(6.0), 0.9)))
            swing = base * 0.4 * rng.random()
            noise = base * 0.35 + 0.5
            phase = rng.randrange(288)
            row = []
            for t in range(a.samples):
                v = base + swing * day[(t + phase) % a.samples] + noise * gauss(0.0, 1.0)
                k = int(round(v * scale))
                row.append(text[0 if k < 0 else top if k > top else k])
            f.write(f"vm{i:06d}\t")
            f.write(",".join(row))
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
