"""The published sizes of the models the book discusses: the one table of them.

Chapters 14 and 16, the parameter-count widget, the notation table and the errata read these
rows; none of them writes the numbers again.  Each row gives the hyperparameters in the book's
letters (``L, H, A, F, V, n_ctx``; ``D = H / A``), which pieces the real model adds to the
source's count λ (attention biases, a final LayerNorm), the parameter count its authors
published, and where that number is published.

The published counts are the authors' rounded figures, not recomputed ones: GPT-2's paper gives
117M for its smallest model, which counts 124M (:func:`formulated.models.parameter_count` or
``transformers`` give 124,439,808; OpenAI later corrected the figure).  Chapter 14 recomputes
every size and checks it against ``transformers``; ``tests/test_sizes.py`` does the same.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ModelSize", "SIZES", "BOOK_MODELS", "size"]


@dataclass(frozen=True)
class ModelSize:
    """One published model: its hyperparameters in the book's letters and its published size.

    name:             the name the book uses (``"GPT-2 small"``).
    family:           ``"GPT"``, ``"GPT-2"``, ``"GPT-3"``, ``"BERT"`` or ``"RoBERTa"``.
    year:             year of publication.
    L, H, A, F:       layers, model width, heads, feed-forward width.
    V, n_ctx:         vocabulary size, context size (positions).
    attention_biases: the real model has the attention biases that λ omits.
    final_layer_norm: the real model has a LayerNorm after the last block (GPT-2, GPT-3).
    published:        the parameter count as the authors published it (rounded).
    source:           where that count and these sizes are published.
    """

    name: str
    family: str
    year: int
    L: int
    H: int
    A: int
    F: int
    V: int
    n_ctx: int
    attention_biases: bool
    final_layer_norm: bool
    published: int
    source: str

    @property
    def D(self) -> int:
        """Width of one head, ``H / A``."""
        return self.H // self.A

    def dimensions(self) -> dict[str, int]:
        """The sizes as keyword arguments of :func:`~formulated.models.parameter_count`:
        ``V, n, H, F, D, A, L`` (``n`` is the context size ``n_ctx``)."""
        return dict(
            V=self.V, n=self.n_ctx, H=self.H, F=self.F, D=self.D, A=self.A, L=self.L
        )

    def parameter_count(self) -> int:
        """λ of {prf:ref}`def-16-lambda` with the pieces this model adds.

        Exact for the decoders (GPT, GPT-2, GPT-3); BERT and RoBERTa also have segment
        embeddings and a pooler, which λ does not count.
        """
        from .params import (
            parameter_count,  # here, not at the top: params does not need sizes
        )

        return parameter_count(
            **self.dimensions(),
            attention_biases=self.attention_biases,
            final_ln=self.final_layer_norm,
        )


_GPT2_PAPER = (
    "Radford et al. 2019, Language Models are Unsupervised Multitask Learners, Table 2"
)
#: GPT-2's paper gives each model's layers, width and count (Table 2) but not its heads; the
#: heads come from the configurations OpenAI released with the models (``hparams.json``).
_GPT2_SIZES = (
    _GPT2_PAPER + "; heads: OpenAI's released GPT-2 configurations (hparams.json)"
)
_GPT3_PAPER = "Brown et al. 2020, Language Models are Few-Shot Learners, Table 2.1"
_BERT_PAPER = "Devlin et al. 2019, BERT, section 3"
_ROBERTA = "Liu et al. 2019, RoBERTa (fairseq release: roberta.base, roberta.large)"


def _gpt2(name: str, L: int, H: int, A: int, published: int) -> ModelSize:
    return ModelSize(
        name,
        "GPT-2",
        2019,
        L,
        H,
        A,
        4 * H,
        50257,
        1024,
        True,
        True,
        published,
        _GPT2_SIZES,
    )


def _gpt3(name: str, L: int, H: int, A: int, published: int) -> ModelSize:
    return ModelSize(
        name,
        "GPT-3",
        2020,
        L,
        H,
        A,
        4 * H,
        50257,
        2048,
        True,
        True,
        published,
        _GPT3_PAPER,
    )


_ROWS = [
    # GPT-1's paper gives the sizes but no count; GPT-2's paper lists 117M for the same sizes.
    ModelSize(
        "GPT-1",
        "GPT",
        2018,
        12,
        768,
        12,
        3072,
        40478,
        512,
        True,
        False,
        117_000_000,
        "Radford et al. 2018, Improving Language Understanding by Generative Pre-Training, "
        "section 4.1; count: " + _GPT2_PAPER,
    ),
    _gpt2("GPT-2 small", 12, 768, 12, 117_000_000),
    _gpt2("GPT-2 medium", 24, 1024, 16, 345_000_000),
    _gpt2("GPT-2 large", 36, 1280, 20, 762_000_000),
    _gpt2("GPT-2 XL", 48, 1600, 25, 1_542_000_000),
    # The GPT-3 family as its paper lists it, less two rows whose heads do not fill the width:
    # XL (width 2,048, 24 heads of 128 = 3,072) and 13B (width 5,140, 40 heads of 128 = 5,120).
    _gpt3("GPT-3 Small", 12, 768, 12, 125_000_000),
    _gpt3("GPT-3 Medium", 24, 1024, 16, 350_000_000),
    _gpt3("GPT-3 Large", 24, 1536, 16, 760_000_000),
    _gpt3("GPT-3 2.7B", 32, 2560, 32, 2_700_000_000),
    _gpt3("GPT-3 6.7B", 32, 4096, 32, 6_700_000_000),
    _gpt3("GPT-3 175B", 96, 12288, 96, 175_000_000_000),
    ModelSize(
        "BERT-base",
        "BERT",
        2018,
        12,
        768,
        12,
        3072,
        30522,
        512,
        True,
        False,
        110_000_000,
        _BERT_PAPER,
    ),
    ModelSize(
        "BERT-large",
        "BERT",
        2018,
        24,
        1024,
        16,
        4096,
        30522,
        512,
        True,
        False,
        340_000_000,
        _BERT_PAPER,
    ),
    # RoBERTa's 514 positions: two rows before the first real position (pad_id + 1 = 2).
    ModelSize(
        "RoBERTa-base",
        "RoBERTa",
        2019,
        12,
        768,
        12,
        3072,
        50265,
        514,
        True,
        False,
        125_000_000,
        _ROBERTA,
    ),
    ModelSize(
        "RoBERTa-large",
        "RoBERTa",
        2019,
        24,
        1024,
        16,
        4096,
        50265,
        514,
        True,
        False,
        355_000_000,
        _ROBERTA,
    ),
]

#: Every published size, by name, in the order of publication within each family.
SIZES: dict[str, ModelSize] = {row.name: row for row in _ROWS}

#: The models of the book's tables and figures (chapter 14's versions, chapter 16's figure and
#: the parameter-count widget's presets), in the order they are shown.
BOOK_MODELS: tuple[str, ...] = (
    "GPT-1",
    "GPT-2 small",
    "GPT-2 medium",
    "GPT-2 large",
    "GPT-2 XL",
    "GPT-3 175B",
    "BERT-base",
)


def size(name: str) -> ModelSize:
    """The row of :data:`SIZES` called ``name``, with a clear error for an unknown name."""
    if name not in SIZES:
        raise ValueError(f"name: expected one of {sorted(SIZES)}, got {name!r}")
    return SIZES[name]
