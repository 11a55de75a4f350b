#!/usr/bin/env python3
"""The engine's structure drawn from its imports: rooms, arrows, cycles, upward arrows, lines per folder.

Reads every `.rs` file under src/ (the library and src/bin/packlab), leaves out tests and fixtures
(`#[cfg(test)]` items and the files they declare, `#[test]` functions) and comments, and resolves every path
that starts with `crate::`, `$crate::`, `super::`, `self::`, `packlab::` (the library, from the CLI) or a
child module's name to the file that defines it (following `pub use` re-exports and `#[macro_export]`
macros). An arrow joins two files when one names the other.

- A **room** is a folder of src/ (`trace`, `workload`, `models/placement`, `bin/packlab`, ...) or a top-level
  file (`experiment`, `data`, ...); `models` is `src/models/mod.rs` alone (the registry), each model folder is
  a room of its own. The crate root (`src/lib.rs`: module list and the engine version) is no room.
- A **cycle** is a strongly connected set of rooms (or of files, inside a room) of two or more.
- An arrow points **upward** when a room names a room that contains it (a model folder importing
  `src/models/mod.rs`, the registry): the parent lists its children, so the child must not lean on it. The
  same inside a room, between files (a child file importing its folder's `mod.rs`), is listed apart.
- A room's **floor** is its height in the room graph without cycles (0: imports no other room).

Usage: python3 scripts/import-graph.py [--files] [src-dir]
  --files  also prints the arrows between files inside each room.
"""

import os
import re
import sys
from collections import defaultdict

SRC = "src"
BIN = ("bin", "packlab")


def strip_comments_and_strings(text):
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = text.find('"' + m.group(1), i + len(m.group(0)))
            out.append('""')
            i = n if end < 0 else end + 1 + len(m.group(1))
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:i + 4]) or re.match(r"'\\u\{[0-9a-fA-F]+\}'", text[i:i + 12]):
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", text[i:])
            out.append("' '")
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def skip_item(text, i):
    """End of the item starting at i: through its matching '}' or its ';', whichever comes first."""
    n, depth = len(text), 0
    while i < n:
        c = text[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == ";" and depth == 0:
            return i + 1
        elif c == "{":
            d, i = 1, i + 1
            while i < n and d:
                d += {"{": 1, "}": -1}.get(text[i], 0)
                i += 1
            return i
        i += 1
    return n


TEST_ATTR = re.compile(r"#\[(cfg\((all|any)?\(?[^\]]*\btest\b[^\]]*\)|test)\]")


def strip_tests(text):
    """Removes `#[cfg(test)]`/`#[test]` items; returns (text, names of `mod x;` files declared under them)."""
    test_mods, out, i = [], [], 0
    for m in TEST_ATTR.finditer(text):
        if m.start() < i:
            continue
        if "not(test)" in m.group(0):
            continue
        out.append(text[i:m.start()])
        j = m.end()
        # further attributes
        while True:
            mm = re.match(r"\s*#\[[^\]]*\]", text[j:])
            if not mm:
                break
            j += len(mm.group(0))
        mm = re.match(r"\s*(pub(\([^)]*\))?\s+)?mod\s+(\w+)\s*;", text[j:])
        if mm:
            test_mods.append(mm.group(3))
        i = skip_item(text, j)
    out.append(text[i:])
    return "".join(out), test_mods


def module_files(src):
    """{module path tuple: file} for the library (root ()) and the CLI (root BIN)."""
    mods = {}
    for dirpath, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), src)
            parts = rel[:-3].split(os.sep)
            if parts[0] == "bin":
                if tuple(parts[:2]) != BIN:
                    continue
                parts = list(BIN) + ([] if parts[2] == "main" else parts[2:])
            elif parts == ["lib"]:
                parts = []
            if parts and parts[-1] == "mod":
                parts = parts[:-1]
            mods[tuple(parts)] = os.path.join(src, rel)
    return mods


def split_top(s, sep=","):
    parts, depth, cur = [], 0, []
    for c in s:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if c == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def expand_use(tree, prefix=()):
    """`a::{b, c::{d as e}}` → [(('a','b'), 'b'), (('a','c','d'), 'e')]; glob gives name '*'."""
    tree = tree.strip()
    m = re.match(r"^(.*?)::\s*\{(.*)\}$", tree, re.S)
    if m:
        head = tuple(s for s in m.group(1).replace(" ", "").split("::") if s)
        res = []
        for part in split_top(m.group(2)):
            res += expand_use(part, prefix + head)
        return res
    if tree.startswith("{") and tree.endswith("}"):
        res = []
        for part in split_top(tree[1:-1]):
            res += expand_use(part, prefix)
        return res
    alias = None
    m = re.match(r"^(.*)\s+as\s+(\w+)$", tree, re.S)
    if m:
        tree, alias = m.group(1), m.group(2)
    segs = tuple(s for s in tree.replace(" ", "").replace("\n", "").split("::") if s)
    path = prefix + segs
    if not path:
        return []
    name = alias or (path[-1] if path[-1] != "self" else path[-2] if len(path) > 1 else "self")
    if path[-1] == "self":
        path = path[:-1]
    return [(path, name)]


class Crate:
    def __init__(self, src):
        self.mods = module_files(src)
        self.file_mod = {f: m for m, f in self.mods.items()}
        self.text, self.test_files = {}, set()
        self.reexports = defaultdict(dict)  # module → {name: absolute path}
        self.macros = {}
        for m, f in self.mods.items():
            raw = strip_comments_and_strings(open(f, encoding="utf-8").read())
            body, tmods = strip_tests(raw)
            for t in tmods:
                if m + (t,) in self.mods:
                    self.test_files.add(self.mods[m + (t,)])
            self.text[f] = body
            for mm in re.finditer(r"#\[macro_export\][\s\S]{0,200}?macro_rules!\s*(\w+)", body):
                self.macros[mm.group(1)] = f
        for m, f in self.mods.items():
            for vis, tree in re.findall(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", self.text[f]):
                if not vis:
                    continue
                for path, name in expand_use(tree):
                    if name != "*":
                        absp = self.absolute(m, path)
                        if absp is not None:
                            self.reexports[m][name] = absp

    def root(self, m):
        return BIN if m[:2] == BIN else ()

    def absolute(self, m, path):
        """Path as written in module m → absolute segments, or None for an external crate / std."""
        path = list(path)
        if not path:
            return None
        head = path[0]
        if head in ("crate", "$crate"):
            return self.root(m) + tuple(path[1:]) if head == "crate" else tuple(path[1:])
        if head == "packlab" and m[:2] == BIN:
            return tuple(path[1:])
        if head in ("self", "super"):
            cur = list(m)
            while path and path[0] in ("self", "super"):
                if path.pop(0) == "super":
                    cur.pop()
            return tuple(cur) + tuple(path)
        if m + (head,) in self.mods:
            return m + tuple(path)
        if self.root(m) + (head,) in self.mods and m == self.root(m):
            return self.root(m) + tuple(path)
        return None

    def resolve(self, absp, depth=0):
        """Absolute path → the file defining it."""
        if absp is None or depth > 8:
            return None
        k = len(absp)
        while k >= 0 and tuple(absp[:k]) not in self.mods:
            k -= 1
        if k < 0:
            return None
        mod = tuple(absp[:k])
        rest = absp[k:]
        if rest and rest[0] in self.reexports.get(mod, {}):
            target = self.reexports[mod][rest[0]] + tuple(rest[1:])
            got = self.resolve(target, depth + 1)
            if got:
                return got
        if not mod and rest and rest[0] in self.macros:
            return self.macros[rest[0]]
        return self.mods[mod]

    def arrows(self):
        """{(from file, to file)}, tests left out."""
        arrows = set()
        for m, f in self.mods.items():
            if f in self.test_files:
                continue
            body = self.text[f]
            paths = []
            for tree in re.findall(r"\buse\s+([^;]+);", body):
                paths += [p for p, _ in expand_use(tree)]
            rest = re.sub(r"\buse\s+[^;]+;", " ", body)
            for mm in re.finditer(r"(?<![\w:])(\$?crate|super|self|packlab|[a-z_][a-z0-9_]*)((?:\s*::\s*\w+)+)", rest):
                segs = [mm.group(1)] + [s for s in re.split(r"\s*::\s*", mm.group(2)) if s]
                paths.append(tuple(segs))
            for mm in re.finditer(r"(?<![\w:])(\w+)!", rest):
                if mm.group(1) in self.macros and f != self.macros[mm.group(1)]:
                    arrows.add((f, self.macros[mm.group(1)]))
            for p in paths:
                target = self.resolve(self.absolute(m, p))
                if target and target != f and target not in self.test_files:
                    arrows.add((f, target))
        return arrows


def room_of(f):
    parts = os.path.relpath(f, SRC)[:-3].split(os.sep)
    if parts[0] == "bin":
        return "bin/packlab"
    if parts == ["lib"]:
        return None
    if parts[0] == "models" and len(parts) > 2:
        return "models/" + parts[1]
    if parts == ["models", "mod"]:
        return "models"
    return parts[0]


def sccs(nodes, edges):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    adj = defaultdict(list)
    for a, b in edges:
        adj[a].append(b)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in adj[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def lines(f):
    return sum(1 for _ in open(f, encoding="utf-8"))


def main():
    global SRC
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    show_files = "--files" in sys.argv
    if args:
        SRC = args[0]
    crate = Crate(SRC)
    arrows = crate.arrows()
    files = [f for f in crate.mods.values() if f not in crate.test_files]
    rooms = sorted({room_of(f) for f in files if room_of(f)})
    room_arrows = sorted({(room_of(a), room_of(b)) for a, b in arrows
                          if room_of(a) and room_of(b) and room_of(a) != room_of(b)})

    # upward: a file naming a module that contains it
    def contains(anc, f):
        ma, mf = crate.file_mod[anc], crate.file_mod[f]
        return len(ma) < len(mf) and mf[:len(ma)] == ma and ma not in ((), BIN)

    upward_files = sorted((a, b) for a, b in arrows if contains(b, a))
    upward = sorted({(room_of(a), room_of(b)) for a, b in upward_files if room_of(a) != room_of(b)})

    comps = sccs(rooms, room_arrows)
    room_cycles = [c for c in comps if len(c) > 1]
    comp_of = {r: i for i, c in enumerate(comps) for r in c}
    floor = {}

    def height(i, seen=()):
        if i in floor:
            return floor[i]
        outs = {comp_of[b] for a, b in room_arrows if comp_of[a] == i and comp_of[b] != i}
        floor[i] = 1 + max((height(j) for j in outs), default=-1)
        return floor[i]

    for i in range(len(comps)):
        height(i)
    nfloors = 1 + max(floor.values())

    print("\n## floors (0 = imports no other room)")
    for fl in range(nfloors - 1, -1, -1):
        names = sorted(r for r in rooms if floor[comp_of[r]] == fl)
        print(f"{fl}: " + ", ".join(names))
    print("\n## arrows between rooms")
    for r in rooms:
        outs = [b for a, b in room_arrows if a == r]
        print(f"{r} → " + (", ".join(outs) if outs else "(none)"))
    print("\n## cycles between rooms")
    for c in room_cycles:
        print(" ↔ ".join(c))
        for a, b in sorted(arrows):
            if room_of(a) in c and room_of(b) in c and room_of(a) != room_of(b):
                print(f"    {a} → {b}")
    if not room_cycles:
        print("(none)")
    print("\n## cycles between files inside a room")
    file_cycles = 0
    for r in rooms:
        fs = [f for f in files if room_of(f) == r]
        inner = [(a, b) for a, b in arrows if a in fs and b in fs]
        for c in sccs(fs, inner):
            if len(c) > 1:
                file_cycles += 1
                print(f"{r}: " + " ↔ ".join(os.path.relpath(f, SRC) for f in c))
    if not file_cycles:
        print("(none)")
    print("\n## upward arrows between rooms (a room naming a room that contains it)")
    for a, b in upward:
        print(f"{a} → {b}")
        for fa, fb in upward_files:
            if room_of(fa) == a and room_of(fb) == b:
                print(f"    {os.path.relpath(fa, SRC)} → {os.path.relpath(fb, SRC)}")
    if not upward:
        print("(none)")
    print("\n## upward arrows inside rooms (a file naming its folder's mod.rs)")
    inner_up = [(a, b) for a, b in upward_files if room_of(a) == room_of(b)]
    for r in rooms:
        ups = [os.path.relpath(a, SRC) for a, b in inner_up if room_of(a) == r]
        if ups:
            print(f"{r}: {len(ups)}: " + ", ".join(ups))
    if not inner_up:
        print("(none)")
    if show_files:
        print("\n## arrows between files")
        for a, b in sorted(arrows):
            print(f"{os.path.relpath(a, SRC)} → {os.path.relpath(b, SRC)}")
    print("\n## lines per room (tests included; files declared under #[cfg(test)] left out)")
    total = 0
    for r in rooms:
        n = sum(lines(f) for f in files if room_of(f) == r)
        total += n
        print(f"{r:20} {n:6}  ({sum(1 for f in files if room_of(f) == r)} files)")
    print(f"{'total':20} {total:6}")
    print(f"\nsummary: rooms {len(rooms)}, floors {nfloors}, arrows {len(room_arrows)}, room cycles "
          f"{len(room_cycles)}, upward arrows {len(upward)}; inside rooms: file cycles {file_cycles}, "
          f"upward arrows {len(inner_up)}")


if __name__ == "__main__":
    main()
