"""The widgets of chapters 17–18: XLNet's factorisation orders, sampling from the trained GPT."""
from __future__ import annotations

from itertools import permutations
from typing import Any

import ipywidgets as W
import numpy as np

from ..basics import JointTableModel, TinyAttentionModel, xlnet_log_likelihood
from .base import FormulaWidget, panel, pre

__all__ = ["xlnet_order_widget", "sampling_widget"]


def xlnet_order_widget(order: str = "3 1 4 2") -> FormulaWidget:
    """Chapter 17: one XLNet factorisation order of a 4-token sequence, under two models.

    The menu lists the 24 orders (1-based, as in the math).  ``result``: ``order`` (0-based
    positions), ``visible`` (4, 4) booleans (row j: positions whose tokens the prediction of
    x_j sees), ``table`` (log-likelihood under an exact joint table: the same for every order)
    and ``tiny`` (under an untrained tiny attention model: it depends on the order).
    """
    ids = np.array([0, 2, 1, 2])
    table = JointTableModel.random(V=3, n=4, seed=0, concentration=1.0)
    tiny = TinyAttentionModel(V=3, n=4, H=8, seed=0)
    options = [" ".join(str(k + 1) for k in z) for z in permutations(range(4))]

    def compute(order: str) -> dict:
        z = [int(k) - 1 for k in order.split()]
        rank = {pos: t for t, pos in enumerate(z)}
        visible = np.array([[rank[k] < rank[j] for k in range(4)] for j in range(4)])
        return dict(order=z, visible=visible, table=xlnet_log_likelihood(table, ids, z),
                    tiny=xlnet_log_likelihood(tiny, ids, z))

    def draw(r: dict, v: dict) -> None:
        fig, ax = panel(3.2)
        ax.imshow(r["visible"], cmap="Blues", vmin=0, vmax=1.3)
        ax.set(xticks=range(4), yticks=range(4), xticklabels=[f"x{k + 1}" for k in range(4)],
               yticklabels=[f"predict x{j + 1}" for j in range(4)], xlabel="sees (dark)")
        ax.set_title(f"order {v['order']}\nlog P: table {r['table']:.3f}, tiny {r['tiny']:.3f}",
                     fontsize=10)
        fig.tight_layout()

    controls = {"order": W.Dropdown(options=options, value=order, description="order z")}
    return FormulaWidget(controls, compute, draw, title="XLNet: who sees whom")


def sampling_widget(model: Any, tokenizer: Any, prompt: str = "ROMEO:\n",
                    temperature: float = 0.8, top_k: int = 0, length: int = 200,
                    seed: int = 0, bars: int = 15) -> FormulaWidget:
    """Sample from a trained GPT (chapter 18): prompt, temperature ``T`` and top-k.

    ``model`` is a :class:`formulated.models.trainable.GPT` (its methods ``next_token_probs`` and
    ``sample`` do the work) and ``tokenizer`` the tokenizer it was trained with.

    ``result``: ``probs`` — the next-character distribution after the prompt,
    ``softmax(z / T)`` restricted to the ``top_k`` largest logits (``top_k = 0``: all), a
    ``(V,)`` tensor; ``text`` — ``length`` sampled characters (seeded: the same controls give the
    same text); ``entropy`` — of ``probs`` in nats; ``error`` — a message instead of raising when
    the prompt holds a character outside the vocabulary.
    """
    import torch  # here, not at the top: the other widgets do not need torch

    V = tokenizer.vocab_size

    def compute(prompt: str, temperature: float, top_k: int, length: int, seed: int) -> dict:
        k = None if top_k == 0 else int(top_k)
        try:
            p = model.next_token_probs(tokenizer, prompt, temperature, k)
            text = model.sample(tokenizer, prompt, int(length), temperature=temperature,
                                top_k=k, seed=int(seed))
        except (KeyError, ValueError) as e:
            return {"error": str(e).strip("'\""), "probs": None, "text": "", "entropy": None}
        nz = p[p > 0]
        return {"error": None, "probs": p, "text": text,
                "entropy": float(-(nz * nz.log()).sum())}

    def draw(r: dict, v: dict) -> str:
        top = torch.topk(r["probs"], min(bars, V))
        labels = [repr(tokenizer.itos[i])[1:-1] or " " for i in top.indices.tolist()]
        fig, ax = panel(2.8)
        ax.bar(range(len(labels)), top.values.tolist(), color="tab:blue")
        ax.set_xticks(range(len(labels)), labels)
        ax.set(ylim=(0, 1), ylabel="probability")
        ax.set_title(f"next character (T = {v['temperature']:.2f}, top-k = {v['top_k'] or 'all'})"
                     f"\nentropy {r['entropy']:.2f} nats", fontsize=9)
        fig.tight_layout()
        return pre(v["prompt"] + r["text"])

    controls = {
        "prompt": W.Text(value=prompt, description="prompt", continuous_update=False),
        "temperature": W.FloatSlider(value=temperature, min=0.0, max=2.0, step=0.05,
                                     description="temperature T", continuous_update=False),
        "top_k": W.IntSlider(value=top_k, min=0, max=V, description="top-k (0 = all)",
                             continuous_update=False),
        "length": W.IntSlider(value=length, min=0, max=600, step=50, description="characters",
                              continuous_update=False),
        "seed": W.IntText(value=seed, description="seed"),
    }
    return FormulaWidget(controls, compute, draw, title="Sampling from the trained GPT")
