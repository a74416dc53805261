#!/usr/bin/env python3
"""Decode a bank's stage interval logs (OUT/histograms/*.hlog) with an independent
HdrHistogram implementation -- the Python `hdrhistogram` package (module `hdrh`) --
and check them against the manifest: the `write` log counts one value per row, so
its total must equal the rows the run wrote; the `expand` log counts one value per
block of rows, so its total lies between 1 and the rows written.

Usage: scripts/check-hlog.py OUT [--rows N]
  --rows N  rows made by the run that wrote the logs (default: the manifest's total;
            pass it for a resumed run, whose logs cover only the resumed part).
Exit 0 when every check holds, 1 otherwise. Installs `hdrhistogram` from PyPI into
target/pydeps on first use if it is not importable.
"""
import importlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PYDEPS = os.path.join(HERE, "..", "target", "pydeps")


def import_hdrh():
    sys.path.insert(0, PYDEPS)
    try:
        import hdrh.histogram  # noqa: F401
    except ImportError:
        subprocess.check_call(
            [sys.executable, "-m", "pip", "install", "--quiet", "--target", PYDEPS, "hdrhistogram==0.10.*"],
            stdout=sys.stderr,
        )
        importlib.invalidate_caches()
    from hdrh.histogram import HdrHistogram
    from hdrh.log import HistogramLogReader
    return HdrHistogram, HistogramLogReader


def main(argv):
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    out = argv[0]
    with open(os.path.join(out, "manifest.json")) as f:
        manifest = json.load(f)
    rows = int(argv[argv.index("--rows") + 1]) if "--rows" in argv else manifest["rows"]
    HdrHistogram, HistogramLogReader = import_hdrh()
    ok = True
    hist_dir = os.path.join(out, "histograms")
    for stage in ["fill", "carve", "canon", "expand", "write"]:
        path = os.path.join(hist_dir, stage + ".hlog")
        reader = HistogramLogReader(path, HdrHistogram(1, 3_600_000_000_000, 3))
        total = HdrHistogram(1, 3_600_000_000_000, 3)
        intervals = 0
        while True:
            h = reader.get_next_interval_histogram()
            if h is None:
                break
            intervals += 1
            total.add(h)
        count = total.get_total_count()
        p50 = total.get_value_at_percentile(50) / 1000.0
        p99 = total.get_value_at_percentile(99) / 1000.0
        line = f"{stage:<7} intervals={intervals:<4} count={count:<10} p50={p50:.1f}us p99={p99:.1f}us"
        if stage == "write":
            good = count == rows
            ok &= good
            line += f"  rows={rows} {'ok' if good else 'MISMATCH'}"
        elif stage == "expand":
            good = 0 < count <= rows
            ok &= good
            line += f"  blocks<=rows={rows} {'ok' if good else 'MISMATCH'}"
        elif intervals == 0:
            ok = False
            line += "  EMPTY"
        print(line)
    print("hlog check: " + ("passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
