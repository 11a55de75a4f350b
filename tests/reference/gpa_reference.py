#!/usr/bin/env python3
"""Independent reference for packlab's GPA placement model (seed 002; ALGORITHMS.md §4).

Written from ALGORITHMS.md §4.1-4.4 alone, sharing no code with the Rust engine: it reads the raw
PlanetLab day folder (../shared/data/planetlab-cloudsim/20110303, not packlab's bundle), packs in file-name
byte order with First Fit / Best Fit and the five fit tests, rebalances, and evaluates m_abs, m_norm, m, q
and utilization. Plain Python 3 (statistics.NormalDist for z), explicit left-to-right float sums for the
statistics, the packing and utilization. The overflow count behind q is exact (ALGORITHMS.md §4.4 on the
values as written, issue 12): a machine's total at t is the integer sum of its VMs' CPU % compared with
100·c as a fraction. `overflows_f64` is the count the left-to-right float sum `tot > c` gives instead (it
counts some exact ties Σ = c as overflows).

Usage: python3 tests/reference/gpa_reference.py [DAY_FOLDER] > tests/reference/gpa_reference.json
tests/integration/cli_pack.rs checks the CLI on the bundled day against that stored output.
"""
import json
import math
from fractions import Fraction
import os
import sys
from statistics import NormalDist

CONFIGS = [
    # (fit, rule, capacity, rebalance, clairvoyance)
    ("gpa:0.05", "bf", 4.0, True, 1.0),
    ("gpa:0.001", "ff", 4.0, True, 1.0),
    ("gpa:0.05", "bf", 1.0, False, 1.0),
    ("av:1.25", "ff", 1.0, False, 1.0),
    ("av:2", "bf", 4.0, True, 1.0),
    ("perc:95", "bf", 4.0, True, 1.0),
    ("cantelli:1.7", "ff", 2.0, True, 1.0),
    ("max", "bf", 1.0, True, 1.0),
    ("gpa:0.01", "bf", 4.0, True, 0.5),
    ("gpa:0.1", "bf", 4.0, True, 1.0),
    ("gpa:0.2", "ff", 1.0, True, 1.0),
    ("av:1", "bf", 4.0, True, 1.0),
    ("perc:50", "bf", 4.0, True, 1.0),
    ("cantelli:0.5", "bf", 1.0, True, 1.0),
    ("gpa:0.002", "bf", 4.0, True, 0.5),
]


def read_day(folder):
    names = sorted(os.listdir(folder), key=lambda s: s.encode())
    percent = []
    for n in names:
        with open(os.path.join(folder, n), "rb") as f:
            percent.append([int(line) for line in f.read().decode().split("\n") if line.strip()])
    series = [[p / 100.0 for p in s] for s in percent]
    return names, percent, series


def fsum_lr(xs):
    s = 0.0
    for x in xs:
        s += x
    return s


def percentile(sorted_xs, p):
    n = len(sorted_xs)
    rank = p / 100.0 * (n - 1)
    lo = math.floor(rank)
    hi = min(lo + 1, n - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (rank - lo)


def run(percent, series, fit, rule, c, reb, ell):
    R = len(series[0])
    if ell >= 1.0:
        O, E = range(0, R), range(0, R)
    else:
        o = math.floor(ell * R)
        O, E = range(0, o), range(o, R)
    fam, _, par = fit.partition(":")
    par = float(par) if par else None
    items = []
    for s in series:
        obs = [s[t] for t in O]
        mu = fsum_lr(obs) / len(obs)
        var = fsum_lr([(x - mu) * (x - mu) for x in obs]) / len(obs)
        sd = math.sqrt(var)
        if fam == "gpa":
            size = mu
        elif fam == "av":
            size = par * mu
        elif fam == "cantelli":
            size = mu + par * sd
        elif fam == "perc":
            size = percentile(sorted(obs), par)
        elif fam == "max":
            size = max(obs)
        items.append((mu, var, size))
    z = NormalDist().inv_cdf(1.0 - par) if fam == "gpa" else None

    def fits(load, it):
        if fam == "gpa":
            m = load[0] + it[0]
            s = math.sqrt(load[1] + it[1])
            return m <= c if s == 0.0 else m + z * s <= c
        return load[2] + it[2] <= c

    def key(load, it):
        if fam == "gpa":
            s = math.sqrt(load[1] + it[1])
            return math.inf if s == 0.0 else (c - load[0] - it[0]) / s
        return c - load[2] - it[2]

    def add(load, it):
        return (load[0] + it[0], load[1] + it[1], load[2] + it[2])

    bins, loads = [], []
    for k, it in enumerate(items):
        best = None
        for j, ld in enumerate(loads):
            if fits(ld, it):
                if rule == "ff":
                    best = j
                    break
                kv = key(ld, it)
                if best is None or kv < best_key:
                    best, best_key = j, kv
        if best is None:
            bins.append([k])
            loads.append(add((0.0, 0.0, 0.0), it))
        else:
            bins[best].append(k)
            loads[best] = add(loads[best], it)
    if reb and len(bins) > 1:
        m = len(bins)
        last = m - 1
        failures, j = 0, 0
        while failures < 5:
            if all(len(bins[b]) == 0 for b in range(last)):
                break
            if bins[j]:
                k = bins[j][0]
                if fits(loads[last], items[k]):
                    bins[j].pop(0)
                    bins[last].append(k)
                    loads[last] = add(loads[last], items[k])
                    ld = (0.0, 0.0, 0.0)
                    for i in bins[j]:
                        ld = add(ld, items[i])
                    loads[j] = ld
                else:
                    failures += 1
            j = (j + 1) % last
        bins = [b for b in bins if b]
    over, over_f64, usage = 0, 0, 0.0
    cap = Fraction(c)  # 1, 2, 4: exact
    for b in bins:
        for t in E:
            tot = 0.0
            for i in b:
                tot += series[i][t]
            if Fraction(sum(percent[i][t] for i in b), 100) > cap:
                over += 1
            if tot > c:
                over_f64 += 1
            usage += tot
    true_total = fsum_lr([fsum_lr(s) / R for s in series])
    m_abs = len(bins)
    m_norm = max(1, math.ceil(true_total / c))
    return {
        "fit": fit, "rule": rule, "capacity": c, "rebalance": reb, "clairvoyance": ell,
        "m_abs": m_abs, "m_norm": m_norm, "m": m_abs / m_norm,
        "q": over / (m_abs * len(E)), "utilization": usage / (m_abs * c * len(E)),
        "overflows": over, "overflows_f64": over_f64,
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "..", "shared", "data", "planetlab-cloudsim", "20110303")
    names, percent, series = read_day(folder)
    out = [run(percent, series, *cfg) for cfg in CONFIGS]
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
