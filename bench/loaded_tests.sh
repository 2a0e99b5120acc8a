#!/usr/bin/env bash
# The GUI tests under load: two busy processes (`while True: pass`, pinned to the cores when taskset exists) run
# beside the app tests, RUNS times (default 3); the busy processes are stopped by PID. Prints each run's result
# and exits 1 if any run failed. Usage: bench/loaded_tests.sh [RUNS] [pytest args instead of tests/app]
set -uo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
shift || true
args=("$@")
[ ${#args[@]} -eq 0 ] && args=(tests/app)
export QT_QPA_PLATFORM=offscreen

busy=()
start_busy() {
  local cpus
  cpus=$(nproc)
  for k in 0 1; do
    if command -v taskset >/dev/null; then
      taskset -c $((k % cpus)) python -c "while True: pass" &
    else
      python -c "while True: pass" &
    fi
    busy+=($!)
  done
  echo "busy processes: ${busy[*]} (pinned: $(command -v taskset >/dev/null && echo yes || echo no))"
}
stop_busy() {
  for pid in "${busy[@]}"; do
    kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  done
  busy=()
}
trap stop_busy EXIT INT TERM

failed=0
start_busy
for run in $(seq 1 "$RUNS"); do
  log=$(mktemp -t percviz-loaded-XXXX.txt)
  t0=$(date +%s)
  python -m pytest -q -p no:cacheprovider "${args[@]}" >"$log" 2>&1
  rc=$?
  summary=$(tail -n 1 "$log")
  echo "run $run: exit $rc in $(( $(date +%s) - t0 )) s: $summary (log: $log)"
  grep -E '^(FAILED|ERROR) ' "$log" | sed 's/^/    /'
  [ "$rc" -ne 0 ] && failed=$((failed + 1))
done
stop_busy
echo "$failed of $RUNS loaded runs failed"
[ "$failed" -eq 0 ]
