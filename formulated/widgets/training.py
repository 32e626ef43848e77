"""The widgets of the training part, chapters 17–19: XLNet's factorization orders, sampling
from the trained GPT, its attention maps, the nucleus of a distribution, the KV cache growing."""

from __future__ import annotations

from itertools import permutations
from typing import Any

import ipywidgets as W
import numpy as np

from ..basics import JointTableModel, TinyAttentionModel, xlnet_log_likelihood
from ..plotting import CYCLE, FOREGROUND
from .base import FormulaWidget, panel, pre

__all__ = [
    "xlnet_order_widget",
    "sampling_widget",
    "attention_map_widget",
    "nucleus_widget",
    "kv_cache_widget",
]


def xlnet_order_widget(order: str = "3 1 4 2") -> FormulaWidget:
    """Chapter 17: one XLNet factorization order of a 4-token sequence, under two models.

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
        return dict(
            order=z,
            visible=visible,
            table=xlnet_log_likelihood(table, ids, z),
            tiny=xlnet_log_likelihood(tiny, ids, z),
        )

    def draw(r: dict, v: dict) -> None:
        fig, ax = panel(3.2)
        ax.imshow(r["visible"], cmap="Blues", vmin=0, vmax=1.3)
        ax.set(
            xticks=range(4),
            yticks=range(4),
            xticklabels=[f"x{k + 1}" for k in range(4)],
            yticklabels=[f"predict x{j + 1}" for j in range(4)],
            xlabel="sees (dark)",
        )
        ax.set_title(
            f"order {v['order']}\nlog P: table {r['table']:.3f}, tiny {r['tiny']:.3f}",
            fontsize=10,
        )
        fig.tight_layout()

    controls = {
        "order": W.Dropdown(options=options, value=order, description="order z")
    }
    return FormulaWidget(controls, compute, draw, title="XLNet: who sees whom")


def sampling_widget(
    model: Any,
    tokenizer: Any,
    prompt: str = "ROMEO:\n",
    temperature: float = 0.8,
    top_k: int = 0,
    length: int = 200,
    seed: int = 0,
    bars: int = 15,
) -> FormulaWidget:
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

    def compute(
        prompt: str, temperature: float, top_k: int, length: int, seed: int
    ) -> dict:
        k = None if top_k == 0 else int(top_k)
        try:
            p = model.next_token_probs(tokenizer, prompt, temperature, k)
            text = model.sample(
                tokenizer,
                prompt,
                int(length),
                temperature=temperature,
                top_k=k,
                seed=int(seed),
            )
        except (KeyError, ValueError) as e:
            return {
                "error": str(e).strip("'\""),
                "probs": None,
                "text": "",
                "entropy": None,
            }
        nz = p[p > 0]
        return {
            "error": None,
            "probs": p,
            "text": text,
            "entropy": float(-(nz * nz.log()).sum()),
        }

    def draw(r: dict, v: dict) -> str:
        top = torch.topk(r["probs"], min(bars, V))
        labels = [repr(tokenizer.itos[i])[1:-1] or " " for i in top.indices.tolist()]
        fig, ax = panel(2.8)
        ax.bar(range(len(labels)), top.values.tolist(), color="tab:blue")
        ax.set_xticks(range(len(labels)), labels)
        ax.set(ylim=(0, 1), ylabel="probability")
        ax.set_title(
            f"next character (T = {v['temperature']:.2f}, top-k = {v['top_k'] or 'all'})"
            f"\nentropy {r['entropy']:.2f} nats",
            fontsize=9,
        )
        fig.tight_layout()
        return pre(v["prompt"] + r["text"])

    controls = {
        "prompt": W.Text(value=prompt, description="prompt", continuous_update=False),
        "temperature": W.FloatSlider(
            value=temperature,
            min=0.0,
            max=2.0,
            step=0.05,
            description="temperature T",
            continuous_update=False,
        ),
        "top_k": W.IntSlider(
            value=top_k,
            min=0,
            max=V,
            description="top-k (0 = all)",
            continuous_update=False,
        ),
        "length": W.IntSlider(
            value=length,
            min=0,
            max=600,
            step=50,
            description="characters",
            continuous_update=False,
        ),
        "seed": W.IntText(value=seed, description="seed"),
    }
    return FormulaWidget(controls, compute, draw, title="Sampling from the trained GPT")


def _labels(text: str) -> list[str]:
    return [{"\n": "⏎", " ": "␣"}.get(ch, ch) for ch in text]


def attention_map_widget(
    model: Any, tokenizer: Any, texts: list[str], layer: int = 1, head: int = 1
) -> FormulaWidget:
    """Chapter 19: the attention weights of one head (layer and head 1-based) on a chosen text.

    ``result``: ``weights`` — ``(n, n)`` array, row i the weights of query i; ``text``.
    """
    import torch

    from ..analysis import attention_weights

    cfg = model.cfg

    def compute(text: str, layer: int, head: int) -> dict:
        ids = torch.tensor([tokenizer.encode(text)[: cfg.n_ctx]])
        _, P = attention_weights(model, ids)
        return {"weights": P[0, layer - 1, head - 1].numpy(), "text": text[: cfg.n_ctx]}

    def draw(r: dict, v: dict) -> None:
        fig, ax = panel(3.4, 3.3)  # a phone-sized panel
        ax.imshow(r["weights"], cmap="Blues", vmin=0, vmax=1)
        lab = _labels(r["text"])
        ax.set_xticks(range(len(lab)), lab, fontsize=6)
        ax.set_yticks(range(len(lab)), lab, fontsize=6)
        ax.set_title(f"layer {v['layer']}, head {v['head']}", fontsize=10)
        ax.set(xlabel="key (attended to)", ylabel="query")
        fig.tight_layout()

    controls = {
        "text": W.Dropdown(options=texts, value=texts[0], description="text"),
        "layer": W.IntSlider(value=layer, min=1, max=cfg.L, description="layer"),
        "head": W.IntSlider(value=head, min=1, max=cfg.A, description="head"),
    }
    return FormulaWidget(controls, compute, draw, title="Attention of the trained GPT")


def nucleus_widget(
    logits: Any,
    labels: list[str],
    temperature: float = 1.0,
    top_k: int = 0,
    top_p: float = 0.9,
    bars: int = 20,
) -> FormulaWidget:
    """Chapter 19: the distribution after temperature, top-k (0 = off) and top-p.

    ``result``: ``probs`` — the model's ``softmax(z / T)``, ``(V,)``; ``kept`` — booleans;
    ``dist`` — the renormalized distribution the sampler draws from.
    """
    from ..sampling import (
        apply_temperature,
        sampling_distribution,
        top_k_mask,
        top_p_mask,
    )

    z = np.asarray(logits, dtype=np.float64)

    def compute(temperature: float, top_k: int, top_p: float) -> dict:
        zt = apply_temperature(z, temperature)
        kept = top_k_mask(zt, top_k) if top_k else np.ones(len(z), bool)
        kept = kept & top_p_mask(np.where(kept, zt, -np.inf), top_p)
        e = np.exp(zt - zt.max())
        return {
            "probs": e / e.sum(),
            "kept": kept,
            "dist": sampling_distribution(z, temperature, top_k or None, top_p),
        }

    def draw(r: dict, v: dict) -> str:
        order = np.argsort(-r["probs"], kind="stable")[:bars]
        fig, ax = panel(2.8)
        colors = [CYCLE[0] if r["kept"][i] else CYCLE[7] for i in order]
        ax.bar(range(len(order)), r["probs"][order], color=colors)
        ax.plot(
            range(len(order)),
            np.cumsum(r["probs"][order]),
            ".-",
            color=FOREGROUND["light"],
            lw=0.8,
            ms=3,
        )
        ax.axhline(v["top_p"], color="tab:red", ls="--", lw=0.8)
        ax.set_xticks(
            range(len(order)),
            [_labels(labels[i])[0] if labels[i] else "?" for i in order],
            fontsize=7,
        )
        ax.set(ylim=(0, 1.02), ylabel="probability / cumulative")
        ax.set_title(
            f"kept {int(r['kept'].sum())} of {len(z)} (blue; gray: cut)", fontsize=9
        )
        fig.tight_layout()
        return f"mass kept before renormalizing: {r['probs'][r['kept']].sum():.3f}"

    controls = {
        "temperature": W.FloatSlider(
            value=temperature,
            min=0.1,
            max=2.0,
            step=0.05,
            description="temperature T",
            continuous_update=False,
        ),
        "top_k": W.IntSlider(
            value=top_k,
            min=0,
            max=len(z),
            description="top-k (0 = off)",
            continuous_update=False,
        ),
        "top_p": W.FloatSlider(
            value=top_p,
            min=0.05,
            max=1.0,
            step=0.05,
            description="top-p",
            continuous_update=False,
        ),
    }
    return FormulaWidget(controls, compute, draw, title="The nucleus (top-p)")


def kv_cache_widget(
    model: Any, tokenizer: Any, text: str, layer: int = 1, head: int = 1
) -> FormulaWidget:
    """Chapter 19: the keys cached after ``t`` characters of ``text``, and the new query's
    attention over them.  ``result``: ``keys`` ``(t, D)``; ``weights`` ``(t,)``; ``numbers`` —
    how many numbers the whole cache holds, ``2 L A t D``."""
    import torch

    from ..analysis import attention_weights
    from ..models.kv_cache import forward_cached

    ids = torch.tensor([tokenizer.encode(text)[: model.cfg.n_ctx]])
    n = ids.shape[1]

    def compute(t: int, layer: int, head: int) -> dict:
        _, cache = forward_cached(model, ids[:, :t])
        K = cache.keys[layer - 1][0, head - 1]  # (t, D)
        _, P = attention_weights(model, ids[:, :t])
        return {
            "keys": K.numpy(),
            "weights": P[0, layer - 1, head - 1, -1].numpy(),
            "numbers": cache.numel,
        }

    def draw(r: dict, v: dict) -> None:
        fig, axes = panel(3.2, 3.4, nrows=2, height_ratios=[4, 1], sharex=True)
        keys = np.full((n, r["keys"].shape[1]), np.nan)
        keys[: v["t"]] = r["keys"]
        axes[0].imshow(keys.T, aspect="auto", cmap="RdBu", vmin=-3, vmax=3)
        axes[0].set(
            ylabel="key dims D",
            title=f"cache after t = {v['t']}: {r['numbers']:,} numbers",
        )
        w = np.zeros(n)
        w[: v["t"]] = r["weights"]
        axes[1].bar(range(n), w, color="tab:blue")
        axes[1].set(xlabel="position", ylabel="weight", ylim=(0, 1))
        fig.tight_layout()

    controls = {
        "t": W.IntSlider(
            value=min(16, n),
            min=1,
            max=n,
            description="t (cached)",
            continuous_update=False,
        ),
        "layer": W.IntSlider(value=layer, min=1, max=model.cfg.L, description="layer"),
        "head": W.IntSlider(value=head, min=1, max=model.cfg.A, description="head"),
    }
    return FormulaWidget(controls, compute, draw, title="The KV cache grows")
