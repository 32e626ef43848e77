"""The book's notation, in one place (chapter 5, appendix A).

- :mod:`~formulated.notation.symbols` -- the book's table of symbols (:data:`NOTATION`): every
  symbol with its code name, shape and meaning, and the letter each source uses for it;
  chapter 5's concordance and appendix A are rendered from it.
- :mod:`~formulated.notation.source_002` -- source 002's "Table of Notations", row by row,
  with the book's symbol for each, and the check that the two shapes agree.
- :mod:`~formulated.notation.shapes` -- the shape tracer through one GPT-2 block
  (:func:`trace_gpt_block`), which writes every shape in the book's letters.

This face exports the three modules' public names.
"""

from __future__ import annotations

from .shapes import (
    GPTBlockParams,
    TraceStep,
    format_trace,
    gpt2_reference,
    random_block_params,
    symbolic_shape,
    trace_gpt_block,
)
from .source_002 import TABLE_002, TRANSLATION, Row002, shape_mismatches, table_002
from .symbols import NOTATION, SOURCE_KEYS, Symbol, notation_table

__all__ = [
    "SOURCE_KEYS",
    "Symbol",
    "NOTATION",
    "notation_table",
    "Row002",
    "TABLE_002",
    "TRANSLATION",
    "shape_mismatches",
    "table_002",
    "symbolic_shape",
    "GPTBlockParams",
    "random_block_params",
    "TraceStep",
    "trace_gpt_block",
    "format_trace",
    "gpt2_reference",
]
