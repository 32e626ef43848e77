#!/bin/sh
# Reproduces data/checkpoints/book_run.pth (the `book` preset's run, which chapter 18 loads on a
# live page instead of training it again) from the repository root:
# `sh data/checkpoints/make_book_run.sh` (about a minute on one CPU core). The preset runs one
# thread with seed 0, so this gives the run the book's build trains, number for number.
set -e
PY=${PY:-.venv/bin/python}
OUT=${OUT:-runs/book_run}
$PY -m formulated.training --preset book --out "$OUT" --overwrite --no-progress --sample 0 \
  --data data/tinyshakespeare.txt
cp "$OUT/ckpt.pt" data/checkpoints/book_run.pth
