"""The real GPT-2: load a pretrained checkpoint — weights and the GPT-2 byte-level BPE tokenizer —
and evaluate it with the book's NumPy ``gpt2`` (chapter 19).

``load_pretrained("gpt2")`` reads the Hugging Face checkpoint of that name from the local cache,
``load_pretrained("/path/to/dir")`` a directory written by ``save_pretrained`` (``config.json``,
the weights, ``tokenizer.json`` or ``vocab.json`` + ``merges.txt``).  Nothing is downloaded unless
``download=True`` is passed (and the machine has internet access): the book's build and tests
never download.  They run the same code on a tiny GPT-2 and tokenizer that
:func:`save_tiny_gpt2` builds offline and writes with ``save_pretrained``.

:func:`to_gpt2_lm_head` goes the other way: it turns the book's trained PyTorch GPT into a
``transformers`` ``GPT2LMHeadModel``, an implementation nobody here wrote, which then serves as
the reference for the attention weights of :mod:`formulated.analysis`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .._checks import check_int
from .hf import from_gpt2
from .hf_tiny import hf_probabilities
from .params import GPTParams
from .reference import gpt2_probabilities
from .trainable import GPT

__all__ = [
    "Pretrained",
    "load_pretrained",
    "pretrained_available",
    "save_tiny_gpt2",
    "to_gpt2_lm_head",
    "parity",
    "TINY_TEXT",
]

#: The lines the tiny tokenizer of :func:`save_tiny_gpt2` learns its merges from.
TINY_TEXT = (
    "First Citizen:\nBefore we proceed any further, hear me speak.\n\n"
    "All:\nSpeak, speak.\n\nFirst Citizen:\nYou are all resolved rather to die than "
    "to famish?\n\nAll:\nResolved. resolved.\n"
)


@dataclass
class Pretrained:
    """A loaded checkpoint: the ``transformers`` model (eval mode), its tokenizer, and the same
    weights in the book's container (``params``, ``options`` for :func:`gpt2_probabilities`)."""

    model: Any
    tokenizer: Any
    params: GPTParams
    options: dict[str, Any]
    source: str

    def encode(self, text: str) -> np.ndarray:
        """The token ids of ``text`` (the GPT-2 BPE), ``(n,)``."""
        if not isinstance(text, str) or not text:
            raise ValueError(f"text: expected a non-empty string, got {text!r}")
        return np.asarray(self.tokenizer(text)["input_ids"], dtype=np.int64)

    def probabilities(self, text: str) -> np.ndarray:
        """The book's ``gpt2_probabilities`` of the tokens of ``text``: ``(n, V)``, float64."""
        return gpt2_probabilities(self.encode(text), self.params, **self.options)

    def next_tokens(self, text: str, k: int = 5) -> list[tuple[str, float]]:
        """The ``k`` most probable next tokens after ``text`` (NumPy ``gpt2``), with their
        probabilities."""
        V = int(self.model.config.vocab_size)
        k = check_int(k, "k", 1, f"an integer in 1..V={V}")
        if k > V:  # a slice would quietly return V tokens (and k = -1 all but one)
            raise ValueError(f"k: expected an integer in 1..V={V}, got {k}")
        p = self.probabilities(text)[-1]
        top = np.argsort(-p, kind="stable")[:k]
        return [(self.tokenizer.decode([int(i)]), float(p[i])) for i in top]


def _source(source: Any) -> str:
    if isinstance(source, bytes) or not isinstance(source, (str, os.PathLike)):
        raise TypeError(
            f"source: expected a hub name such as 'gpt2' or a directory (str or "
            f"os.PathLike), got {type(source).__name__}"
        )
    return os.fspath(source)


def _check_directory(path: Path) -> None:
    """Refuse, before ``transformers`` reads it, a directory that cannot hold a GPT-2 checkpoint:
    a missing path, a file, no ``config.json``, a ``config.json`` that is not JSON or is another
    model's (``transformers`` calls all of these "not available" or loads them half-way)."""
    if not path.exists():
        raise FileNotFoundError(
            f"source: expected a directory written by save_pretrained, got "
            f"{str(path)!r}, which does not exist"
        )
    if not path.is_dir():
        raise NotADirectoryError(
            f"source: expected a directory written by save_pretrained, "
            f"got {str(path)!r}, which is a file"
        )
    config = path / "config.json"
    if not config.is_file():
        raise FileNotFoundError(
            f"source: expected a directory written by save_pretrained, got "
            f"{str(path)!r}, which has no config.json"
        )
    try:
        fields = json.loads(config.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(
            f"source: the checkpoint's {str(config)!r} is corrupt: it is not "
            f"valid JSON ({e})"
        ) from e
    kind = fields.get("model_type") if isinstance(fields, dict) else None
    if kind != "gpt2":
        raise ValueError(
            f"source: expected a GPT-2 checkpoint (model_type 'gpt2' in "
            f"{str(config)!r}), got {kind!r}"
        )


def load_pretrained(
    source: str | os.PathLike = "gpt2",
    *,
    download: bool = False,
    dtype: torch.dtype = torch.float64,
) -> Pretrained:
    """Load a GPT-2 checkpoint and its tokenizer from a directory or the Hugging Face hub name.

    ``download=False`` (the default) reads only what is on this machine: the directory, or the
    hub name's copy in the local Hugging Face cache.  The model is converted to ``dtype``
    (float64: the NumPy ``gpt2`` then gives its probabilities to about 1e-15) and put in eval
    mode.  Raises ``FileNotFoundError`` naming ``source`` when it is not available,
    ``NotADirectoryError`` when a path names a file, ``ValueError`` when its ``config.json`` is
    corrupt or another model's.
    """
    import transformers

    src = _source(source)
    if not isinstance(download, bool):
        raise TypeError(f"download: expected True or False, got {download!r}")
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype: expected a floating torch.dtype, got {dtype!r}")
    looks_like_path = os.sep in src or src.startswith(".") or Path(src).exists()
    if looks_like_path:
        _check_directory(Path(src))
    try:
        model = transformers.GPT2LMHeadModel.from_pretrained(
            src, local_files_only=not download
        )
        tokenizer = transformers.GPT2TokenizerFast.from_pretrained(
            src, local_files_only=not download
        )
    except OSError as e:
        hint = (
            ""
            if download
            else "; pass download=True on a machine with internet access, "
            "or the path of a directory holding the checkpoint"
        )
        raise FileNotFoundError(
            f"source: {src!r} is not available on this machine{hint} "
            f"({str(e).splitlines()[0][:160]})"
        ) from e
    model = model.to(dtype).eval()
    if len(tokenizer) > model.config.vocab_size:
        raise ValueError(
            f"source: the tokenizer has {len(tokenizer)} tokens but the model "
            f"V={model.config.vocab_size}; expected a tokenizer that fits"
        )
    params, options = from_gpt2(model)
    return Pretrained(model, tokenizer, params, options, src)


def pretrained_available(source: str | os.PathLike = "gpt2") -> bool:
    """Whether :func:`load_pretrained` finds ``source`` without downloading."""
    src = _source(source)
    if Path(src).is_dir():
        return (Path(src) / "config.json").is_file()
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # pragma: no cover - installed with transformers
        return False
    found = try_to_load_from_cache(src, "config.json")
    return isinstance(found, str)


def save_tiny_gpt2(
    directory: str | os.PathLike,
    *,
    n_embd: int = 16,
    n_layer: int = 2,
    n_head: int = 4,
    n_positions: int = 64,
    vocab_size: int = 300,
    seed: int = 0,
    overwrite: bool = False,
) -> Path:
    """Write a tiny GPT-2 checkpoint to ``directory`` with ``save_pretrained``, offline.

    The tokenizer is a byte-level BPE (GPT-2's algorithm and pre-tokenization) trained on
    :data:`TINY_TEXT` up to ``vocab_size`` tokens, wrapped in ``GPT2TokenizerFast``; the model is a
    ``GPT2LMHeadModel`` of that vocabulary with seeded random weights (every weight drawn, so
    that no gain is 1 and no bias 0).  Returns the directory.

    ``directory`` is created if needed; one that already holds files is refused (a checkpoint
    there would be overwritten) unless ``overwrite=True``.  ``vocab_size`` counts the 256
    bytes and ``<|endoftext|>``, so it is at least 257.
    """
    import transformers
    from tokenizers import ByteLevelBPETokenizer

    from .hf_tiny import randomize_

    out = _output_directory(directory, overwrite)
    for name, value in (
        ("n_embd", n_embd),
        ("n_layer", n_layer),
        ("n_head", n_head),
        ("n_positions", n_positions),
    ):
        check_int(value, name)
    if n_embd % n_head:
        raise ValueError(f"n_head: expected a divisor of n_embd={n_embd}, got {n_head}")
    check_int(
        vocab_size, "vocab_size", 257, "an integer >= 257 (256 bytes + <|endoftext|>)"
    )
    check_int(seed, "seed", 0, "an integer >= 0")
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(
        [TINY_TEXT],
        vocab_size=vocab_size,
        min_frequency=1,
        special_tokens=["<|endoftext|>"],
        show_progress=False,
    )
    tokenizer = transformers.GPT2TokenizerFast(
        tokenizer_object=bpe._tokenizer,
        bos_token="<|endoftext|>",
        eos_token="<|endoftext|>",
        unk_token="<|endoftext|>",
    )
    config = transformers.GPT2Config(
        vocab_size=len(tokenizer),
        n_positions=n_positions,
        n_embd=n_embd,
        n_layer=n_layer,
        n_head=n_head,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(seed)
    model = transformers.GPT2LMHeadModel(config)
    randomize_(model, seed=seed)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


def _output_directory(directory: Any, overwrite: Any) -> Path:
    """The directory to write a checkpoint to: not a file, and empty unless ``overwrite``."""
    if not isinstance(overwrite, bool):
        raise TypeError(f"overwrite: expected True or False, got {overwrite!r}")
    if isinstance(directory, bytes) or not isinstance(directory, (str, os.PathLike)):
        raise TypeError(
            f"directory: expected a directory path (str or os.PathLike), got "
            f"{type(directory).__name__}"
        )
    out = Path(directory)
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(
            f"directory: expected a directory to write the checkpoint "
            f"to, got {str(out)!r}, which is a file"
        )
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        raise FileExistsError(
            f"directory: expected an empty or new directory, got "
            f"{str(out)!r}, which holds files (a checkpoint there would "
            f"be overwritten); pass overwrite=True to replace them"
        )
    return out


def to_gpt2_lm_head(model: GPT, attn_implementation: str = "eager") -> Any:
    """The book's PyTorch :class:`GPT` as a ``transformers`` ``GPT2LMHeadModel`` (same dtype,
    eval mode): ``softmax(model(x))`` equals the transformers model's probabilities.

    GPT-2's ``Conv1D`` stores ``(in, out)`` matrices, ``nn.Linear`` ``(out, in)``: every matrix
    is transposed.  ``gelu="erf"`` maps to transformers' ``"gelu"``, ``"tanh"`` to
    ``"gelu_new"``.  ``attn_implementation="eager"`` lets ``output_attentions=True`` return the
    attention weights.
    """
    import transformers

    if not isinstance(model, GPT):
        raise TypeError(
            f"model: expected a formulated.models.trainable.GPT, got "
            f"{type(model).__name__}"
        )
    c = model.cfg
    config = transformers.GPT2Config(
        vocab_size=c.V,
        n_positions=c.n_ctx,
        n_embd=c.H,
        n_layer=c.L,
        n_head=c.A,
        n_inner=c.F,
        layer_norm_epsilon=c.eps,
        activation_function="gelu" if c.gelu == "erf" else "gelu_new",
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        tie_word_embeddings=True,
        bos_token_id=None,
        eos_token_id=None,
    )
    config._attn_implementation = attn_implementation
    dtype = model.W_e.weight.dtype
    hf = transformers.GPT2LMHeadModel(config)
    hf = hf.to(dtype).eval()
    sd = {
        "transformer.wte.weight": model.W_e.weight,
        "transformer.wpe.weight": model.W_p.weight,
        "transformer.ln_f.weight": model.ln_f.weight,
        "transformer.ln_f.bias": model.ln_f.bias,
    }
    for i, b in enumerate(model.blocks):
        h = f"transformer.h.{i}."
        sd.update(
            {
                h + "ln_1.weight": b.ln_1.weight,
                h + "ln_1.bias": b.ln_1.bias,
                h + "ln_2.weight": b.ln_2.weight,
                h + "ln_2.bias": b.ln_2.bias,
                h + "attn.c_attn.weight": b.attn.qkv.weight.T,
                h + "attn.c_attn.bias": b.attn.qkv.bias,
                h + "attn.c_proj.weight": b.attn.proj.weight.T,
                h + "attn.c_proj.bias": b.attn.proj.bias,
                h + "mlp.c_fc.weight": b.ffn.fc.weight.T,
                h + "mlp.c_fc.bias": b.ffn.fc.bias,
                h + "mlp.c_proj.weight": b.ffn.proj.weight.T,
                h + "mlp.c_proj.bias": b.ffn.proj.bias,
            }
        )
    with torch.no_grad():
        own = hf.state_dict()
        for k, v in sd.items():
            own[k].copy_(v.detach())
    return hf


def parity(pre: Pretrained, text: str) -> float:
    """``max |P_numpy - P_transformers|`` over the tokens of ``text``: the book's NumPy ``gpt2``
    against the loaded ``transformers`` model."""
    ids = pre.encode(text)
    return float(
        np.abs(pre.probabilities(text) - hf_probabilities(pre.model, ids)).max()
    )
