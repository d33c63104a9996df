#!/usr/bin/env python3
"""Runs `xpushark-cli check` over the StableHLO project's own test modules and counts what passes.

The modules are not in this repository: point the script at a checkout of openxla/stablehlo (or the
shared folder's copy) with --root or XPS_STABLEHLO_DIR. Prints the pass count, the count per element type
(from JAX's file names: float32, int8, ...) and the failures grouped by their reason, the file:line:column
and numbers taken out so that one reason is one line. docs/stablehlo.md quotes its output.

    scripts/check-stablehlo.py --root ../shared/stablehlo 'testdata/*.mlir'
    scripts/check-stablehlo.py 'testdata/*float32*' -- --engine reference
"""

import argparse
import collections
import concurrent.futures
import glob
import os
import re
import subprocess
import sys

TYPES = ["bfloat16", "float16", "float32", "float64", "complex64", "complex128", "bool",
         "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64"]


def element_type(name):
    """The first element type a JAX test module's name mentions, or 'other'."""
    found = [(name.find(t), t) for t in TYPES if re.search(r"(^|_)" + t + r"(_|\.|$)", name)]
    return min(found)[1] if found else "other"


def family(name):
    """The op a JAX test module tests: its name up to the first element type ('scatter_add', 'cumsum')."""
    stem = name[:-5] if name.endswith(".mlir") else name
    cut = [m.start() for t in TYPES for m in [re.search(r"_" + t + r"(_|$)", stem)] if m]
    return stem[:min(cut)] if cut else stem


def reason(output):
    """One line saying why a check failed: the first error line, without location and numbers."""
    lines = [l for l in output.splitlines() if l.strip()]
    line = next((l for l in lines if "error" in l.lower() or "unsupported" in l or "no lowering" in l),
                lines[0] if lines else "no output")
    line = re.sub(r"^\S+\.mlir:\d+:\d+:\s*", "", line)
    line = re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "N", line)
    return line[:160]


def run(cli, path, extra, timeout):
    try:
        p = subprocess.run([cli, "check", path] + extra, capture_output=True, text=True, timeout=timeout)
        return path, p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return path, -1, "timed out after %d s" % timeout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pattern", nargs="?", default="testdata/*.mlir", help="glob under the root")
    ap.add_argument("extra", nargs="*", help="arguments after -- go to check")
    ap.add_argument("--root", default=os.environ.get("XPS_STABLEHLO_DIR", "../shared/stablehlo"))
    ap.add_argument("--cli", default=os.environ.get("XPS_CLI", "build/app/xpushark-cli"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--list", action="store_true", help="print each failing file with its reason")
    ap.add_argument("--families", type=int, default=0, metavar="N",
                    help="print the N op families with the most modules, passed of total")
    args = ap.parse_args()
    files = sorted(glob.glob(os.path.join(args.root, args.pattern)))
    if not files:
        sys.exit("no modules match %s under %s" % (args.pattern, args.root))
    passed = collections.Counter()
    total = collections.Counter()
    family_passed = collections.Counter()
    family_total = collections.Counter()
    reasons = collections.Counter()
    crashed = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for path, rc, output in pool.map(lambda f: run(args.cli, f, args.extra, args.timeout), files):
            name = os.path.basename(path)
            kind = element_type(name)
            total[kind] += 1
            family_total[family(name)] += 1
            if rc == 0:
                passed[kind] += 1
                family_passed[family(name)] += 1
                continue
            if rc not in (1, 2):
                crashed.append("%s: exit %d" % (name, rc))
            why = reason(output)
            reasons[why] += 1
            if args.list:
                print("%s: %s" % (name, why))
    print("passed %d of %d (%s)" % (sum(passed.values()), len(files), args.pattern))
    for kind in sorted(total, key=lambda k: -total[k]):
        print("  %-10s %4d of %4d" % (kind, passed[kind], total[kind]))
    if args.families:
        print("by op family:")
        for fam, n in family_total.most_common(args.families):
            print("  %-28s %4d of %4d" % (fam, family_passed[fam], n))
    print("failures by reason:")
    for why, n in reasons.most_common():
        print("  %5d  %s" % (n, why))
    for c in crashed:
        print("CRASHED OR TIMED OUT: " + c)
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
