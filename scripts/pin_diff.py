#!/usr/bin/env python3
"""Lists every number that differs between two sets of pinned CLI outputs (tests/pins/ layout: JSON or CSV files
of the same names), one line per value: `file  path  old -> new  (delta)`. Files only in one set are named.

Usage: python3 scripts/pin_diff.py OLD_DIR NEW_DIR
e.g. the pins before and after a commit:
  mkdir -p /tmp/old && git archive REV tests/pins | tar -x -C /tmp/old && \\
  python3 scripts/pin_diff.py /tmp/old/tests/pins tests/pins
"""
import csv
import io
import json
import os
import sys


def walk(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            walk(a.get(k), b.get(k), f"{path}.{k}" if path else str(k), out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            # frontier points are named by their spec (e.g. points[gpa:0.1])
            name = x.get("spec", i) if isinstance(x, dict) else i
            walk(x, y, f"{path}[{name}]", out)
    elif a != b:
        out.append((path, a, b))


def label(rows, i):
    """A CSV row's name: its spec column if there is one, else its index."""
    r = rows[i]
    return r.get("spec") or str(i)


def load(path):
    text = open(path).read()
    try:
        return json.loads(text)
    except ValueError:
        rows = list(csv.DictReader(io.StringIO(text)))
        return {label(rows, i): r for i, r in enumerate(rows)}


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def main():
    old_dir, new_dir = sys.argv[1], sys.argv[2]
    names = sorted(set(os.listdir(old_dir)) | set(os.listdir(new_dir)))
    for n in names:
        po, pn = os.path.join(old_dir, n), os.path.join(new_dir, n)
        if not os.path.exists(po) or not os.path.exists(pn):
            print(f"{n}: only in {'new' if os.path.exists(pn) else 'old'}")
            continue
        if open(po, "rb").read() == open(pn, "rb").read():
            continue
        out = []
        walk(load(po), load(pn), "", out)
        for path, a, b in out:
            x, y = num(a), num(b)
            delta = f"  ({y - x:+.6g})" if x is not None and y is not None else ""
            print(f"{n}  {path}  {a} -> {b}{delta}")


if __name__ == "__main__":
    main()
