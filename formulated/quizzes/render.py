"""A quiz as accessible HTML that answers without a server: the static book page, JupyterLab
and Colab (the cell's output holds the HTML, a small style and a small script).

Each question is a ``<form>``: a multiple-choice one a ``<fieldset>`` of radio buttons whose
``<legend>`` is the prompt, its options in the order :func:`~.model.shuffled` gave them; a
numeric one a labeled text box (``inputmode="decimal"``) with the tolerance it applies stated
(:attr:`~.model.Numeric.tolerance_shown`, the same field as ``data-tol``).  A "Check" button
(or Enter) shows the verdict and the feedback in a ``role="status"`` region that screen
readers announce.  Every text the reader sees is a text
node of the HTML (the script only copies a hidden message into the status region), so the
Korean book translates it from the outputs catalogue like any other output
(:mod:`booktools.sphinx.quiz`).  Colors come from the theme's variables (light and dark), with
JupyterLab's and plain fallbacks.
"""

from __future__ import annotations

import html
import re

from .model import Choice, Numeric, Question

__all__ = ["SCRIPT", "STYLE", "accepted", "render_quiz", "render_question"]

#: Marks the start and the end of a quiz's HTML in a page (the Korean book finds it by them).
START = '<div class="fq-quiz"'
END = "<!-- /fq-quiz -->"

STYLE = (
    "<style>.fq-quiz form{border:1px solid var(--pst-color-border,var(--jp-border-color1,"
    "#999));border-radius:.4em;padding:.6em .9em;margin:.8em 0}"
    ".fq-quiz fieldset{border:0;margin:0;padding:0}.fq-quiz legend,.fq-quiz .fq-p"
    "{font-weight:600;margin-bottom:.4em;padding:0}.fq-quiz .fq-o{display:flex;gap:.5em;"
    "align-items:baseline;margin:.25em 0}.fq-quiz input[type=text]{font:inherit;"
    "width:9em;padding:.2em .4em;color:inherit;background:transparent;border:1px solid "
    "currentColor;border-radius:.3em}.fq-quiz button{font:inherit;margin-top:.5em;"
    "padding:.2em 1em;color:inherit;background:transparent;border:2px solid currentColor;"
    "border-radius:.3em;cursor:pointer}.fq-quiz .fq-out:not(:empty){margin-top:.5em;"
    "padding:.3em .6em;border-left:.3em solid var(--pst-color-border,#999)}"
    ".fq-quiz .fq-out[data-state=correct]{border-left-color:var(--pst-color-success,"
    "#2e7d32)}.fq-quiz .fq-out[data-state=wrong]{border-left-color:var(--pst-color-danger,"
    "#c62828)}</style>"
)

#: One listener for every quiz of the page (installed once): on "Check", the message of the
#: chosen option, or of the typed number (right, a named mistake, wrong, not a number).
SCRIPT = (
    "<script>(function(){if(window.fqQuiz)return;window.fqQuiz=1;"
    "function num(s){s=s.replace(/\\u2212/g,'-').replace(/[\\s\\u00a0]/g,'');"
    "if(/^-?\\d{1,3}(,\\d{3})+(\\.\\d*)?$/.test(s))s=s.replace(/,/g,'');"
    "else s=s.replace(',','.');return /^[-+]?(\\d+\\.?\\d*|\\.\\d+)(e[-+]?\\d+)?$/i"
    ".test(s)?parseFloat(s):NaN}"
    "document.addEventListener('submit',function(e){var f=e.target;"
    "if(!f.classList||!f.classList.contains('fq-q'))return;e.preventDefault();var k;"
    "if(f.dataset.kind==='choice'){var r=f.querySelector('input:checked');"
    "k=r?'o'+r.value:'none'}else{var v=num(f.querySelector('input').value),"
    "t=+f.dataset.tol;if(isNaN(v))k='nan';else if(Math.abs(v-f.dataset.answer)<=t)"
    "k='ok';else{k='no';f.querySelectorAll('[data-value]').forEach(function(m){"
    "if(k==='no'&&Math.abs(v-m.dataset.value)<=t)k=m.dataset.mistake})}}"
    "var m=f.querySelector('.fq-msgs [data-key=\"'+k+'\"]'),o=f.querySelector('.fq-out');"
    "o.innerHTML=m.innerHTML;o.dataset.state=m.dataset.state},true)})();</script>"
)

_ID = re.compile(r"^[a-z][a-z0-9-]*$")


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _msg(key: str, state: str, verdict: str, feedback: str) -> str:
    return (
        f'<div data-key="{key}" data-state="{state}"><strong>{_e(verdict)}</strong> '
        f"<span>{_e(feedback)}</span></div>"
    )


def _choice(q: Choice, qid: str) -> tuple[str, str]:
    rows, msgs = [], []
    for i, o in enumerate(q.options):
        oid = f"{qid}-o{i}"
        rows.append(
            f'<div class="fq-o"><input type="radio" name="{qid}" id="{oid}" value="{i}">'
            f'<label for="{oid}">{_e(o.text)}</label></div>'
        )
        state, verdict = (
            ("correct", "Correct.") if o.correct else ("wrong", "Not quite.")
        )
        msgs.append(_msg(f"o{i}", state, verdict, o.feedback))
    msgs.append(_msg("none", "empty", "No option chosen.", "Choose one, then Check."))
    return (
        f"<fieldset><legend>{_e(q.prompt)}</legend>{''.join(rows)}</fieldset>",
        "".join(msgs),
    )


def accepted(q: Numeric) -> str:
    """What the page says it accepts: the tolerance the check applies, every digit of it."""
    if q.tolerance == 0:
        return "(exact answer)"
    return f"(accepted within ±{q.tolerance_shown})"


def _numeric(q: Numeric, qid: str) -> tuple[str, str]:
    body = (
        f'<p class="fq-p" id="{qid}-p">{_e(q.prompt)}</p>'
        f'<label for="{qid}-in">Your answer:</label> '
        f'<input type="text" inputmode="decimal" autocomplete="off" id="{qid}-in" '
        f'aria-describedby="{qid}-p {qid}-tol"> '
        f'<span id="{qid}-tol">{_e(accepted(q))}</span>'
    )
    msgs = [_msg("ok", "correct", "Correct.", f"{q.shown}: {q.explain}")]
    msgs += [
        _msg(f"m{i}", "wrong", "Not quite.", m.feedback)
        for i, m in enumerate(q.mistakes)
    ]
    msgs.append(_msg("no", "wrong", "Not quite.", q.hint))
    msgs.append(_msg("nan", "empty", "Not a number.", "Type a number, such as 0.25."))
    return body, "".join(msgs)


def render_question(q: Question, qid: str) -> str:
    """One question as a ``<form class="fq-q">``; ``qid`` makes its ids unique on a page."""
    if not isinstance(qid, str) or not _ID.match(qid):
        raise ValueError(
            f"qid: expected lowercase letters, digits and '-', got {qid!r}"
        )
    if isinstance(q, Choice):
        body, msgs = _choice(q, qid)
        data = 'data-kind="choice"'
    elif isinstance(q, Numeric):
        body, msgs = _numeric(q, qid)
        values = "".join(
            f'<span data-mistake="m{i}" data-value="{m.value!r}"></span>'
            for i, m in enumerate(q.mistakes)
        )
        msgs += values
        data = (
            f'data-kind="number" data-answer="{q.answer!r}" data-tol="{q.tolerance!r}"'
        )
    else:
        raise TypeError(f"q: expected a Choice or a Numeric question, got {q!r}")
    return (
        f'<form class="fq-q" id="{qid}" {data} novalidate>{body}'
        f'<div><button type="submit">Check</button></div>'
        f'<div class="fq-out" role="status" aria-live="polite"></div>'
        f'<div class="fq-msgs" hidden>{msgs}</div></form>'
    )


def render_quiz(quiz_id: str, questions: list[Question] | tuple[Question, ...]) -> str:
    """A chapter's quiz: its questions, numbered, the style and the script."""
    if not isinstance(quiz_id, str) or not _ID.match(quiz_id):
        raise ValueError(
            f"quiz_id: expected lowercase letters, digits and '-' like 'ch08', "
            f"got {quiz_id!r}"
        )
    if not isinstance(questions, (list, tuple)) or not questions:
        raise ValueError(f"questions: expected a non-empty list, got {questions!r}")
    parts = [
        render_question(q, f"fq-{quiz_id}-{i + 1}") for i, q in enumerate(questions)
    ]
    return f'{START} data-quiz="{quiz_id}">{STYLE}{"".join(parts)}{SCRIPT}</div>{END}'
