"""Errata found by the audit ledger (appendix B) of sources 000 and 001: records not registered
before.

Each check recomputes the truth with ``transformers``: a small random ``BertForMaskedLM`` for
what the masked-LM output at ``j_masked`` may read, and ``transformers``' own masking collator
(``DataCollatorForLanguageModeling``) with a ``RobertaTokenizer`` for the positions a masked
language model is ever asked about.
"""

from __future__ import annotations

from typing import Callable

from .record import Erratum

__all__ = ["ERRATA", "mlm_input_is_wrong", "roberta_positions_are_wrong", "MASK_ID"]

_CH15 = "chapters/15_bert_roberta"
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


def roberta_positions_are_wrong(positions: Callable[[int], set[int]]) -> bool:
    """Is ``positions(n)`` the set of 1-based positions of ``x' = (<s>, x_1, ..., </s>)``
    (n tokens in all) that RoBERTa's masked-LM training ever masks and predicts?

    Computed with ``transformers``' ``DataCollatorForLanguageModeling`` at masking rate 1 and a
    ``RobertaTokenizer`` (a small vocabulary in memory): the positions that get a label.
    """
    import torch
    from transformers import DataCollatorForLanguageModeling, RobertaTokenizer

    vocab = {
        "<s>": 0,
        "<pad>": 1,
        "</s>": 2,
        "<unk>": 3,
        "<mask>": 4,
        "a": 5,
        "Ġa": 6,
        "Ġ": 7,
    }
    tok = RobertaTokenizer(vocab=vocab, merges=[("Ġ", "a")])
    collate = DataCollatorForLanguageModeling(
        tok, mlm=True, mlm_probability=1.0, return_tensors="pt"
    )
    for words in (1, 3, 6):
        enc = tok(" ".join(["a"] * words))
        torch.manual_seed(0)
        labels = collate([enc])["labels"][0]
        n = len(enc["input_ids"])
        asked = {i + 1 for i in range(n) if labels[i].item() != -100}
        if positions(n) != asked:
            return True
    return False


ERRATA: list[Erratum] = [
    Erratum(
        key="bert-unmasked-input",
        sources=("000",),
        section="BERT box (embedding)",
        says=r"Input $\bm{x} = (x_1, \ldots, x_n)$ and $j_\text{masked}$; "
        r"$\bm{X}_0 = \text{OneHot}(\bm{x})\bm{W}_e + \bm{W}_p$, and the output is row "
        r"$j_\text{masked}$: the token to be predicted is embedded as it is.",
        correct=r"The token at $j_\text{masked}$ must be hidden from the model: the input is "
        r"$\bm{x}'$, $\bm{x}$ with $x_{j_\text{masked}}$ replaced by the id of "
        r"$[\text{MASK}]$, as 001 writes it. With the raw token, row $j_\text{masked}$ "
        r"depends on $x_{j_\text{masked}}$ itself, and a model that copies its input "
        r"predicts it perfectly.",
        chapter=_CH15,
        stated=_box_input_raw,
        true=_box_input_masked,
        check=mlm_input_is_wrong,
    ),
    Erratum(
        key="roberta-jmasked-range",
        sources=("001",),
        section="RoBERTa box (input $j^\\text{masked}$)",
        says=r"$j^\text{masked} \in \{1, 2, \ldots, n\}$.",
        correct=r"Positions 1 and $n$ hold $\texttt{<s>}$ and $\texttt{</s>}$, which "
        r"RoBERTa's masking never chooses (nor does BERT's for $[\text{CLS}]$ and "
        r"$[\text{SEP}]$): for one sentence, $j^\text{masked} \in \{2, \ldots, n - 1\}$.",
        chapter=_CH15,
        stated=lambda n: set(range(1, n + 1)),
        true=lambda n: set(range(2, n)),
        check=roberta_positions_are_wrong,
    ),
]
