#!/usr/bin/env bash
# Runs the candle and PyTorch MiniLM benchmarks with the same thread count, one after the
# other in the same run, and prints both results and the ratios (candle / PyTorch).
# Usage: scripts/bench_vs_torch.sh MODEL_DIR [THREADS] [ITERS]   (from the workspace root)
set -euo pipefail
model_dir=$1
threads=${2:-2}
iters=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
cargo build --release -p quarry-model --example bench >&2
candle=$(RAYON_NUM_THREADS=$threads OMP_NUM_THREADS=$threads ./target/release/examples/bench "$model_dir" "$iters")
torch=$(OMP_NUM_THREADS=$threads python3 "$here/bench_torch.py" "$model_dir" "$threads" "$iters" 2>/dev/null)
echo "$candle"
echo "$torch"
python3 - "$candle" "$torch" <<'PY'
import json, sys
c, t = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"forward throughput ratio (candle/pytorch): {c['forward_tokens_per_s'] / t['forward_tokens_per_s']:.2f}")
print(f"train step time ratio (candle/pytorch): {c['train_step_s'] / t['train_step_s']:.2f}")
PY
