#!/usr/bin/env bash
# Runs one libFuzzer target (or all of them, one after another) for a while; any crash, sanitizer report,
# timeout or memory blow-up fails the run and leaves the input in build-asan/findings/TARGET/.
#
#   scripts/fuzz.sh TARGET [SECONDS]      TARGET: one of the names below, or "all"; SECONDS: 60 by default
#   scripts/fuzz.sh --list
#
# Installs what is missing (scripts/install-deps.sh: clang and its fuzzer runtime among it), configures the
# `asan` preset and builds its fuzz targets, and runs the target over its seeds (fuzz/corpus/TARGET, read
# only) and the corpus it grows (build-asan/corpus/TARGET), with its dictionary (fuzz/dict) where it has one. The final line of each run
# gives executions, coverage and corpus size (libFuzzer's own figures). XPS_FUZZ_SEED=N fixes libFuzzer's
# random seed (CI does, so a run is the same run every time); unset, each run explores anew.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(trace_json xasm container chrome_json xspace chakra_et chakra_json replay stablehlo)
dictionary_of() {
  case "$1" in
    trace_json) echo fuzz/dict/trace_json.dict ;;
    xasm | replay) echo fuzz/dict/xasm.dict ;;
    chrome_json) echo fuzz/dict/chrome_json.dict ;;
    chakra_json) echo fuzz/dict/chakra_json.dict ;;
    stablehlo) echo fuzz/dict/stablehlo.dict ;;
    *) echo "" ;;
  esac
}

usage() {
  echo "usage: scripts/fuzz.sh TARGET [SECONDS]   (TARGET: ${targets[*]} | all)" >&2
  exit 2
}

[ $# -ge 1 ] || usage
if [ "$1" = "--list" ]; then
  printf '%s\n' "${targets[@]}"
  exit 0
fi
target=$1
seconds=${2:-60}
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] || { echo "fuzz.sh: SECONDS must be a positive whole number, got '$seconds'" >&2; exit 2; }
if [ "$target" != all ] && [[ ! " ${targets[*]} " =~ " $target " ]]; then
  echo "fuzz.sh: unknown target '$target'" >&2
  usage
fi

# clang 14 and its runtimes (libFuzzer, ASan, UBSan), and what the build needs: only what is missing.
./scripts/install-deps.sh

# The asan preset's build: core and sim instrumented once for the sanitizer suites and the fuzz targets.
cmake --preset asan >/dev/null
cmake --build --preset asan --target $(printf 'fuzz_%s ' "${targets[@]}")

# A sanitizer report names the function that failed, not only the library header it failed in.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

run_one() {
  local name=$1
  local binary=build-asan/fuzz/fuzz_$name
  local work=build-asan/corpus/$name findings=build-asan/findings/$name
  mkdir -p "$work" "$findings"
  local dict args=()
  dict=$(dictionary_of "$name")
  [ -n "$dict" ] && args+=("-dict=$dict")
  [ -n "${XPS_FUZZ_SEED:-}" ] && args+=("-seed=$XPS_FUZZ_SEED")
  echo "== fuzz_$name for ${seconds} s"
  # -timeout: one input running 10 s is a hang; -rss_limit_mb / -malloc_limit_mb: a memory bomb is a
  # finding, not a slow machine. Seeds are read from fuzz/corpus (never written); new inputs go to $work.
  if ! "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=3072 -malloc_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$findings/" "${args[@]}" "$work" "fuzz/corpus/$name" \
      >"$findings/log.txt" 2>&1; then
    tail -n 60 "$findings/log.txt" >&2
    echo "fuzz.sh: fuzz_$name found a problem: the input is in $findings/ (replay: $binary FILE)" >&2
    # CI's machine is gone after the run: its log is all that remains, so it carries the input itself.
    local input
    for input in "$findings"/crash-* "$findings"/leak-* "$findings"/timeout-* "$findings"/oom-*; do
      [ -f "$input" ] || continue
      if [ "$(stat -c %s "$input")" -le 262144 ]; then
        echo "fuzz.sh: $input, gzip + base64 (recreate: base64 -d | gunzip > FILE):" >&2
        gzip -9c "$input" | base64 -w 120 >&2
      fi
    done
    return 1
  fi
  # The last status line: "#N DONE cov: C ft: F corp: K/S ..." and the final stats' executions.
  grep -E "^#[0-9]+[[:space:]]+DONE" "$findings/log.txt" | tail -n 1 | sed "s/^/fuzz_$name: /"
}

status=0
if [ "$target" = all ]; then
  # Two at a time: each target runs for its seconds of wall time on a core of its own, so a 2-core machine
  # (CI's) gives every one the same time as one after another, in half the wall time.
  pids=()
  for t in "${targets[@]}"; do
    run_one "$t" &
    pids+=($!)
    if [ ${#pids[@]} -eq 2 ]; then
      wait "${pids[0]}" || status=1
      pids=("${pids[1]}")
    fi
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
else
  run_one "$target" || status=1
fi
exit $status
