"""Errata of chapters 05–07, the part "From text to vectors" (notation and shapes, tokenization,
embeddings and positions): sources 002 and 003.

Each check takes a value (the source's or the corrected one) and recomputes the truth
independently -- Hugging Face's tokenizers, ``torch.nn.Embedding``, ``torch``'s dropout,
``transformers``' GPT-2.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .record import Erratum

__all__ = ["ERRATA", "ANIMALS", "LECTURE_WORDS"]

_CH05, _CH06, _CH07 = (
    "chapters/05_notation_shapes",
    "chapters/06_tokenization",
    "chapters/07_embeddings_positions",
)

#: 002's example sentences.
ANIMALS = ("cat eat mouse", "dog chase cat", "mouse eat cheese")
#: 003's BPE example: each word once.
LECTURE_WORDS = {"low": 1, "lower": 1, "newest": 1, "widest": 1}


def _hf_word_level():
    """Hugging Face's WordLevel tokenizer trained on 002's sentences: the independent vocabulary."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    hf = Tokenizer(models.WordLevel(unk_token=None))
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    hf.train_from_iterator(ANIMALS, trainers.WordLevelTrainer(special_tokens=[]))
    return hf


def index_range_is_wrong(index_range: Callable[[int], Sequence[int]]) -> bool:
    """Does ``index_range(V)`` give exactly the ids that every V-word table accepts?

    V comes from Hugging Face's tokenizer trained on 002's sentences; each id is offered to its
    ``id_to_token``, to ``torch.nn.Embedding(V, 4)``, to ``F.one_hot`` and to the book's
    ``embed``/``one_hot``.  Wrong when the range has a value some table rejects, or not V values.
    """
    import torch

    from ..formulas import embed, one_hot

    hf = _hf_word_level()
    V = hf.get_vocab_size()
    torch.manual_seed(0)
    table = torch.nn.Embedding(V, 4)
    W_e = np.random.default_rng(0).normal(size=(V, 4))

    def hf_word(j: int) -> str:
        if hf.id_to_token(j) is None:  # Hugging Face answers None for an id no word has
            raise IndexError(j)
        return hf.id_to_token(j)

    users = [
        hf_word,
        lambda j: table(torch.tensor([j])),
        lambda j: torch.nn.functional.one_hot(torch.tensor([j]), V),
        lambda j: embed(np.array([j]), W_e),
        lambda j: one_hot(np.array([j]), V),
    ]
    ids = list(index_range(V))
    for use in users:
        for j in ids:
            try:
                use(j)
            except (
                IndexError,
                ValueError,
                RuntimeError,
            ):  # out of range, as each library says
                return True
    return len(set(ids)) != V


def _step2_tokenizer(words: Sequence[str]) -> dict[str, int]:
    return {w: j for j, w in enumerate(words, start=1)}  # f(w_j) = j, onto {1, ..., V}


def _stoi(words: Sequence[str]) -> dict[str, int]:
    return {w: j for j, w in enumerate(words)}  # f_stoi onto {0, ..., V-1}


def step2_ids_are_wrong(tokenizer: Callable[[Sequence[str]], dict[str, int]]) -> bool:
    """Can ``tokenizer(vocabulary)``'s ids serve as 002's ``x_t`` (``0 <= x_t < V``) row numbers?

    The vocabulary is Hugging Face's (trained on 002's sentences).  The ids must be a bijection
    onto the rows ``0..V-1`` of ``torch.nn.Embedding(V, d)``, the set Hugging Face's ids form.
    """
    import torch

    hf = _hf_word_level()
    words = [hf.id_to_token(j) for j in range(hf.get_vocab_size())]
    ids = [tokenizer(words)[w] for w in words]
    try:
        torch.nn.Embedding(len(words), 4)(torch.tensor(ids))
    except IndexError:
        return True
    return sorted(ids) != sorted(hf.get_vocab().values())


def z3_residual_is_wrong(
    z3: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray],
) -> bool:
    """Does ``z3(X̃, Z₁, Z₂)`` equal the residual sum of ``transformers``' GPT-2 block?

    In the real block, ``block = Z₃ + MLP(LN(Z₃))``, so ``Z₃ = block − MLP`` (hooks of
    :func:`formulated.notation.shapes.gpt2_reference`); ``Z₁ = LN(X̃)``, ``Z₂`` the attention output.
    """
    from ..notation.shapes import gpt2_reference, random_block_params, trace_gpt_block

    params = random_block_params(V=13, n_max=6, H=8, A=2, seed=3)
    ids = np.random.default_rng(3).integers(0, 13, size=(2, 6))
    x_tilde = {s.name: s.value for s in trace_gpt_block(ids, params)}["block input"]
    ref = gpt2_reference(ids, params)
    return not bool(
        np.abs(
            z3(x_tilde, ref["ln_1"], ref["attn"]) - (ref["block"] - ref["mlp"])
        ).max()
        < 1e-12
    )


def _hf_bpe(
    num_merges: int,
) -> tuple[list[tuple[str, str]], tuple[tuple[str, ...], ...]]:
    """Hugging Face's ``BpeTrainer`` on 003's words (each once, no end-of-word marker): its
    first ``num_merges`` merges and the words' tokens under them."""
    import json

    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    alphabet = sorted({c for w in LECTURE_WORDS for c in w})
    hf = Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    hf.train_from_iterator(
        [" ".join(w for w, c in LECTURE_WORDS.items() for _ in range(c))],
        trainers.BpeTrainer(
            vocab_size=len(alphabet) + num_merges, min_frequency=0, show_progress=False
        ),
    )
    merges = [tuple(m) for m in json.loads(hf.to_str())["model"]["merges"]]
    return merges, tuple(tuple(hf.encode(w).tokens) for w in LECTURE_WORDS)


def bpe_tables_are_wrong(
    tables: tuple[Sequence[tuple[str, str]], tuple[tuple[str, ...], ...]],
) -> bool:
    """Are ``(merges, result)`` a greedy BPE run on 003's words (each once) and its outcome?

    Wrong when some merge is not a most frequent pair at its turn (counted afresh after the
    merges before it), when the result is not what those merges produce, or when the run is not
    the one Hugging Face's ``BpeTrainer`` learns (ties go to the pair of smallest token ids:
    characters in code-point order, then merged tokens in order of creation).
    """
    from ..tokenizers import count_pairs, merge_pair, split_word

    merges, result = tables
    state = {split_word(w, ""): c for w, c in LECTURE_WORDS.items()}
    for pair in merges:
        counts = count_pairs(state)
        if counts[pair] == 0 or counts[pair] < max(counts.values()):
            return True
        state = {merge_pair(s, pair): c for s, c in state.items()}
    hf_merges, hf_result = _hf_bpe(len(merges))
    return (
        tuple(state) != tuple(result)
        or list(merges) != hf_merges
        or tuple(result) != hf_result
    )


def gpt1_vocab_is_wrong(V: int) -> bool:
    """Is ``V`` the vocabulary size of ``transformers``' GPT-1 (``OpenAIGPTConfig``)?"""
    from transformers import OpenAIGPTConfig

    return V != OpenAIGPTConfig().vocab_size


def _gpt1_vocabulary() -> int:
    """GPT-1's V from :mod:`formulated.models.sizes` (478 base symbols + 40,000 merges)."""
    from ..models.sizes import size

    return size("GPT-1").V


def onehot_row_is_wrong(row_of: Callable[[int, int], int]) -> bool:
    """Does the one-hot row ``(0, ..., 0, 1)`` (length V) times ``W_e`` give row ``row_of(T, V)``
    (1-based) of ``W_e``?  The product is computed by ``torch.nn.functional.one_hot``; T ≠ V."""
    import torch

    T, V = 3, 5
    W_e = torch.arange(V * 2, dtype=torch.float64).reshape(V, 2)
    ids = torch.tensor([1, 0, V - 1])  # e_2, e_1, ..., e_V
    last = (torch.nn.functional.one_hot(ids, V).double() @ W_e)[-1]
    return not bool(torch.equal(last, W_e[row_of(T, V) - 1]))


def sinusoidal_start_is_wrong(start: int) -> bool:
    """Is 002's formula, with ``i`` and ``j`` counted from ``start``, the Transformer's encoding?

    The reference is written in the paper's own indexing, ``PE[pos, 2k] = sin(pos/10000^{2k/D})``,
    ``PE[pos, 2k+1] = cos(pos/10000^{2k/D})`` for ``pos = 0, 1, ...``, with torch.
    """
    import torch

    T, D = 8, 8
    pos = torch.arange(T, dtype=torch.float64)[:, None]
    freq = 10000.0 ** (torch.arange(0, D, 2, dtype=torch.float64) / D)
    paper = torch.stack([torch.sin(pos / freq), torch.cos(pos / freq)], dim=-1).reshape(
        T, D
    )
    source = np.empty((T, D))
    for a, i in enumerate(range(start, start + T)):
        for b, j in enumerate(range(start, start + D)):
            source[a, b] = (
                np.sin(i / 10000 ** (j / D))
                if j % 2 == 0
                else np.cos(i / 10000 ** ((j - 1) / D))
            )
    return not bool(np.abs(source - paper.numpy()).max() < 1e-12)


def dropout_is_wrong(
    dropout: Callable[[np.ndarray, np.ndarray, float], np.ndarray],
) -> bool:
    """Does ``dropout(X, M, p)`` give ``torch.nn.functional.dropout``'s training-mode output for the
    keep-mask ``M`` torch drew?"""
    import torch

    p = 0.25
    x = torch.randn(
        1000, generator=torch.Generator().manual_seed(1), dtype=torch.float64
    )
    torch.manual_seed(0)
    y = torch.nn.functional.dropout(x, p=p, training=True).numpy()
    keep = (y != 0).astype(float)
    return not bool(np.allclose(dropout(x.numpy(), keep, p), y, rtol=1e-12, atol=0))


_BPE_STATED = (
    [("l", "o"), ("o", "w"), ("e", "s"), ("s", "t")],
    (("lo", "w"), ("lo", "w", "er"), ("ne", "w", "est"), ("wi", "d", "est")),
)
_BPE_TRUE = (
    [("e", "s"), ("l", "o"), ("es", "t"), ("lo", "w")],
    (("low",), ("low", "e", "r"), ("n", "e", "w", "est"), ("w", "i", "d", "est")),
)

# Found by the second reading of the ledger (appendix B) of source 002.

#: The sizes the shape checks substitute for 002's letters (batch, length, width, heads).
_SIZES_002 = {"B": 2, "T": 5, "D": 8, "H": 2}


def _shape_002(text: str) -> tuple[int, ...]:
    """002's shape in letters (``"B x T x D//H"``) in numbers (:data:`_SIZES_002`)."""
    out = []
    for factor in text.replace("×", "x").split(" x "):
        factor = factor.strip()
        if "//" in factor:
            num, den = factor.split("//")
            out.append(_SIZES_002[num.strip()] // _SIZES_002[den.strip()])
        else:
            out.append(_SIZES_002[factor])
    return tuple(out)


def product_shapes_are_wrong(right_sides: tuple[str, str]) -> bool:
    """Do the right sides ``right_sides`` of the shape lines of Q = Z_1 W^Q (002's Step 7.1)
    and C = A_w V (Step 7.3) have the shapes of those products?

    The products are computed by ``torch.matmul`` on random tensors of the operands' shapes,
    Z_1 (B x T x D) with W^Q (D x D) and A_w (B x H x T x T) with V (B x H x T x D//H).  A
    right side is one shape, or two joined by ``@``, a product whose shape is computed the
    same way.  Wrong when a right side's shape is not its product's.
    """
    import torch

    torch.manual_seed(0)

    def product(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
        try:
            return tuple(torch.matmul(torch.randn(a), torch.randn(b)).shape)
        except RuntimeError:  # the operands do not fit
            return None

    truths = (
        product(_shape_002("B x T x D"), _shape_002("D x D")),
        product(_shape_002("B x H x T x T"), _shape_002("B x H x T x D//H")),
    )
    for text, truth in zip(right_sides, truths):
        operands = [_shape_002(part) for part in text.split("@")]
        if len(operands) == 1:
            shape = operands[0]
        elif len(operands) == 2:
            shape = product(*operands)
        else:
            return True
        if shape != truth:
            return True
    return False


def embedding_letter_is_wrong(named: Callable[[Any, Any, int], Any]) -> bool:
    """Is ``named(X, X_tilde, b)`` the token and positional embedding of sequence b of a batch?

    ``X`` is 002's token embedding (Step 4: the one-hot input times W_e, so row lookups) and
    ``X_tilde = X + PE`` (Step 5), both in NumPy from the weights of a small random
    ``transformers`` ``GPT2Model``; the truth is that model's own embedding output (token plus
    position, its first hidden state).  Wrong when the named matrix differs from it for a b.
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
                n_layer=1,
                n_head=2,
                bos_token_id=0,
                eos_token_id=0,
            )
        )
        .double()
        .eval()
    )
    ids = torch.tensor([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]])
    with torch.no_grad():
        truth = model(ids, output_hidden_states=True).hidden_states[0].numpy()
    W_e, W_p = model.wte.weight.detach().numpy(), model.wpe.weight.detach().numpy()
    X = W_e[ids.numpy()]
    X_tilde = X + W_p[: ids.shape[1]]
    return any(
        not np.allclose(named(X, X_tilde, b), truth[b], atol=1e-12)
        for b in range(ids.shape[0])
    )


ERRATA: list[Erratum] = [
    Erratum(
        key="002-vocab-index-range",
        severity="slip",
        sources=("002",),
        section="Vocabulary (the index $j$)",
        says=r"$j$ is \"the index of a word in $\mathcal{V}$, explicitly defined as "
        r"$0 \leq j \leq V$\"; the example then numbers its six words $j = 1, \ldots, 6$.",
        correct=r"$V$ words need $V$ indices: $1 \le j \le V$ (the math, and the source's own "
        r"example) or $0 \le j \le V - 1$ (code). The range $0 \le j \le V$ has $V + 1$ "
        "values, one of which names no word.",
        chapter=_CH05,
        stated=lambda V: range(0, V + 1),
        true=lambda V: range(0, V),
        check=index_range_is_wrong,
    ),
    Erratum(
        key="002-index-base",
        severity="slip",
        sources=("002",),
        section="Dimensions and indexing; Input sequence; String-to-index mapping; Step 2; "
        "the LayerNorm and GELU formulas; the embedding matrix",
        says=r"Positions are $0 \le t < T$ (Dimensions) and $1 \le t \le T$ (Input sequence); "
        r"ids are $0, \ldots, V-1$ ($f_\text{stoi}$, and $0 \le x_t < V$) but Step 2's "
        r"tokenizer maps $f(w_j) = j$ onto $\{1, \ldots, V\}$. Likewise the feature index "
        r"and the word index are declared $0 \le d < D$ and $0 \le j < V$, while the "
        r"LayerNorm and GELU formulas run $d = 1, \ldots, D$ and the rows of "
        r"$\mathbf{W}_e$ $j = 1, \ldots, V$.",
        correct=r"One convention per context: the book's math counts from 1 and its code from 0, "
        r"and converts once, at the boundary. Used as 0-based row numbers, Step 2's ids "
        r"read every word's neighbor, and the last id $V$ is outside a $V$-row "
        r"embedding table.",
        chapter=_CH05,
        stated=_step2_tokenizer,
        true=_stoi,
        check=step2_ids_are_wrong,
    ),
    Erratum(
        key="002-table-z3-residual",
        severity="error",
        sources=("002",),
        section='Table of Notations, row "Output After First Residual Connection" ($\\mathbf{Z}_3$)',
        says=r"$\mathbf{Z}^{(\ell)}_3$ adds the attention output $\mathbf{Z}^{(\ell)}_2$ \"to the "
        r"layer normalized input $\mathbf{Z}^{(\ell)}_1$ (for $\ell = 1$)\".",
        correct=r"The residual adds the block's *input*, not its normalized input: "
        r"$\mathbf{Z}^{(1)}_3 = \tilde{\mathbf{X}} + \mathbf{Z}^{(1)}_2$, as the source's "
        r"own Step 8 and GPT-2 compute it.",
        chapter=_CH05,
        stated=lambda x, z1, z2: z1 + z2,
        true=lambda x, z1, z2: x + z2,
        check=z3_residual_is_wrong,
    ),
    Erratum(
        key="002-shape-product-dims",
        severity="slip",
        sources=("002",),
        section="Step 7.1 (linear projections) and Step 7.3 (the context matrix), shape lines",
        says=r"$\mathcal{B} \times T \times D \leftarrow \mathcal{B} \times T \times D \times D$ "
        r"(for $\mathbf{Q}$, $\mathbf{K}$ and $\mathbf{V}$) and $\mathcal{B} \times H \times "
        r"T \times D//H \leftarrow \mathcal{B} \times H \times T \times T \times \mathcal{B} "
        r"\times H \times T \times D//H$ (for $\mathbf{C} = \mathbf{A}_w \mathbf{V}$).",
        correct=r"Written with $\times$ only, the right sides read as one 4-D and one 8-D shape. "
        r"They are products of two operands, which 002 elsewhere joins by $@$ (as in "
        r"$T \times D \leftarrow T \times V @ V \times D$): $\mathcal{B} \times T \times D "
        r"@ D \times D$ and $\mathcal{B} \times H \times T \times T @ \mathcal{B} \times H "
        r"\times T \times D//H$, whose results have the shapes on the left.",
        chapter=_CH05,
        stated=("B x T x D x D", "B x H x T x T x B x H x T x D//H"),
        true=("B x T x D @ D x D", "B x H x T x T @ B x H x T x D//H"),
        check=product_shapes_are_wrong,
    ),
    Erratum(
        key="002-embedding-letter-x",
        severity="slip",
        sources=("002",),
        section='Table of Notations, rows "Batched Embedding Matrix Sequence $b$" and '
        '"Batched Embedding Vector for Token $t$ in Sequence $b$"',
        says=r"$\mathbf{X}^{(b)}$ ($T \times D$) is \"the token and positional embedding vector "
        r"for the $b$-th input sequence of the batch\", and $\mathbf{X}^{(b)}_t$ that of its "
        r"token at position $t$.",
        correct=r"In 002, $\mathbf{X}$ is the token embedding alone (Step 4, "
        r"$\mathbf{X} = \mathbf{X}^\text{ohe}\,\mathbf{W}_e$, and the table's row "
        r"\"Token Embedded Input Matrix\"); the sum with the positions is "
        r"$\tilde{\mathbf{X}}$ (Step 5), and the table's row just above these two is the "
        r"\"Batched Input Tensor\" $\tilde{\mathbf{X}}^{\mathcal{B}}$. The rows describe "
        r"$\tilde{\mathbf{X}}^{(b)}$ and $\tilde{\mathbf{X}}^{(b)}_t$.",
        chapter=_CH05,
        stated=lambda X, X_tilde, b: X[b],
        true=lambda X, X_tilde, b: X_tilde[b],
        check=embedding_letter_is_wrong,
    ),
    Erratum(
        key="003-bpe-tables",
        severity="error",
        sources=("003",),
        section='Tokenization Method: BPE ("Merge Pairs" and "Result" tables)',
        says=r"Merges (l, o), (o, w), (e, s), (s, t), each of count 2, and the result "
        r"low → [lo, w], lower → [lo, w, er], newest → [ne, w, est], widest → [wi, d, est].",
        correct=r"The counts are right *before any merge*, but the rows are not a merge sequence: "
        r"once (l, o) is merged, (o, w) no longer occurs, nor (s, t) once (e, s) is. "
        r"Five pairs start at count 2: (l, o), (o, w), (w, e), (e, s), (s, t); which wins "
        r"is a tie-break. Under the rule of Hugging Face's `BpeTrainer` (and the book's "
        r"`learn_bpe`): the pair of smallest token ids wins, characters numbered in "
        r"code-point order and merged tokens after them in order of creation. That gives "
        r"(e, s), (l, o), (es, t), (lo, w), each with count 2, and only then pairs seen "
        r"once. The source's result is reachable under no tie-breaking (chapter 6 "
        r"enumerates them all): it keeps lo and w apart (count 2) while merging er, ne "
        r"and wi (count 1).",
        chapter=_CH06,
        stated=_BPE_STATED,
        true=_BPE_TRUE,
        check=bpe_tables_are_wrong,
    ),
    Erratum(
        key="003-gpt1-vocab",
        severity="error",
        sources=("003",),
        section='Word Representation ("Unique Tokens" table)',
        says="GPT-1 has 40,000 unique tokens.",
        correct="40,000 is the number of BPE *merges*. GPT-1's vocabulary has 40,478 tokens "
        "(478 base symbols + 40,000 merges), as sources 000 and 001 state and "
        "`transformers`' `OpenAIGPTConfig` has. (GPT-2 and GPT-3: 50,257 = 256 bytes + "
        "50,000 merges + 1 end-of-text token, as the notes say.)",
        chapter=_CH06,
        stated=40_000,
        true=_gpt1_vocabulary(),
        check=gpt1_vocab_is_wrong,
    ),
    Erratum(
        key="onehot-lookup-last-row",
        severity="slip",
        sources=("002",),
        section="Weights and embeddings, lookup illustration",
        says=r"the one-hot row $(0, \dots, 0, 1)$ times $\bm{W}_e$ gives row "
        r"$(w_{T,1}, \dots, w_{T,D})$",
        correct=r"a 1 in column $V$ selects row $V$: $(w_{V,1}, \dots, w_{V,D})$",
        chapter=_CH07,
        stated=lambda T, V: T,
        true=lambda T, V: V,
        check=onehot_row_is_wrong,
    ),
    Erratum(
        key="sinusoidal-index-range",
        severity="error",
        sources=("002",),
        section="PE: Positional Encoding Layer",
        says=r"$x'_{i,j} = \sin(i/10000^{j/D})$ ($j$ even), $\cos(i/10000^{(j-1)/D})$ (odd), "
        r"for $i = 1..T$, $j = 1..D$",
        correct=r"the formula holds with positions and columns counted from 0 "
        r"($p = 0..n-1$, $j = 0..D-1$); with 1-based $j$ the sine/cosine pairs are "
        r"shifted by one column",
        chapter=_CH07,
        stated=1,
        true=0,
        check=sinusoidal_start_is_wrong,
    ),
    Erratum(
        key="dropout-scaling",
        severity="omission",
        sources=("002",),
        kind="omission",
        section="Step 5, dropout",
        says=r"$\bm{X}^\text{dropout} = \bm{X} \odot \bm{M}$, with no rescaling anywhere",
        correct=r"$\bm{X} \odot \bm{M} / (1-p)$ during training, identity at inference "
        r"(inverted dropout, as `torch.nn.Dropout`)",
        chapter=_CH07,
        stated=lambda X, M, p: X * M,
        true=lambda X, M, p: X * M / (1 - p),
        check=dropout_is_wrong,
    ),
]
