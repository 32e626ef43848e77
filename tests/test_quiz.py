"""The chapters' quizzes (formulated/quizzes): every computed answer equals a value computed
independently (torch, transformers, or a worked computation that shares no code with the
book), every named mistake and wrong option is farther from the answer than the tolerance,
the page prints the tolerance it applies, the options are shuffled with the right one spread
over every position and not marked out by its length, no accepted answer is printed on its
chapter's page or source, and bad input gets an error that names the argument.  The browser
half (click, type, light and dark, 1280 and 390 px) is tests/test_quiz_browser.py."""

from __future__ import annotations

import base64
import html
import json
import math
import os
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch
from _chapters import ROOT

from formulated.quizzes import (
    QUIZZES,
    Choice,
    Mistake,
    Numeric,
    Option,
    questions,
    quiz,
)
from formulated.quizzes.model import key_positions, shuffled, tolerance_text
from formulated.quizzes.render import (
    END,
    SCRIPT,
    START,
    STYLE,
    render_question,
    render_quiz,
)

CHAPTERS = [f"ch{i:02d}" for i in range(1, 20)]
F = torch.nn.functional
HTML = Path(os.environ.get("BOOK_HTML", ROOT / "_build" / "html"))


def _count(module: torch.nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def _meta_count(factory) -> int:
    with torch.device("meta"):
        return _count(factory())


def _bert_embeddings() -> int:
    from transformers import BertConfig
    from transformers.models.bert.modeling_bert import BertEmbeddings

    emb = _meta_count(lambda: BertEmbeddings(BertConfig()))
    return emb - 2 * BertConfig().hidden_size  # its LayerNorm is not an embedding table


def _lambda_tiny() -> int:
    V, n, H, F_, L = 65, 64, 64, 256, 2  # A = 4 heads of D = 16: H columns
    block = torch.nn.ModuleList(
        [
            torch.nn.Linear(H, H, bias=False),  # W^Q, W^K, W^V, W^O: no biases in λ
            torch.nn.Linear(H, H, bias=False),
            torch.nn.Linear(H, H, bias=False),
            torch.nn.Linear(H, H, bias=False),
            torch.nn.Linear(H, F_),
            torch.nn.Linear(F_, H),
            torch.nn.LayerNorm(H),
            torch.nn.LayerNorm(H),
        ]
    )
    return V * H + n * H + L * _count(block)


def _blocks_in_billions(L: int, H: int) -> float:
    """The weight matrices of L transformer blocks of width H (F = 4H), no biases, counted
    by torch on the meta device."""

    def block() -> torch.nn.Module:
        return torch.nn.ModuleList(
            [torch.nn.Linear(H, H, bias=False) for _ in range(4)]
            + [
                torch.nn.Linear(H, 4 * H, bias=False),
                torch.nn.Linear(4 * H, H, bias=False),
            ]
        )

    return L * _meta_count(block) / 1e9


def _gradient_step() -> float:
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    y = torch.tensor([2.0, 3.0, 5.0], dtype=torch.float64)
    theta = torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True)
    opt = torch.optim.SGD([theta], lr=0.05)
    (0.5 * ((theta[0] + theta[1] * x - y) ** 2).sum()).backward()
    opt.step()
    return float(theta[1].detach())


def _chain_rule() -> float:
    th1 = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    J = 0.5 * (3.0 * torch.sigmoid(th1 * 2.0) - 0.2) ** 2
    J.backward()
    return float(th1.grad)


def _relu_network_input_grad() -> float:
    x = torch.tensor([[1.0, 2.0]], dtype=torch.float64, requires_grad=True)
    W1 = torch.tensor([[1.0, 3.0], [0.5, -2.0]], dtype=torch.float64)
    W2 = torch.tensor([[1.0], [2.0]], dtype=torch.float64)
    (0.5 * ((torch.relu(x @ W1) @ W2 - 0.5) ** 2).sum()).backward()
    return float(x.grad[0, 1])


def _rnn_factor() -> float:
    h0 = torch.tensor(1.0, requires_grad=True)
    h = h0
    for _ in range(10):
        h = 0.8 * h
    h.backward()
    return float(h0.grad)


def _bptt() -> float:
    w = torch.tensor(0.8, dtype=torch.float64, requires_grad=True)
    h = torch.tensor(0.0, dtype=torch.float64)
    for _ in range(3):
        h = w * h + 1.0
    h.backward()
    return float(w.grad)


def _attention_reach() -> int:
    """Output entries of causal self-attention that move when one input entry (sequence 2,
    token 4 of B = 3, n = 10, H = 16) changes: torch's MultiheadAttention."""
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(16, 2, batch_first=True).double()
    causal = torch.triu(torch.ones(10, 10, dtype=torch.bool), 1)  # True: may not attend
    X = torch.randn(3, 10, 16, dtype=torch.float64)
    X2 = X.clone()
    X2[1, 3, 0] += 0.5
    with torch.no_grad():
        before, after = (mha(Z, Z, Z, attn_mask=causal)[0] for Z in (X, X2))
    return int(((after - before).abs() > 1e-12).sum())


def _merge(corpus: str, merges: int) -> list[list[str]]:
    """Byte-pair encoding written out again: words as lists of symbols (the last with
    "</w>"), the most frequent adjacent pair merged everywhere, ties to the pair seen first
    in a left-to-right scan of the sorted words (enough for this corpus)."""
    words = [list(w[:-1]) + [w[-1] + "</w>"] for w in corpus.split()]
    for _ in range(merges):
        pairs = Counter((a, b) for w in words for a, b in zip(w, w[1:]))
        (a, b), _ = pairs.most_common(1)[0]
        for w in words:
            i = 0
            while i < len(w) - 1:
                if (w[i], w[i + 1]) == (a, b):
                    w[i : i + 2] = [a + b]
                i += 1
    return words


def _sinusoidal(pos: int, entry: int, H: int) -> float:
    from transformers.models.xlm.modeling_xlm import create_sinusoidal_embeddings

    table = torch.empty(pos + 1, H)
    create_sinusoidal_embeddings(pos + 1, H, table)  # float32, sin and cos interleaved
    return float(table[pos, entry])


def _layer_norm_factor() -> float:
    sigma = 1e-3
    row = torch.tensor([[-sigma, sigma]], dtype=torch.float64)
    return float(F.layer_norm(row, (2,), eps=1e-5)[0, 1]) / sigma


def _stream_rms() -> float:
    torch.manual_seed(0)
    stream = torch.randn(200_000, dtype=torch.float64)
    for _ in range(12):
        stream = stream + torch.randn(200_000, dtype=torch.float64)
    return float(stream.pow(2).mean().sqrt())


def _head_score() -> float:
    """The score one head of H = 1600, A = 25 gives a query-key pair of dot product 22:
    torch's head width, and the log-ratio of SDPA's weights against a zero key."""
    with torch.device("meta"):
        D = torch.nn.MultiheadAttention(1600, 25).head_dim
    q, K = (
        torch.zeros(1, D, dtype=torch.float64),
        torch.zeros(2, D, dtype=torch.float64),
    )
    q[0, 0], K[0, 0] = 22.0, 1.0
    w = F.scaled_dot_product_attention(q, K, torch.eye(2, dtype=torch.float64))[0]
    return float(torch.log(w[0] / w[1]))


def _ffn_relu_entry() -> float:
    net = torch.nn.Sequential(
        torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2)
    ).double()
    with torch.no_grad():  # torch stores W^T
        net[0].weight.copy_(torch.tensor([[1.0, 0, -1], [1, 2, 1]]).T)
        net[0].bias.copy_(torch.tensor([0.0, 1, 4]))
        net[2].weight.copy_(torch.tensor([[1.0, 0], [3, 1], [2, -1]]).T)
        net[2].bias.copy_(torch.tensor([0.5, -0.5]))
        return float(net(torch.tensor([[2.0, -1.0]], dtype=torch.float64))[0, 0])


def _residual_factor() -> float:
    x0 = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)
    x = x0
    for _ in range(10):
        x = x + 0.1 * x  # f(x) = 0.1 x: f' = 0.1 everywhere
    x.backward()
    return float(x0.grad)


def _de_embedding() -> float:
    W_e = torch.tensor([[1.0, 0], [0, 1], [1, 1]], dtype=torch.float64)
    head = torch.nn.Linear(2, 3, bias=False).double()
    with torch.no_grad():
        head.weight.copy_(W_e)  # tied: the output layer's weight is W_e
        return float(torch.softmax(head(torch.tensor([2.0, -1.0]).double()), 0)[2])


def _saturation() -> str:
    """Random queries and keys of width 1024, unscaled: the mean largest weight over 16
    keys."""
    torch.manual_seed(0)
    q, k = torch.randn(500, 1, 1024), torch.randn(500, 16, 1024)
    top = torch.softmax(q @ k.transpose(1, 2), -1).amax(-1).mean()
    return "Nearly all the weight goes to one key" if top > 0.9 else "?"


def _multiplied_mask() -> str:
    """Which signs of a blocked score the sources' product with -inf still blocks."""
    blocked = [
        name
        for name, s in [("positive", 2.0), ("negative", -2.0), ("zero", 0.0)]
        if float(torch.tensor(s) * float("-inf")) == float("-inf")
    ]
    return "Only a positive score" if blocked == ["positive"] else "?"


def _cache_keys_unchanged() -> str:
    """A two-layer causal stack: the second layer's keys of a prefix do not change when a
    token is appended (and do without the mask)."""
    torch.manual_seed(0)
    layers = [torch.nn.MultiheadAttention(8, 2, batch_first=True) for _ in range(2)]

    def keys(X: torch.Tensor, causal: bool) -> torch.Tensor:
        n = X.shape[1]
        mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1) if causal else None
        with torch.no_grad():
            Y = X + layers[0](X, X, X, attn_mask=mask)[0]
            return Y @ layers[1].in_proj_weight[8:16].T  # layer 2's keys

    X = torch.randn(1, 6, 8)
    same = torch.allclose(keys(X[:, :5], True), keys(X, True)[:, :5])
    moved = not torch.allclose(keys(X[:, :5], False), keys(X, False)[:, :5])
    return "The causal mask: no position sees a later one" if same and moved else "?"


def _cosine_schedule() -> float:
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1e-3)
    warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=99)
    decay = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=1000, eta_min=1e-4)
    sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, decay], milestones=[100])
    for _ in range(350):
        opt.step()
        sched.step()
    return opt.param_groups[0]["lr"] / 1e-4


def _clipped() -> float:
    grads = [torch.tensor([2.0, -1.0]), torch.tensor([2.0, 4.0])]
    params = [torch.zeros(2, requires_grad=True) for _ in grads]
    for p, g in zip(params, grads):
        p.grad = g.clone().double().float()
    torch.nn.utils.clip_grad_norm_(params, max_norm=1.2)
    return float(params[1].grad[0])


def _unigram() -> float:
    text = "abracadabra"
    letters = sorted(set(text))
    q = torch.tensor([text.count(c) / len(text) for c in letters], dtype=torch.float64)
    targets = torch.tensor([letters.index(c) for c in text])
    logits = q.log().expand(len(text), -1)  # the same distribution at every position
    return float(F.cross_entropy(logits, targets))


def _hf_sampling(logits: list[float], **warpers: float) -> float:
    from transformers import TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper

    z = torch.tensor([logits], dtype=torch.float64)
    if "temperature" in warpers:
        z = TemperatureLogitsWarper(warpers["temperature"])(None, z)
    if "top_k" in warpers:
        z = TopKLogitsWarper(int(warpers["top_k"]))(None, z)
    if "top_p" in warpers:
        z = TopPLogitsWarper(warpers["top_p"])(None, z)
    return float(torch.softmax(z, -1)[0, 0])


#: (quiz, question number from 1) -> the answer computed without the book's functions, and
#: the relative tolerance of that computation (0: exact up to rounding).
EXPECTED = {
    ("ch01", 1): (lambda: np.polyfit([0, 1, 3], [1, 3, 4], 1)[0], 0),
    ("ch01", 3): (_gradient_step, 0),
    ("ch02", 1): (lambda: float(torch.softmax(torch.tensor([3.0, 1, 0]), 0)[0]), 0),
    ("ch02", 2): (lambda: float(torch.softmax(torch.tensor([1.5, 0.5, 0]), 0)[0]), 0),
    ("ch02", 3): (
        lambda: (
            float(
                torch.distributions.Categorical(
                    torch.tensor(
                        [0.5, 0.25, 0.125, 0.0625, 0.0625], dtype=torch.float64
                    )
                ).entropy()
            )
            / math.log(2)
        ),
        0,
    ),
    ("ch03", 1): (_chain_rule, 0),
    ("ch03", 2): (_relu_network_input_grad, 0),
    ("ch04", 1): (
        lambda: float(
            F.cosine_similarity(torch.tensor([1.0, 2, 0]), torch.tensor([2.0, 1, 1]), 0)
        ),
        0,
    ),
    ("ch04", 2): (_rnn_factor, 0),
    ("ch04", 3): (_bptt, 0),
    ("ch05", 1): (_attention_reach, 0),
    ("ch06", 3): (
        lambda: len(
            [
                t
                for w in _merge("low low low lower lowest newer newer wider", 4)
                for t in w
            ]
        ),
        0,
    ),
    ("ch07", 1): (lambda: _sinusoidal(3, 1, 8), 0),
    ("ch07", 3): (
        lambda: float(F.dropout(torch.ones(1000), 0.3, training=True).max()),
        0,
    ),
    ("ch08", 1): (
        lambda: float(
            F.scaled_dot_product_attention(
                torch.tensor([[0.0, 2.0, 1.0]]),
                torch.tensor([[0.0, 1, 1], [4, 4, 0], [2, 3, 1]]),  # the slides' keys
                torch.eye(3),
            )[0, 1]
        ),
        0,
    ),
    ("ch09", 2): (lambda: float(torch.softmax(torch.tensor([2.0, 0.5]), 0)[0]), 0),
    ("ch10", 1): (_head_score, 0),
    ("ch11", 1): (lambda: float(F.gelu(torch.tensor(2.0, dtype=torch.float64))), 0),
    ("ch11", 2): (_ffn_relu_entry, 0),
    ("ch12", 1): (
        lambda: float(
            F.layer_norm(torch.tensor([1.0, 2, 3, 4], dtype=torch.float64), (4,))[0]
        ),
        0,
    ),
    ("ch12", 2): (_layer_norm_factor, 0),
    ("ch12", 3): (_residual_factor, 0),
    ("ch13", 2): (lambda: torch.zeros(4, 9)[:, 1:].numel(), 0),  # shifted targets
    ("ch13", 3): (_de_embedding, 0),
    ("ch14", 3): (_stream_rms, 0.01),
    ("ch15", 2): (_bert_embeddings, 0),
    ("ch16", 1): (_lambda_tiny, 0),
    ("ch16", 2): (lambda: _blocks_in_billions(32, 4096), 0),
    ("ch17", 1): (
        lambda: float(-torch.log(torch.tensor(0.5 * 0.25, dtype=torch.float64))),
        0,
    ),
    ("ch17", 2): (
        lambda: float(
            F.cross_entropy(
                torch.tensor([[2.0, 0, 0]], dtype=torch.float64), torch.tensor([0])
            )
        ),
        0,
    ),
    ("ch18", 1): (_cosine_schedule, 0),
    ("ch18", 2): (_clipped, 0),
    ("ch18", 3): (_unigram, 0),
    ("ch19", 1): (lambda: _hf_sampling([2.0, 1, 0], temperature=0.5, top_k=2), 0),
    ("ch19", 2): (lambda: _hf_sampling([3.0, 2, 1, 0], top_p=0.9), 0),
}

#: (quiz, question number from 1) -> the right option's text, found without the book.
EXPECTED_OPTIONS = {
    ("ch01", 2): lambda: (
        "It overshoots, oscillates and converges"
        if 1 / 4.0 < 0.4 < 2 / max(np.linalg.eigvalsh(np.diag([4.0, 1.0])))
        else "?"
    ),
    ("ch06", 1): lambda: " + ".join(
        Counter(
            (a, b)
            for w in _merge("low low low lower lowest newer newer wider", 0)
            for a, b in zip(w, w[1:])
        ).most_common(1)[0][0]
    ),
    ("ch06", 2): lambda: " + ".join(
        _merge("low low low lower lowest newer newer wider lower", 4)[-1]
    ),
    ("ch10", 2): lambda: str(
        tuple(torch.zeros(1, 5, 24).view(1, 5, 4, 6).transpose(1, 2).shape)
    ),
    ("ch08", 3): _saturation,
    ("ch09", 1): _multiplied_mask,
    ("ch14", 1): lambda: "Keys {} to {}".format(
        *[j for j in range(1, 10) if 0 <= 9 - j < 6][:: 6 - 1]
    ),
    ("ch19", 3): _cache_keys_unchanged,
}


@pytest.fixture(scope="module")
def built() -> dict[str, list]:
    return {c: questions(c) for c in CHAPTERS}


def _choices(built: dict[str, list]) -> list[tuple[str, int, Choice]]:
    return [
        (c, i, q)
        for c, qs in built.items()
        for i, q in enumerate(qs, 1)
        if isinstance(q, Choice)
    ]


def test_every_chapter_has_3_to_5_questions(built) -> None:
    assert sorted(QUIZZES) == CHAPTERS
    for c, qs in built.items():
        assert 3 <= len(qs) <= 5, f"{c}: {len(qs)} questions"
        assert any(isinstance(q, Numeric) for q in qs), f"{c}: no numeric question"


def test_every_answer_is_checked_independently(built) -> None:
    numeric = {
        (c, i + 1)
        for c, qs in built.items()
        for i, q in enumerate(qs)
        if isinstance(q, Numeric)
    }
    assert numeric <= set(EXPECTED), f"unchecked: {sorted(numeric - set(EXPECTED))}"


@pytest.mark.parametrize(("chapter", "number"), sorted(EXPECTED))
def test_answer_equals_independent_value(built, chapter: str, number: int) -> None:
    torch.manual_seed(0)
    q = built[chapter][number - 1]
    assert isinstance(q, Numeric)
    compute, rel = EXPECTED[(chapter, number)]
    expected = float(compute())
    assert abs(q.answer - expected) <= max(
        1e-6, 1e-6 * abs(expected), rel * expected
    ), (
        f"{chapter} question {number}: the quiz says {q.answer!r}, independently {expected!r}"
    )


@pytest.mark.parametrize(("chapter", "number"), sorted(EXPECTED_OPTIONS))
def test_right_option_equals_independent_value(
    built, chapter: str, number: int
) -> None:
    q = built[chapter][number - 1]
    right = [o.text for o in q.options if o.correct]
    assert right == [EXPECTED_OPTIONS[(chapter, number)]()]


def test_mistakes_and_wrong_options_differ_from_the_answer(built) -> None:
    for c, qs in built.items():
        for i, q in enumerate(qs, 1):
            if isinstance(q, Numeric):
                feedbacks = [m.feedback for m in q.mistakes] + [q.hint]
                assert len(set(feedbacks)) == len(feedbacks), (c, i)
                for m in q.mistakes:
                    assert abs(m.value - q.answer) > q.tolerance, (c, i, m)
                    assert not math.isclose(m.value, q.answer), (c, i, m)
            else:
                texts = [o.text for o in q.options]
                feedbacks = [o.feedback for o in q.options]
                assert len(set(texts)) == len(texts), (c, i)
                assert len(set(feedbacks)) == len(feedbacks), (c, i)
                assert sum(o.correct for o in q.options) == 1, (c, i)


def test_no_question_repeats_another(built) -> None:
    """No prompt appears twice in the book, and within a chapter no two numeric questions
    accept the same value."""
    prompts = Counter(q.prompt for qs in built.values() for q in qs)
    assert [p for p, k in prompts.items() if k > 1] == []
    for c, qs in built.items():
        answers = [q for q in qs if isinstance(q, Numeric)]
        for a in answers:
            for b in answers:
                if a is not b:
                    assert abs(a.answer - b.answer) > max(a.tolerance, b.tolerance), c


def test_page_prints_the_tolerance_it_applies(built) -> None:
    """The "±x" a numeric question prints is its data-tol, every digit of it (ch 1, 2, 3, 4
    and 18 once printed ±0.01 and ±0.1 and applied half of it)."""
    seen = 0
    for c, qs in built.items():
        page = render_quiz(c, qs)
        for form in re.findall(r'<form class="fq-q".*?</form>', page, re.S):
            if 'data-kind="number"' not in form:
                continue
            tol = float(re.search(r'data-tol="([^"]+)"', form).group(1))
            said = re.search(
                r'-tol">\((?:accepted within ±([^)]+)|(exact answer))\)', form
            )
            assert said, form[:300]
            printed = 0.0 if said.group(2) else float(said.group(1))
            assert printed == tol, (c, said.group(0), tol)
            seen += 1
    assert seen == sum(isinstance(q, Numeric) for qs in built.values() for q in qs)
    # the check fails on the old rounding: 0.005 printed with two decimals is "0.01"
    assert f"{0.005:.2f}" != tolerance_text(0.005) == "0.005"
    assert tolerance_text(0.05) == "0.05" and tolerance_text(0.002) == "0.002"


def test_records_take_keyword_arguments_only() -> None:
    """Two adjacent strings (an option's text and its feedback) cannot be swapped by
    position: every record refuses positional arguments."""
    with pytest.raises(TypeError):
        Option("text", "feedback")  # type: ignore[misc]
    with pytest.raises(TypeError):
        Mistake(1.0, "feedback")  # type: ignore[misc]
    with pytest.raises(TypeError):
        Numeric("p", 1.0, 0.1, 2, "e", "h")  # type: ignore[misc]
    with pytest.raises(TypeError):
        Choice("p", ())  # type: ignore[misc]


def test_options_are_shuffled_and_the_key_is_spread(built) -> None:
    """Every multiple-choice question has four options (a named mistake each); across the
    book the right one is at every position about equally often, not at one position in
    most questions, and it is the strictly longest option in at most a third of them."""
    choices = _choices(built)
    assert len(choices) >= 12
    assert all(len(q.options) == 4 for _, _, q in choices), [
        (c, i, len(q.options)) for c, i, q in choices if len(q.options) != 4
    ]
    positions = Counter(
        next(k for k, o in enumerate(q.options) if o.correct) for _, _, q in choices
    )
    fair = len(choices) / 4
    assert set(positions) == {0, 1, 2, 3}
    assert (
        max(positions.values()) <= fair + 1 and min(positions.values()) >= fair - 1
    ), positions
    longest = [
        (c, i)
        for c, i, q in choices
        if all(len(q.key.text) > len(o.text) for o in q.options if not o.correct)
    ]
    assert len(longest) <= len(choices) / 3, longest
    # the same order on every build, and a different one from question to question
    assert [q.options for _, _, q in choices] == [
        q.options for _, _, q in _choices({c: questions(c) for c in CHAPTERS})
    ]


def test_the_spread_check_fails_on_a_fixed_position(built) -> None:
    """Planted fault: every key first (what the book did before), or every key where the
    seed alone puts it, is caught by the counts the test above uses."""
    choices = _choices(built)
    first = Counter(
        next(k for k, o in enumerate(shuffled(q, f"{c}-{i}", 0).options) if o.correct)
        for c, i, q in choices
    )
    assert first == Counter({0: len(choices)})
    balanced = Counter(key_positions([4] * 400))
    assert max(balanced.values()) - min(balanced.values()) <= 1
    runs = [tuple(key_positions([4] * 8)[k : k + 4]) for k in (0, 4)]
    assert runs[0] != runs[1]  # each run of four draws its own order


def _numbers(text: str) -> list[float]:
    """Every number printed in a text: 1,048,576, −0.990 (U+2212), 6.44, 1e-05, .5."""
    found = []
    for m in re.finditer(
        r"(?<![\w.])([-−]?)((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)"
        r"(?:[eE]([-−+]?\d+))?",
        text,
    ):
        value = float(m.group(2).replace(",", ""))
        if m.group(3):
            value *= 10 ** int(m.group(3).replace("−", "-"))
        found.append(-value if m.group(1) else value)
    return found


def _units(q: Numeric) -> list[float]:
    """The factors a printed number is multiplied by to be typed as this question's answer:
    1, and the question's unit (in millions, in billions, in units of 0.0001)."""
    factors = [1.0]
    if "in billions" in q.prompt:
        factors.append(1e-9)
    if "in millions" in q.prompt:
        factors.append(1e-6)
    unit = re.search(r"in units of ([\d.]+)", q.prompt)
    if unit:
        factors.append(1 / float(unit.group(1)))
    return factors


def _protected(q: Numeric) -> bool:
    """Whether an answer can be told apart from the page's other numbers: a small whole
    number (a count such as 28) is printed on every page for other reasons."""
    return not (q.answer == round(q.answer) and abs(q.answer) < 100)


def copied(text: str, qs: list) -> list[str]:
    """The accepted answers of ``qs`` that ``text`` prints (within the tolerance, in the
    question's unit)."""
    numbers = _numbers(text)
    found = []
    for i, q in enumerate(qs, 1):
        if not isinstance(q, Numeric) or not _protected(q):
            continue
        for v in numbers:
            for f in _units(q):
                if abs(v * f - q.answer) <= max(q.tolerance, 1e-9 * abs(q.answer)):
                    found.append(f"question {i}: {q.shown} printed as {v:g}")
    return found


def test_the_copy_check_finds_a_printed_answer(built) -> None:
    """Planted fault: a page that prints an answer (rounded, with separators, with U+2212,
    or in the question's unit) is caught; the same page without it is not."""
    ch11, ch16, ch07 = built["ch11"], built["ch16"], built["ch07"]
    assert copied("GELU(2.00) = 1.95450 (erf)", ch11) != []
    assert copied("GELU(1.00) = 0.84134 (erf)", ch11) == []
    assert copied("FFN(x) = [3.50, -0.25]", ch11) != []
    assert copied("12·32·4096² = 6,442,450,944", ch16) != []  # the unit: billions
    assert copied("PE[3, 1] = −0.990", ch07) != []
    assert copied("PE[3, 1] = 0.990", ch07) == []


def _page_text(page: str) -> str:
    """What a built page shows outside its quizzes: the text (code and outputs included),
    alt texts, the strings of its widgets' state (their snapshots), the texts of its SVG
    figures, inline or linked."""
    from booktools.i18n.outputs import QUIZ_BLOCK

    assert START in page and END in page
    page = QUIZ_BLOCK.sub(" ", page)
    parts = [m.group(1) for m in re.finditer(r'\salt="([^"]*)"', page)]
    for m in re.finditer(
        r'<script type="application/vnd\.jupyter\.widget-state\+json">(.*?)</script>',
        page,
        re.S,
    ):
        stack = [json.loads(m.group(1))]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                stack += item.values()
            elif isinstance(item, list):
                stack += item
            elif isinstance(item, str):
                parts.append(re.sub(r"<[^>]*>", " ", item))
    svgs = [
        base64.b64decode(m.group(1)).decode("utf-8", "replace")
        for m in re.finditer(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", page)
    ]
    for m in re.finditer(r'<img [^>]*src="([^"]+\.svg)"', page):
        path = (HTML / "chapters" / m.group(1)).resolve()
        if path.is_file():
            svgs.append(path.read_text(encoding="utf-8", errors="replace"))
    for svg in svgs:
        parts += re.findall(r"<text\b[^>]*>([^<]*)</text>", svg)
        parts += re.findall(r"<!-- (.*?) -->", svg)
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    parts.append(re.sub(r"<[^>]*>", " ", body))
    return html.unescape("\n".join(parts))


def _chapter_pages() -> list[tuple[str, Path]]:
    from booktools.build.notebooks import chapters

    names = {c.name[:2]: c.stem for c in chapters() if c.name[:2].isdigit()}
    return [(f"ch{n}", Path("chapters") / f"{stem}.html") for n, stem in names.items()]


@pytest.mark.parametrize("language", ["en", "ko"])
def test_no_answer_is_printed_on_its_page(built, language: str) -> None:
    """The built book (after ``make book``; skipped without it), both languages: no
    accepted numeric answer appears on its chapter's page outside the quiz (text, code,
    outputs, alt texts, widget snapshots, figures), within its tolerance."""
    root = HTML if language == "en" else HTML / "ko"
    pages = [(c, root / p) for c, p in _chapter_pages()]
    if not all(path.is_file() for _, path in pages):
        pytest.skip(f"no built book at {root} (make book builds it)")
    found = {}
    for c, path in pages:
        leaks = copied(_page_text(path.read_text(encoding="utf-8")), built[c])
        if leaks:
            found[c] = leaks
    assert found == {}


def test_no_answer_is_printed_in_its_chapter_source(built) -> None:
    """The same check on the chapters' sources (prose, code, widget defaults), which needs
    no build: the answers are not typed anywhere in their chapter."""
    found = {}
    for c, path in _chapter_pages():
        source = ROOT / path.with_suffix(".md")
        leaks = copied(source.read_text(encoding="utf-8"), built[c])
        if leaks:
            found[c] = leaks
    assert found == {}


def test_html_is_accessible_markup(built) -> None:
    page = quiz("ch08")._repr_html_()
    choices = sum(isinstance(q, Choice) for q in questions("ch08"))
    assert page.count("<fieldset>") == page.count("<legend>") == choices >= 1
    for box in re.findall(r'<input type="text"[^>]*id="([^"]+)"', page):
        assert f'<label for="{box}">' in page
    for radio in re.findall(r'<input type="radio"[^>]*id="([^"]+)"', page):
        assert f'<label for="{radio}">' in page
    assert page.count('role="status"') == 3
    assert len(SCRIPT) + len(STYLE) < 3000  # small: inline, no CDN
    assert "http" not in SCRIPT + STYLE
    ids = re.findall(
        r'\sid="([^"]+)"', "".join(quiz(c)._repr_html_() for c in CHAPTERS)
    )
    assert len(ids) == len(set(ids)), "ids repeat across quizzes"


def test_bad_input_gets_a_clear_error() -> None:
    with pytest.raises(ValueError, match="quiz_id: expected one of"):
        questions("ch99")
    with pytest.raises(ValueError, match="quiz_id: expected lowercase"):
        render_quiz("Chapter 8", questions("ch08"))
    with pytest.raises(ValueError, match="questions: expected a non-empty list"):
        render_quiz("ch08", [])
    with pytest.raises(TypeError, match="q: expected a Choice or a Numeric"):
        render_question("not a question", "fq-x-1")
    with pytest.raises(ValueError, match="qid: expected"):
        render_question(questions("ch08")[0], "bad id")
    right = Option(text="a", feedback="f", correct=True)
    with pytest.raises(ValueError, match="exactly 1 correct option, got 2"):
        Choice(
            prompt="p", options=(right, Option(text="b", feedback="g", correct=True))
        )
    with pytest.raises(ValueError, match="options: expected 2 to 6"):
        Choice(prompt="p", options=(right,))
    with pytest.raises(ValueError, match="correct: expected True or False"):
        Option(text="a", feedback="f", correct=1)
    numeric = dict(
        prompt="p", answer=1.0, tolerance=0.1, decimals=2, explain="e", hint="h"
    )
    with pytest.raises(ValueError, match="tolerance: expected a number >= 0"):
        Numeric(**{**numeric, "tolerance": -0.1})
    with pytest.raises(ValueError, match="answer: expected a finite number"):
        Numeric(**{**numeric, "answer": float("nan")})
    with pytest.raises(ValueError, match="mistakes: 1.001 is within the tolerance"):
        Numeric(
            **{**numeric, "tolerance": 0.01},
            mistakes=(Mistake(value=1.001, feedback="f"),),
        )
    with pytest.raises(ValueError, match="decimals: the answer shown with 0 decimals"):
        Numeric(**{**numeric, "answer": 1.4, "decimals": 0})
    with pytest.raises(ValueError, match="text: expected a non-empty string"):
        Option(text="", feedback="f")
    with pytest.raises(ValueError, match="position: expected an int from 0 to 1"):
        shuffled(
            Choice(prompt="p", options=(right, Option(text="b", feedback="g"))), "k", 2
        )


def test_leak_scan_covers_the_quizzes() -> None:
    """No quiz gives away an exercise's graded answer (solution texts; with the execution
    cache, what the solutions printed too), and a quiz that did would be found."""
    from booktools.build import notebooks
    from booktools.course import assign, leak_scan

    chapters = notebooks.chapters()
    outputs = leak_scan.executed_outputs()
    assert leak_scan.quiz_leaks(chapters, outputs) == []
    chapter8 = next(c for c in chapters if c.name.startswith("08_"))
    exercises = [
        s
        for kind, s in assign.segments(chapter8.read_text(encoding="utf-8"))
        if kind == "exercise"
    ]
    graded = sorted(
        n for ex in exercises for n in leak_scan.solution_fingerprints(ex)["numbers"]
    )
    assert graded, "chapter 8's solutions have no number to plant"
    texts = leak_scan.quiz_texts()
    texts["ch08"] += f"\nA distractor: {graded[0]}"
    found = leak_scan.quiz_leaks(chapters, outputs, texts)
    assert any(graded[0] in f and "08_attention" in f for f in found), found


def test_every_chapter_and_its_student_notebook_show_its_quiz() -> None:
    """The 'Check your understanding' cell of every chapter (its source hidden in the page)
    stays in the student edition: the student notebook and the stripped chapter keep it."""
    from booktools.build import notebooks
    from booktools.course import student

    chapters = {c.name[:2]: c for c in notebooks.chapters() if c.name[:2].isdigit()}
    assert sorted(chapters) == [c[2:] for c in CHAPTERS]
    for number, path in chapters.items():
        call = f'quiz("ch{number}")'
        text = path.read_text(encoding="utf-8")
        cells = [m.group(0) for m in re.finditer(r"```\{code-cell\}.*?```", text, re.S)]
        quiz_cells = [c for c in cells if call in c]
        assert text.count(call) == 1 and "## Check your understanding" in text, path
        assert len(quiz_cells) == 1 and ":tags: [remove-input]" in quiz_cells[0], path
        assert call in student.strip_solutions(text), path
        assert call.replace('"', '\\"') in notebooks.notebook_text(
            path, student=True
        ), path


def test_quiz_text_goes_through_the_outputs_catalogue() -> None:
    """The Korean book: every text of a quiz is a message of the page's outputs catalogue
    (booktools.i18n.outputs.notebook_fragments reads it from the cell's HTML output), and
    booktools.sphinx.quiz.translate_quiz puts the translation back, values kept; a text
    without a translation stays English."""
    from booktools.i18n.outputs import (
        QUIZ_BLOCK,
        notebook_fragments,
        output_template,
        quiz_fragments,
    )
    from booktools.sphinx.quiz import translate_quiz

    page = quiz("ch08")._repr_html_()
    nb = {
        "cells": [
            {"outputs": [{"output_type": "display_data", "data": {"text/html": page}}]}
        ]
    }
    messages = {msgid for msgid, _ in notebook_fragments(nb)}
    texts = quiz_fragments(page)
    assert "Check" in texts and "Correct." in texts and len(texts) > 20
    assert {output_template(t)[0] for t in texts} <= messages
    explain = next(t for t in texts if "softmax of" in t)
    template = output_template(explain)[0]
    assert template.startswith("{0}: the scores q·k are ({1})"), template
    table = {
        "Check": "확인",
        "Correct.": "정답이다.",
        template: "{0}: 점수 q·k는 ({1})이다.",
    }
    korean = translate_quiz(QUIZ_BLOCK.search(page).group(0), table)
    assert ">확인</button>" in korean and "<strong>정답이다.</strong>" in korean
    answer = questions("ch08")[0].shown
    scores = output_template(explain)[1][1]
    assert f"{answer}: 점수 q·k는 ({scores})이다." in korean
    assert "Not quite." in korean  # no translation given: unchanged
    assert re.sub(r">[^<]*<", "><", korean) == re.sub(
        r">[^<]*<", "><", page.split("<!--")[0] + "<!-- /fq-quiz -->"
    )


def test_a_page_using_sphinx_design_fails_the_build() -> None:
    """sphinx-design's assets are not loaded (booktools.sphinx.quiz): a page that used one of
    its directives would look broken, so the build stops and says why."""
    from docutils import nodes
    from docutils.utils import new_document
    from sphinx.errors import ExtensionError

    from booktools.sphinx.quiz import refuse_design_nodes

    doc = new_document("page")
    doc += nodes.container(classes=["cell", "tag_remove-input"])
    refuse_design_nodes(None, doc, "chapters/08_attention")  # no sd- class: fine
    doc += nodes.container(classes=["sd-card", "sd-shadow-sm"])
    with pytest.raises(ExtensionError, match="uses a sphinx-design directive"):
        refuse_design_nodes(None, doc, "chapters/08_attention")
