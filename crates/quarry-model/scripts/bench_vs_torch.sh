#!/usr/bin/env bash
# Runs the quarry (candle) and PyTorch MiniLM benchmarks with the same thread count, one
# after the other in the same run, each phase (forward, training step) in a process of its
# own so that the peak resident memory reported is that phase's; prints every result and
# the ratios (quarry / PyTorch).
# Usage: scripts/bench_vs_torch.sh MODEL_DIR [THREADS] [ITERS]   (from the workspace root)
# QUARRY_BENCH_PROFILE=dev uses the dev build (candle at opt-level 3, quarry-model at 2)
# where a release build of candle is too slow to make.
set -euo pipefail
model_dir=$1
threads=${2:-2}
iters=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
profile=${QUARRY_BENCH_PROFILE:-release}
if [ "$profile" = release ]; then
  cargo build --release -p quarry-model --example bench >&2
  bench=./target/release/examples/bench
else
  cargo build -p quarry-model --example bench >&2
  bench=./target/debug/examples/bench
fi
# The machine's load while the benchmark runs (other work slows both sides, PyTorch's
# OpenMP threads more than candle's): printed before and after.
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
results=()
for phase in forward train; do
  results+=("$(RAYON_NUM_THREADS=$threads OMP_NUM_THREADS=$threads "$bench" "$model_dir" "$iters" $phase)")
  results+=("$(OMP_NUM_THREADS=$threads python3 "$here/bench_torch.py" "$model_dir" "$threads" "$iters" $phase 2>/dev/null)")
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s\n' "${results[@]}"
python3 - "${results[@]}" <<'PY'
import json, sys
cf, tf, ct, tt = (json.loads(a) for a in sys.argv[1:5])
print(f"forward: {cf['forward_tokens_per_s']} vs {tf['forward_tokens_per_s']} tokens/s, "
      f"throughput ratio (quarry/pytorch) {cf['forward_tokens_per_s'] / tf['forward_tokens_per_s']:.2f}; "
      f"peak memory {cf['peak_rss_mib']} vs {tf['peak_rss_mib']} MiB")
print(f"train step: {ct['train_step_s']} vs {tt['train_step_s']} s, "
      f"time ratio (quarry/pytorch) {ct['train_step_s'] / tt['train_step_s']:.2f}; "
      f"peak memory {ct['peak_rss_mib']} vs {tt['peak_rss_mib']} MiB")
print(f"train step CPU time (all threads): {ct['train_step_cpu_s']} vs {tt['train_step_cpu_s']} s, "
      f"ratio (quarry/pytorch) {ct['train_step_cpu_s'] / tt['train_step_cpu_s']:.2f}")
PY
