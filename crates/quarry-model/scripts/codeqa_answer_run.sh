#!/usr/bin/env bash
# The CodeQA answer-generation benchmark run (not a test): trains the encoder-decoder on the
# released Python dev split, generates answers for the Python test split, computes the two
# floors (most frequent train answer, BM25 nearest train question) and scores all three with
# CodeQA's scorers. Everything goes to RUN_DIR; the log is RUN_DIR/log.txt.
#
# Usage: crates/quarry-model/scripts/codeqa_answer_run.sh MINILM_DIR CODEQA_PYTHON_DIR RUN_DIR
# Settings (environment): EPOCHS BATCH LR WARMUP MAX_SOURCE MAX_TARGET DECODER_LAYERS DECODER_FFN
# FREEZE_ENCODER (1: --freeze-encoder; 2: also --freeze-embeddings --cache-encoder-outputs,
# the encoder runs once per source and only the decoder trains) VALID (dev pairs held out for
# validation) TRAIN_LIMIT (train on the first N of the rest) TEST_LIMIT (answer the first N
# test questions) BEAM QUARRY (binary) QUARRY_METEOR_JAR NICE (niceness of the long steps, 10)
# INIT (start training from this model directory instead of MINILM_DIR: a checkpoint of an
# earlier run, e.g. a decoder trained over the frozen encoder, fine-tuned further; the
# checkpoint keeps its decoder shape and lengths, the freeze settings come from this run)
# DECODER_INIT (random, or encoder: decoder layer i starts as a copy of encoder layer i)
# SELECT (best: the beam's most probable answer; expected-f1: minimum Bayes risk over the
# beam's candidates) SELECT_TEMPERATURE (of expected-f1, 4). A RUN_DIR that already holds
# model/best skips training: the same model answers again with other decoding settings.
set -euo pipefail
minilm=${1:?MINILM_DIR}; data=${2:?CODEQA_PYTHON_DIR}; run=${3:?RUN_DIR}
EPOCHS=${EPOCHS:-2}; BATCH=${BATCH:-16}; LR=${LR:-5e-5}; WARMUP=${WARMUP:-0}; NICE=${NICE:-10}
MAX_SOURCE=${MAX_SOURCE:-128}; MAX_TARGET=${MAX_TARGET:-24}
DECODER_LAYERS=${DECODER_LAYERS:-6}; DECODER_FFN=${DECODER_FFN:-2048}
VALID=${VALID:-200}; BEAM=${BEAM:-4}; FREEZE_ENCODER=${FREEZE_ENCODER:-0}
TRAIN_LIMIT=${TRAIN_LIMIT:-0}; TEST_LIMIT=${TEST_LIMIT:-0}; INIT=${INIT:-$minilm}; DECODER_INIT=${DECODER_INIT:-random}
SELECT=${SELECT:-best}; SELECT_TEMPERATURE=${SELECT_TEMPERATURE:-4}
QUARRY=${QUARRY:-target/debug/quarry}
mkdir -p "$run"
exec > >(tee -a "$run/log.txt") 2>&1
echo "== $(date -u +%FT%TZ) codeqa answer run: epochs $EPOCHS batch $BATCH lr $LR warmup $WARMUP source $MAX_SOURCE target $MAX_TARGET decoder ${DECODER_LAYERS}x$DECODER_FFN freeze $FREEZE_ENCODER valid $VALID train-limit $TRAIN_LIMIT test-limit $TEST_LIMIT beam $BEAM select $SELECT temperature $SELECT_TEMPERATURE init $INIT decoder-init $DECODER_INIT; load: $(cut -d' ' -f1-3 /proc/loadavg)"

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
  case "$FREEZE_ENCODER" in
    1) freeze=(--freeze-encoder) ;;
    2) freeze=(--freeze-encoder --freeze-embeddings --cache-encoder-outputs) ;;
    *) freeze=() ;;
  esac
  time nice -n "$NICE" "$QUARRY" train answer --train "$run/train" --valid "$run/valid" --model "$INIT" --out "$run/model" \
    --epochs "$EPOCHS" --batch-size "$BATCH" --lr "$LR" --warmup-steps "$WARMUP" --max-len "$MAX_SOURCE" --max-target-len "$MAX_TARGET" \
    --decoder-layers "$DECODER_LAYERS" --decoder-ffn "$DECODER_FFN" --decoder-init "$DECODER_INIT" --weight-decay 0 \
    "${freeze[@]}" 2>&1 \
    | tr '\r' '\n' | awk '!/^epoch [0-9]+ \[/ || ++k % 25 == 0 { print strftime("%H:%M:%S"), $0; fflush() }'

fi

# Words are written in their usual form in the training answers (an uncased model says "yes").
time nice -n "$NICE" "$QUARRY" generate answer --model "$run/model/best" --data "$run/test" --beam "$BEAM" \
  --select "$SELECT" --select-temperature "$SELECT_TEMPERATURE" --case-from "$run/train.answer" --out "$run/test.hyp"

# Floors from the same training pairs the model saw, on the same test questions.
if [ -n "${FLOORS:-}" ]; then "$FLOORS" "$run/train" "$run/test" "$run"
else cargo run --quiet -p quarry-cli --example codeqa_floors -- "$run/train" "$run/test" "$run"; fi

for h in test most_frequent bm25; do
  echo "-- $h"
  "$QUARRY" evaluate answer --hyp "$run/$h.hyp" --ref "$run/test.answer"
done
# The scores of the first 500 test questions too (those of the earlier, shorter runs).
if [ "$ntest" -gt 500 ]; then
  head -n 500 "$run/test.answer" > "$run/test.500.answer"
  for h in test most_frequent bm25; do
    head -n 500 "$run/$h.hyp" > "$run/$h.500.hyp"
    echo "-- $h, first 500"
    "$QUARRY" evaluate answer --hyp "$run/$h.500.hyp" --ref "$run/test.500.answer"
  done
fi
echo "== $(date -u +%FT%TZ) done"
