#!/usr/bin/env python3
"""Share links of the findings: for every stored run behind a paper's tables, the playground link of the exact
scenario it ran, as computed by the engine (`packlab <command> --print-link`, which builds the scenario the
command runs and prints its link without running it). Writes results/<paper>/links.json, a list of rows

    {"experiment", "arm", "link", "note", "command", "source", "seconds"}

`link` is `./#s=v2.d<k>.…` (the playground page relative to the Findings page) or null when the command has a
flag no scenario can hold (then `note` gives the engine's reason); `note` says what the link opens (which
instance or seed of how many the row's table averages); `command` is the stored command the link was made from
and `source` the raw results file holding it (tests/integration/findings_links.rs reruns a few links and compares them with
those stored results); `seconds` is the native wall time of that stored run when the raw file records it (else
null): the Findings page passes it with the link so the playground states the cost before anything runs.

A stored command with a policy script (`--policies script:[NAME=]FILE`) gets a link carrying the script's source, and
its note names the `script:NAME` rows (no findings row uses one yet; tests/integration/findings_links.rs checks the round trip).

Runs that differ only by their instance (seed 002's trace days and random subsets) or seed (seeds 003 and 004)
make one row with the first instance's link, and the note says so.

Usage (from the repository root, after `make native`; stdlib only, no simulation, seconds):
    python3 scripts/findings_links.py [--paper 000|001|002|003|004|all[,...]]
scripts/findings.py runs it after each paper.
"""
import base64
import json
import os
import re
import shlex
import subprocess
import sys
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("PACKLAB_BIN", os.path.join("target", "release", "packlab"))


def load(path):
    with open(path) as f:
        return json.load(f)


def decode(link):
    """The JSON a link payload `v2.d<k>.<base64url(deflate(json))>` holds (the difference from defaults set k)."""
    payload = link.split(".", 2)[2]
    raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    return json.loads(zlib.decompress(raw, -15))


def ask_link(command):
    """(link, None) from `command --print-link`, or (None, reason) when the engine refuses."""
    args = shlex.split(command)
    if not args or not args[0].endswith("packlab"):
        return None, f"not a packlab command: {command}"
    args = [BIN] + args[1:] + ["--print-link"]
    out = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        msg = (out.stderr.strip().splitlines() or ["no output"])[-1]
        msg = msg.removeprefix("packlab: ")
        return None, msg
    return "./#s=" + out.stdout.strip(), None


def flag(command, name):
    m = re.search(r"(?:^|\s)" + re.escape(name) + r"\s+(\S+)", command)
    return m.group(1) if m else None


def strip_flags(command, names):
    for n in names:
        command = re.sub(r"\s" + re.escape(n) + r"\s+\S+", "", command)
    return command


def row(experiment, arm, command, source, what, refuse=None, seconds=None):
    """One links.json row; `what` says what the link opens (the engine's reason replaces it when refused;
    `refuse`: a reason not to ask the engine; `seconds`: the stored run's native wall time, if recorded)."""
    link, why = (None, refuse) if refuse else ask_link(command)
    if link is not None:
        sc = decode(link.removeprefix("./#s="))
        up = (sc.get("trace") or {}).get("upload") or (sc.get("workload") or {}).get("upload")
        if up:
            what += f"; the trace is an upload: open the link, then upload '{up['name']}' (SHA-256 {up['sha256'][:12]}…)"
        names = scripts(sc)
        if names:
            what += f"; with the policy script{'s' if len(names) > 1 else ''} {', '.join(names)} (the link carries the source)"
    note = what if link is not None else f"no link: {why}"
    return {"experiment": experiment, "arm": arm, "link": link, "note": note, "command": command,
            "source": source, "seconds": None if seconds is None else round(seconds, 1)}


def scripts(sc):
    """The `script:NAME` policies a decoded scenario carries (every model's `scripts`)."""
    return [f"script:{x['name']}" for m in ("placement", "oversub", "admission", "lifetime", "era")
            for x in (sc.get(m) or {}).get("scripts") or [] if x.get("enabled", True)]


def grouped(runs, key):
    """Runs grouped by key(run), in first-seen order."""
    groups = {}
    for r in runs:
        groups.setdefault(key(r), []).append(r)
    return list(groups.values())


def paper_000():
    src = "results/000/runs.json"
    d = load(src)
    for r in d["runs"]:
        c = r["command"]
        yield row(r["experiment"], "every arm of the preset", c, src,
                  f"the whole preset at the stored scale: seed {flag(c, '--seed')}, {flag(c, '--runs')} runs per "
                  f"threshold, C = {flag(c, '--capacity')} cores, {flag(c, '--arrival-rate')} arrivals/h "
                  f"({r['wall_s']:.0f} s natively when stored)", seconds=r["wall_s"])


def paper_001():
    for name in ["e11", "e12", "e13"]:
        src = f"results/001/{name}.json"
        r = load(src)
        yield row(r["scenario"]["oversub"]["preset"], "every policy of the scenario", r["command"], src,
                  f"the stored scenario {r['command'].split()[-1]}; its C2MARL arms train for minutes "
                  f"({r['seconds']:.0f} s natively when stored): press Run", seconds=r["seconds"])
    src = "results/001/variants.json"
    for r in load(src):
        yield row(r["scenario"]["oversub"]["preset"] + " variant", r["label"], r["command"], src,
                  f"the stored scenario {r['command'].split()[-1]} ({r['seconds']:.0f} s natively when stored)",
                  seconds=r["seconds"])


def paper_002():
    src = "results/002/runs.json"
    d = load(src)

    def key(r):
        return strip_flags(r["command"], ["--trace", "--subset-seed"])

    for g in grouped(d["runs"], key):
        c = g[0]["command"]
        arm = (f"{flag(c, '--fit')}, c = {flag(c, '--capacity')}, {flag(c, '--rule')}, "
               f"{flag(c, '--mode')}, ℓ = {flag(c, '--clairvoyance')}")
        if flag(c, "--subset"):
            arm += f", random subsets of {flag(c, '--subset')} VMs"
        n = len(g)
        what = (f"instance {g[0]['instance']} of {n}" if n > 1 else f"instance {g[0]['instance']}")
        trace = flag(c, "--trace")
        # inputs the findings script derives under target/ are not in the repository: no link, on every machine
        refuse = (f"its trace {trace} is derived by scripts/seed002_findings.py and is not in the repository"
                  if trace.startswith("target/") else None)
        yield row(", ".join(g[0]["experiments"]), arm, c, src, what, refuse)


def seed_free(c):
    c = strip_flags(c, ["--seed"])
    return re.sub(r",seed=\d+", "", c)


def lifetime_arm(c, drop=()):
    c = strip_flags(c, ["--seed"] + list(drop))
    c = re.sub(r",seed=\d+", "", c)
    args = [a for a in shlex.split(c)[2:] if a not in ("--json", "--report", "--diagnostics")]
    return " ".join(args) or "defaults"


def paper_003():
    src = "results/003/e31_e32.json"
    d = load(src)
    for g in grouped(d["runs"], lambda r: seed_free(r["command"])):
        c = g[0]["command"]
        yield row(d["experiment"], lifetime_arm(c), c, src,
                  f"seed {g[0]['seed']} of {len(g)} (one pool instance; the table averages the {len(g)} seeds)")
    src = "results/003/synthetic.json"
    d = load(src)
    for g in grouped(d["runs"], lambda r: seed_free(r["command"])):
        c = g[0]["command"]
        yield row(g[0]["experiment"] + " synthetic", lifetime_arm(c), c, src,
                  f"seed {g[0]['seed']} of {len(g)} (one synthetic pool; the table averages the {len(g)} seeds)")
    src = "results/003/model-metrics.json"
    d = load(src)
    for r in d["runs"]:
        yield row(d["experiment"], r["label"], r["command"], src, "")


def paper_004():
    src = "results/004/e41.json"
    d = load(src)
    groups = {}
    for r in d["runs"]:
        groups.setdefault((r.get("setup", "swim-v1"), r.get("horizon", "open")), []).append(r)
    for (setup, horizon), g in groups.items():
        yield row(d["experiment"], f"{setup}, horizon {horizon}: every policy of the preset", g[0]["command"], src,
                  f"seed {flag(g[0]['command'], '--seed')} of {len(g)} (the table averages the {len(g)} seeds)",
                  seconds=g[0].get("seconds"))
    for r in d["sensitivity"]:
        yield row(d["experiment"] + " sensitivity", r["label"], r["command"], src,
                  f"one run (seed {flag(r['command'], '--seed')})", seconds=r.get("seconds"))
    src = "results/004/e43.json"
    d = load(src)
    for r in d["runs"]:
        yield row(d["experiment"], r["label"], r["command"], src, f"one run (seed {flag(r['command'], '--seed')})",
                  seconds=r.get("seconds"))


PAPERS = {"000": paper_000, "001": paper_001, "002": paper_002, "003": paper_003, "004": paper_004}


def write(paper):
    rows = list(PAPERS[paper]())
    out = f"results/{paper}/links.json"
    with open(os.path.join(ROOT, out), "w") as f:
        json.dump(rows, f, indent=1, ensure_ascii=False)
        f.write("\n")
    linked = sum(r["link"] is not None for r in rows)
    print(f"findings_links: {out}: {len(rows)} rows, {linked} with a link", flush=True)


def main():
    papers = "all"
    if "--paper" in sys.argv:
        i = sys.argv.index("--paper")
        if i + 1 >= len(sys.argv):
            sys.exit("findings_links: --paper needs a value")
        papers = sys.argv[i + 1]
    wanted = list(PAPERS) if papers == "all" else [p.strip() for p in papers.split(",") if p.strip()]
    unknown = [p for p in wanted if p not in PAPERS]
    if unknown:
        sys.exit(f"findings_links: unknown paper(s) {', '.join(unknown)} (expected {', '.join(PAPERS)} or all)")
    os.chdir(ROOT)
    if not os.path.exists(BIN):
        sys.exit(f"findings_links: {BIN} is missing: run `make native` first")
    for p in wanted:
        write(p)


if __name__ == "__main__":
    main()
