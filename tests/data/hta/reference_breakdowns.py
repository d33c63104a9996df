#!/usr/bin/env python3
# The reference numbers of tst_real_profiles' breakdownsAreHtas: Holistic Trace Analysis's temporal
# breakdown, communication/computation overlap, idle time breakdown per stream and kernel launch statistics
# of a trace. Not run by the build or CI (nothing downloads); to recompute them, with a checkout of HTA at
# the commit SOURCE.md names and pandas, networkx, plotly, pydot and psutil installed (Debian: python3-pandas
# python3-networkx python3-plotly python3-pydot python3-psutil):
#
#   HTA_DISABLE_NS_ROUNDING=1 PYTHONPATH=path/to/HolisticTraceAnalysis python3 reference_breakdowns.py FILE
#
# HTA rounds every event of a nanosecond trace inward to whole microseconds; HTA_DISABLE_NS_ROUNDING=1 turns
# that off (the test's numbers for the nccl trace), and it does nothing to a trace in whole microseconds.
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
trace = sys.argv[1]
with tempfile.TemporaryDirectory() as d:
    shutil.copy(trace, os.path.join(d, os.path.basename(trace)))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        t = TraceAnalysis(trace_dir=d, include_last_profiler_step=True)
        temporal = t.get_temporal_breakdown(visualize=False)
        overlap = t.get_comm_comp_overlap(visualize=False)
        idle, _ = t.get_idle_time_breakdown(visualize=False, show_idle_interval_stats=True)
        launches = list(t.get_cuda_kernel_launch_stats(visualize=False).values())[0]
streams = {}
for _, row in idle.iterrows():
    s = streams.setdefault(int(row.stream), {"idle_us": 0.0})
    s["idle_us"] += float(row.idle_time)
    s[row.idle_category + "_us"] = float(row.idle_time)
print(json.dumps({
    "temporal": temporal.to_dict(orient="records"),
    "comp_comm_overlap_pctg": [float(v) for v in overlap.comp_comm_overlap_pctg],
    "streams": streams,
    "launches": int(len(launches)),
    "gpu_shorter_than_cpu": int((launches.gpu_duration < launches.cpu_duration).sum()),
    "launch_delay_mean_us": float(launches.launch_delay.mean()),
}, default=str, indent=1))
