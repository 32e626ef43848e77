"""Which chapter covers which part of the sources (appendix D).

:data:`COVERAGE` lists, for every chapter of the book, the sections of the five sources it
treats, named in the book's own words.  Appendix D renders it two ways (by chapter and by source),
and ``tests/test_coverage.py`` checks it against ``_toc.yml``: every chapter named here exists,
and every chapter of the book is named here.

Sources are named by their ids in :data:`formulated.sources.SOURCES` (``"000"`` … ``"004"``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath

from .sources import SOURCES

__all__ = [
    "Coverage",
    "COVERAGE",
    "SOURCE_TITLES",
    "coverage_by_chapter",
    "coverage_by_source",
]

#: The sources and their titles: the package's one list (:data:`formulated.sources.SOURCES`).
SOURCE_TITLES = SOURCES


@dataclass(frozen=True)
class Coverage:
    """One chapter and the source sections it covers.

    chapter:  the chapter's file without suffix, as in ``_toc.yml`` (``"chapters/05_notation_shapes"``).
    sections: source number -> the sections of that source the chapter treats (our words).
    note:     what the chapter covers when it is not a source section (a preface, a tool).
    """

    chapter: str
    sections: dict[str, tuple[str, ...]] = field(default_factory=dict)
    note: str = ""

    @property
    def doc(self) -> str:
        """The name a ``{doc}`` role uses from another chapter (``"05_notation_shapes"``)."""
        return PurePosixPath(self.chapter).name


def _c(chapter: str, note: str = "", **sections: tuple[str, ...]) -> Coverage:
    return Coverage(
        f"chapters/{chapter}",
        {k.removeprefix("s"): v for k, v in sections.items()},
        note,
    )


def _both(*items: str) -> dict[str, tuple[str, ...]]:
    """The same sections in 000 and 001 (the two versions share their boxes)."""
    return {"s000": items, "s001": items}


_GPT_BOTH = _both(
    "the GPT box",
    "de-embedding",
    "output rows as next-token conditionals",
    "the Definition's vocabulary “of s items”",
    "the Softmax box",
)
_GPT_000 = ("the second matrix Y, rows P(x_i | x_1 … x_n)",)  # 000 only; 001 drops it

COVERAGE: list[Coverage] = [
    _c("intro", note="how to read and run the book; 1-based math, 0-based code"),
    _c(
        "01_learning_from_data",
        s004=(
            "kinds of machine learning",
            "linear regression",
            "squared-error loss and convexity",
            "gradient descent",
        ),
    ),
    _c(
        "02_probability_information",
        s004=(
            "softmax",
            "one-hot encoding",
            "information content",
            "entropy",
            "cross-entropy and KL divergence",
        ),
    ),
    _c(
        "03_neural_networks",
        s004=(
            "deep networks and forward propagation",
            "sigmoid, tanh, ReLU and their derivatives",
            "backpropagation",
            "local and global minima",
        ),
    ),
    _c(
        "04_sequences",
        s004=(
            "word embeddings",
            "recurrent networks",
            "backpropagation through time",
            "vanishing and exploding gradients",
            "LSTM",
        ),
    ),
    _c(
        "05_notation_shapes",
        s002=(
            "dimensions and indexing",
            "element-wise and vector-wise operations",
            "the vocabulary",
            "the input sequence",
            "batches of sequences",
            "string-to-index and index-to-string maps",
        ),
        **_both("the letters used for every dimension (concordance)"),
        s003=("the letters used for every dimension (concordance)",),
        s004=("the letters used for every dimension (concordance)",),
    ),
    _c(
        "06_tokenization",
        s002=("Step 1: the corpus", "Step 2: vocabulary and tokenizer"),
        s003=(
            "byte-pair encoding, worked on low, lower, newest, widest",
            "vocabulary sizes of GPT-1, GPT-2 and GPT-3",
        ),
    ),
    _c(
        "07_embeddings_positions",
        **_both(
            "the OneHot, diag and Stack boxes", "the embedding line of the GPT box"
        ),
        s002=(
            "one-hot representation",
            "matrix multiplication",
            "embedding lookup and W_e",
            "positional encoding: sinusoidal and learned W_p",
            "the layer X′ = PE(X)",
            "dropout",
            "Steps 3 to 5",
        ),
        s003=("token plus position embedding",),
        s004=("input embedding", "positional encoding"),
    ),
    _c(
        "08_attention",
        **_both("the masked scaled dot-product attention box"),
        s002=("the general attention formula",),
        s004=(
            "queries, keys and values as retrieval",
            "the worked Q/K/V example",
            "attention scores",
            "attention's reference window (“infinite”)",
        ),
    ),
    _c(
        "09_masks",
        s000=("bidirectional and autoregressive mask boxes",),
        s001=(
            "bidirectional and autoregressive mask boxes",
            "GPT-3's alternating sparse mask",
        ),
        s002=("Step 7.3: masking",),
        s004=("look-ahead mask", "the masked-softmax example"),
    ),
    _c(
        "10_multi_head",
        **_both("the Concat and masked multi-head self-attention boxes"),
        s002=(
            "multi-head notation",
            "shapes with batch and head axes",
            "Steps 7.1 to 7.4",
        ),
    ),
    _c(
        "11_ffn_gelu",
        **_both("the FFN_ReLU and FFN_GELU boxes (sigmoid form, 1.702)"),
        s002=(
            "position-wise feed-forward network",
            "GELU: exact and tanh approximation",
            "Steps 9 and 10",
        ),
        s003=("the feed-forward network of a decoder layer",),
    ),
    _c(
        "12_layernorm_residual",
        **_both("the LayerNorm box"),
        s002=(
            "layer normalization",
            "Steps 6, 8 and 11",
            "pre-LN versus post-LN",
            "the final LayerNorm",
        ),
        s004=("Add & Norm",),
    ),
    _c(
        "13_gpt",
        **{**_GPT_BOTH, "s000": _GPT_BOTH["s000"] + _GPT_000},
        s002=("iterating L decoder blocks", "the softmax layer"),
        s003=(
            "a single decoder layer",
            "GPT as an autoregressive model (the AR(p) equation)",
        ),
        s004=("the “Conversation Dialog” slide: generation one token at a time",),
    ),
    _c(
        "14_gpt2_gpt3",
        s000=("the GPT-2 box",),
        s001=("the GPT-2 and GPT-3 boxes",),
        s003=(
            "the table of GPT versions",
            "its training-data row (WebText, not OpenWebText)",
        ),
    ),
    _c(
        "15_bert_roberta",
        s000=(
            "the BERT box: segment embeddings with diag and Stack",
            "the BERT box's output, named GPT(x)",
        ),
        s001=(
            "BERT input construction: [CLS], [SEP], [MASK]",
            "the BERT and RoBERTa boxes",
        ),
        s003=("GPT versus BERT",),
    ),
    _c(
        "16_parameters",
        **_both(
            "the parameter set θ",
            "the parameter count λ",
            "hyperparameters (λ = 116,497,920)",
        ),
        s003=("the table of GPT versions",),
    ),
    _c(
        "17_training_objective",
        s000=("the loss", "the CrossEntropy box"),
        s001=("the loss", "statistical interpretation: GPT, BERT and XLNet objectives"),
        s002=(
            "autoregressive self-supervised learning",
            "likelihood",
            "cross-entropy loss",
            "Step 1: tokens “sampled i.i.d.”",
        ),
        s004=("cross-entropy",),
    ),
    _c(
        "18_train_tiny_gpt",
        note="every formula above, put to work: a tiny GPT trained on Tiny Shakespeare",
    ),
    _c(
        "19_inside_the_model",
        note="beyond the sources: attention of the trained model, a KV "
        "cache, top-p sampling, the real GPT-2",
    ),
    _c(
        "appendix_a_notation",
        s002=("the table of notations, in full (extended to all sources)",),
    ),
    _c(
        "appendix_b_errata",
        note="every error found in the sources, with the computed correction",
    ),
    _c(
        "appendix_c_instructors",
        note="student notebooks and autograders from the chapters",
    ),
    _c("appendix_d_coverage", note="this map"),
    _c("appendix_e_api", note="reference of the formulated package"),
    _c(
        "appendix_f_concordance", note="Phuong & Hutter's algorithms mapped to the book"
    ),
]


def _check_keys() -> None:
    for c in COVERAGE:
        unknown = set(c.sections) - set(SOURCE_TITLES)
        if unknown:
            raise ValueError(
                f"COVERAGE: {c.chapter} names unknown sources {sorted(unknown)}"
            )
        if not c.sections and not c.note:
            raise ValueError(
                f"COVERAGE: {c.chapter} has neither source sections nor a note"
            )


def coverage_by_chapter() -> str:
    """MyST Markdown table: one row per chapter, one column per source (``{doc}`` links)."""
    _check_keys()
    head = ["chapter"] + [f"`{k}`" for k in SOURCE_TITLES]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in COVERAGE:
        if c.sections:
            # A "|" inside a section name (P(x_i | x_1 … x_n)) would end the table cell.
            cells = [
                "; ".join(c.sections.get(k, ())).replace("|", "\\|") or "—"
                for k in SOURCE_TITLES
            ]
        else:
            cells = [f"*{c.note}*"] + [""] * (len(SOURCE_TITLES) - 1)
        lines.append("| " + " | ".join([f"{{doc}}`{c.doc}`"] + cells) + " |")
    return "\n".join(lines)


def coverage_by_source() -> str:
    """MyST Markdown: for each source, its sections and the chapter that covers each."""
    _check_keys()
    out: list[str] = []
    for key, title in SOURCE_TITLES.items():
        out += [f"**`{key}` — {title}**", ""]
        for c in COVERAGE:
            for section in c.sections.get(key, ()):
                out.append(f"- {section} → {{doc}}`{c.doc}`")
        out.append("")
    return "\n".join(out)
