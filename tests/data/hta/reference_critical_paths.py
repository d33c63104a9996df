#!/usr/bin/env python3
# The reference numbers of tst_real_profiles' criticalPathsAreHtas: Holistic Trace Analysis's critical path
# of a trace, whole or one step, in microseconds by HTA's "bound_by" classes. Not run by the build or CI
# (nothing downloads); to recompute them, with a checkout of HTA at the commit SOURCE.md names and pandas,
# networkx, plotly, pydot and psutil installed (Debian: python3-pandas python3-networkx python3-plotly
# python3-pydot python3-psutil):
#
#   PYTHONPATH=path/to/HolisticTraceAnalysis python3 reference_critical_paths.py FILE [STEP]
#
# e.g. sampled_training/rank-0.json.gz ProfilerStep#551. Every step is kept (include_last_profiler_step):
# by default HTA leaves out the last ProfilerStep, which the profiler often cuts short. HTA rounds every event
# of a nanosecond trace inward to whole microseconds; HTA_DISABLE_NS_ROUNDING=1 in the environment turns that
# off (the test's numbers for the nccl trace; it does nothing to a trace in whole microseconds).
import contextlib
import io
import json
import logging
import os
import shutil
import sys
import tempfile

from hta.trace_analysis import TraceAnalysis

logging.disable(logging.CRITICAL)
trace, step = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
with tempfile.TemporaryDirectory() as d:
    shutil.copy(trace, os.path.join(d, os.path.basename(trace)))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        t = TraceAnalysis(trace_dir=d, include_last_profiler_step=True)
        rank = sorted(t.t.traces.keys())[0]
        graph, ok = t.critical_path_analysis(rank=rank, annotation=step, instance_id=0 if step else None)
        edges = graph.get_critical_path_breakdown()
    edges["bound_by"] = edges["bound_by"].fillna("")
    print(json.dumps({"ok": bool(ok), "length_us": float(edges.duration.sum()),
                      "bound_by_us": {k: float(v) for k, v in edges.groupby("bound_by").duration.sum().items() if k}}))
