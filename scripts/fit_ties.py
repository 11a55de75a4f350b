#!/usr/bin/env python3
"""How often do exact ties with c decide a fit test? (issue 12, the fit-test side of exact q)

Replays the engine's packings of the bundled PlanetLab day (raw day folder, file-name byte order, the
same f64 arithmetic as tests/reference/gpa_reference.py: every fit decision and Best Fit key in f64) for
every family of the default frontier grid at c = 1 and c = 4, FF and BF, rebalancing on, l = 1, and
re-decides every deterministic fit test `l_j + s_k <= c` exactly with rationals on the values as written
(av: f * (sum of integer %) / (100 R); perc: linear interpolation at rank p/100 (R - 1) of the sorted
integer %; max: the largest integer %). GPA and Cantelli involve square roots (z, sigma) and are not
re-decided. Prints per configuration: m_abs, the f64 and exact overflow counts, and `fit ties`: the fit
decisions (along the f64 packing) whose f64 answer differs from the exact one / all fit decisions.

Usage: python3 scripts/fit_ties.py [DAY_FOLDER] > tests/reference/fit-ties.txt
"""
import math
import os
import sys
from fractions import Fraction as F
from statistics import NormalDist

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDER = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "shared", "data", "planetlab-cloudsim", "20110303")
GRID = ([("gpa", g) for g in [0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001, 0.0005]]
        + [("av", g) for g in [1.0, 1.25, 1.5, 2.0, 2.5, 3.0]]
        + [("perc", g) for g in [50.0, 70.0, 80.0, 90.0, 95.0, 99.0, 100.0]]
        + [("cantelli", g) for g in [0.5, 1.0, 1.7, 2.5, 4.4]] + [("max", None)])


def read(folder):
    names = sorted(os.listdir(folder), key=lambda s: s.encode())
    ints = []
    for n in names:
        with open(os.path.join(folder, n)) as f:
            ints.append([int(line) for line in f.read().split("\n") if line.strip()])
    return ints, [[v / 100.0 for v in s] for s in ints]


def lr(xs):
    s = 0.0
    for x in xs:
        s += x
    return s


def pct(sx, p):
    n = len(sx)
    rank = p / 100.0 * (n - 1)
    lo = math.floor(rank)
    hi = min(lo + 1, n - 1)
    return sx[lo] + (sx[hi] - sx[lo]) * (rank - lo)


def pct_exact(si, p):
    n = len(si)
    rank = F(str(p)) / 100 * (n - 1)
    lo = math.floor(rank)
    hi = min(lo + 1, n - 1)
    return (si[lo] + (si[hi] - si[lo]) * (rank - lo)) / 100


def run(ints, series, fam, par, rule, c):
    R = len(series[0])
    items, exact = [], []
    for s, si in zip(series, ints):
        mu = lr(s) / R
        var = lr([(x - mu) * (x - mu) for x in s]) / R
        ex = None
        if fam == "gpa":
            size = mu
        elif fam == "av":
            size, ex = par * mu, F(str(par)) * F(sum(si), 100 * R)
        elif fam == "cantelli":
            size = mu + par * math.sqrt(var)
        elif fam == "perc":
            size, ex = pct(sorted(s), par), pct_exact(sorted(si), par)
        else:
            size, ex = max(s), F(max(si), 100)
        items.append((mu, var, size))
        exact.append(ex)
    z = NormalDist().inv_cdf(1.0 - par) if fam == "gpa" else None
    ties = [0, 0]

    def fits(ld, it, ex_load, ex_item):
        if fam == "gpa":
            m, s = ld[0] + it[0], math.sqrt(ld[1] + it[1])
            return m <= c if s == 0.0 else m + z * s <= c
        r = ld[2] + it[2] <= c
        if ex_item is not None:
            ties[0] += (ex_load + ex_item <= F(c)) != r
            ties[1] += 1
        return r

    def key(ld, it):
        if fam == "gpa":
            s = math.sqrt(ld[1] + it[1])
            return math.inf if s == 0.0 else (c - ld[0] - it[0]) / s
        return c - ld[2] - it[2]

    def add(a, b):
        return (a[0] + b[0], a[1] + b[1], a[2] + b[2])

    bins, loads, ex_loads = [], [], []
    for k, it in enumerate(items):
        best = None
        for j, ld in enumerate(loads):
            if fits(ld, it, ex_loads[j], exact[k]):
                if rule == "ff":
                    best = j
                    break
                kv = key(ld, it)
                if best is None or kv < best_key:
                    best, best_key = j, kv
        if best is None:
            bins.append([k])
            loads.append(add((0.0, 0.0, 0.0), it))
            ex_loads.append(exact[k])
        else:
            bins[best].append(k)
            loads[best] = add(loads[best], it)
            if exact[k] is not None:
                ex_loads[best] += exact[k]
    if len(bins) > 1:
        last, fails, j = len(bins) - 1, 0, 0
        while fails < 5:
            if all(len(bins[b]) == 0 for b in range(last)):
                break
            if bins[j]:
                k = bins[j][0]
                if fits(loads[last], items[k], ex_loads[last], exact[k]):
                    bins[j].pop(0)
                    bins[last].append(k)
                    loads[last] = add(loads[last], items[k])
                    if exact[k] is not None:
                        ex_loads[last] += exact[k]
                        ex_loads[j] -= exact[k]
                    ld = (0.0, 0.0, 0.0)
                    for i in bins[j]:
                        ld = add(ld, items[i])
                    loads[j] = ld
                else:
                    fails += 1
            j = (j + 1) % last
        bins = [b for b in bins if b]
    over_f64 = over = 0
    cap = round(c * 100)
    for b in bins:
        for t in range(R):
            tot = 0.0
            for i in b:
                tot += series[i][t]
            over_f64 += tot > c
            over += sum(ints[i][t] for i in b) > cap
    return len(bins), over_f64, over, ties


def main():
    ints, series = read(FOLDER)
    print("c | rule | fit | m_abs | overflows f64 | overflows exact | fit ties (f64 != exact) / fit decisions")
    for c in (1.0, 4.0):
        for rule in ("bf", "ff"):
            for fam, par in GRID:
                m, of, oe, (bad, n) = run(ints, series, fam, par, rule, c)
                spec = fam if par is None else f"{fam}:{par:g}"
                ties = f"{bad} / {n}" if n else "-"
                print(f"{c:g} | {rule} | {spec} | {m} | {of} | {oe} | {ties}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
