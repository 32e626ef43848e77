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

__all__ = ["ERRATA", "hyperparameters", "GPT2_TRAINING_DATA", "GPT3_MIX", "MASK_ID"]

_CH13, _CH14, _CH15, _CH16 = (
    "chapters/13_gpt",
    "chapters/14_gpt2_gpt3",
    "chapters/15_bert_roberta",
    "chapters/16_parameters",
)


def hyperparameters(**values: int) -> dict[str, int]:
    """The hyperparameters of the book's own model code, :class:`formulated.models.Config`, by
    their letters (``V, n_ctx, H, A, L, F, D``), for a configuration built from ``values``.  A
    letter no model has (``s``, ``h``) is no key of this dict."""
    from dataclasses import asdict

    from ..models import Config

    return asdict(Config(**values))


# Facts of record: no computation yields them, so the checks that use them are marked
# ``basis="citation"`` and name the place.
#: The corpus GPT-2 was trained on: Radford et al. (2019), "Language Models are Unsupervised
#: Multitask Learners", section 2.1 ("WebText", built by the authors, never released).
GPT2_TRAINING_DATA = "WebText"
_GPT2_CITE = (
    'Radford et al. (2019), "Language Models are Unsupervised Multitask Learners", '
    "section 2.1"
)
#: GPT-3's training mix, Table 2.2 of its paper: name -> (billions of tokens, weight in the mix).
GPT3_MIX = {
    "Common Crawl (filtered)": (410, 0.60),
    "WebText2": (19, 0.22),
    "Books1": (12, 0.08),
    "Books2": (55, 0.08),
    "Wikipedia": (3, 0.03),
}
_GPT3_CITE = 'Brown et al. (2020), "Language Models are Few-Shot Learners", Table 2.2'
_SIZES_CITE = (
    "Radford et al. (2019), Table 2 (layers, widths); heads from OpenAI's released "
    "GPT-2 configurations, as in formulated.models.sizes"
)


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

    check.__doc__ = (
        f"Wrong when the variant's probabilities differ from those of the "
        f"transformers models {kinds} (see hf.omission_effects)."
    )
    return check


def vocabulary_size_is_wrong(size: Callable[[dict[str, int]], int]) -> bool:
    """Is ``size(hyperparameters)`` the number of items GPT's output distribution ranges over?

    ``size`` receives the hyperparameters of the book's model code by letter
    (:func:`hyperparameters`); a letter no model has (``s``) raises ``KeyError``, which is the
    error.  The truth: the width of the output of a ``transformers`` GPT-2 built from the same
    configuration.
    """
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    hp = hyperparameters(V=11, n_ctx=8, H=8, A=2, L=1)
    torch.manual_seed(0)
    model = GPT2LMHeadModel(
        GPT2Config(
            vocab_size=hp["V"],
            n_positions=hp["n_ctx"],
            n_embd=hp["H"],
            n_layer=hp["L"],
            n_head=hp["A"],
            bos_token_id=0,
            eos_token_id=0,
        )
    ).eval()
    with torch.no_grad():
        width = model(torch.zeros(1, 3, dtype=torch.long)).logits.shape[-1]
    try:
        return size(hp) != width
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
        if not np.allclose(
            e / e[:, :k].sum(axis=1, keepdims=True),
            torch.softmax(torch.from_numpy(X), -1).numpy(),
        ):
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
    model = (
        GPT2LMHeadModel(
            GPT2Config(
                vocab_size=V,
                n_positions=8,
                n_embd=8,
                n_layer=1,
                n_head=2,
                bos_token_id=0,
                eos_token_id=0,
            )
        )
        .double()
        .eval()
    )
    x = torch.tensor([[3, 1, 4, 1, 5]])
    with torch.no_grad():
        Y = torch.softmax(model(x).logits[0], -1)
        moved = []
        for j in range(n):
            x2 = x.clone()
            x2[0, j] = (x2[0, j] + 1) % V
            moved.append(
                (torch.softmax(model(x2).logits[0], -1) - Y).abs().amax(-1) > 1e-12
            )
    depends = torch.stack(moved, dim=1)  # depends[i, j]: row i on token j
    return any(
        {j + 1 for j in range(n) if depends[i, j]} != given(i + 1, n) for i in range(n)
    )


def sparse_mask_is_wrong(mask: str | None) -> bool:
    """Does GPT-3's box with ``mask`` in its odd layers reproduce GPT-Neo (``transformers``)?

    ``"banded"`` is the book's locally banded mask; ``None`` (001 defines no Mask^ST) leaves
    the only mask the box defines, the dense autoregressive one, in every layer.
    """
    from ..models import Config, gpt2_probabilities, gpt3_probabilities, hf, hf_tiny

    cfg = Config(V=40, n_ctx=12, H=16, A=4, L=2)
    model = hf_tiny.tiny_model("gpt-neo", cfg, window=3)
    params, opts = hf.from_gpt_neo(model)
    x = np.arange(2, 12)
    if mask == "banded":
        Y = gpt3_probabilities(x, params, **opts)
    elif mask is None:
        Y = gpt2_probabilities(x, params, gelu=opts["gelu"], eps=opts["eps"])
    else:
        raise ValueError(f"mask: expected 'banded' or None, got {mask!r}")
    return not bool(np.abs(Y - hf_tiny.hf_probabilities(model, x)).max() < 1e-6)


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
        return sum(
            p.numel()
            for p in T.GPT2Model(
                T.GPT2Config(n_embd=H, n_layer=L, n_head=A)
            ).parameters()
        )


def gpt2_column_is_wrong(column: tuple[int, int, int, float, float]) -> bool:
    """Is ``(L, H, A, low, high)`` a GPT-2 of record, with its parameter count in [low, high]?

    The architectures are a fact of record (:mod:`formulated.models.sizes`, from the GPT-2 paper's
    Table 2 and the released configurations); the count is computed on ``transformers``'
    ``GPT2Model`` of that shape.  The range must contain the count and be no wider than a tenth
    of it (the precision of a figure such as "1.5B"); a range like 1.5B–15B says nothing.
    """
    from ..models.sizes import SIZES

    L, H, A, low, high = column
    published = any(
        (s.L, s.H, s.A) == (L, H, A) for s in SIZES.values() if s.family == "GPT-2"
    )
    if not published:
        return True
    count = _gpt2_count(L, H, A)
    return not (low <= count <= high and high - low <= count / 10)


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
        kw = dict(
            vocab_size=V,
            hidden_size=H,
            num_hidden_layers=1,
            num_attention_heads=2,
            intermediate_size=4 * H,
            max_position_embeddings=16,
        )
        with torch.device("meta"):
            heads = [
                count(T.BertForMaskedLM(T.BertConfig(**kw)))
                - count(T.BertModel(T.BertConfig(**kw), add_pooling_layer=False)),
                count(T.RobertaForMaskedLM(T.RobertaConfig(**kw)))
                - count(T.RobertaModel(T.RobertaConfig(**kw), add_pooling_layer=False)),
            ]
        if any(h != extra(H, V) for h in heads):
            return True
    return False


def gpt1_count_is_wrong(count: int) -> bool:
    """Is ``count`` the number of parameters of ``transformers``' ``OpenAIGPTModel`` (GPT-1)?"""
    import torch
    import transformers as T

    with torch.device("meta"):
        real = sum(
            p.numel() for p in T.OpenAIGPTModel(T.OpenAIGPTConfig()).parameters()
        )
    return count != real


def gpt2_data_is_wrong(name: str) -> bool:
    """Is ``name`` the corpus GPT-2 was trained on?  A fact of record: the GPT-2 paper
    (section 2.1) names it, :data:`GPT2_TRAINING_DATA`; every other name is wrong."""
    return name != GPT2_TRAINING_DATA


def gpt3_books_are_wrong(names: tuple[str, ...]) -> bool:
    """Are ``names`` the corpora of GPT-3's training mix?  A fact of record: the GPT-3 paper's
    Table 2.2 (:data:`GPT3_MIX`); any other set of names is wrong."""
    return set(names) != set(GPT3_MIX) or len(set(names)) != len(names)


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
    model = BertForMaskedLM(
        BertConfig(
            vocab_size=20,
            hidden_size=8,
            num_hidden_layers=1,
            num_attention_heads=2,
            intermediate_size=16,
            max_position_embeddings=16,
        )
    ).eval()
    x, j = torch.tensor([[2, 5, 4, 7, 3]]), 2  # 4 = [MASK] at position j
    later = x.clone()
    later[0, j + 1] = 9
    with torch.no_grad():
        moved = (
            model(x).logits[0, j] - model(later).logits[0, j]
        ).abs().max().item() > 1e-9
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

    dims = {
        **size("GPT-2 XL").dimensions(),
        "H": 1024,
        "F": 4096,
        "D": 64,
        "A": 16,
        "L": 48,
    }
    return parameter_count(**dims, attention_biases=True, final_ln=True)


def _lambda(with_biases: bool) -> int:
    from ..models import parameter_count
    from ..models.sizes import size

    return parameter_count(**size("GPT-1").dimensions(), attention_biases=with_biases)


def _jmasked_is_wrong(positions: Callable[[int, int], set[int]]) -> bool:
    """Is ``positions(n_A, n_B)`` the set of 1-based positions of the sentence tokens in BERT's
    input for a pair of sentences?  Computed by Hugging Face's BERT tokenizer (WordPiece with
    BERT's post-processor), which lays out ``[CLS] A [SEP] B [SEP]`` and marks the special
    tokens; the sentence tokens are the unmarked ones."""
    from tokenizers.implementations import BertWordPieceTokenizer

    vocab = {
        "[PAD]": 0,
        "[UNK]": 1,
        "[CLS]": 2,
        "[SEP]": 3,
        "[MASK]": 4,
        "a": 5,
        "b": 6,
    }
    tok = BertWordPieceTokenizer(vocab)
    for n_A, n_B in ((2, 3), (4, 1)):
        enc = tok.encode(" ".join("a" * n_A), " ".join("b" * n_B))
        real = {
            i + 1 for i, special in enumerate(enc.special_tokens_mask) if not special
        }
        if positions(n_A, n_B) != real:
            return True
    return False


# Found by the audit ledger (appendix B) of sources 000 and 001.


#: The id of [MASK] in the small BERT of :func:`mlm_input_is_wrong` (as in BERT's vocabulary
#: layout: [PAD], [UNK], [CLS], [SEP], [MASK] first).
MASK_ID = 4


#: How the box turns ``(x, j, mask_id)`` (``x`` a 1-d ``torch`` tensor of ids, ``j`` 0-based)
#: into the token ids it embeds.
InputRule = Callable[..., "object"]


def _box_input_raw(x, j: int, mask_id: int):
    """000's BERT box: ``X_0 = OneHot(x) W_e + W_p``, the raw sequence, token j included."""
    return x.clone()


def _box_input_masked(x, j: int, mask_id: int):
    """001's (and BERT's) input ``x'``: ``x`` with position j replaced by the [MASK] id."""
    out = x.clone()
    out[j] = mask_id
    return out


def mlm_input_is_wrong(rule: InputRule) -> bool:
    """Can BERT's prediction at ``j_masked`` read the token it must predict, when its input is
    ``rule(x, j, mask_id)``?

    Measured on a small random ``transformers`` ``BertForMaskedLM``: the output row j should
    be a distribution of ``x_j`` *given the rest*, so it must not move when only ``x_j``
    changes (else the model sees the answer: it could copy it and score perfectly), and it
    must still see the context (it moves when another token changes).  Wrong when either
    fails at some position j.
    """
    import torch
    from transformers import BertConfig, BertForMaskedLM

    torch.manual_seed(0)
    model = (
        BertForMaskedLM(
            BertConfig(
                vocab_size=20,
                hidden_size=8,
                num_hidden_layers=1,
                num_attention_heads=2,
                intermediate_size=16,
                max_position_embeddings=16,
            )
        )
        .double()
        .eval()
    )
    x = torch.tensor([2, 7, 11, 5, 9, 3])  # [CLS] four tokens [SEP]

    def row(seq: torch.Tensor, j: int) -> torch.Tensor:
        with torch.no_grad():
            return torch.softmax(model(rule(seq, j, MASK_ID)[None]).logits[0, j], -1)

    for j in range(1, len(x) - 1):  # every sentence position
        other = x.clone()
        other[j] = 13 if x[j] != 13 else 14  # another answer at j only
        context = x.clone()
        k = 1 if j != 1 else 2
        context[k] = 17  # another token of the context
        reads_answer = (row(x, j) - row(other, j)).abs().max().item() > 1e-12
        reads_context = (row(x, j) - row(context, j)).abs().max().item() > 1e-12
        if reads_answer or not reads_context:
            return True
    return False


def _tiny_bert(seed: int = 0):
    """A small random ``transformers`` ``BertModel`` in float64 (no download)."""
    import torch
    from transformers import BertConfig, BertModel

    torch.manual_seed(seed)
    return (
        BertModel(
            BertConfig(
                vocab_size=20,
                hidden_size=8,
                num_hidden_layers=1,
                num_attention_heads=2,
                intermediate_size=16,
                max_position_embeddings=16,
            ),
            add_pooling_layer=False,
        )
        .double()
        .eval()
    )


#: An equation as a pair of functions of the box's matrices: ``(left, right)``; the line
#: ``left = right`` holds when the two agree, and ``left`` names the matrix the next line reads.
Equation = Callable[..., tuple["object", "object"]]


def segment_equation_is_wrong(equation: Equation) -> bool:
    """Does ``equation(X_0, S)`` hold, and does its left side name the matrix BERT's layers read?

    ``X_0`` is the token-plus-position embedding and ``S = diag(t) Stack(w_A) + diag(1 - t)
    Stack(w_B)`` the segment term, both taken from a small random ``transformers``
    ``BertModel`` (its word, position and token-type tables) for t = (0, 0, 1, 1, 1).  What the
    layers read (before the embedding LayerNorm, a separate omission) is captured from the
    model's own forward pass.  Wrong when ``left != right`` or ``left`` is not that matrix.
    """
    import torch

    model = _tiny_bert()
    emb = model.embeddings
    x = torch.tensor([[2, 7, 11, 5, 3]])
    t = torch.tensor([[0, 0, 1, 1, 1]])
    seen = {}
    hook = emb.LayerNorm.register_forward_pre_hook(
        lambda module, args: seen.setdefault("sum", args[0][0].detach())
    )
    try:
        with torch.no_grad():
            model(input_ids=x, token_type_ids=t)
    finally:
        hook.remove()
    with torch.no_grad():
        X0 = emb.word_embeddings(x[0]) + emb.position_embeddings.weight[: x.shape[1]]
        w = emb.token_type_embeddings.weight  # row 0 and row 1
        tt = t[0].double()[:, None]
        S = tt * w[1] + (1 - tt) * w[0]  # diag(t) Stack(w^1) + diag(1 - t) Stack(w^0)
    left, right = equation(X0, S)
    return not (
        torch.allclose(left, right, atol=1e-12)
        and torch.allclose(left, seen["sum"], atol=1e-12)
    )


def final_layernorm_equation_is_wrong(equation: Equation) -> bool:
    """Does ``equation(X_L, ln_f)`` hold for GPT-2, and does its left side name the matrix
    whose last row the output softmax reads?

    ``X_L`` is the output of the last block of a small random ``transformers`` ``GPT2Model``
    (captured as it enters ``ln_f``), ``ln_f`` that model's final LayerNorm, and the matrix the
    output reads is the model's ``last_hidden_state``.  Wrong when ``left != right`` or ``left``
    is not the last hidden state.
    """
    import torch
    from transformers import GPT2Config, GPT2Model

    torch.manual_seed(0)
    model = (
        GPT2Model(
            GPT2Config(
                vocab_size=11,
                n_positions=8,
                n_embd=8,
                n_layer=2,
                n_head=2,
                bos_token_id=0,
                eos_token_id=0,
            )
        )
        .double()
        .eval()
    )
    seen = {}
    hook = model.ln_f.register_forward_pre_hook(
        lambda module, args: seen.setdefault("X_L", args[0][0].detach())
    )
    try:
        with torch.no_grad():
            out = model(torch.tensor([[3, 1, 4, 1, 5]])).last_hidden_state[0]
    finally:
        hook.remove()
    with torch.no_grad():
        left, right = equation(seen["X_L"], model.ln_f)
    return not (
        torch.allclose(left, right, atol=1e-12)
        and torch.allclose(left, out, atol=1e-12)
    )


def segment_field_is_wrong(field: str) -> bool:
    """Is ``field``, a field of ``BertTokenizer``'s output, the sequence t of 001's BERT input
    (t_i = 0 for i <= n_A + 2, 1 after), for a pair of sentences?  The tokenizer is BERT's
    (a ten-word vocabulary in memory); t is computed from 001's rule."""
    from transformers import BertTokenizer

    words = [
        "[PAD]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
        "[MASK]",
        "the",
        "cat",
        "sat",
        "on",
        "mat",
    ]
    tok = BertTokenizer(vocab={w: i for i, w in enumerate(words)})
    enc = tok("the cat", "sat on mat")
    n_A, n = 2, len(enc["input_ids"])
    t = [0 if i <= n_A + 2 else 1 for i in range(1, n + 1)]
    return enc.get(field) != t


def roberta_specials_are_wrong(tokens: tuple[str, str, str]) -> bool:
    """Are ``tokens`` RoBERTa's classifier, separator and mask tokens, each read by its
    tokenizer as that one special token?  ``RobertaTokenizer`` with a small vocabulary in memory:
    RoBERTa's special tokens (``<s>``, ``<pad>``, ``</s>``, ``<unk>`` at ``roberta-base``'s ids
    0-3) and the brackets, which its byte-level vocabulary has as ordinary tokens."""
    from transformers import RobertaTokenizer

    vocab = {
        "<s>": 0,
        "<pad>": 1,
        "</s>": 2,
        "<unk>": 3,
        "<mask>": 4,
        "[": 5,
        "]": 6,
        "Ġ": 7,
    }
    tok = RobertaTokenizer(vocab=vocab, merges=[])
    roles = (tok.cls_token_id, tok.sep_token_id, tok.mask_token_id)
    if len(tokens) != len(roles):
        return True
    return any(
        tok(text, add_special_tokens=False)["input_ids"] != [role]
        for text, role in zip(tokens, roles)
    )


ERRATA: list[Erratum] = [
    Erratum(
        key="s-items",
        severity="slip",
        sources=("000", "001"),
        section="Definition (GPT)",
        says=r"each symbol is a number from $\{1, \ldots, V\}$, its id \"in a pre-specified "
        r"vocabulary consisting of $s$ items\"",
        correct=r"the vocabulary has $V$ items (the ids run over $\{1, \ldots, V\}$, and "
        r"$\text{GPT}(\bm{x}) \in [0, 1]^V$); the letter $s$ is defined nowhere",
        chapter=_CH13,
        stated=lambda hp: hp["s"],
        true=lambda hp: hp["V"],
        check=vocabulary_size_is_wrong,
    ),
    Erratum(
        key="softmax-box-width",
        severity="slip",
        sources=("000", "001"),
        section="Softmax box",
        says=r"$\text{Softmax} : \R^{n \times H} \to [0, 1]^{n \times H}$, "
        r"$\text{Softmax}(\bm{X})_{i,j} = e^{X_{i,j}} / \sum_{k=1}^{H} e^{X_{i,k}}$",
        correct=r"the boxes apply it to $n \times n$ scores and $n \times V$ logits: the sum runs "
        r"over the columns of whatever matrix it is given, "
        r"$\sum_{k=1}^{m} e^{X_{i,k}}$ for $\bm{X} \in \R^{n \times m}$",
        chapter=_CH13,
        stated=lambda X, H: H,
        true=lambda X, H: X.shape[1],
        check=softmax_width_is_wrong,
    ),
    Erratum(
        key="000-second-y-matrix",
        severity="error",
        sources=("000",),
        section="Definition (after the objective)",
        says=r"a second $\bm{Y}$ with rows $P_\theta(x_i \mid x_1, \ldots, x_n)$, "
        r"$i = 1, \ldots, n$, each conditioned on the whole sequence",
        correct=r"GPT's $\bm{Y}$ is the first matrix: row $i$ is "
        r"$P_\theta(x_{i+1} \mid x_1, \ldots, x_i)$ and depends on $x_1, \ldots, x_i$ "
        r"only (the mask); conditioned on the whole sequence, $x_i$ would be known. "
        r"Rows conditioned on the whole (masked) input belong to BERT",
        chapter=_CH13,
        stated=lambda i, n: set(range(1, n + 1)),
        true=lambda i, n: set(range(1, i + 1)),
        check=conditioning_is_wrong,
    ),
    Erratum(
        key="gpt3-sparse-mask-undefined",
        severity="omission",
        sources=("001",),
        kind="omission",
        section="GPT-3 box",
        says=r"$\text{Mask}^{(l)} = \text{Mask}^\text{ST}$ for odd $l$; "
        r"$\text{Mask}^\text{ST}$ is never defined.",
        correct=r"GPT-3 alternates dense layers with *locally banded* sparse attention (Brown "
        r"et al. 2020, section 2.1, after the Sparse Transformer): query $i$ attends to keys $j$ with "
        r"$0 \le i - j < w$. The band width $w$ is not published; GPT-Neo, which copies "
        "the alternation, uses the same pattern, and our banded mask equals its local mask.",
        chapter=_CH14,
        stated=None,
        true="banded",
        check=sparse_mask_is_wrong,
    ),
    Erratum(
        key="gpt3-mask-shape",
        severity="slip",
        sources=("001",),
        section="GPT-3 box (shape column)",
        says=r"$\text{Mask}^{(l)}$ is annotated $(n \times H)$.",
        correct=r"A mask has one entry per (query, key) pair: $n \times n$.",
        chapter=_CH14,
        stated=lambda n, H: (n, H),
        true=lambda n, H: (n, n),
        check=mask_shape_is_wrong,
    ),
    Erratum(
        key="001-final-layernorm-equation",
        severity="slip",
        sources=("001",),
        section="GPT-2 and GPT-3 boxes (final LayerNorm)",
        says=r"$\bm{X}^{(L)} = \text{LayerNorm}(\bm{X}^{(L)})$ (in both boxes), then "
        r"$\text{GPT}(\bm{x}) = \text{Softmax}(\bm{X}_{n,:}^{(L)} \bm{W}_e^\top)$.",
        correct=r"As an equation it holds only where LayerNorm leaves $\bm{X}^{(L)}$ unchanged, "
        r"and the last block's output is no such matrix. The line means a new matrix: "
        r"$\bm{Y} = \text{LayerNorm}(\bm{X}^{(L)})$ and "
        r"$\text{GPT}(\bm{x}) = \text{Softmax}(\bm{Y}_{n,:} \bm{W}_e^\top)$. The check "
        r"takes $\bm{X}^{(L)}$ from `transformers`' `GPT2Model`, whose last hidden state "
        r"is $\bm{Y}$.",
        chapter=_CH14,
        stated=lambda X, ln: (X, ln(X)),
        true=lambda X, ln: (ln(X), ln(X)),
        check=final_layernorm_equation_is_wrong,
    ),
    Erratum(
        key="versions-gpt2-mixed",
        severity="error",
        sources=("003",),
        section="Version table (GPT-2 column)",
        says="GPT-2: embedding dimension 1,024, 48 decoder layers, 16 heads, 1.5B~15B parameters.",
        correct="Width 1,024 with 16 heads is GPT-2 Medium (24 layers, 355M parameters); 48 layers "
        "is GPT-2 XL (width 1,600, 25 heads, 1.56B). The mixed column would have "
        f"{mixed_gpt2_count():,} parameters (≈ {mixed_gpt2_count() / 1e9:.2f}B), and no GPT-2 "
        "has 15B.",
        chapter=_CH14,
        stated=(48, 1024, 16, 1.5e9, 15e9),
        true=_xl_column(),
        check=gpt2_column_is_wrong,
        basis="citation",
        cites=_SIZES_CITE,
    ),
    Erratum(
        key="003-gpt2-training-data",
        severity="error",
        sources=("003",),
        section='Version table ("Traning Data" row, GPT-2)',
        says="GPT-2 was trained on OpenWebText.",
        correct="GPT-2 was trained on WebText, OpenAI's own scrape of pages linked from Reddit "
        "(never released); OpenWebText is the open re-creation of it that others built "
        "after GPT-2 appeared.",
        chapter=_CH14,
        stated="OpenWebText",
        true="WebText",
        check=gpt2_data_is_wrong,
        basis="citation",
        cites=_GPT2_CITE,
    ),
    Erratum(
        key="003-gpt3-bookscorpus",
        severity="error",
        sources=("003",),
        section='Version table ("Traning Data" row, GPT-3)',
        says="GPT-3 was trained on Common Crawl, WebText2, Wikipedia and BooksCorpus.",
        correct="The GPT-3 paper (Table 2.2) lists filtered Common Crawl, WebText2, two book "
        "corpora, Books1 and Books2 (12 and 55 billion tokens), and Wikipedia; it never "
        "names BooksCorpus, which with about 0.98 billion words could not supply either "
        "book corpus.",
        chapter=_CH14,
        stated=("Common Crawl (filtered)", "WebText2", "Wikipedia", "BooksCorpus"),
        true=("Common Crawl (filtered)", "WebText2", "Books1", "Books2", "Wikipedia"),
        check=gpt3_books_are_wrong,
        basis="citation",
        cites=_GPT3_CITE,
    ),
    Erratum(
        key="bert-ffn-relu",
        severity="error",
        sources=("000",),
        section="BERT box",
        says=r"$\bm{X}_l = \text{LayerNorm}(\text{FFN}_\text{RELU}(\bm{X}_l') + \bm{X}_l')$.",
        correct=r"BERT's feed-forward network uses GELU (Devlin et al. 2019, appendix A.2; "
        '`BertConfig`\'s `hidden_act="gelu"`, the erf form, in the `transformers` model '
        r"the check measures); the revision 001 corrects the box to "
        "$\\text{FFN}_\\text{GELU}$.",
        chapter=_CH15,
        stated="relu",
        true="none",
        check=box_variant_is_wrong(("bert",)),
    ),
    Erratum(
        key="000-bert-output-gpt",
        severity="slip",
        sources=("000",),
        section="BERT box (output)",
        says=r"$\text{GPT}(\bm{x}) = \bm{Y}_{j_\text{masked},:}$.",
        correct=r"The output is BERT's: the distribution of the masked token given the whole "
        r"corrupted sequence, $\text{BERT}(\bm{x})$, as 001 writes it. A "
        r"$\text{GPT}(\bm{x})$ row depends on earlier tokens only; this row also moves "
        r"when a later token changes (measured on a small random `BertForMaskedLM` of "
        r"`transformers`).",
        chapter=_CH15,
        stated="GPT",
        true="BERT",
        check=bert_output_name_is_wrong,
    ),
    Erratum(
        key="bert-segment-labels",
        severity="slip",
        sources=("001",),
        section="BERT: input construction and box",
        says=r"$t_i = 0$ for $[\text{CLS}]$, $\bm{x}^A$ and the first $[\text{SEP}]$, and "
        r"$\bm{X}^{(0)} = \bm{X}'^{(0)} + \text{diag}(\bm{t})\,\text{Stack}_n(\bm{w}^A) + "
        r"\text{diag}(1-\bm{t})\,\text{Stack}_n(\bm{w}^B)$.",
        correct=r"A naming slip: with that $\bm{t}$ the vector called $\bm{w}^A$ is added to "
        r"sentence B. Both vectors are learned, so the model is the same with the names "
        r"swapped; but to load BERT's weights (token-type row 0 for sentence A) the "
        r"vector of $t_i = 0$ must be row 0. (000 does not say which sentence "
        r"$t_i = 0$ marks.)",
        chapter=_CH15,
        stated="segment_labels",
        true="none",
        check=box_variant_is_wrong(("bert",)),
    ),
    Erratum(
        key="000-segment-update-equation",
        severity="slip",
        sources=("000",),
        section="BERT box (embedding, segment term)",
        says=r"$\bm{X}_0 = \bm{X}_0 + \text{diag}(\bm{t}) \text{Stack}_n(\bm{w}_A) + "
        r"\text{diag}(1 - \bm{t}) \text{Stack}_n(\bm{w}_B)$, the line after "
        r"$\bm{X}_0 = \text{OneHot}(\bm{x}) \bm{W}_e + \bm{W}_p$.",
        correct=r"As an equation, $\bm{X}_0 = \bm{X}_0 + \bm{S}$ holds only when the segment "
        r"term $\bm{S}$ is zero, and it is not. The line means a new matrix: "
        r"$\bm{X}'_0 = \bm{X}_0 + \text{diag}(\bm{t}) \text{Stack}_n(\bm{w}_A) + "
        r"\text{diag}(1 - \bm{t}) \text{Stack}_n(\bm{w}_B)$, which the layers read (001 "
        r"names the two $\bm{X}'^{(0)}$ and $\bm{X}^{(0)}$). The check takes the tables "
        r"of `transformers`' `BertModel`.",
        chapter=_CH15,
        stated=lambda X0, S: (X0, X0 + S),
        true=lambda X0, S: (X0 + S, X0 + S),
        check=segment_equation_is_wrong,
    ),
    Erratum(
        key="001-token-type-ids-name",
        severity="slip",
        sources=("001",),
        section=r"BERT: input construction (the sequence $\bm{t}$)",
        says=r"\"The sequence $\bm{t} = (t_1, \ldots, t_n)$ of token IDs (indicating which "
        r"of the two input sentences each token belongs to)\".",
        correct=r"Token IDs are the vocabulary indices of $\bm{x}$ (001 itself calls a token's "
        r"index \"its ID in a pre-specified vocabulary\"); $\bm{t}$ holds the segment "
        r"labels, the *token type* IDs, as 001 calls them a paragraph later "
        r"(`token_type_ids` in BERT's tokenizer, `input_ids` being the token IDs).",
        chapter=_CH15,
        stated="input_ids",
        true="token_type_ids",
        check=segment_field_is_wrong,
    ),
    Erratum(
        key="bert-jmasked-range",
        severity="error",
        sources=("001",),
        section="BERT box (input $j^\\text{masked}$)",
        says=r"$j^\text{masked} \in \{1, 2, \ldots, n_A + n_B\}$.",
        correct=r"$\bm{x}'$ has $n = n_A + n_B + 3$ positions; the sentence tokens are at "
        r"$2, \ldots, n_A + 1$ and $n_A + 3, \ldots, n_A + n_B + 2$. The box's range "
        r"contains $[\text{CLS}]$ and misses the end of $\bm{x}^B$.",
        chapter=_CH15,
        stated=lambda n_A, n_B: set(range(1, n_A + n_B + 1)),
        true=lambda n_A, n_B: (
            set(range(2, n_A + 2)) | set(range(n_A + 3, n_A + n_B + 3))
        ),
        check=lambda positions: _jmasked_is_wrong(positions),
    ),
    Erratum(
        key="bert-embedding-layernorm",
        severity="omission",
        sources=("000", "001"),
        kind="omission",
        section="BERT and RoBERTa boxes (embedding)",
        says=r"$\bm{X}^{(0)}$ is the sum of token, position (and segment) embeddings.",
        correct=r"BERT and RoBERTa normalize that sum: "
        r"$\bm{X}^{(0)} = \text{LayerNorm}_e(\ldots)$, with its own "
        r"$\bm{\gamma}_e, \bm{\beta}_e$, as their released models do (the check measures "
        r"`transformers`' `BertModel` and `RobertaModel`, small and random).",
        chapter=_CH15,
        stated="embedding_layernorm",
        true="none",
        check=box_variant_is_wrong(("bert", "roberta")),
    ),
    Erratum(
        key="bert-mlm-head",
        severity="omission",
        sources=("000", "001"),
        kind="omission",
        section="BERT and RoBERTa boxes (output)",
        says=r"$\text{Softmax}(\bm{X}^{(L)}_{j,:} \bm{W}_e^\top)$: no head, so no parameters "
        r"beyond the encoder and $\bm{W}_e$.",
        correct=r"The masked-LM head first transforms the row, "
        r"$\text{LayerNorm}_t(\text{GELU}(\bm{x}\bm{W}_t + \bm{b}_t))$, and adds an output "
        r"bias: $\text{Softmax}(\ldots\bm{W}_e^\top + \bm{b}_\text{out})$; "
        r"$H^2 + 3H + V$ more parameters ($H^2 + H$ for the transform, $2H$ for its "
        r"LayerNorm, $V$ for the bias: 344 for $H = 16$, $V = 40$), as counted on "
        r"`transformers`' `BertForMaskedLM` and `RobertaForMaskedLM`, which load the "
        r"released weights.",
        chapter=_CH15,
        stated=lambda H, V: 0,
        true=lambda H, V: H * H + 3 * H + V,
        check=mlm_head_count_is_wrong,
    ),
    Erratum(
        key="lambda-omits-biases",
        severity="omission",
        sources=("000", "001"),
        kind="omission",
        section="Parameters (λ) and Hyperparameters",
        says=r"$\lambda = 116\,497\,920$ for GPT-1.",
        correct=r"That is what the formula gives, but the real GPT-1 has 116,534,784 "
        r"parameters (counted on `transformers`' `OpenAIGPTModel`, the released "
        r"architecture): $\lambda$ leaves out the attention biases, "
        r"$L(3AD + H) = 36\,864$. GPT-2 small has 124,439,808 (biases and the "
        "final LayerNorm included, output matrix tied to $\\bm{W}_e$).",
        chapter=_CH16,
        stated=_lambda(False),
        true=_lambda(True),
        check=gpt1_count_is_wrong,
    ),
    Erratum(
        key="bert-unmasked-input",
        severity="omission",
        sources=("000",),
        kind="omission",
        section="BERT box (embedding)",
        says=r"Input $\bm{x} = (x_1, \ldots, x_n)$ and $j_\text{masked}$; "
        r"$\bm{X}_0 = \text{OneHot}(\bm{x})\bm{W}_e + \bm{W}_p$, and the output is row "
        r"$j_\text{masked}$. 000 never says whether $\bm{x}$ is the text or the text with "
        r"its token at $j_\text{masked}$ hidden, nor how it would be hidden.",
        correct=r"Read as the corrupted sequence, the box is right; but reproducing BERT needs "
        r"the corruption 000 leaves out: the input is $\bm{x}'$, $\bm{x}$ with "
        r"$x_{j_\text{masked}}$ replaced by the id of $[\text{MASK}]$, as 001 writes it. "
        r"Embedded as it is, the raw text gives row $j_\text{masked}$ the token it must "
        r"predict, and a model that copies its input predicts it perfectly (the check "
        r"measures it on `transformers`' `BertForMaskedLM`, a small random model).",
        chapter=_CH15,
        stated=_box_input_raw,
        true=_box_input_masked,
        check=mlm_input_is_wrong,
    ),
    Erratum(
        key="001-roberta-token-brackets",
        severity="slip",
        sources=("001",),
        section="RoBERTa (its special tokens)",
        says=r"RoBERTa \"uses $\texttt{[<s>]}$, $\texttt{[</s>]}$, and "
        r"$\texttt{[<mask>]}$ as classifier, separator, and mask tokens\".",
        correct=r"RoBERTa's special tokens are `<s>`, `</s>` and `<mask>` (ids 0, 2 and 50264 "
        r"in `roberta-base`); the square brackets belong to BERT's spellings "
        r"$[\text{CLS}]$, $[\text{SEP}]$, $[\text{MASK}]$. Written with them, RoBERTa's "
        r"tokenizer reads each as several ordinary tokens.",
        chapter=_CH15,
        stated=("[<s>]", "[</s>]", "[<mask>]"),
        true=("<s>", "</s>", "<mask>"),
        check=roberta_specials_are_wrong,
    ),
]
