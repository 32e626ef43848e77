"""Bad input across the public API: one table, every input class.

Each row of :data:`TABLE` is a public function, a *valid* call (its keyword arguments, built from
small objects in :class:`Ctx`) and ways to corrupt one argument at a time, each tagged with an
input class of :data:`CLASSES`.  ``test_valid_call`` runs every valid call, so that each error
below comes from the one corrupted argument and not from a call that was wrong to begin with;
``test_bad_input_is_refused`` runs every corruption and asserts

* a ``ValueError`` or ``TypeError`` (for a path: ``FileNotFoundError``, ``NotADirectoryError``,
  ``IsADirectoryError``; for a training checkpoint: the package's ``CheckpointError``), never a
  silent answer nor an error from deep inside NumPy, torch or transformers;
* a message that names the argument: its name as a word (``idx``, ``cache.keys[0]``), or, for a
  path, the path that was passed.

Cases that fail in modules being reworked elsewhere are marked ``xfail(strict=True)`` with what
is missing; a strict xfail turns into a failure once it is fixed, so the mark is removed then.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
import torch
from _helpers import tiny_run

from formulated import analysis as AN
from formulated import basics as B
from formulated import data as DA
from formulated import formulas as F
from formulated import sampling as SA
from formulated import tokenizers as T
from formulated import training as TR
from formulated.models import blocks as BL
from formulated.models import hf as HF
from formulated.models import hf_tiny as HT
from formulated.models import kv_cache as KV
from formulated.models import params as P
from formulated.models import pretrained as PR
from formulated.models import reference as R
from formulated.models import sizes as SZ
from formulated.models import trainable as TM
from formulated.notation import shapes as S

#: The input classes: each names a way an argument can be wrong.
CLASSES = (
    "type",
    "shape",
    "id",
    "nonfinite",
    "empty",
    "file_for_dir",
    "dir_for_file",
    "checkpoint",
)

NAN = float("nan")
PATH_ERRORS = (FileNotFoundError, NotADirectoryError, IsADirectoryError)
VALUE_ERRORS = (ValueError, TypeError)


class Ctx:
    """The small objects the valid calls need, built once per test session on first use."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp

    # -- paths ---------------------------------------------------------------------------------
    def fresh(self, stem: str) -> Path:
        """A new path that does not exist yet (one per call: a writer's valid target)."""
        self.count = getattr(self, "count", 0) + 1
        return self.tmp / f"{stem}_{self.count}"

    @functools.cached_property
    def file(self) -> Path:
        p = self.tmp / "plain.txt"
        p.write_text("hello world\n", encoding="utf-8")
        return p

    @functools.cached_property
    def folder(self) -> Path:
        p = self.tmp / "folder"
        p.mkdir()
        return p

    @functools.cached_property
    def missing(self) -> Path:
        return self.tmp / "nothing" / "here"

    @functools.cached_property
    def corrupt_pt(self) -> Path:
        p = self.tmp / "corrupt.pt"
        p.write_bytes(b"this is not a torch file" * 10)
        return p

    @functools.cached_property
    def binary(self) -> Path:
        p = self.tmp / "binary.bin"
        p.write_bytes(bytes(range(256)) * 4)
        return p

    @functools.cached_property
    def foreign_pt(self) -> Path:
        """A readable torch file that is nobody's checkpoint."""
        p = self.tmp / "foreign.pt"
        torch.save({"weights": torch.ones(3)}, p)
        return p

    @functools.cached_property
    def other_weights_pt(self) -> Path:
        """Weights of another model in the format of :func:`analysis.export_weights`."""
        p = self.tmp / "other_weights.pth"
        ck = torch.load(AN.CHECKPOINT, map_location="cpu", weights_only=True)
        ck["model"] = {k: v[..., :1] for k, v in ck["model"].items()}
        torch.save(ck, p)
        return p

    @functools.cached_property
    def corpus(self) -> Path:
        p = self.tmp / "corpus.txt"
        p.write_text(
            "hello world, a tiny corpus for the sweep. " * 30, encoding="utf-8"
        )
        return p

    @functools.cached_property
    def run_dir(self) -> Path:
        """A finished 2-step training run (``ckpt.pt`` inside)."""
        out = self.tmp / "run"
        TR.train(None, out, progress=False, **tiny_run(self.corpus, max_steps=2))
        return out

    @functools.cached_property
    def tiny_dir(self) -> Path:
        return PR.save_tiny_gpt2(self.tmp / "tiny_gpt2")

    @functools.cached_property
    def bad_config_dir(self) -> Path:
        d = self.tmp / "bad_config"
        d.mkdir()
        (d / "config.json").write_text('{"model_type": "gpt2",', encoding="utf-8")
        return d

    # -- models and data -----------------------------------------------------------------------
    @functools.cached_property
    def gpt(self) -> TM.GPT:
        torch.manual_seed(0)
        return TM.GPT(TM.GPTConfig(V=12, n_ctx=16, L=2, A=2, H=16)).double().eval()

    @functools.cached_property
    def cache(self) -> KV.KVCache:
        return KV.forward_cached(self.gpt, torch.zeros(1, 3, dtype=torch.long))[1]

    @functools.cached_property
    def foreign_cache(self) -> KV.KVCache:
        torch.manual_seed(1)
        other = TM.GPT(TM.GPTConfig(V=12, n_ctx=16, L=2, A=4, H=16)).double().eval()
        return KV.forward_cached(other, torch.zeros(1, 3, dtype=torch.long))[1]

    @functools.cached_property
    def char_tok(self) -> T.CharTokenizer:
        return T.CharTokenizer.from_text("abcdefghijkl")  # V = 12, as the GPT

    @functools.cached_property
    def bpe(self) -> T.BPETokenizer:
        return T.BPETokenizer.train("low lower lowest newer newest", 4)

    @functools.cached_property
    def config(self) -> P.Config:
        return P.Config(V=10, n_ctx=8, H=8, A=2, L=1)

    @functools.cached_property
    def gpt_params(self) -> P.GPTParams:
        return P.init_gpt2(self.config, seed=0)

    @functools.cached_property
    def nan_params(self) -> P.GPTParams:
        W_e = self.gpt_params.W_e.copy()
        W_e[2, 3] = NAN
        return dataclasses.replace(self.gpt_params, W_e=W_e)

    @functools.cached_property
    def bert_params(self) -> P.BERTParams:
        return P.init_bert(self.config, seed=0)

    @functools.cached_property
    def roberta_params(self) -> P.RoBERTaParams:
        return P.init_roberta(self.config, seed=0)

    @functools.cached_property
    def block_params(self) -> S.GPTBlockParams:
        return S.random_block_params(V=10, n_max=6, H=8, A=2)

    @functools.cached_property
    def hf_gpt2(self) -> Any:
        return HT.tiny_model("gpt2", self.config)

    @functools.cached_property
    def hf_bert(self) -> Any:
        return HT.tiny_model("bert", self.config)

    @functools.cached_property
    def pre(self) -> PR.Pretrained:
        return PR.load_pretrained(self.tiny_dir)

    @functools.cached_property
    def lstm(self) -> B.LSTMParams:
        rng = np.random.default_rng(0)
        m = {f"W_{g}": rng.normal(size=(3 + 2, 3)) for g in "ifCo"}
        return B.LSTMParams(**m, **{f"b_{g}": np.zeros(3) for g in "ifCo"})


def ids(*rows: list[int]) -> torch.Tensor:
    return torch.tensor(rows)


@dataclass
class Bad:
    """One corruption: argument ``arg`` replaced by ``value`` (a callable of the context is
    called), of input class ``cls``."""

    cls: str
    arg: str
    value: Any
    errors: tuple[type[BaseException], ...] | None = None
    xfail: str | None = None


@dataclass
class Row:
    """A public function, its valid keyword arguments, and its corruptions."""

    name: str
    func: Callable[..., Any]
    valid: Callable[[Ctx], dict[str, Any]]
    bad: list[Bad] = field(default_factory=list)


def _tok_encode(tok: Any, text: Any) -> Any:
    return tok.encode(text)


def _tok_decode(tok: Any, ids: Any) -> Any:
    return tok.decode(ids)


def _next_tokens(pre: Any, text: Any, k: Any) -> Any:
    return pre.next_tokens(text, k=k)


def _gpt_forward(model: Any, idx: Any) -> Any:
    return model(idx)


X23 = np.arange(6.0).reshape(2, 3)

TABLE: list[Row] = [
    # -- formulated.formulas (NumPy) -----------------------------------------------------------
    Row(
        "formulas.softmax",
        F.softmax,
        lambda c: dict(X=X23),
        [
            Bad("type", "X", [["a", "b"]]),
            Bad("nonfinite", "X", [[1.0, NAN]]),
            Bad("empty", "X", np.zeros((2, 0))),
        ],
    ),
    Row(
        "formulas.one_hot",
        F.one_hot,
        lambda c: dict(ids=[0, 2], V=3),
        [
            Bad("id", "ids", [0, 3]),
            Bad("type", "ids", [0.5, 1.0]),
            Bad("type", "V", 2.5),
        ],
    ),
    Row(
        "formulas.embed",
        F.embed,
        lambda c: dict(ids=[0, 2], W_e=np.ones((3, 4))),
        [
            Bad("id", "ids", [0, 3]),
            Bad("id", "ids", [-1]),
            Bad("type", "ids", [0.0, 1.0]),
            Bad("shape", "W_e", np.ones(4)),
            Bad("nonfinite", "W_e", np.full((3, 4), NAN)),
        ],
    ),
    Row(
        "formulas.masked_softmax",
        F.masked_softmax,
        lambda c: dict(scores=np.zeros((3, 3)), mask=F.mask_autoregressive(3)),
        [
            Bad("shape", "mask", np.zeros((4, 4))),
            Bad("nonfinite", "scores", np.full((3, 3), NAN)),
            Bad("empty", "scores", np.zeros((0, 0))),
        ],
    ),
    Row(
        "formulas.attention",
        F.attention,
        lambda c: dict(Q=np.ones((3, 4)), K=np.ones((3, 4)), V=np.ones((3, 2))),
        [
            Bad("shape", "K", np.ones((3, 5))),
            Bad("shape", "V", np.ones((2, 2))),
            Bad("nonfinite", "Q", np.full((3, 4), NAN)),
            Bad("empty", "Q", np.ones((0, 4))),
            Bad("type", "Q", "abc"),
        ],
    ),
    Row(
        "formulas.split_heads",
        F.split_heads,
        lambda c: dict(X=np.ones((1, 3, 4)), A=2),
        [
            Bad("shape", "X", np.ones((3, 4))),
            Bad("shape", "A", 3),
            Bad("type", "A", 2.0),
        ],
    ),
    Row(
        "formulas.multi_head_self_attention",
        F.multi_head_self_attention,
        lambda c: dict(
            X=np.ones((3, 4)),
            mask=F.mask_autoregressive(3),
            W_q=np.ones((2, 4, 2)),
            W_k=np.ones((2, 4, 2)),
            W_v=np.ones((2, 4, 2)),
            W_o=np.ones((4, 4)),
        ),
        [
            Bad("shape", "W_q", np.ones((2, 5, 2))),
            Bad("shape", "W_o", np.ones((3, 4))),
            Bad("nonfinite", "X", np.full((3, 4), NAN)),
        ],
    ),
    Row(
        "formulas.gelu",
        F.gelu,
        lambda c: dict(x=[0.5, 1.0]),
        [Bad("type", "x", ["a"]), Bad("nonfinite", "x", [NAN])],
    ),
    Row(
        "formulas.ffn_relu",
        F.ffn_relu,
        lambda c: dict(
            X=np.ones((3, 4)),
            W1=np.ones((4, 6)),
            b1=np.ones(6),
            W2=np.ones((6, 4)),
            b2=np.ones(4),
        ),
        [
            Bad("shape", "W1", np.ones((5, 6))),
            Bad("shape", "b1", np.ones(5)),
            Bad("nonfinite", "W2", np.full((6, 4), NAN)),
        ],
    ),
    Row(
        "formulas.layer_norm",
        F.layer_norm,
        lambda c: dict(X=X23, gamma=np.ones(3), beta=np.zeros(3)),
        [
            Bad("shape", "gamma", np.ones(4)),
            Bad("nonfinite", "X", [[1.0, NAN, 2.0]]),
            Bad("empty", "X", np.zeros((0, 3))),
        ],
    ),
    Row(
        "formulas.positional_encoding_sinusoidal",
        F.positional_encoding_sinusoidal,
        lambda c: dict(n=4, H=6),
        [Bad("type", "n", 2.5), Bad("empty", "n", 0)],
    ),
    Row(
        "formulas.cross_entropy",
        F.cross_entropy,
        lambda c: dict(y=np.eye(3)[[0, 2]], y_hat=np.full((2, 3), 1 / 3)),
        [
            Bad("shape", "y_hat", np.full((2, 4), 0.25)),
            Bad("shape", "y_hat", [[0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]]),  # ragged
            Bad("nonfinite", "y_hat", np.full((2, 3), NAN)),
            # a tensor that requires grad is refused: the derived sweep
            # test_a_tensor_that_requires_grad_is_refused below, one case per float argument
            Bad("type", "y_hat", np.full((2, 3), 1 / 3) + 0j),
            Bad("shape", "y_hat", np.full((2, 3), 0.9)),
        ],
    ),  # rows summing to 2.7
    Row(
        "formulas.cross_entropy_from_logits",
        F.cross_entropy_from_logits,
        lambda c: dict(logits=X23, targets=[0, 2]),
        [
            Bad("id", "targets", [0, 3]),
            Bad("shape", "targets", [0, 1, 2]),
            Bad("nonfinite", "logits", [[NAN, 1.0, 2.0], [0.0, 1.0, 2.0]]),
            Bad("type", "targets", [0.0, 1.0]),
        ],
    ),
    # -- formulated.sampling -------------------------------------------------------------------
    Row(
        "sampling.sampling_distribution",
        SA.sampling_distribution,
        lambda c: dict(z=[1.0, 2.0, 3.0], temperature=0.7, top_k=2),
        [
            Bad("nonfinite", "z", [1.0, NAN, 3.0]),
            Bad("empty", "z", []),
            Bad("type", "z", "abc"),
            Bad("nonfinite", "temperature", NAN),
            Bad("type", "temperature", "1"),
            Bad("type", "top_k", 1.5),
            Bad("id", "top_k", 0),
            Bad("nonfinite", "top_p", NAN),
        ],
    ),
    Row(
        "sampling.top_k_mask",
        SA.top_k_mask,
        lambda c: dict(z=[1.0, 2.0, 3.0], k=2),
        [
            Bad("id", "k", 0),
            Bad("type", "k", 2.0),
            Bad("nonfinite", "z", [NAN, 1.0, 2.0]),
        ],
    ),
    Row(
        "sampling.top_p_mask",
        SA.top_p_mask,
        lambda c: dict(z=[1.0, 2.0, 3.0], p=0.9),
        [Bad("nonfinite", "p", NAN), Bad("id", "p", 1.5), Bad("empty", "z", [])],
    ),
    # -- formulated.tokenizers -----------------------------------------------------------------
    Row(
        "tokenizers.CharTokenizer.decode",
        _tok_decode,
        lambda c: dict(tok=c.char_tok, ids=[0, 11]),
        [Bad("id", "ids", [0, 12]), Bad("id", "ids", [-1]), Bad("type", "ids", [0.5])],
    ),
    Row(
        "tokenizers.CharTokenizer.encode",
        _tok_encode,
        lambda c: dict(tok=c.char_tok, text="abc"),
        [Bad("type", "text", [1, 2])],
    ),
    Row(
        "tokenizers.CharTokenizer.from_dict",
        T.CharTokenizer.from_dict,
        lambda c: dict(d=c.char_tok.to_dict()),
        [
            Bad("checkpoint", "d", {"kind": "bpe", "itos": "ab"}),
            Bad("type", "d", "abc"),
            Bad("empty", "d", {"kind": "char", "itos": ""}),
            Bad("checkpoint", "d", {"kind": "char", "itos": "abca"}),
        ],
    ),  # a repeated char
    Row(
        "tokenizers.CharTokenizer",
        T.CharTokenizer,
        lambda c: dict(chars="abc"),
        [Bad("empty", "chars", ""), Bad("type", "chars", ["ab"])],
    ),
    Row(
        "tokenizers.BPETokenizer.decode",
        _tok_decode,
        lambda c: dict(tok=c.bpe, ids=[0, 1]),
        [Bad("id", "ids", lambda c: [c.bpe.vocab_size]), Bad("type", "ids", [0.0])],
    ),
    Row(
        "tokenizers.learn_bpe",
        T.learn_bpe,
        lambda c: dict(word_counts={"low": 2, "lower": 1}, num_merges=2),
        [
            Bad("empty", "word_counts", {}),
            Bad("type", "word_counts", ["low"]),
            Bad("type", "num_merges", 1.5),
            Bad("id", "word_counts", {"low": -1}),
        ],
    ),
    Row(
        "tokenizers.word_frequencies",
        T.word_frequencies,
        lambda c: dict(text="a b a"),
        [Bad("type", "text", b"a b a")],
    ),
    # -- formulated.notation.shapes ------------------------------------------------------------
    Row(
        "shapes.trace_gpt_block",
        S.trace_gpt_block,
        lambda c: dict(ids=[[1, 2, 3]], params=c.block_params),
        [
            Bad("id", "ids", [[1, 10]]),
            Bad("type", "ids", [[1.0, 2.0]]),
            Bad("empty", "ids", [[]]),
            Bad("shape", "ids", [list(range(7))]),
            Bad("shape", "ids", [1, 2]),
            Bad("type", "params", {}),
        ],
    ),
    Row(
        "shapes.gpt2_reference",
        S.gpt2_reference,
        lambda c: dict(ids=[[1, 2, 3]], params=c.block_params),
        [
            Bad("id", "ids", [[1, 10]]),
            Bad("empty", "ids", [[]]),
            Bad("type", "params", None),
        ],
    ),
    Row(
        "shapes.random_block_params",
        S.random_block_params,
        lambda c: dict(V=10, n_max=6, H=8, A=2),
        [Bad("shape", "A", 3), Bad("type", "V", 2.5), Bad("empty", "V", 0)],
    ),
    Row(
        "shapes.symbolic_shape",
        S.symbolic_shape,
        lambda c: dict(letters=("n", "H"), dims={"n": 2, "H": 3}),
        [Bad("type", "dims", [2, 3]), Bad("type", "letters", (1, 2))],
    ),
    # -- formulated.basics ---------------------------------------------------------------------
    Row(
        "basics.linear_predict",
        B.linear_predict,
        lambda c: dict(X=X23, theta=np.ones(4)),
        [
            Bad("shape", "theta", np.ones(3)),
            Bad("nonfinite", "X", [[NAN, 1.0, 2.0]]),
            Bad("type", "X", "abc"),
        ],
    ),
    Row(
        "basics.squared_loss",
        B.squared_loss,
        lambda c: dict(y_hat=np.ones(3), y=np.ones(3)),
        [
            Bad("shape", "y", np.ones(4)),
            Bad("empty", "y_hat", np.ones(0)),
            Bad("nonfinite", "y", [1.0, NAN, 1.0]),
        ],
    ),
    Row(
        "basics.entropy",
        B.entropy,
        lambda c: dict(p=[0.5, 0.5]),
        [
            Bad("nonfinite", "p", [NAN, 1.0]),
            Bad("empty", "p", []),
            Bad("shape", "p", [0.5, 0.9]),
        ],
    ),
    Row(
        "basics.kl_divergence",
        B.kl_divergence,
        lambda c: dict(p=[0.5, 0.5], q=[0.25, 0.75]),
        [Bad("shape", "q", [0.2, 0.3, 0.5]), Bad("nonfinite", "q", [NAN, 1.0])],
    ),
    Row(
        "basics.rnn_forward",
        B.rnn_forward,
        lambda c: dict(
            X=np.ones((4, 2)),
            h0=np.zeros(3),
            W_xh=np.ones((2, 3)),
            W_hh=np.eye(3),
            b_h=np.zeros(3),
        ),
        [
            Bad("shape", "h0", np.zeros(4)),
            Bad("shape", "W_hh", np.eye(2)),
            Bad("nonfinite", "X", np.full((4, 2), NAN)),
        ],
    ),  # 0 steps, 0 states: not an error
    Row(
        "basics.lstm_forward",
        B.lstm_forward,
        lambda c: dict(X=np.ones((4, 2)), h0=np.zeros(3), c0=np.zeros(3), p=c.lstm),
        [
            Bad("shape", "c0", np.zeros(4)),
            Bad("nonfinite", "X", np.full((4, 2), NAN)),
            Bad("type", "p", {}),
        ],
    ),
    Row(
        "basics.sequence_log_likelihood",
        B.sequence_log_likelihood,
        lambda c: dict(cond_probs=np.full((3, 4), 0.25), ids=[0, 1, 3]),
        [
            Bad("id", "ids", [0, 1, 4]),
            Bad("shape", "ids", [0, 1]),
            Bad("empty", "ids", np.zeros(0, dtype=int)),
            Bad("type", "ids", [0.0, 1.0, 2.0]),
        ],
    ),
    Row(
        "basics.gpt_log_likelihood",
        B.gpt_log_likelihood,
        lambda c: dict(model=B.TinyAttentionModel(V=4, n=3), ids=[0, 1, 3]),
        [Bad("id", "ids", [0, 1, 4]), Bad("type", "ids", [0.5, 1.0, 2.0])],
    ),
    # -- formulated.models: NumPy reference, params, sizes -------------------------------------
    Row(
        "models.gpt2_probabilities",
        R.gpt2_probabilities,
        lambda c: dict(x=[1, 2, 3], params=c.gpt_params),
        [
            Bad("id", "x", [1, 10]),
            Bad("id", "x", [-1, 2]),
            Bad("type", "x", [1.0, 2.0]),
            Bad("empty", "x", []),
            Bad("shape", "x", list(range(9))),
            Bad("nonfinite", "params", lambda c: c.nan_params),
            Bad("type", "params", {}),
        ],
    ),
    Row(
        "models.gpt_probabilities",
        R.gpt_probabilities,
        lambda c: dict(x=[1, 2, 3], params=c.gpt_params),
        [Bad("id", "x", [1, 10]), Bad("empty", "x", [])],
    ),
    Row(
        "models.gpt3_probabilities",
        R.gpt3_probabilities,
        lambda c: dict(x=[1, 2, 3], params=c.gpt_params, window=2),
        [
            Bad("id", "x", [1, 10]),
            Bad("type", "window", 1.5),
            Bad("empty", "window", 0),
        ],
    ),
    Row(
        "models.bert_probabilities",
        R.bert_probabilities,
        lambda c: dict(x=[1, 2, 3], t=[0, 0, 1], params=c.bert_params),
        [
            Bad("id", "x", [1, 10, 2]),
            Bad("id", "t", [0, 2, 1]),
            Bad("shape", "t", [0, 1]),
            Bad("type", "params", lambda c: c.gpt_params),
        ],
    ),
    Row(
        "models.roberta_probabilities",
        R.roberta_probabilities,
        lambda c: dict(x=[0, 2, 3], params=c.roberta_params),
        [Bad("id", "x", [0, 10]), Bad("empty", "x", [])],
    ),
    Row(
        "models.bert_input",
        R.bert_input,
        lambda c: dict(x_A=[4, 5], x_B=[6], j_masked=1, cls_id=1, sep_id=2, mask_id=3),
        [
            Bad("id", "j_masked", 9),
            Bad("type", "x_A", [4.0, 5.0]),
            Bad("empty", "x_A", []),
        ],
    ),
    Row(
        "models.block_pre_ln",
        BL.block_pre_ln,
        lambda c: dict(
            X=np.ones((3, 8)), blk=c.gpt_params.blocks[0], mask=F.mask_autoregressive(3)
        ),
        [
            Bad("shape", "X", np.ones((3, 7))),
            Bad("shape", "mask", np.zeros((4, 4))),
            Bad("nonfinite", "X", np.full((3, 8), NAN)),
            Bad("type", "blk", {}),
        ],
    ),
    Row(
        "models.check_params",
        P.check_params,
        lambda c: dict(params=c.gpt_params),
        [
            Bad("nonfinite", "params", lambda c: c.nan_params),
            Bad(
                "shape",
                "params",
                lambda c: dataclasses.replace(c.gpt_params, W_e=np.ones((10, 7))),
            ),
            Bad("type", "params", [1, 2]),
        ],
    ),
    Row(
        "models.init_gpt2",
        P.init_gpt2,
        lambda c: dict(config=c.config),
        [Bad("type", "config", {"V": 10}), Bad("nonfinite", "scale", NAN)],
    ),
    Row(
        "models.parameter_count",
        P.parameter_count,
        lambda c: dict(V=10, n=8, H=8, F=32, D=4, A=2, L=1),
        [Bad("type", "V", 10.5), Bad("empty", "L", 0)],
    ),
    Row(
        "models.size",
        SZ.size,
        lambda c: dict(name="GPT-2 small"),
        [Bad("type", "name", 3), Bad("id", "name", "GPT-9")],
    ),
    # -- formulated.models.trainable -----------------------------------------------------------
    Row(
        "models.trainable.GPTConfig",
        TM.GPTConfig,
        lambda c: dict(V=12, H=16, A=2),
        [Bad("shape", "H", 15), Bad("type", "V", 12.0), Bad("nonfinite", "eps", NAN)],
    ),
    Row(
        "models.trainable.GPT",
        TM.GPT,
        lambda c: dict(cfg=TM.GPTConfig(V=5, n_ctx=4, L=1, A=1, H=4)),
        [Bad("type", "cfg", {"V": 5})],
    ),
    Row(
        "models.trainable.GPT.forward",
        _gpt_forward,
        lambda c: dict(model=c.gpt, idx=ids([1, 2, 3])),
        [
            Bad("id", "idx", ids([1, 12])),
            Bad("type", "idx", torch.ones(1, 3)),
            Bad("shape", "idx", torch.zeros(1, 17, dtype=torch.long)),
            Bad("type", "idx", [[1, 2]]),
        ],
    ),
    Row(
        "models.trainable.to_numpy_params",
        TM.to_numpy_params,
        lambda c: dict(model=c.gpt),
        [Bad("type", "model", lambda c: c.hf_gpt2)],
    ),
    Row(
        "models.trainable.shape_distribution",
        TM.shape_distribution,
        lambda c: dict(logits=torch.tensor([1.0, 2.0, 3.0]), temperature=0.5),
        [
            Bad("nonfinite", "logits", torch.tensor([1.0, NAN, 3.0])),
            Bad("nonfinite", "temperature", NAN),
            Bad("type", "logits", [1.0, 2.0]),
            Bad("empty", "logits", torch.zeros(0)),
        ],
    ),
    # -- formulated.models.hf ------------------------------------------------------------------
    Row(
        "models.hf_tiny.hf_probabilities",
        HT.hf_probabilities,
        lambda c: dict(model=c.hf_gpt2, x=[1, 2, 3]),
        [
            Bad("id", "x", [1, 10]),
            Bad("type", "x", [1.0, 2.0]),
            Bad("empty", "x", []),
            Bad("shape", "x", list(range(9))),
            Bad("id", "t", [0, 1, 0]),
            Bad("type", "model", lambda c: c.gpt_params),
        ],
    ),
    Row(
        "models.hf.from_gpt2",
        HF.from_gpt2,
        lambda c: dict(model=c.hf_gpt2),
        [Bad("checkpoint", "model", lambda c: c.hf_bert), Bad("type", "model", {})],
    ),
    Row(
        "models.hf.from_bert",
        HF.from_bert,
        lambda c: dict(model=c.hf_bert),
        [Bad("checkpoint", "model", lambda c: c.hf_gpt2)],
    ),
    Row(
        "models.hf_tiny.tiny_model",
        HT.tiny_model,
        lambda c: dict(kind="gpt2", config=c.config),
        [Bad("type", "kind", 2), Bad("type", "config", {"V": 10})],
    ),
    # -- formulated.models.kv_cache ------------------------------------------------------------
    Row(
        "models.kv_cache.forward_cached",
        KV.forward_cached,
        lambda c: dict(model=c.gpt, idx=ids([1]), cache=c.cache),
        [
            Bad("checkpoint", "cache", lambda c: c.foreign_cache),
            Bad(
                "checkpoint",
                "cache",
                lambda c: KV.KVCache(c.cache.keys[:1], c.cache.values[:1]),
            ),
            Bad("type", "cache", {}),
            Bad("id", "idx", ids([12])),
            Bad("id", "idx", ids([-1])),
            Bad("type", "idx", [[1]]),
            Bad("type", "idx", torch.ones(1, 1)),
            Bad("empty", "idx", torch.zeros(1, 0, dtype=torch.long)),
            Bad("shape", "idx", torch.zeros(1, 14, dtype=torch.long)),
            Bad("type", "model", lambda c: c.hf_gpt2),
        ],
    ),
    Row(
        "models.kv_cache.generate",
        KV.generate,
        lambda c: dict(model=c.gpt, prompt=[1, 2], n_new=3),
        [
            Bad("id", "prompt", [1, 12]),
            Bad("id", "prompt", [-1]),
            Bad("type", "prompt", [1.5]),
            Bad("empty", "prompt", []),
            Bad("type", "n_new", 2.0),
            Bad("shape", "n_new", 20),
            Bad("nonfinite", "temperature", NAN),
        ],
    ),
    Row(
        "models.kv_cache.cache_drift",
        KV.cache_drift,
        lambda c: dict(model=c.gpt, ids=[1, 2, 3], dtype=torch.float32),
        [
            Bad("id", "ids", [1, 12]),
            Bad("type", "ids", [1.5, 2.0]),
            Bad("empty", "ids", []),
            Bad("type", "dtype", "float32"),
            Bad("empty", "prompt_length", 0),
        ],
    ),
    # -- formulated.models.pretrained ----------------------------------------------------------
    Row(
        "models.pretrained.load_pretrained",
        PR.load_pretrained,
        lambda c: dict(source=c.tiny_dir),
        [
            Bad("file_for_dir", "source", lambda c: c.file),
            Bad("checkpoint", "source", lambda c: c.bad_config_dir),
            Bad("empty", "source", lambda c: c.folder, errors=PATH_ERRORS),
            Bad("type", "source", 3),
            Bad("file_for_dir", "source", lambda c: c.missing, errors=PATH_ERRORS),
        ],
    ),
    Row(
        "models.pretrained.save_tiny_gpt2",
        PR.save_tiny_gpt2,
        lambda c: dict(directory=c.fresh("tiny_again")),
        [
            Bad("file_for_dir", "directory", lambda c: c.file),
            Bad(
                "checkpoint",
                "directory",
                lambda c: c.tiny_dir,  # would be overwritten
                errors=(FileExistsError,),
            ),
            Bad("type", "directory", 3),
            Bad("type", "vocab_size", 300.0),
        ],
    ),
    Row(
        "models.pretrained.pretrained_available",
        PR.pretrained_available,
        lambda c: dict(source=c.tiny_dir),
        [Bad("type", "source", 3)],
    ),
    Row(
        "models.pretrained.Pretrained.next_tokens",
        _next_tokens,
        lambda c: dict(pre=c.pre, text="First", k=3),
        [
            Bad("id", "k", -1),
            Bad("id", "k", 301),
            Bad("type", "k", 2.0),
            Bad("empty", "text", ""),
        ],
    ),
    Row(
        "models.pretrained.to_gpt2_lm_head",
        PR.to_gpt2_lm_head,
        lambda c: dict(model=c.gpt),
        [Bad("type", "model", lambda c: c.hf_gpt2)],
    ),
    # -- formulated.analysis -------------------------------------------------------------------
    Row(
        "analysis.attention_weights",
        AN.attention_weights,
        lambda c: dict(model=c.gpt, idx=ids([1, 2, 3])),
        [
            Bad("id", "idx", ids([1, 12])),
            Bad("id", "idx", ids([-1, 2])),
            Bad("type", "idx", torch.ones(1, 3)),
            Bad("type", "idx", [[1, 2]]),
            Bad("empty", "idx", torch.zeros(1, 0, dtype=torch.long)),
            Bad("shape", "idx", torch.zeros(3, dtype=torch.long)),
            Bad("shape", "idx", torch.zeros(1, 17, dtype=torch.long)),
            Bad("type", "model", lambda c: c.hf_gpt2),
        ],
    ),
    Row(
        "analysis.head_shares",
        AN.head_shares,
        lambda c: dict(model=c.gpt, tokenizer=c.char_tok, ids=torch.arange(12)),
        [
            Bad("id", "ids", torch.tensor([1, 2, 12])),
            Bad("type", "ids", [1.5, 2.0, 3.0]),
            Bad("empty", "ids", torch.zeros(0, dtype=torch.long)),
            Bad("type", "model", lambda c: c.hf_gpt2),
            Bad("type", "n_ctx", 4.0),
        ],
    ),
    Row(
        "analysis.load_shakespeare_gpt",
        AN.load_shakespeare_gpt,
        lambda c: dict(path=AN.CHECKPOINT),
        [
            Bad("dir_for_file", "path", lambda c: c.folder),
            Bad("file_for_dir", "path", lambda c: c.missing, errors=PATH_ERRORS),
            Bad("checkpoint", "path", lambda c: c.corrupt_pt),
            Bad("checkpoint", "path", lambda c: c.foreign_pt),
            Bad("checkpoint", "path", lambda c: c.other_weights_pt),
            Bad("type", "path", 3),
        ],
    ),
    Row(
        "analysis.export_weights",
        AN.export_weights,
        lambda c: dict(run_dir=c.run_dir, out=c.tmp / "exported.pth"),
        [
            Bad("dir_for_file", "out", lambda c: c.folder),
            Bad("checkpoint", "run_dir", lambda c: c.folder),
            Bad("type", "out", 3),
        ],
    ),
    Row(
        "analysis.pattern_targets",
        AN.pattern_targets,
        lambda c: dict(chars="ab c"),
        [Bad("type", "chars", 3), Bad("empty", "chars", "")],
    ),
    # -- formulated.data -----------------------------------------------------------------------
    Row(
        "data.data_path",
        DA.data_path,
        lambda c: dict(name=DA.TINY_SHAKESPEARE),
        [
            Bad("dir_for_file", "name", "checkpoints"),
            Bad("file_for_dir", "name", "no_such_file.txt", errors=PATH_ERRORS),
            Bad("type", "name", 3),
            Bad("empty", "name", ""),
            Bad("shape", "name", "../x"),
        ],
    ),
    # -- formulated.training (train itself is tested in test_bad_input_train.py) ---------------
    Row(
        "training.load_data",
        TR.load_data,
        lambda c: dict(path=c.corpus),
        [
            Bad("dir_for_file", "path", lambda c: c.folder),
            Bad("file_for_dir", "path", lambda c: c.missing, errors=PATH_ERRORS),
            Bad("checkpoint", "path", lambda c: c.binary),
            Bad("nonfinite", "val_fraction", NAN),
            Bad("id", "val_fraction", 1.5),
            Bad("type", "path", 3),
        ],
    ),
    Row(
        "training.val_windows",
        TR.val_windows,
        lambda c: dict(ids=torch.arange(10), n_ctx=4),
        [
            Bad("type", "ids", [1, 2, 3]),
            Bad("shape", "ids", torch.zeros(2, 3, dtype=torch.long)),
            Bad("empty", "ids", torch.zeros(0, dtype=torch.long)),
            Bad("type", "ids", torch.ones(10)),
            Bad("type", "n_ctx", 4.0),
        ],
    ),
    Row(
        "training.evaluate",
        TR.evaluate,
        lambda c: dict(model=c.gpt, ids=torch.arange(12), n_ctx=4),
        [
            Bad("id", "ids", torch.tensor([1, 2, 12])),
            Bad("type", "ids", torch.ones(5)),
            Bad("empty", "ids", torch.zeros(0, dtype=torch.long)),
            Bad("shape", "n_ctx", 17),
        ],
    ),
    Row(
        "training.load_checkpoint",
        TR.load_checkpoint,
        lambda c: dict(path=c.run_dir),
        [
            Bad("checkpoint", "path", lambda c: c.corrupt_pt),
            Bad("checkpoint", "path", lambda c: c.foreign_pt),
            Bad("dir_for_file", "path", lambda c: c.folder),
            Bad("file_for_dir", "path", lambda c: c.missing),
            Bad("type", "path", 3),
        ],
    ),
    Row(
        "training.make_config",
        TR.make_config,
        lambda c: dict(preset="book"),
        [Bad("type", "preset", 3), Bad("id", "preset", "no-such-preset")],
    ),
    Row(
        "training.parse_overrides",
        TR.parse_overrides,
        lambda c: dict(argv=["lr=0.01"]),
        [Bad("type", "argv", "lr=0.01"), Bad("shape", "argv", ["lr"])],
    ),
    Row(
        "training.resolve_device",
        TR.resolve_device,
        lambda c: dict(device="cpu"),
        [Bad("id", "device", "tpu:9"), Bad("type", "device", 0)],
    ),
]


def _cases() -> list[Any]:
    out = []
    for row in TABLE:
        for k, bad in enumerate(row.bad):
            marks = (
                [pytest.mark.xfail(strict=True, reason=bad.xfail)] if bad.xfail else []
            )
            out.append(
                pytest.param(
                    row, bad, marks=marks, id=f"{row.name}-{bad.arg}-{bad.cls}-{k}"
                )
            )
    return out


@pytest.fixture(scope="session")
def ctx(tmp_path_factory) -> Ctx:
    return Ctx(tmp_path_factory.mktemp("sweep"))


def _value(v: Any, c: Ctx) -> Any:
    return v(c) if callable(v) and not isinstance(v, type) else v


def test_table_covers_every_class_and_names_real_arguments():
    import inspect

    seen = {bad.cls for row in TABLE for bad in row.bad}
    assert seen == set(CLASSES), set(CLASSES) ^ seen
    for row in TABLE:
        params = set(inspect.signature(row.func).parameters)
        for bad in row.bad:
            assert bad.cls in CLASSES, (row.name, bad.cls)
            assert bad.arg in params, (row.name, bad.arg, params)


@pytest.mark.parametrize("row", TABLE, ids=[r.name for r in TABLE])
def test_valid_call(row: Row, ctx: Ctx) -> None:
    """The uncorrupted call works, so each refusal below is the corrupted argument's."""
    row.func(**row.valid(ctx))


def _names(message: str, arg: str, value: Any) -> bool:
    if re.search(rf"(?<![\w.]){re.escape(arg)}(?!\w)", message):
        return True
    return isinstance(value, Path) and str(value) in message


@pytest.mark.parametrize("row, bad", _cases())
def test_bad_input_is_refused(row: Row, bad: Bad, ctx: Ctx) -> None:
    kwargs = row.valid(ctx)
    value = _value(bad.value, ctx)
    kwargs[bad.arg] = value
    errors = bad.errors or (
        PATH_ERRORS + VALUE_ERRORS if "dir" in bad.cls else VALUE_ERRORS
    )
    if (
        row.name.startswith("training.load_checkpoint")
        or row.name == "analysis.export_weights"
    ):
        errors = errors + (
            TR.CheckpointError,
        )  # the package's error for a bad checkpoint
    with pytest.raises(Exception) as caught:
        row.func(**kwargs)
    e = caught.value
    assert isinstance(e, errors), f"{type(e).__name__}: {e}"
    assert _names(str(e), bad.arg, value), (
        f"{type(e).__name__} without {bad.arg!r}: {e}"
    )


# -- nothing lost: the public writers refuse to overwrite, or replace atomically ---------------


def _snapshot(path: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(path)): p.read_bytes()
        for p in sorted(path.rglob("*"))
        if p.is_file()
    }


WRITERS = {
    "train over a run": (
        lambda c: TR.train(None, c.run_dir, progress=False, max_steps=3),
        lambda c: c.run_dir,
        FileExistsError,
        "out_dir",
    ),
    "save_tiny_gpt2 over a checkpoint": (
        lambda c: PR.save_tiny_gpt2(c.tiny_dir, seed=5),
        lambda c: c.tiny_dir,
        FileExistsError,
        "directory",
    ),
    "save_tiny_gpt2 over a file": (
        lambda c: PR.save_tiny_gpt2(c.file),
        lambda c: c.file.parent,
        NotADirectoryError,
        "directory",
    ),
    "export_weights into a directory": (
        lambda c: AN.export_weights(c.run_dir, c.folder),
        lambda c: c.folder.parent,
        IsADirectoryError,
        "out",
    ),
}


@pytest.mark.parametrize("case", WRITERS)
def test_writer_refuses_and_loses_nothing(case: str, ctx: Ctx) -> None:
    write, where, error, arg = WRITERS[case]
    where(ctx)  # build what is to be protected first
    before = _snapshot(where(ctx))
    with pytest.raises(error, match=rf"{arg}: "):
        write(ctx)
    assert _snapshot(where(ctx)) == before


def test_export_weights_replaces_its_file_atomically(ctx: Ctx) -> None:
    """Regenerating the shipped file replaces it on purpose: by a rename, so no half-written
    file and no temporary file is left; the result loads."""
    out = ctx.fresh("weights") / "w.pth"
    out.parent.mkdir()
    out.write_bytes(b"an older export")
    AN.export_weights(ctx.run_dir, out)
    assert sorted(p.name for p in out.parent.iterdir()) == ["w.pth"]
    model, tok, info = AN.load_shakespeare_gpt(out)
    assert info["step"] == 2 and tok.vocab_size == model.cfg.V


def test_interrupted_export_keeps_the_old_file(ctx: Ctx, monkeypatch) -> None:
    """A crash while writing (here: torch.save writes half a file, then Ctrl-C) leaves the
    previous export as it was and no temporary file."""
    run_dir = ctx.run_dir  # trained before torch.save is replaced
    out = ctx.fresh("weights") / "w.pth"
    out.parent.mkdir()
    out.write_bytes(b"an older export")

    def crash(obj: Any, f: Any, *args: Any, **kwargs: Any) -> None:
        Path(f).write_bytes(b"half a file")
        raise KeyboardInterrupt

    monkeypatch.setattr(torch, "save", crash)
    with pytest.raises(KeyboardInterrupt):
        AN.export_weights(run_dir, out)
    assert sorted(p.name for p in out.parent.iterdir()) == ["w.pth"]
    assert out.read_bytes() == b"an older export"


# -- derived from TABLE: a ragged nested list, a tensor that requires grad ----------
#
# Every array argument of every NumPy function above, replaced in turn by (a) a ragged nested
# list built from its valid value and (b), for a float argument, a torch tensor of that value
# that requires grad.  (a) was NumPy's "inhomogeneous shape" wherever an argument was read
# (np.size, np.asarray) before the shared converter; (b) was silently detached.

#: Rows whose functions compute with NumPy (their torch-based neighbors take tensors).
NUMPY_ROWS = ("formulas.", "sampling.", "tokenizers.", "shapes.", "basics.", "models.")
TORCH_ROWS = (
    "models.trainable.",
    "models.pretrained.",
    "models.kv_cache.forward_cached",
)


def _ragged(value: Any) -> list:
    """A nested list like ``value`` but with one row shorter than the others: for a vector
    ``v``, the batch ``[v, v[:-1]]`` (or ``[v, v + v]`` for one entry); for a matrix or more,
    its rows plus a copy of the last one short of one entry."""
    rows = np.asarray(value).tolist()
    if np.ndim(value) == 1:
        return [rows, rows[:-1]] if len(rows) > 1 else [rows, rows + rows]
    return rows + [rows[-1][:-1]]


def _array_args(kind: str) -> list[Any]:
    ctx = Ctx(Path("/nonexistent"))  # the array arguments need no file
    out = []
    for row in TABLE:
        if not row.name.startswith(NUMPY_ROWS) or row.name.startswith(TORCH_ROWS):
            continue
        try:
            valid = row.valid(ctx)
        except OSError:
            continue
        for arg, value in valid.items():
            if isinstance(value, (str, bytes)) or not isinstance(
                value, (list, np.ndarray)
            ):
                continue
            kind_of = np.asarray(value).dtype.kind
            if kind_of == "f" or (kind == "ragged" and kind_of in "iu"):
                out.append(pytest.param(row, arg, id=f"{row.name}-{arg}"))
    return out


@pytest.mark.parametrize("row, arg", _array_args("ragged"))
def test_a_ragged_nested_list_is_named(row: Row, arg: str, ctx: Ctx) -> None:
    kwargs = row.valid(ctx)
    kwargs[arg] = _ragged(kwargs[arg])
    with pytest.raises(
        ValueError,
        match=rf"(?<![\w.]){re.escape(arg)}: expected a "
        r"rectangular array \(every row of the same length\)",
    ):
        row.func(**kwargs)


@pytest.mark.parametrize("row, arg", _array_args("grad"))
def test_a_tensor_that_requires_grad_is_refused(row: Row, arg: str, ctx: Ctx) -> None:
    kwargs = row.valid(ctx)
    kwargs[arg] = torch.tensor(np.asarray(kwargs[arg]), requires_grad=True)
    with pytest.raises(
        TypeError,
        match=rf"(?<![\w.]){re.escape(arg)}: expected a NumPy array "
        r"or a tensor without gradient; got a tensor that "
        r"requires grad .*\.detach\(\)",
    ):
        row.func(**kwargs)


def test_the_derived_sweeps_cover_several_formulas() -> None:
    """Not vacuous: both sweeps reach formulas, models and basics."""
    for kind, least in (("ragged", 60), ("grad", 40)):
        names = {p.values[0].name for p in _array_args(kind)}
        assert len(_array_args(kind)) >= least, (kind, len(_array_args(kind)))
        for module in ("formulas.", "models.", "basics."):
            assert any(n.startswith(module) for n in names), (kind, module)


# -- One way to check arguments --------------------------------------------------------------


def test_checked_refuses_a_checker_that_returns_too_few_values() -> None:
    """A checker that forgets to return an argument is a bug of the package: ``checked`` says
    so instead of running the formula with the default in the caller's argument's place."""
    from formulated._checks import checked

    def _forgets_scale(x: Any, scale: Any = 1.0) -> Any:
        return (np.asarray(x, float),)  # scale is missing

    @checked(_forgets_scale)
    def scaled(x: Any, scale: float = 1.0) -> np.ndarray:
        return x * scale

    with pytest.raises(
        TypeError,
        match=r"_forgets_scale returned 1 value\(s\) for the 2 "
        r"argument\(s\) of scaled",
    ):
        scaled([1.0, 2.0], scale=3.0)  # used to return [1., 2.]: the default 1.0


def test_checked_refuses_a_checker_that_returns_too_many_values_or_nothing() -> None:
    from formulated._checks import checked

    @checked(lambda x, y: (x, y, 0))
    def add(x: Any, y: Any) -> Any:
        return x + y

    @checked(lambda x: None)
    def ident(x: Any) -> Any:
        return x

    with pytest.raises(
        TypeError, match=r"returned 3 value\(s\) for the 2 argument\(s\)"
    ):
        add(1, 2)
    with pytest.raises(TypeError, match="returned nothing"):
        ident(1)


def test_checked_passes_one_value_and_keyword_only_arguments() -> None:
    from formulated._checks import checked

    @checked(lambda x: float(x))
    def half(x: Any) -> float:
        return x / 2

    @checked(lambda a, *, k=2: (a, k * 10))
    def mul(a: Any, *, k: int = 2) -> Any:
        return a * k

    assert half(3) == 1.5 and mul(2) == 40 and mul(2, k=1) == 20


@pytest.mark.parametrize(
    "value, error, message",
    [
        (True, TypeError, r"eps: expected a real number, got True \(bool\)"),
        ("1", TypeError, r"eps: expected a real number, got '1' \(str\)"),
        (float("nan"), ValueError, r"eps: expected a finite number, got nan"),
        (-1.0, ValueError, r"eps: expected a number >= 0, got -1.0"),
    ],
)
def test_the_real_validator_names_the_argument(
    value: Any, error: type, message: str
) -> None:
    from formulated._checks import check_real

    with pytest.raises(error, match=message):
        check_real(value, "eps", minimum=0)
    assert check_real(np.float32(0.5), "eps", minimum=0) == 0.5
    assert check_real(np.array(2.0), "eps") == 2.0


def test_the_merged_number_validators_keep_their_messages() -> None:
    from formulated._checks import check_positive_number, check_real_type

    with pytest.raises(
        ValueError, match=r"lr: expected a positive finite number, got 0.0"
    ):
        check_positive_number(0, "lr")
    assert check_positive_number(0, "lr", allow_zero=True) == 0.0
    with pytest.raises(TypeError, match=r"T: expected a number, got None \(NoneType\)"):
        check_real_type(None, "T")
    assert check_real_type(float("inf"), "T") == float(
        "inf"
    )  # the range is the caller's


@pytest.mark.parametrize(
    "value, error",
    [
        (True, TypeError),
        (2.0, TypeError),
        (np.bool_(True), TypeError),
        (0, ValueError),
        (9, ValueError),
    ],
)
def test_the_int_validator_names_the_argument(value: Any, error: type) -> None:
    from formulated._checks import check_int, is_int

    with pytest.raises(error, match=r"^k: expected an integer in 1\.\.8, got "):
        check_int(value, "k", 1, "an integer in 1..8", maximum=8)
    assert check_int(np.int64(3), "k", 1, "an integer in 1..8", maximum=8) == 3
    assert is_int(np.int32(1)) and not is_int(True) and not is_int(1.0)
