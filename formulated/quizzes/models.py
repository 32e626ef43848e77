"""The quizzes of part 4, The models (chapters 13-16): each number is computed here by the
book's functions, each wrong option or named mistake by the slip it is named after."""

from __future__ import annotations

import math

import numpy as np

from .model import Choice, Mistake, Numeric, Option, Question

__all__ = ["QUIZZES"]


def _vector(v: np.ndarray) -> str:
    return "(" + ", ".join(f"{x:g}".replace("-", "−") for x in v) + ")"


def _superscript(number: int) -> str:
    return str(number).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


def ch13() -> list[Question]:
    from formulated.formulas import softmax

    B, n = 4, 9
    W_e = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # (V, H) = (3, 2)
    last = np.array([2.0, -1.0])  # the last row of X^(L)
    logits = last @ W_e.T  # the de-embedding: (V,)
    p3 = float(softmax(logits)[2])
    return [
        Choice(
            prompt="Row i of GPT's output is a distribution over which token?",
            options=(
                Option(
                    text="Token i + 1",
                    feedback="The causal mask lets row i see tokens 1…i only, and it "
                    "predicts the next.",
                    correct=True,
                ),
                Option(
                    text="Token i",
                    feedback="Row i sees token i; predicting it would be copying.",
                ),
                Option(
                    text="Token i − 1",
                    feedback="Row i has already seen that token; it predicts the one "
                    "after token i.",
                ),
                Option(
                    text="The last token",
                    feedback="Every row predicts its own next token; the last row's "
                    "prediction is the one used to generate.",
                ),
            ),
        ),
        Numeric(
            prompt=f"A training batch holds B = {B} windows of {n} tokens each. How many "
            "next-token predictions count in the loss?",
            answer=B * (n - 1),
            tolerance=0,
            decimals=0,
            explain=f"each window gives {n - 1}: its last token has no next token "
            "inside the window.",
            hint="In each window, which tokens have a next token to predict inside it?",
            mistakes=(
                Mistake(
                    value=B * n,
                    feedback="The last row of each window has no target inside it.",
                ),
                Mistake(
                    value=n - 1, feedback="That is one window; the batch has B of them."
                ),
            ),
        ),
        Numeric(
            prompt="GPT reads its output through the embedding matrix W_e, transposed. "
            "With V = 3, H = 2 and W_e = [[1, 0], [0, 1], [1, 1]] (one row per token), "
            "the last row of X⁽ᴸ⁾ is (2, −1). What probability does GPT give token 3 "
            "as the next token?",
            answer=p3,
            tolerance=0.005,
            decimals=3,
            explain=f"the logits X⁽ᴸ⁾W_eᵀ are {_vector(logits)}, one dot product per "
            "token's embedding; softmax, third entry.",
            hint="The logit of token v is the dot product of the last row with row v "
            "of W_e; then take the softmax of the three logits.",
            mistakes=(
                Mistake(
                    value=float(logits[2]),
                    feedback="That is token 3's logit; the softmax turns the logits "
                    "into probabilities.",
                ),
                Mistake(
                    value=float(logits[2] / logits.sum()),
                    feedback="That divides the logit by the sum of the logits; the "
                    "softmax exponentiates them first.",
                ),
            ),
        ),
    ]


def ch14() -> list[Question]:
    from formulated.models.blocks import mask_sparse_banded

    w, i = 6, 9  # band width, query (1-based): not the chapter's figure (w = 4)
    row = np.isfinite(mask_sparse_banded(i + 3, w)[i - 1])
    keys = np.flatnonzero(row) + 1  # 1-based
    L = 12
    return [
        Choice(
            prompt=f"In a banded (sparse) layer of GPT-3 with band width w = {w}, which "
            f"keys may query {i} attend to (positions counted from 1)?",
            options=(
                Option(
                    text=f"Keys {keys[0]} to {keys[-1]}",
                    feedback=f"Itself and the w − 1 = {w - 1} positions before it: "
                    "0 ≤ i − j < w.",
                    correct=True,
                ),
                Option(
                    text=f"Keys {i - w} to {i}",
                    feedback=f"That is w + 1 = {w + 1} keys; the band holds w, the query "
                    "itself included.",
                ),
                Option(
                    text=f"Keys {i} to {i + w - 1}",
                    feedback="The band looks back, not ahead: the mask stays causal.",
                ),
                Option(
                    text=f"Keys 1 to {i}",
                    feedback="That is a dense causal layer, GPT-3's even layers.",
                ),
            ),
        ),
        Choice(
            prompt="Which formula is one sub-layer f (attention or FFN) of GPT-2, acting "
            "on the residual stream X?",
            options=(
                Option(
                    text="X + f(LN(X))",
                    feedback="Pre-LN: the sub-layer reads a normalized copy and adds to "
                    "the unnormalized stream.",
                    correct=True,
                ),
                Option(
                    text="LN(X + f(X))",
                    feedback="That is GPT's post-LN sub-layer, which normalizes the sum.",
                ),
                Option(
                    text="X + LN(f(X))",
                    feedback="That normalizes what the sub-layer writes; GPT-2 "
                    "normalizes what it reads.",
                ),
                Option(
                    text="f(LN(X))",
                    feedback="Without the residual the stream would be replaced, not "
                    "added to.",
                ),
            ),
        ),
        Numeric(
            prompt=f"A pre-LN model has {L} layers. Its embedding X⁽⁰⁾ has "
            "root-mean-square (RMS) size 1, and each layer writes into the stream an "
            "increment of RMS 1, of mean 0 and independent of everything else. What is "
            f"the RMS of X⁽{_superscript(L)}⁾, the stream after the last layer?",
            answer=math.sqrt(1 + L),
            tolerance=0.005,
            decimals=3,
            explain=f"pre-LN adds every increment to the stream and never rescales it, "
            f"and independent terms add their mean squares: √(1 + {L}).",
            hint="What pre-LN normalizes is the copy a sub-layer reads, not the stream. "
            "For independent terms with mean 0 the mean squares add.",
            mistakes=(
                Mistake(
                    value=1.0,
                    feedback="That is a post-LN stream, renormalized after every layer; "
                    "pre-LN never rescales the stream.",
                ),
                Mistake(
                    value=float(1 + L),
                    feedback="That adds the sizes; for independent increments the mean "
                    "squares add, not the RMS values.",
                ),
            ),
        ),
    ]


def ch15() -> list[Question]:
    from formulated.models.sizes import size

    bert = size("BERT-base")
    emb = bert.V * bert.H + bert.n_ctx * bert.H + 2 * bert.H  # token, position, segment
    return [
        Choice(
            prompt="Which positions may a token of BERT attend to?",
            options=(
                Option(
                    text="Every position, before and after it",
                    feedback="BERT's mask is bidirectional.",
                    correct=True,
                ),
                Option(
                    text="Only the positions before it",
                    feedback="That is GPT's causal mask.",
                ),
                Option(
                    text="Only the masked positions",
                    feedback="Masking hides input tokens, not attention.",
                ),
                Option(
                    text="Only the positions of its own sentence",
                    feedback="The segment embeddings tell the two sentences apart, but "
                    "the mask lets every token see both.",
                ),
            ),
        ),
        Numeric(
            prompt=f"How many parameters do BERT-base's token (V = {bert.V:,}), position "
            f"(n = {bert.n_ctx}) and segment (2) embeddings of width H = {bert.H} have "
            "together?",
            answer=emb,
            tolerance=0,
            decimals=0,
            explain="(V + n + 2) · H.",
            hint="Add the three tables' rows, times H.",
            mistakes=(
                Mistake(
                    value=emb - 2 * bert.H,
                    feedback="The two segment embeddings are missing.",
                ),
                Mistake(
                    value=emb - bert.n_ctx * bert.H,
                    feedback="The position embeddings are missing: BERT learns one row "
                    "per position.",
                ),
            ),
        ),
        Choice(
            prompt="What does RoBERTa drop from BERT's input and training?",
            options=(
                Option(
                    text="Segments and next-sentence prediction",
                    feedback="Without the next-sentence task the segment ids have no "
                    "purpose.",
                    correct=True,
                ),
                Option(
                    text="The position embeddings",
                    feedback="RoBERTa keeps learned positions.",
                ),
                Option(
                    text="The masked-language-model objective",
                    feedback="That is RoBERTa's only objective.",
                ),
                Option(
                    text="The start token in front of the text",
                    feedback="RoBERTa keeps it, written <s>, in the role of [CLS].",
                ),
            ),
        ),
    ]


def ch16() -> list[Question]:
    from formulated.models import parameter_count
    from formulated.models.sizes import size

    dims = dict(V=65, n=64, H=64, F=256, D=16, A=4, L=2)
    lam = parameter_count(**dims)
    gpt3 = size("GPT-3 6.7B")
    big = size("GPT-3 175B")
    blocks = 12 * gpt3.L * gpt3.H**2 / 1e9
    return [
        Numeric(
            prompt="What is λ for V = 65, n = 64, H = 64, F = 256, D = 16, A = 4, L = 2 "
            "(no attention biases, no final LayerNorm)?",
            answer=lam,
            tolerance=0,
            decimals=0,
            explain="embeddings, then L blocks of attention, FFN and two LayerNorms.",
            hint="Sum W_e, W_p and L times one block's parameters.",
            mistakes=(
                Mistake(
                    value=parameter_count(**dims, attention_biases=True),
                    feedback="That adds attention biases, which λ omits.",
                ),
                Mistake(
                    value=lam - dims["n"] * dims["H"],
                    feedback="The position embeddings W_p are missing.",
                ),
            ),
        ),
        Numeric(
            prompt=f"GPT-3 6.7B has L = {gpt3.L} layers of width H = {gpt3.H:,}, with "
            "F = 4H. How many weights do the matrices of its blocks hold (attention and "
            "FFN; no biases, LayerNorms or embeddings), in billions?",
            answer=blocks,
            tolerance=0.005,
            decimals=2,
            explain="4H² for attention and 8H² for the FFN, L times: 12 L H².",
            hint="Attention has 4 matrices of H × H, the FFN two of H × 4H; then L "
            "layers.",
            mistakes=(
                Mistake(
                    value=4 * gpt3.L * gpt3.H**2 / 1e9,
                    feedback="That counts the attention only: the FFN has 8H² more.",
                ),
                Mistake(
                    value=8 * gpt3.L * gpt3.H**2 / 1e9,
                    feedback="That counts the FFN only: the attention has 4H² more.",
                ),
                Mistake(
                    value=gpt3.published / 1e9,
                    feedback="That is the published size, embeddings included; the "
                    "question counts the blocks' matrices only.",
                ),
                Mistake(
                    value=12 * gpt3.L * gpt3.H**2,
                    feedback="The question asks in billions: divide by 10⁹.",
                ),
            ),
        ),
        Choice(
            prompt="Where are most of GPT-3 175B's parameters?",
            options=(
                Option(
                    text="In the blocks' weight matrices",
                    feedback="12 L H², the blocks' matrices, is over 99 % of the "
                    "total; the embeddings are well under 1 %.",
                    correct=True,
                ),
                Option(
                    text="In the token embedding table",
                    feedback=f"V · H = {big.V:,} · {big.H:,} = {big.V * big.H:,} "
                    f"parameters, about {100 * big.V * big.H / big.published:.2f} % of the "
                    "total.",
                ),
                Option(
                    text="In the output layer that maps H to V",
                    feedback="GPT-3 reads its output through W_eᵀ (tied): the output "
                    "layer has no parameters of its own.",
                ),
                Option(
                    text="In the biases and LayerNorms",
                    feedback="A layer has about 13H of them against 12H² weights.",
                ),
            ),
        ),
    ]


#: quiz id -> the function that builds that chapter's questions.
QUIZZES = {"ch13": ch13, "ch14": ch14, "ch15": ch15, "ch16": ch16}
