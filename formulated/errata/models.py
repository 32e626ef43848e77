"""Errata of chapters 13–16 (GPT, GPT-2 and GPT-3, BERT and RoBERTa, parameters): 000, 001, 003.

Each check takes a value (the source's or the corrected one) and recomputes the truth
independently, mostly with ``transformers``: small random models whose probabilities the
book's NumPy models must reproduce (:func:`formulated.models.hf.omission_effects` measures what
each omission of a box changes), and parameter counts of the real architectures.  Published
sizes come from :mod:`formulated.models.sizes`.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable

import numpy as np

from .record import Erratum

__all__ = ["ERRATA", "DEFINITION_SYMBOLS", "CORPORA", "GPT2_AUTHORS", "GPT3_MIX"]

_CH13, _CH14, _CH15, _CH16 = ("chapters/13_gpt", "chapters/14_gpt2_gpt3",
                              "chapters/15_bert_roberta", "chapters/16_parameters")


def _definition_letters() -> dict[str, str]:
    """The dimension letters 000 and 001 define (theirs -> the book's), from the notation table
    of appendix A (:func:`formulated.errata.block.box_letters`)."""
    from .block import box_letters

    letters = box_letters("000")
    if letters != box_letters("001"):
        raise AssertionError("000 and 001 define different letters in the notation table")
    return letters


#: The letters 000 and 001 define for their hyperparameters (from the notation table).
DEFINITION_SYMBOLS = tuple(_definition_letters())

#: Where the corpora named in 003's table come from: who built each, and its size.  WebText:
#: built by GPT-2's authors, Radford et al., "Language Models are Unsupervised Multitask Learners"
#: (2019), section 2.1.  OpenWebText: Gokaslan and Cohen's open re-creation of WebText from that
#: paper's description.  Books1 and Books2: the GPT-3 paper (Brown et al. 2020), Table 2.2, 12
#: and 55 billion tokens.  BooksCorpus: Zhu et al. (2015), about 0.98 billion words.
CORPORA = {
    "WebText": dict(builders="OpenAI"),
    "OpenWebText": dict(builders="Gokaslan and Cohen"),
    "BooksCorpus": dict(builders="Zhu et al.", billions_of_words=0.98),
    "Books1": dict(builders="OpenAI", billions_of_tokens=12),
    "Books2": dict(builders="OpenAI", billions_of_tokens=55),
}
#: GPT-2's authors, who describe building its training set in the GPT-2 paper (section 2.1).
GPT2_AUTHORS = "OpenAI"
#: GPT-3's training mix, Table 2.2 of its paper: name -> (billions of tokens, weight in the mix).
GPT3_MIX = {"Common Crawl (filtered)": (410, 0.60), "WebText2": (19, 0.22),
            "Books1": (12, 0.08), "Books2": (55, 0.08), "Wikipedia": (3, 0.03)}


@lru_cache(maxsize=None)
def _effects(kind: str) -> dict[str, float]:
    """Max |Δ| of the NumPy model's probabilities from ``transformers``', per box variant."""
    from ..models import hf

    return hf.omission_effects(kind)


def box_variant_is_wrong(kinds: tuple[str, ...]) -> Callable[[str], bool]:
    """A check: does the box variant (``"none"``: the real model; else the omission applied)
    reproduce the ``transformers`` models ``kinds`` (max |Δ| of the probabilities < 1e-9)?"""
    def check(variant: str) -> bool:
        return any(_effects(k)[variant] > 1e-9 for k in kinds)

    check.__doc__ = (f"Wrong when the variant's probabilities differ from those of the "
                     f"transformers models {kinds} (see hf.omission_effects).")
    return check


def vocabulary_size_is_wrong(size: Callable[[dict[str, int]], int]) -> bool:
    """Is ``size(letters)`` the number of items GPT's output distribution ranges over?

    ``letters`` are the ones the sources define (:data:`DEFINITION_SYMBOLS`); an undefined letter
    (``s``) raises ``KeyError``.  The truth: the width of a ``transformers`` GPT-2's output.
    """
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    V = 11
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=V, n_positions=8, n_embd=8, n_layer=1,
                                       n_head=2, bos_token_id=0, eos_token_id=0)).eval()
    with torch.no_grad():
        width = model(torch.zeros(1, 3, dtype=torch.long)).logits.shape[-1]
    values = {"n": 3, "V": V, "H": 8, "A": 2, "D": 4, "F": 32, "L": 1}
    try:
        return size({k: values[b] for k, b in _definition_letters().items()}) != width
    except KeyError:
        return True


def softmax_width_is_wrong(width: Callable[[np.ndarray, int], int]) -> bool:
    """Summing over the first ``width(X, H)`` columns, is the box's softmax ``torch.softmax`` on
    the matrices it is applied to: scores ``n × n`` and logits ``n × V`` (n = 5, H = 8, V = 11)?"""
    import torch

    rng = np.random.default_rng(0)
    H = 8
    for X in (rng.normal(size=(5, 5)), rng.normal(size=(5, 11))):
        k = width(X, H)
        if k > X.shape[1]:
            return True  # the sum runs over columns the matrix does not have
        e = np.exp(X)
        if not np.allclose(e / e[:, :k].sum(axis=1, keepdims=True),
                           torch.softmax(torch.from_numpy(X), -1).numpy()):
            return True
    return False


def conditioning_is_wrong(given: Callable[[int, int], set[int]]) -> bool:
    """Does row i of GPT's Y condition on the (1-based) positions ``given(i, n)``?

    Measured on a small random ``transformers`` GPT-2: row i depends on token j when changing
    x_j moves it.  Wrong when the measured set differs for some row.
    """
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    n, V = 5, 11
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=V, n_positions=8, n_embd=8, n_layer=1,
                                       n_head=2, bos_token_id=0, eos_token_id=0)).double().eval()
    x = torch.tensor([[3, 1, 4, 1, 5]])
    with torch.no_grad():
        Y = torch.softmax(model(x).logits[0], -1)
        moved = []
        for j in range(n):
            x2 = x.clone()
            x2[0, j] = (x2[0, j] + 1) % V
            moved.append((torch.softmax(model(x2).logits[0], -1) - Y).abs().amax(-1) > 1e-12)
    depends = torch.stack(moved, dim=1)                     # depends[i, j]: row i on token j
    return any({j + 1 for j in range(n) if depends[i, j]} != given(i + 1, n) for i in range(n))


def sparse_mask_is_wrong(mask: str | None) -> bool:
    """Does GPT-3's box with ``mask`` in its odd layers reproduce GPT-Neo (``transformers``)?

    ``"banded"`` is the book's locally banded mask; ``None`` (001 defines no Mask^ST) leaves
    the only mask the box defines, the dense autoregressive one, in every layer.
    """
    from ..models import Config, gpt2_probabilities, gpt3_probabilities, hf

    cfg = Config(V=40, n_ctx=12, H=16, A=4, L=2)
    model = hf.tiny_model("gpt-neo", cfg, window=3)
    params, opts = hf.from_gpt_neo(model)
    x = np.arange(2, 12)
    if mask == "banded":
        Y = gpt3_probabilities(x, params, **opts)
    elif mask is None:
        Y = gpt2_probabilities(x, params, gelu=opts["gelu"], eps=opts["eps"])
    else:
        raise ValueError(f"mask: expected 'banded' or None, got {mask!r}")
    return not bool(np.abs(Y - hf.hf_probabilities(model, x)).max() < 1e-6)


def mask_shape_is_wrong(shape: Callable[[int, int], tuple[int, int]]) -> bool:
    """Does a mask of ``shape(n, H)`` fit ``torch``'s attention over n = 5 tokens of width H = 8?"""
    import torch

    n, H = 5, 8
    Q = K = V = torch.zeros(1, 2, n, H // 2)
    try:
        mask = torch.zeros(shape(n, H))
        torch.nn.functional.scaled_dot_product_attention(Q, K, V, attn_mask=mask)
    except RuntimeError:
        return True
    return False


def _gpt2_count(L: int, H: int, A: int) -> int:
    import torch
    import transformers as T

    with torch.device("meta"):  # shapes only
        return sum(p.numel() for p in T.GPT2Model(T.GPT2Config(n_embd=H, n_layer=L, n_head=A))
                   .parameters())


def gpt2_column_is_wrong(column: tuple[int, int, int, float, float]) -> bool:
    """Is ``(L, H, A, low, high)`` one published GPT-2 (:mod:`formulated.models.sizes`) whose
    ``transformers`` parameter count lies in [low, high]?"""
    from ..models.sizes import SIZES

    L, H, A, low, high = column
    published = any((s.L, s.H, s.A) == (L, H, A) for s in SIZES.values() if s.family == "GPT-2")
    return not (published and low <= _gpt2_count(L, H, A) <= high)


def mlm_head_count_is_wrong(extra: Callable[[int, int], int]) -> bool:
    """Is ``extra(H, V)`` the number of parameters the masked-LM head adds to BERT and RoBERTa?

    Counted on ``transformers``' ``BertForMaskedLM`` / ``RobertaForMaskedLM`` minus the encoder
    without pooler (tied output matrix counted once), for small random configurations.
    """
    import torch
    import transformers as T

    def count(model) -> int:
        return sum(p.numel() for p in model.parameters())  # a shared tensor counts once

    for H, V in ((16, 40), (32, 50)):
        kw = dict(vocab_size=V, hidden_size=H, num_hidden_layers=1, num_attention_heads=2,
                  intermediate_size=4 * H, max_position_embeddings=16)
        with torch.device("meta"):
            heads = [count(T.BertForMaskedLM(T.BertConfig(**kw)))
                     - count(T.BertModel(T.BertConfig(**kw), add_pooling_layer=False)),
                     count(T.RobertaForMaskedLM(T.RobertaConfig(**kw)))
                     - count(T.RobertaModel(T.RobertaConfig(**kw), add_pooling_layer=False))]
        if any(h != extra(H, V) for h in heads):
            return True
    return False


def gpt1_count_is_wrong(count: int) -> bool:
    """Is ``count`` the number of parameters of ``transformers``' ``OpenAIGPTModel`` (GPT-1)?"""
    import torch
    import transformers as T

    with torch.device("meta"):
        real = sum(p.numel() for p in T.OpenAIGPTModel(T.OpenAIGPTConfig()).parameters())
    return count != real


def gpt2_data_is_wrong(name: str) -> bool:
    """Can ``name`` be the corpus GPT-2 was trained on?  Read from :data:`CORPORA`: GPT-2's paper
    describes building its training set, so it must be a corpus built by GPT-2's authors
    (:data:`GPT2_AUTHORS`); a re-creation built by others afterwards cannot be it."""
    corpus = CORPORA.get(name)
    if corpus is None:
        raise ValueError(f"name: expected one of {sorted(CORPORA)}, got {name!r}")
    return corpus["builders"] != GPT2_AUTHORS


def gpt3_books_are_wrong(names: tuple[str, ...]) -> bool:
    """Are ``names`` the corpora of GPT-3's training mix (:data:`GPT3_MIX`, its paper's Table
    2.2), and can each book corpus supply the tokens the mix draws from books?

    BooksCorpus (about 0.98 billion words, :data:`CORPORA`) cannot supply Books1's 12 or
    Books2's 55 billion tokens at any rate under 4 tokens per word.
    """
    if abs(sum(w for _, w in GPT3_MIX.values()) - 1) > 0.02:     # the table's weights, rounded
        raise AssertionError("GPT3_MIX: the weights do not add up to 1")
    mix_books = sum(t for k, (t, _) in GPT3_MIX.items() if k.startswith("Books"))
    named_books = [CORPORA[k] for k in names if k.startswith("Books")]
    supply = sum(c.get("billions_of_tokens") or 4 * c["billions_of_words"] for c in named_books)
    return supply < mix_books or set(names) != set(GPT3_MIX)


def position_rows_are_wrong(rows: Callable[[int, int], int]) -> bool:
    """Is ``rows(n, n_ctx)`` the number of rows of GPT's position matrix W_p for an input of n
    tokens?  One ``transformers`` GPT-2 (n_ctx = 8) reads inputs of 3 and of 8 tokens with the
    same position table; wrong when the claimed rows differ from that table's for some n."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    n_ctx = 8
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=11, n_positions=n_ctx, n_embd=8, n_layer=1,
                                       n_head=2, bos_token_id=0, eos_token_id=0)).eval()
    table = model.transformer.wpe.weight
    for n in (3, n_ctx):
        with torch.no_grad():
            model(torch.zeros(1, n, dtype=torch.long))    # runs: this table serves every n
        if rows(n, n_ctx) != table.shape[0]:
            return True
    return False


def layer_count_is_wrong(last: Callable[[int], int]) -> bool:
    """003 numbers the layers from k = 0 (X^(0) the embeddings, X^(k+1) = Y^(k)) and takes
    Z = Y^(K).  With ``K = last(L)`` for a model of L layers, is Z the output of ``transformers``'
    GPT (``OpenAIGPTModel``, post-LN like 003's layer)?  A layer the model lacks is wrong."""
    import torch
    from transformers import OpenAIGPTConfig, OpenAIGPTModel

    L = 2
    torch.manual_seed(0)
    model = OpenAIGPTModel(OpenAIGPTConfig(vocab_size=11, n_positions=8, n_embd=8, n_layer=L,
                                           n_head=2, embd_pdrop=0.0, attn_pdrop=0.0,
                                           resid_pdrop=0.0)).eval()
    ids = torch.tensor([[3, 1, 4, 1, 5]])
    with torch.no_grad():
        out = model(ids, output_hidden_states=True)
        X = out.hidden_states[0]                            # X^(0): the embeddings
        K = last(L)
        for k in range(K + 1):                              # layers k = 0, ..., K
            if k >= len(model.h):
                return True                                 # the model has no layer k
            X = model.h[k](X)[0]                            # Y^(k) = X^(k+1)
    return not bool(torch.allclose(X, out.last_hidden_state, atol=1e-6))


def bert_output_name_is_wrong(name: str) -> bool:
    """Is the BERT box's output a ``"GPT"`` output (a next-token distribution, which depends on
    earlier tokens only) or a ``"BERT"`` one (the masked token given the whole sequence)?

    Measured on a small ``transformers`` ``BertForMaskedLM``: the output row j_masked moves when
    a token *after* j_masked changes, which no GPT(x) row does.
    """
    import torch
    from transformers import BertConfig, BertForMaskedLM

    if name not in ("GPT", "BERT"):
        raise ValueError(f"name: expected 'GPT' or 'BERT', got {name!r}")
    torch.manual_seed(0)
    model = BertForMaskedLM(BertConfig(vocab_size=20, hidden_size=8, num_hidden_layers=1,
                                       num_attention_heads=2, intermediate_size=16,
                                       max_position_embeddings=16)).eval()
    x, j = torch.tensor([[2, 5, 4, 7, 3]]), 2               # 4 = [MASK] at position j
    later = x.clone()
    later[0, j + 1] = 9
    with torch.no_grad():
        moved = (model(x).logits[0, j] - model(later).logits[0, j]).abs().max().item() > 1e-9
    return (name == "GPT") == moved


def _xl_column() -> tuple[int, int, int, float, float]:
    """GPT-2 XL's row of :mod:`formulated.models.sizes`, with the notes' "1.5B" to 1.6B."""
    from ..models.sizes import size

    xl = size("GPT-2 XL")
    return (xl.L, xl.H, xl.A, 1.5e9, 1.6e9)


def mixed_gpt2_count() -> int:
    """Parameters of 003's GPT-2 column (48 layers, width 1,024, 16 heads; GPT-2's V, n_ctx,
    biases and final LayerNorm), by the book's formula (checked against ``transformers`` in
    chapter 14)."""
    from ..models import parameter_count
    from ..models.sizes import size

    dims = {**size("GPT-2 XL").dimensions(), "H": 1024, "F": 4096, "D": 64, "A": 16, "L": 48}
    return parameter_count(**dims, attention_biases=True, final_layer_norm=True)


def _lambda(with_biases: bool) -> int:
    from ..models import parameter_count
    from ..models.sizes import size

    return parameter_count(**size("GPT-1").dimensions(), attention_biases=with_biases)


ERRATA: list[Erratum] = [
    Erratum(
        key="s-items", sources=("000", "001"), section="Definition (GPT)",
        says=r"each symbol is a number from $\{1, \ldots, V\}$, its id \"in a pre-specified "
             r"vocabulary consisting of $s$ items\"",
        correct=r"the vocabulary has $V$ items (the ids run over $\{1, \ldots, V\}$, and "
                r"$\text{GPT}(\bm{x}) \in [0, 1]^V$); the letter $s$ is defined nowhere",
        chapter=_CH13, stated=lambda hp: hp["s"], true=lambda hp: hp["V"],
        check=vocabulary_size_is_wrong),
    Erratum(
        key="softmax-box-width", sources=("000", "001"), section="Softmax box",
        says=r"$\text{Softmax} : \R^{n \times H} \to [0, 1]^{n \times H}$, "
             r"$\text{Softmax}(\bm{X})_{i,j} = e^{X_{i,j}} / \sum_{k=1}^{H} e^{X_{i,k}}$",
        correct=r"the boxes apply it to $n \times n$ scores and $n \times V$ logits: the sum runs "
                r"over the columns of whatever matrix it is given, "
                r"$\sum_{k=1}^{m} e^{X_{i,k}}$ for $\bm{X} \in \R^{n \times m}$",
        chapter=_CH13, stated=lambda X, H: H, true=lambda X, H: X.shape[1],
        check=softmax_width_is_wrong),
    Erratum(
        key="000-second-y-matrix", sources=("000",), section="Definition (after the objective)",
        says=r"a second $\bm{Y}$ with rows $P_\theta(x_i \mid x_1, \ldots, x_n)$, "
             r"$i = 1, \ldots, n$, each conditioned on the whole sequence",
        correct=r"GPT's $\bm{Y}$ is the first matrix: row $i$ is "
                r"$P_\theta(x_{i+1} \mid x_1, \ldots, x_i)$ and depends on $x_1, \ldots, x_i$ "
                r"only (the mask); conditioned on the whole sequence, $x_i$ would be known. "
                r"Rows conditioned on the whole (masked) input belong to BERT",
        chapter=_CH13, stated=lambda i, n: set(range(1, n + 1)),
        true=lambda i, n: set(range(1, i + 1)), check=conditioning_is_wrong),
    Erratum(
        key="wp-n-rows", sources=("000", "001"), section="GPT and GPT-2 boxes (after the boxes)",
        says=r"$\bm{W}_p \in \R^{n \times H}$, with $n$ the length of the input.",
        correct=r"$\bm{W}_p \in \R^{n_\text{ctx} \times H}$: one table, fixed by the "
                r"architecture (512 rows for GPT, 1,024 for GPT-2), of which an input of "
                r"$n \le n_\text{ctx}$ tokens uses the first $n$ rows.",
        chapter=_CH13, stated=lambda n, n_ctx: n, true=lambda n, n_ctx: n_ctx,
        check=position_rows_are_wrong),
    Erratum(
        key="003-layer-index", sources=("003",), section="Single Layer",
        says=r"$\mathcal{X}^{(0)} = \text{Embeddings}(\text{Tokens})$, "
             r"$\mathcal{X}^{(k+1)} = \mathcal{Y}^{(k)}$, and the decoder's output is "
             r"$\mathcal{Z} = \mathcal{Y}^{(K)}$; $K$ is never defined.",
        correct=r"With the layers numbered from $k = 0$, $\mathcal{Z} = \mathcal{Y}^{(K)}$ "
                r"is right only if $K$ is the number of layers *minus one* (11 for GPT-1's 12). "
                r"Read as the number of layers (as the book's notation table reads it, $K$ for "
                r"$L$), the chain runs one layer more than the model has. Either "
                r"$\mathcal{Z} = \mathcal{Y}^{(K-1)}$ or layers numbered $k = 1, \ldots, K$.",
        chapter=_CH13, stated=lambda L: L, true=lambda L: L - 1, check=layer_count_is_wrong),
    Erratum(
        key="gpt3-sparse-mask-undefined", sources=("001",), kind="omission",
        section="GPT-3 box",
        says=r"$\text{Mask}^{(l)} = \text{Mask}^\text{ST}$ for odd $l$; "
             r"$\text{Mask}^\text{ST}$ is never defined.",
        correct=r"GPT-3 alternates dense layers with *locally banded* sparse attention (after "
                r"the Sparse Transformer): query $i$ attends to keys $j$ with "
                r"$0 \le i - j < w$. The band width $w$ is not published; GPT-Neo, which copies "
                "the alternation, uses the same pattern, and our banded mask equals its local mask.",
        chapter=_CH14, stated=None, true="banded", check=sparse_mask_is_wrong),
    Erratum(
        key="gpt3-mask-shape", sources=("001",), section="GPT-3 box (shape column)",
        says=r"$\text{Mask}^{(l)}$ is annotated $(n \times H)$.",
        correct=r"A mask has one entry per (query, key) pair: $n \times n$.",
        chapter=_CH14, stated=lambda n, H: (n, H), true=lambda n, H: (n, n),
        check=mask_shape_is_wrong),
    Erratum(
        key="versions-gpt2-mixed", sources=("003",), section="Version table (GPT-2 column)",
        says="GPT-2: embedding dimension 1,024, 48 decoder layers, 16 heads, 1.5B~15B parameters.",
        correct="Width 1,024 with 16 heads is GPT-2 Medium (24 layers, 355M parameters); 48 layers "
                "is GPT-2 XL (width 1,600, 25 heads, 1.56B). The mixed column would have "
                f"{mixed_gpt2_count():,} parameters (≈ {mixed_gpt2_count() / 1e9:.2f}B), and no GPT-2 "
                "has 15B.",
        chapter=_CH14, stated=(48, 1024, 16, 1.5e9, 15e9), true=_xl_column(),
        check=gpt2_column_is_wrong),
    Erratum(
        key="003-gpt2-training-data", sources=("003",),
        section="Version table (\"Traning Data\" row, GPT-2)",
        says="GPT-2 was trained on OpenWebText.",
        correct="GPT-2 was trained on WebText, OpenAI's own scrape of pages linked from Reddit "
                "(never released); OpenWebText is the open re-creation of it that others built "
                "after GPT-2 appeared.",
        chapter=_CH14, stated="OpenWebText", true="WebText", check=gpt2_data_is_wrong),
    Erratum(
        key="003-gpt3-bookscorpus", sources=("003",),
        section="Version table (\"Traning Data\" row, GPT-3)",
        says="GPT-3 was trained on Common Crawl, WebText2, Wikipedia and BooksCorpus.",
        correct="The GPT-3 paper (Table 2.2) lists filtered Common Crawl, WebText2, two book "
                "corpora, Books1 and Books2 (12 and 55 billion tokens), and Wikipedia; it never "
                "names BooksCorpus, which with about 0.98 billion words could not supply either "
                "book corpus.",
        chapter=_CH14,
        stated=("Common Crawl (filtered)", "WebText2", "Wikipedia", "BooksCorpus"),
        true=tuple(GPT3_MIX), check=gpt3_books_are_wrong),
    Erratum(
        key="bert-ffn-relu", sources=("000",), section="BERT box",
        says=r"$\bm{X}_l = \text{LayerNorm}(\text{FFN}_\text{RELU}(\bm{X}_l') + \bm{X}_l')$.",
        correct=r"BERT's feed-forward network uses GELU (`hidden_act=\"gelu\"`, the erf form); "
                "the revision 001 corrects the box to $\\text{FFN}_\\text{GELU}$.",
        chapter=_CH15, stated="relu", true="none", check=box_variant_is_wrong(("bert",))),
    Erratum(
        key="000-bert-output-gpt", sources=("000",), section="BERT box (output)",
        says=r"$\text{GPT}(\bm{x}) = \bm{Y}_{j_\text{masked},:}$.",
        correct=r"The output is BERT's: the distribution of the masked token given the whole "
                r"corrupted sequence, $\text{BERT}(\bm{x})$, as 001 writes it. A "
                r"$\text{GPT}(\bm{x})$ row depends on earlier tokens only; this row also moves "
                r"when a later token changes.",
        chapter=_CH15, stated="GPT", true="BERT", check=bert_output_name_is_wrong),
    Erratum(
        key="bert-segment-labels", sources=("001",),
        section="BERT: input construction and box",
        says=r"$t_i = 0$ for $[\text{CLS}]$, $\bm{x}^A$ and the first $[\text{SEP}]$, and "
             r"$\bm{X}^{(0)} = \bm{X}'^{(0)} + \text{diag}(\bm{t})\,\text{Stack}_n(\bm{w}^A) + "
             r"\text{diag}(1-\bm{t})\,\text{Stack}_n(\bm{w}^B)$.",
        correct=r"A naming slip: with that $\bm{t}$ the vector called $\bm{w}^A$ is added to "
                r"sentence B. Both vectors are learned, so the model is the same with the names "
                r"swapped; but to load BERT's weights (token-type row 0 for sentence A) the "
                r"vector of $t_i = 0$ must be row 0. (000 does not say which sentence "
                r"$t_i = 0$ marks.)",
        chapter=_CH15, stated="segment_labels", true="none",
        check=box_variant_is_wrong(("bert",))),
    Erratum(
        key="bert-jmasked-range", sources=("001",), section="BERT box (input $j^\\text{masked}$)",
        says=r"$j^\text{masked} \in \{1, 2, \ldots, n_A + n_B\}$.",
        correct=r"$\bm{x}'$ has $n = n_A + n_B + 3$ positions; the sentence tokens are at "
                r"$2, \ldots, n_A + 1$ and $n_A + 3, \ldots, n_A + n_B + 2$. The box's range "
                r"contains $[\text{CLS}]$ and misses the end of $\bm{x}^B$.",
        chapter=_CH15, stated=lambda n_A, n_B: set(range(1, n_A + n_B + 1)),
        true=lambda n_A, n_B: set(range(2, n_A + 2)) | set(range(n_A + 3, n_A + n_B + 3)),
        check=lambda positions: _jmasked_is_wrong(positions)),
    Erratum(
        key="bert-embedding-layernorm", sources=("000", "001"), kind="omission",
        section="BERT and RoBERTa boxes (embedding)",
        says=r"$\bm{X}^{(0)}$ is the sum of token, position (and segment) embeddings.",
        correct=r"BERT and RoBERTa normalise that sum: "
                r"$\bm{X}^{(0)} = \text{LayerNorm}_e(\ldots)$, with its own "
                r"$\bm{\gamma}_e, \bm{\beta}_e$.",
        chapter=_CH15, stated="embedding_layernorm", true="none",
        check=box_variant_is_wrong(("bert", "roberta"))),
    Erratum(
        key="bert-mlm-head", sources=("000", "001"), kind="omission",
        section="BERT and RoBERTa boxes (output)",
        says=r"$\text{Softmax}(\bm{X}^{(L)}_{j,:} \bm{W}_e^\top)$: no head, so no parameters "
             r"beyond the encoder and $\bm{W}_e$.",
        correct=r"The masked-LM head first transforms the row, "
                r"$\text{LayerNorm}_t(\text{GELU}(\bm{x}\bm{W}_t + \bm{b}_t))$, and adds an output "
                r"bias: $\text{Softmax}(\ldots\bm{W}_e^\top + \bm{b}_\text{out})$; "
                r"$H^2 + 3H + V$ more parameters ($H^2 + H$ for the transform, $2H$ for its "
                r"LayerNorm, $V$ for the bias: 344 for $H = 16$, $V = 40$).",
        chapter=_CH15, stated=lambda H, V: 0,
        true=lambda H, V: H * H + 3 * H + V, check=mlm_head_count_is_wrong),
    Erratum(
        key="lambda-omits-biases", sources=("000", "001"), kind="omission",
        section="Parameters (λ) and Hyperparameters",
        says=r"$\lambda = 116\,497\,920$ for GPT-1.",
        correct=r"That is what the formula gives, but the real GPT-1 has 116,534,784 "
                r"parameters: $\lambda$ leaves out the attention biases, "
                r"$L(3AD + H) = 36\,864$. GPT-2 small has 124,439,808 (biases and the "
                "final LayerNorm included, output matrix tied to $\\bm{W}_e$).",
        chapter=_CH16, stated=_lambda(False), true=_lambda(True), check=gpt1_count_is_wrong),
]


def _jmasked_is_wrong(positions: Callable[[int, int], set[int]]) -> bool:
    """Is ``positions(n_A, n_B)`` the set of 1-based positions of the sentence tokens in
    ``x' = ([CLS], x^A, [SEP], x^B, [SEP])``, as :func:`formulated.models.bert_input` builds it
    (checked against ``transformers``' BERT in ``tests/test_models.py``)?"""
    from ..models import bert_input

    for n_A, n_B in ((2, 3), (4, 1)):
        _, _, x = bert_input([5] * n_A, [7] * n_B, None, cls_id=2, sep_id=3, mask_id=4)
        real = {i + 1 for i, v in enumerate(x) if v not in (2, 3)}
        if positions(n_A, n_B) != real:
            return True
    return False
