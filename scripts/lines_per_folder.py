#!/usr/bin/env python3
"""Lines per folder of the code at one or more commits, as a Markdown table (issue 29's "line counts per folder").

    python3 scripts/lines_per_folder.py 51867ea HEAD

Counts the newlines of every file git tracks at each commit (`git ls-tree`, `git cat-file`; the working tree is not
read, so commit first), like `wc -l`. Folders: each room of the engine (`src/<dir>`, each `src/models/<id>`, the
top-level files of `src/` and of `src/models/`), each folder of `www/`, and `benches/`, `tests/`, `scripts/`,
`fuzz/`, `examples/`, `docs/`, and README.md and ARCHITECTURE.md. Left out: data and stored results (`results/`,
`static/`, files with a NUL byte, and `.json`, `.csv`, `.lock`, `.svg`, `.gz`, `.tsv`, `.txt` files) and the other
top-level files (Makefile, Cargo.toml, ...).
"""

import subprocess
import sys
from collections import defaultdict

DATA_ENDINGS = ('.json', '.csv', '.lock', '.svg', '.gz', '.tsv', '.txt', '.bin', '.png', '.wasm')
SKIP_TOP = ('results', 'static')
TOP_FILES = ('README.md', 'ARCHITECTURE.md')


def folder(path):
    """The folder a tracked file is counted in, or None when it is not counted."""
    parts = path.split('/')
    if len(parts) == 1:
        return path if path in TOP_FILES else None
    if parts[0] in SKIP_TOP or path.endswith(DATA_ENDINGS):
        return None
    if parts[0] == 'src':
        if len(parts) == 2:
            return 'src/*.rs (top-level files)'
        if parts[1] == 'models':
            return 'src/models/*.rs (registry)' if len(parts) == 3 else f'src/models/{parts[2]}'
        return f'src/{parts[1]}'
    if parts[0] == 'www':
        return 'www/*.{js,html,css} (shell)' if len(parts) == 2 else f'www/{parts[1]}'
    return parts[0]


def count(rev):
    """{folder: (lines, files)} at commit `rev`."""
    names = subprocess.run(['git', 'ls-tree', '-r', '--name-only', rev], check=True, capture_output=True,
                           text=True).stdout.splitlines()
    names = [n for n in names if folder(n) is not None]
    batch = subprocess.run(['git', 'cat-file', '--batch'], input=''.join(f'{rev}:{n}\n' for n in names).encode(),
                           check=True, capture_output=True).stdout
    out = defaultdict(lambda: [0, 0])
    pos = 0
    for n in names:
        header_end = batch.index(b'\n', pos)
        size = int(batch[pos:header_end].split()[2])
        body = batch[header_end + 1:header_end + 1 + size]
        pos = header_end + 1 + size + 1
        if b'\0' in body:
            continue
        f = out[folder(n)]
        f[0] += body.count(b'\n')
        f[1] += 1
    return out


def main(revs):
    if not revs:
        sys.exit('usage: python3 scripts/lines_per_folder.py REV [REV ...]')
    counts = [count(r) for r in revs]
    short = [subprocess.run(['git', 'rev-parse', '--short', r], check=True, capture_output=True,
                            text=True).stdout.strip() for r in revs]
    folders = sorted(set().union(*counts), key=lambda f: (not f.startswith('src'), not f.startswith('www'), f))
    print('| folder | ' + ' | '.join(f'lines (files) at `{s}`' for s in short) + ' |')
    print('|---|' + '---:|' * len(revs))
    total = [[0, 0] for _ in revs]
    for f in folders:
        cells = []
        for i, c in enumerate(counts):
            if f in c:
                lines, files = c[f]
                total[i][0] += lines
                total[i][1] += files
                cells.append(f'{lines:,} ({files})')
            else:
                cells.append('–')
        print(f'| `{f}` | ' + ' | '.join(cells) + ' |')
    for name, pick in (('src/ (the engine)', 'src'), ('www/', 'www')):
        cells = []
        for c in counts:
            lines = sum(v[0] for k, v in c.items() if k.startswith(pick))
            files = sum(v[1] for k, v in c.items() if k.startswith(pick))
            cells.append(f'**{lines:,}** ({files})')
        print(f'| {name} | ' + ' | '.join(cells) + ' |')
    print('| all counted | ' + ' | '.join(f'**{t[0]:,}** ({t[1]})' for t in total) + ' |')


if __name__ == '__main__':
    main(sys.argv[1:])
