#!/usr/bin/env bash
# The CodeQA answer-generation benchmark run (not a test): trains the encoder-decoder on the
# released Python dev split, generates answers for the Python test split, computes the two
# floors (most frequent train answer, BM25 nearest train question) and scores all three with
# CodeQA's scorers. Everything goes to RUN_DIR; the log is RUN_DIR/log.txt.
#
# Usage: crates/quarry-model/scripts/codeqa_answer_run.sh MINILM_DIR CODEQA_PYTHON_DIR RUN_DIR
# Settings (environment): EPOCHS BATCH LR MAX_SOURCE MAX_TARGET DECODER_LAYERS DECODER_FFN
# FREEZE_ENCODER (1: --freeze-encoder) VALID (dev pairs held out for validation) TRAIN_LIMIT
# (train on the first N of the rest) TEST_LIMIT (answer the first N test questions) BEAM
# QUARRY (binary) QUARRY_METEOR_JAR.
set -euo pipefail
minilm=${1:?MINILM_DIR}; data=${2:?CODEQA_PYTHON_DIR}; run=${3:?RUN_DIR}
EPOCHS=${EPOCHS:-2}; BATCH=${BATCH:-16}; LR=${LR:-5e-5}
MAX_SOURCE=${MAX_SOURCE:-128}; MAX_TARGET=${MAX_TARGET:-24}
DECODER_LAYERS=${DECODER_LAYERS:-6}; DECODER_FFN=${DECODER_FFN:-2048}
VALID=${VALID:-200}; BEAM=${BEAM:-4}; FREEZE_ENCODER=${FREEZE_ENCODER:-0}
TRAIN_LIMIT=${TRAIN_LIMIT:-0}; TEST_LIMIT=${TEST_LIMIT:-0}
QUARRY=${QUARRY:-target/debug/quarry}
mkdir -p "$run"
exec > >(tee -a "$run/log.txt") 2>&1
echo "== $(date -u +%FT%TZ) codeqa answer run: epochs $EPOCHS batch $BATCH lr $LR source $MAX_SOURCE target $MAX_TARGET decoder ${DECODER_LAYERS}x$DECODER_FFN freeze $FREEZE_ENCODER valid $VALID train-limit $TRAIN_LIMIT test-limit $TEST_LIMIT beam $BEAM; load: $(cut -d' ' -f1-3 /proc/loadavg)"

# Dev split: all but the last VALID pairs train, the last VALID validate (best by loss).
n=$(awk 'END{print NR}' "$data/dev.code")
ntrain=$((n - VALID)); [ "$TRAIN_LIMIT" -gt 0 ] && [ "$TRAIN_LIMIT" -lt "$ntrain" ] && ntrain=$TRAIN_LIMIT
ntest=$(awk 'END{print NR}' "$data/test.code"); [ "$TEST_LIMIT" -gt 0 ] && [ "$TEST_LIMIT" -lt "$ntest" ] && ntest=$TEST_LIMIT
for f in code question answer; do
  head -n "$ntrain" "$data/dev.$f" > "$run/train.$f"
  tail -n "$VALID" "$data/dev.$f" > "$run/valid.$f"
  head -n "$ntest" "$data/test.$f" > "$run/test.$f"
done

if [ ! -f "$run/model/best/model.safetensors" ]; then
  time "$QUARRY" train answer --train "$run/train" --valid "$run/valid" --model "$minilm" --out "$run/model" \
    --epochs "$EPOCHS" --batch-size "$BATCH" --lr "$LR" --max-len "$MAX_SOURCE" --max-target-len "$MAX_TARGET" \
    --decoder-layers "$DECODER_LAYERS" --decoder-ffn "$DECODER_FFN" --weight-decay 0 \
    $([ "$FREEZE_ENCODER" = 1 ] && echo --freeze-encoder) 2>&1 \
    | tr '\r' '\n' | awk '!/^epoch [0-9]+ \[/ || ++k % 25 == 0 { print strftime("%H:%M:%S"), $0; fflush() }'

fi

time "$QUARRY" generate answer --model "$run/model/best" --data "$run/test" --beam "$BEAM" --out "$run/test.hyp"

# Floors from the same training pairs the model saw, on the same test questions.
cargo run --quiet -p quarry-cli --example codeqa_floors -- "$run/train" "$run/test" "$run"

for h in test most_frequent bm25; do
  echo "-- $h"
  "$QUARRY" evaluate answer --hyp "$run/$h.hyp" --ref "$run/test.answer"
done
echo "== $(date -u +%FT%TZ) done"
