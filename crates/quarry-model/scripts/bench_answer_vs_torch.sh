#!/usr/bin/env bash
# CodeQA answer generator: quarry (examples/answer_bench.rs) and PyTorch + transformers
# (scripts/bench_answer_torch.py, the authors' model.py) on the same model shape, weights,
# token ids, batch and thread count, one after the other in the same run. Prints both
# results, the ratios and how many generated answers agree.
# Usage: crates/quarry-model/scripts/bench_answer_vs_torch.sh MODEL_DIR CODEQA_PREFIX [THREADS]
# (from the workspace root; settings as in examples/answer_bench.rs)
set -euo pipefail
model_dir=$1; prefix=$2; threads=${3:-2}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
bin=${ANSWER_BENCH_BIN:-target/release/examples/answer_bench}
[ -n "${ANSWER_BENCH_BIN:-}" ] || cargo build --release -p quarry-model --example answer_bench >&2
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
candle=$(RAYON_NUM_THREADS=$threads "$bin" "$model_dir" "$prefix" "$work/ids.json")
torch=$(OMP_NUM_THREADS=$threads python3 "$here/bench_answer_torch.py" "$model_dir" "$work/ids.json" "$threads" 2>/dev/null)
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
python3 - "$candle" "$torch" <<'PY'
import json, sys
c, t = json.loads(sys.argv[1]), json.loads(sys.argv[2])
c_answers, t_answers = c.pop("answers"), t.pop("answers")
same = sum(a == b for a, b in zip(c_answers, t_answers))
print(json.dumps(c)); print(json.dumps(t))
print(f"train step time ratio (quarry/pytorch): {c['train_step_s'] / t['train_step_s']:.2f}")
print(f"generation throughput ratio (quarry/pytorch, answers/s): {c['answers_per_s'] / t['answers_per_s']:.2f}")
print(f"identical generated answers (same weights): {same} of {len(c_answers)}")
PY
rm -rf "$work"
