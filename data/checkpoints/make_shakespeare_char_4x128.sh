#!/bin/sh
# Reproduces data/checkpoints/shakespeare_char_4x128.pth (chapter 19's model) from the repository
# root: `sh data/checkpoints/make_shakespeare_char_4x128.sh` (about 25 min on one busy CPU core).
# Every hyper-parameter is explicit, so a retuned `cpu` preset does not change the result.
# 2000 steps of the cosine schedule (val 1.702), then 400 more steps at the schedule's end.
set -e
PY=${PY:-.venv/bin/python}
OUT=${OUT:-runs/shakespeare_char_4x128}
$PY -m formulated.training --preset cpu --out "$OUT" --overwrite --no-progress --sample 0 \
  --n_ctx 256 --L 4 --A 4 --H 128 --F 512 --dropout 0.0 --eps 1e-5 --gelu erf \
  --B 8 --max_steps 2000 --lr 3e-3 --min_lr 1e-4 --warmup_steps 50 --weight_decay 0.1 \
  --beta1 0.9 --beta2 0.99 --grad_clip 1.0 --optimizer adamw --muon_lr 0.02 \
  --eval_interval 500 --ckpt_interval 500 --log_interval 100 --eval_batch 64 \
  --data data/tinyshakespeare.txt --val_fraction 0.1 --seed 0 --device cpu --compile off \
  --amp off --threads 1
$PY -m formulated.training --out "$OUT" --resume --no-progress --sample 0 --max_steps 2400 \
  --eval_interval 400 --ckpt_interval 400 --threads 1
$PY -c "import sys; from formulated.analysis import export_weights; export_weights(sys.argv[1], 'data/checkpoints/shakespeare_char_4x128.pth', 'sh data/checkpoints/make_shakespeare_char_4x128.sh')" "$OUT"
