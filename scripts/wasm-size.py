#!/usr/bin/env python3
"""Where the bytes of a .wasm go: the code size of its functions grouped by what they belong to.

Usage: scripts/wasm-size.py MODULE.wasm [--top N] [--json] [--against OLD.wasm] [--split REGEX [--brotli]]

MODULE is cargo's output *before* wasm-bindgen (target/wasm32-unknown-unknown/<profile>/packlab.wasm), which
still has the name section (the linker writes demangled names). Each function's body size is charged to a
group: the crate of its path (`serde_json`, `core`, `clarabel`, ...), or for this crate's own code its module
(`packlab::models::era`, `packlab::wasm`, ...); a generic instantiated for one of this crate's types counts
under the generic's crate (e.g. serde's derive code under `serde`, `serde_json` or `serde_wasm_bindgen`,
whichever deserializer it was instantiated for). Prints the sections and the groups, largest first; with
--against, the groups that moved most against OLD (what a change saved or added).

With --split REGEX, an estimate of a module without what REGEX names: every function whose demangled name
matches REGEX anywhere (so `core::ptr::drop_in_place<rhai::ast::Expr>` counts with `rhai`) is charged to the
part left out; prints the code bytes of both parts and the gzip -9 bytes of each part's function bodies with the
data section (kept whole: its strings are not attributed). An estimate: it neither follows calls (code that only
the part left out reaches stays in) nor re-links (generics shared by both parts stay in). --brotli adds the kept
part's brotli bytes (quality 11, as scripts/build-wasm.sh writes the served copy: scripts/brotli.mjs; tens of
seconds of CPU for the whole module)."""
import argparse
import json
import re
import sys


def leb(buf, i):
    """An unsigned LEB128 at buf[i]: (value, next index)."""
    v = shift = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        if b < 0x80:
            return v, i
        shift += 7


def sections(buf):
    """[(id, name, start, end)] of the module's sections (custom sections named)."""
    if buf[:4] != b"\0asm":
        sys.exit("wasm-size: not a wasm module")
    out, i = [], 8
    while i < len(buf):
        sid = buf[i]
        size, j = leb(buf, i + 1)
        name = ""
        if sid == 0:
            n, k = leb(buf, j)
            name = buf[k:k + n].decode("utf-8", "replace")
        out.append((sid, name, j, j + size))
        i = j + size
    return out


SECTION_NAMES = {1: "type", 2: "import", 3: "function", 4: "table", 5: "memory", 6: "global", 7: "export",
                 8: "start", 9: "element", 10: "code", 11: "data", 12: "datacount"}


def function_names(buf, start, end):
    """{function index: name} from the name section's function subsection."""
    i = start
    n, i = leb(buf, i)
    i += n  # section name
    names = {}
    while i < end:
        sub = buf[i]
        size, i = leb(buf, i + 1)
        if sub == 1:
            k = i
            count, k = leb(buf, k)
            for _ in range(count):
                idx, k = leb(buf, k)
                ln, k = leb(buf, k)
                names[idx] = buf[k:k + ln].decode("utf-8", "replace")
                k += ln
        i += size
    return names


def imported_functions(buf, start):
    count, i = leb(buf, start)
    funcs = 0
    for _ in range(count):
        for _ in range(2):
            n, i = leb(buf, i)
            i += n
        kind = buf[i]
        i += 1
        if kind == 0:
            _, i = leb(buf, i)
            funcs += 1
        elif kind == 1:
            i += 1
            flags, i = leb(buf, i)
            _, i = leb(buf, i)
            if flags & 1:
                _, i = leb(buf, i)
        elif kind == 2:
            flags, i = leb(buf, i)
            _, i = leb(buf, i)
            if flags & 1:
                _, i = leb(buf, i)
        elif kind == 3:
            i += 2
    return funcs


ESCAPES = {"$LT$": "<", "$GT$": ">", "$u20$": " ", "$C$": ",", "$RF$": "&", "$BP$": "*", "$SP$": "@",
           "$LP$": "(", "$RP$": ")", "$u7b$": "{", "$u7d$": "}", "$u5b$": "[", "$u5d$": "]", "$u27$": "'"}


def demangle(name):
    """A legacy-mangled Rust symbol (`_ZN...E`) as a path; other names as they are."""
    m = re.match(r"_ZN(.*)E$", name)
    if not m:
        return name
    rest, parts = m.group(1), []
    while rest and rest[0].isdigit():
        n = int(re.match(r"\d+", rest).group(0))
        rest = rest[len(str(n)):]
        part, rest = rest[:n], rest[n:]
        if part.startswith("_$"):
            part = part[1:]
        part = re.sub(r"\$[A-Za-z0-9]+\$", lambda e: ESCAPES.get(e.group(0), "?"), part).replace("..", "::")
        parts.append(part)
    return "::".join(parts)


def group(name):
    """The group a function's name is charged to."""
    if name.startswith("_R"):  # v0 mangling (the precompiled std): the first crate named
        m = re.search(r"C(?:s[0-9A-Za-z]*_)?(\d+)([A-Za-z_][A-Za-z0-9_]*)", name)
        return m.group(2)[:int(m.group(1))] if m else "?"
    if name.startswith("__wbindgen") or name.startswith("__wbg"):
        return "wasm_bindgen"
    s = re.sub(r"::h[0-9a-f]{16}$", "", demangle(name))
    s = s.lstrip("<&*( ").replace("dyn ", "").replace("mut ", "").replace("const ", "")
    s = s.lstrip("<&*( ")
    head = re.split(r"[<>\s(),;\[\]]", s, maxsplit=1)[0]
    parts = head.split("::")
    if parts[0] == "packlab":
        return "::".join(parts[:3] if len(parts) > 2 and parts[1] == "models" else parts[:2])
    return parts[0] or "?"


def measure(module):
    """(bytes, {section: bytes}, {group: code bytes}) of the module file `module` (or of a --json output)."""
    if module.endswith(".json"):
        j = json.load(open(module))
        return j["bytes"], j["sections"], j["code_groups"]
    buf = open(module, "rb").read()
    secs = sections(buf)
    names, nimports, code = {}, 0, None
    for sid, name, s, e in secs:
        if sid == 0 and name == "name":
            names = function_names(buf, s, e)
        elif sid == 2:
            nimports = imported_functions(buf, s)
        elif sid == 10:
            code = (s, e)
    groups = {}
    if code:
        count, i = leb(buf, code[0])
        for f in range(count):
            size, j = leb(buf, i)
            g = group(names.get(nimports + f, "?"))
            groups[g] = groups.get(g, 0) + (j - i) + size
            i = j + size
    sec_sizes = {}
    for sid, name, s, e in secs:
        key = f"custom:{name}" if sid == 0 else SECTION_NAMES.get(sid, str(sid))
        sec_sizes[key] = sec_sizes.get(key, 0) + (e - s)
    return len(buf), sec_sizes, groups


def brotli_len(data):
    """Bytes of `data` compressed as scripts/build-wasm.sh compresses the served module (node's zlib, quality 11)."""
    import os
    import subprocess
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "brotli.mjs")
    return int(subprocess.run(["node", script, "--size", "11"], input=data, capture_output=True, check=True).stdout)


def split(module, pattern, brotli=False):
    """{"kept"|"left out": (functions, code bytes, gzip -9 of bodies + data)} of --split (see the module doc);
    with `brotli`, also "kept (brotli 11)": the kept bodies + data through brotli_len."""
    import gzip
    buf = open(module, "rb").read()
    secs = sections(buf)
    names, nimports, code, data = {}, 0, None, b""
    for sid, name, s, e in secs:
        if sid == 0 and name == "name":
            names = function_names(buf, s, e)
        elif sid == 2:
            nimports = imported_functions(buf, s)
        elif sid == 10:
            code = (s, e)
        elif sid == 11:
            data = buf[s:e]
    rx = re.compile(pattern)
    parts = {"kept": [], "left out": []}
    count, i = leb(buf, code[0])
    for f in range(count):
        size, j = leb(buf, i)
        name = demangle(names.get(nimports + f, "?"))
        parts["left out" if rx.search(name) else "kept"].append(buf[i:j + size])
        i = j + size
    whole = b"".join(parts["kept"] + parts["left out"])
    out = {k: (len(v), sum(map(len, v)), len(gzip.compress(b"".join(v) + data, 9))) for k, v in parts.items()}
    out["whole"] = (count, len(whole), len(gzip.compress(whole + data, 9)))
    if brotli:
        kept = b"".join(parts["kept"])
        out["kept, brotli 11"] = (len(parts["kept"]), len(kept), brotli_len(kept + data))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("module")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--against", help="an older build of the module (or its --json output) to compare with")
    ap.add_argument("--split", help="a regular expression: estimate a module without the functions it names")
    ap.add_argument("--brotli", action="store_true", help="with --split: the kept part's brotli bytes too")
    a = ap.parse_args()
    if a.split:
        print(f"{a.module}: functions matching {a.split!r} left out (an estimate, see --help)")
        print(f"  {'part':<16} {'functions':>9} {'code B':>9} {'compressed (code + data) B':>27}")
        for k, (n, code, gz) in split(a.module, a.split, a.brotli).items():
            print(f"  {k:<16} {n:>9} {code:>9} {gz:>27}")
        return
    size, sec_sizes, groups = measure(a.module)
    if a.json:
        print(json.dumps({"bytes": size, "sections": sec_sizes, "code_groups": groups}, indent=1))
        return
    if a.against:
        old_size, old_secs, old_groups = measure(a.against)
        print(f"{a.module}: {size} B against {a.against}: {old_size} B ({size - old_size:+d})")
        print(f"  code {sec_sizes.get('code', 0) - old_secs.get('code', 0):+d}, data "
              f"{sec_sizes.get('data', 0) - old_secs.get('data', 0):+d}")
        keys = set(groups) | set(old_groups)
        moved = sorted(keys, key=lambda k: -abs(groups.get(k, 0) - old_groups.get(k, 0)))[:a.top]
        for k in moved:
            print(f"  {k:<40} {old_groups.get(k, 0):>9} -> {groups.get(k, 0):>9}  "
                  f"{groups.get(k, 0) - old_groups.get(k, 0):+d}")
        return
    print(f"{a.module}: {size} B")
    for k, v in sorted(sec_sizes.items(), key=lambda kv: -kv[1]):
        print(f"  section {k:<28} {v:>9}")
    total = sum(groups.values()) or 1
    print(f"code by group (top {a.top} of {len(groups)}):")
    for k, v in sorted(groups.items(), key=lambda kv: -kv[1])[:a.top]:
        print(f"  {k:<40} {v:>9}  {100 * v / total:5.1f}%")


if __name__ == "__main__":
    main()
