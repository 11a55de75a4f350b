#!/usr/bin/env python3
"""CPU and wall time of each end-to-end test file run alone (issue 30: the browser stage's CPU).

Usage: python3 scripts/bench-web-files.py [--per-test] [NAME ...]
  NAME: a file of tests/e2e without .test.mjs (default: all of them); --per-test: each test of the named files alone
  (`--test-name-pattern`, the names given as plain strings in `test('…')`; a name built from a template is not
  listed), after a row `NAME (start-up)` that runs none of its tests (the file's server and browser, started and
  stopped)

Runs `node --test --test-reporter=dot tests/e2e/NAME.test.mjs` one file at a time, with the environment
scripts/test-web.sh sets (.tools/bin first on PATH), and prints one row per file: wall seconds, the CPU seconds
(user + system) of the whole process tree (node, the test file's process, Chromium and its renderers, the static
server, the CLI: this script is their child subreaper, so every descendant is reaped here and counted, even one
whose parent ended first), the machine's busy CPU seconds over the same time (/proc/stat: other people's work
included), the load average at the start, and whether the file passed. Timings are read, never asserted.
Linux only (prctl, /proc). Expects what test-web.sh expects (target/release/packlab, www/pkg).
"""
import ctypes
import os
import re
import resource
import subprocess
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
E2E = os.path.join(ROOT, 'tests/e2e')
PR_SET_CHILD_SUBREAPER = 36
HZ = os.sysconf('SC_CLK_TCK')


def busy_seconds():
    """The machine's busy CPU seconds since boot (user, nice, system, irq, softirq, steal of /proc/stat)."""
    with open('/proc/stat') as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / HZ


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def reap_all():
    """Wait for every descendant left (orphans come to this subreaper); returns when none is left."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def test_names(name):
    """The tests of tests/e2e/NAME.test.mjs named by a plain string literal, in order."""
    with open(os.path.join(E2E, f'{name}.test.mjs')) as f:
        src = f.read()
    return [m.group(2).replace("\\'", "'") for m in re.finditer(r"^test\((['\"])(.*?)(?<!\\)\1", src, re.M)]


def run(name, pattern=None):
    path = os.path.join(E2E, f'{name}.test.mjs')
    if not os.path.exists(path):
        sys.exit(f'bench-web-files: {path} does not exist')
    args = ['node', '--test', '--test-reporter=dot'] + ([f'--test-name-pattern={pattern}'] if pattern is not None else [])
    env = {**os.environ, 'PATH': f"{os.path.join(ROOT, '.tools/bin')}:{os.environ.get('PATH', '')}"}
    load = os.getloadavg()[0]
    cpu0, busy0, t0 = children_cpu(), busy_seconds(), time.monotonic()
    proc = subprocess.Popen(args + [path], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.communicate()[0].decode('utf8', 'replace')
    reap_all()
    wall, cpu, busy = time.monotonic() - t0, children_cpu() - cpu0, busy_seconds() - busy0
    passed = proc.returncode == 0
    if not passed:
        sys.stderr.write(f'--- {name} failed (exit {proc.returncode}):\n{out}\n')
    return wall, cpu, busy, load, passed


def main():
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit('bench-web-files: cannot become a child subreaper (Linux only)')
    args = sys.argv[1:]
    per_test = '--per-test' in args
    args = [a for a in args if a != '--per-test']
    names = args or sorted(f[:-len('.test.mjs')] for f in os.listdir(E2E) if f.endswith('.test.mjs'))
    print(f'# {os.cpu_count()} cores; one file at a time; CPU = user + system of the file\'s process tree; '
          'machine = busy CPU of the whole machine (others\' work included)')
    tw = tc = 0.0
    rows = [(n, None, n) for n in names]
    if per_test:
        rows = [r for n in names for r in [(f'{n} (start-up)', 'no test has this name', n)]
                + [(f'{n}: {t[:48]}', '^' + re.escape(t) + '$', n) for t in test_names(n)]]
    width = max(20, *(len(r[0]) for r in rows))
    print(f"{'file':<{width}} {'wall s':>7} {'CPU s':>7} {'machine s':>9} {'load':>5}  result")
    for label, pattern, name in rows:
        wall, cpu, busy, load, passed = run(name, pattern)
        tw, tc = tw + wall, tc + cpu
        print(f"{label:<{width}} {wall:7.1f} {cpu:7.1f} {busy:9.1f} {load:5.2f}  {'pass' if passed else 'FAIL'}", flush=True)
    print(f"{'total':<{width}} {tw:7.1f} {tc:7.1f}")


if __name__ == '__main__':
    main()
