"""Input validation shared by every module of :mod:`formulated`.

Each helper raises an exception whose message names the argument, what was expected and what
came, so that a reader who passes a wrong shape learns *which* shape was wrong.  They return the
validated value (as an array where that makes sense) so callers can write ``X = as_matrix(X, "X")``.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from typing import Any, Callable, Sequence, TypeVar

import numpy as np

__all__: list[str] = []  # private helpers: not part of the public API

F = TypeVar("F", bound=Callable[..., Any])


def checked(checker: Callable[..., Any]) -> Callable[[F], F]:
    """Decorate a formula with the function that checks its arguments.

    ``@checked(_attention_args)`` above ``def attention(Q, K, V, ...)`` calls
    ``_attention_args`` with the arguments the caller passed (defaults filled in, in the
    formula's parameter order, keyword-only ones by keyword) and then the formula with what
    it returns: a tuple of the checked arguments in the same order, keyword-only ones last
    (or the one value, for a formula of one parameter).  So the formula's body is the
    computation alone, and its box in the book shows the formula, not the guards; the
    checker raises the errors that name the arguments.

    A checker that returns another number of values (one forgot an argument, or returned
    nothing) is a bug of the package: the call raises ``TypeError`` naming the checker,
    instead of running the formula with a default in place of the caller's argument.
    """

    def decorate(formula: F) -> F:
        signature = inspect.signature(formula)

        @functools.wraps(formula)
        def run_checked(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            n, want = len(bound.args), len(bound.args) + len(bound.kwargs)
            values = checker(*bound.args, **bound.kwargs)
            if values is None:
                raise TypeError(
                    f"{checker.__name__} returned nothing; a checker of "
                    f"{formula.__name__} returns its checked arguments"
                )
            if want == 1 and not (isinstance(values, tuple) and len(values) == 1):
                values = (values,)  # one parameter: the checker returns its one value
            if not isinstance(values, tuple) or len(values) != want:
                got = len(values) if isinstance(values, tuple) else 1
                raise TypeError(
                    f"{checker.__name__} returned {got} value(s) for the {want} "
                    f"argument(s) of {formula.__name__}; a checker returns every "
                    f"argument, checked, in the formula's order"
                )
            return formula(*values[:n], **dict(zip(bound.kwargs, values[n:])))

        run_checked.__checked_by__ = checker  # type: ignore[attr-defined]
        return run_checked  # type: ignore[return-value]

    return decorate


def as_array(x: Any, name: str) -> np.ndarray:
    """``np.asarray(x)``, with two inputs made clear, each by a message naming ``name``:

    * a torch tensor that requires grad is a ``TypeError``: the NumPy formulas compute values,
      not gradients, so reading it (detaching it silently) would hand back numbers that no
      ``.backward()`` can reach; a tensor without gradient is moved to the CPU and read;
    * a ragged nested list (rows of different lengths) is a ``ValueError`` instead of NumPy's
      "inhomogeneous shape", which names no argument.

    Every converter below (``as_float_array``, ``as_token_ids``, ...) starts here, and so does
    every formula that reads an argument before converting it (an emptiness test, a mask).
    """
    if type(x).__module__.startswith("torch") and hasattr(x, "detach"):
        if getattr(x, "requires_grad", False):
            raise TypeError(
                f"{name}: expected a NumPy array or a tensor without gradient; got a "
                f"tensor that requires grad (shape {tuple(x.shape)}); call .detach() "
                f"first, the NumPy formulas do not propagate gradients"
            )
        x = x.detach().cpu()
    try:
        return np.asarray(x)
    except ValueError as err:
        if "inhomogeneous" not in str(err):
            raise
        lengths = sorted({len(r) for r in x if hasattr(r, "__len__")})
        where = (
            f"rows of lengths {lengths}"
            if len(lengths) > 1
            else "rows whose own rows differ in length"
        )
        raise ValueError(
            f"{name}: expected a rectangular array (every row of the same "
            f"length), got a ragged nested sequence with {where}"
        ) from None


def as_float_array(
    x: Any,
    name: str,
    *,
    ndim: int | Sequence[int] | None = None,
    allow_inf: bool = False,
) -> np.ndarray:
    """Return ``x`` as a floating-point array, checking its rank and that it is finite.

    Integer and boolean inputs are converted to float64; float inputs keep their dtype so that a
    float32 computation stays float32.  ``allow_inf`` lets masks (which hold ``-inf``) through,
    but NaN is never accepted: it would propagate silently through every later formula.
    """
    arr = as_array(x, name)
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or arr.dtype == bool
    ):
        raise TypeError(f"{name}: expected a numeric array, got dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise TypeError(f"{name}: expected a real array, got dtype {arr.dtype}")
    if not np.issubdtype(arr.dtype, np.floating):
        arr = arr.astype(np.float64)
    want = _unmet_ndim(arr, ndim)
    if want:
        raise ValueError(
            f"{name}: expected an array with {want} dimension(s), "
            f"got shape {arr.shape} ({arr.ndim} dimension(s))"
        )
    check_finite(arr, name, allow_inf=allow_inf)
    return arr


def _unmet_ndim(arr: np.ndarray, ndim: int | Sequence[int] | None) -> str:
    """``""`` if ``arr`` has one of the allowed ranks (or ``ndim`` is ``None``), else the allowed
    ranks as words for a message (``"1 or 2"``)."""
    if ndim is None:
        return ""
    allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
    return "" if arr.ndim in allowed else " or ".join(str(a) for a in allowed)


def check_finite(arr: np.ndarray, name: str, *, allow_inf: bool = False) -> None:
    """Raise ``ValueError`` if ``arr`` holds NaN (or ±inf unless ``allow_inf``)."""
    if allow_inf:
        bad = np.isnan(arr)
        what = "NaN"
    else:
        bad = ~np.isfinite(arr)
        what = "NaN or infinite"
    if np.any(bad):
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{name}: expected finite values, got {np.count_nonzero(bad)} "
            f"{what} value(s), the first at index {idx} ({arr[idx]})"
        )


def check_shape(arr: np.ndarray, name: str, expected: Sequence[int | None]) -> None:
    """Raise ``ValueError`` unless ``arr.shape`` matches ``expected`` (``None`` = any size)."""
    shape = tuple(arr.shape)
    ok = len(shape) == len(expected) and all(
        e is None or e == s for e, s in zip(expected, shape)
    )
    if not ok:
        want = "(" + ", ".join("any" if e is None else str(e) for e in expected) + ")"
        raise ValueError(f"{name}: expected shape {want}, got {shape}")


def as_token_ids(
    ids: Any,
    name: str,
    V: int | None = None,
    *,
    ndim: int | Sequence[int] | None = None,
) -> np.ndarray:
    """Return ``ids`` as an int64 array of token ids in ``0 .. V-1`` (0-based, as in the code).

    Float ids are rejected even when integral (``2.0``): a float id almost always means that an
    embedding or probability was passed where ids were expected.
    """
    arr = as_array(ids, name)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name}: expected integer token ids, got dtype {arr.dtype}")
    want = _unmet_ndim(arr, ndim)
    if want:
        raise ValueError(
            f"{name}: expected {want} dimension(s) of token ids, got shape {arr.shape}"
        )
    arr = arr.astype(np.int64)
    if V is not None and arr.size:
        lo, hi = int(arr.min()), int(arr.max())
        if lo < 0 or hi >= V:
            bad = lo if lo < 0 else hi
            raise ValueError(
                f"{name}: expected token ids in 0..{V - 1} (vocabulary size V={V}), "
                f"got {bad}"
            )
    return arr


def check_int(
    value: Any,
    name: str,
    minimum: int | None = 1,
    what: str = "a positive integer",
    *,
    maximum: int | None = None,
) -> int:
    """The one integer validator: return ``value`` as an int, raising unless it is an integer
    in ``minimum .. maximum`` (``None``: no bound); ``what`` is how the message describes the
    expected value.  NumPy integers are accepted; bools and floats (even integral ones) are a
    ``TypeError``, a value out of range a ``ValueError``."""
    if not is_int(value):
        raise TypeError(
            f"{name}: expected {what}, got {value!r} ({type(value).__name__})"
        )
    v = int(value)
    if (minimum is not None and v < minimum) or (maximum is not None and v > maximum):
        raise ValueError(f"{name}: expected {what}, got {v}")
    return v


def is_int(value: Any) -> bool:
    """An integer (Python or NumPy), not a bool: the test every integer argument passes."""
    return not isinstance(value, (bool, np.bool_)) and isinstance(
        value, (int, np.integer)
    )


def check_positive_int(value: Any, name: str) -> int:
    """Return ``value`` as an int, raising unless it is an integer ≥ 1."""
    return check_int(value, name, 1, "a positive integer")


def check_real(
    value: Any,
    name: str,
    *,
    minimum: float | None = None,
    strict: bool = False,
    what: str | None = None,
    finite: bool = True,
) -> float:
    """The one real-number validator: return ``value`` as a float, raising unless it is a real
    number (finite unless ``finite=False``; ``>= minimum``, or ``> minimum`` when ``strict``).

    Booleans and strings are a ``TypeError`` (``eps=True`` is almost always a slip, not
    ``1.0``); NumPy scalars such as ``np.float32(1e-5)`` and 0-d arrays are accepted.  A wrong
    value is a ``ValueError``.  ``what`` is how every message describes the expected value;
    without it the messages say "a real number", "a finite number", "a number >= minimum".
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name}: expected {what or 'a real number'}, got {value!r} "
            f"({type(value).__name__})"
        )
    v = float(value)
    infinite = finite and not math.isfinite(v)
    below = minimum is not None and (v <= minimum if strict else v < minimum)
    if what is not None and (infinite or below):
        raise ValueError(f"{name}: expected {what}, got {v}")
    if infinite:
        raise ValueError(f"{name}: expected a finite number, got {v}")
    if below:
        raise ValueError(
            f"{name}: expected a number {'>' if strict else '>='} {minimum}, got {v}"
        )
    return v


def check_real_type(value: Any, name: str, what: str = "a number") -> float:
    """:func:`check_real` without the value checks (the caller checks the range, in its own
    words): a real number, as a float."""
    return check_real(value, name, what=what, finite=False)


def check_nonnegative_int(value: Any, name: str) -> int:
    """Return ``value`` as an int, raising unless it is an integer ≥ 0 (a seed, an index)."""
    return check_int(value, name, 0, "an integer >= 0")


def check_nonempty(arr: np.ndarray, name: str, what: str) -> None:
    """Raise ``ValueError`` if ``arr`` has no elements; ``what`` says what a reduction over it
    would lack (e.g. ``"a softmax needs at least one score per slice"``)."""
    if arr.size == 0:
        raise ValueError(
            f"{name}: expected a non-empty array, got shape {tuple(arr.shape)}; {what}"
        )


def check_eps(eps: Any) -> float:
    """Return LayerNorm's ``eps`` as a float: a finite real number ``>= 0`` (the one rule for it).

    ``eps = 0`` is the formula without its safety term; it is defined for every row that is not
    constant, and :func:`formulated.formulas.layer_norm` raises for a constant row (0/0) where
    the division happens.  Every NumPy model reaches ``eps`` through ``layer_norm``, so this is
    checked in one place.
    """
    return check_real(eps, "eps", minimum=0)


#: The two kinds of attention mask: the book's additive 0/-inf, the sources' multiplicative
#: 1/-inf (:func:`formulated.formulas.masked_softmax`).
MASK_KINDS = ("additive", "multiplicative")


def check_mask_kind(kind: Any) -> str:
    """Return ``kind`` if it is one of :data:`MASK_KINDS`, else raise naming ``kind``."""
    if not isinstance(kind, str) or kind not in MASK_KINDS:
        raise ValueError(f"kind: expected one of {MASK_KINDS}, got {kind!r}")
    return kind


def as_mask(mask: Any, name: str = "mask") -> np.ndarray:
    """A float attention mask; a boolean mask (True = may attend, as in torch) becomes
    0/-inf."""
    arr = as_array(mask, name)  # names a ragged mask or one that requires grad
    if arr.dtype == bool:
        return np.where(arr, 0.0, -np.inf)
    arr = as_float_array(arr, name, allow_inf=True)
    if np.any(arr == np.inf):
        raise ValueError(
            f"{name}: expected values below +inf (0 or -inf, or 1 or -inf "
            "for a multiplicative mask), got +inf"
        )
    return arr


def check_ffn(
    X: Any, W1: Any, b1: Any, W2: Any, b2: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Check the arguments of a feed-forward network ``act(X W1 + b1) W2 + b2`` and return them
    as float arrays: ``X (..., H)``, ``W1 (H, F)``, ``b1 (F,)``, ``W2 (F, H')``, ``b2 (H',)``."""
    X = as_float_array(X, "X")
    if X.ndim < 1:
        raise ValueError(f"X: expected an array of shape (..., H), got {X.shape}")
    H = X.shape[-1]
    W1 = as_float_array(W1, "W1", ndim=2)
    check_shape(W1, "W1", (H, None))
    F = W1.shape[1]
    b1 = as_float_array(b1, "b1", ndim=1)
    check_shape(b1, "b1", (F,))
    W2 = as_float_array(W2, "W2", ndim=2)
    check_shape(W2, "W2", (F, None))
    b2 = as_float_array(b2, "b2", ndim=1)
    check_shape(b2, "b2", (W2.shape[1],))
    return X, W1, b1, W2, b2


def check_segment_ids(t: Any, ids: np.ndarray) -> np.ndarray:
    """Return BERT's segment ids ``t`` (integers in {0, 1}, the shape of the token ids ``ids``)
    as a float array, the form the input formula multiplies with."""
    arr = as_array(t, "t")
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"t: expected integer segment ids 0/1, got dtype {arr.dtype}")
    if arr.shape != ids.shape:
        raise ValueError(f"t: expected the shape of x {ids.shape}, got {arr.shape}")
    bad = arr[(arr != 0) & (arr != 1)]
    if bad.size:
        raise ValueError(f"t: expected segment ids in {{0, 1}}, got {int(bad[0])}")
    return arr.astype(np.float64)


#: A target that ``torch.nn.functional.cross_entropy`` skips (the padding of validation windows).
IGNORE_INDEX = -100


def check_token_tensor(
    t: Any, name: str, V: int, *, values: bool = True, ignore_index: bool = False
) -> Any:
    """Check that ``t`` is an integer ``torch.Tensor`` of token ids in ``0 .. V-1`` (or
    :data:`IGNORE_INDEX` where ``ignore_index``) and return it; the values are checked with one
    min/max reduction when ``values``.  PyTorch is imported here, not by the NumPy code."""
    import torch

    if not isinstance(t, torch.Tensor):
        raise TypeError(
            f"{name}: expected a torch.Tensor of integer token ids, got "
            f"{type(t).__name__}"
        )
    if t.dtype == torch.bool or t.is_floating_point() or t.is_complex():
        raise TypeError(f"{name}: expected integer token ids, got dtype {t.dtype}")
    if values and t.numel():
        lo, hi = (int(v) for v in torch.aminmax(t))
        low_ok = lo >= (IGNORE_INDEX if ignore_index else 0)
        if not low_ok or hi >= V:
            bad = lo if not low_ok else hi
        elif ignore_index and lo < 0:
            wrong = (t < 0) & (
                t != IGNORE_INDEX
            )  # only reached when some target is negative
            bad = int(t[wrong][0]) if bool(wrong.any()) else None
        else:
            bad = None
        if bad is not None:
            where = tuple(int(i) for i in (t == bad).nonzero()[0])
            extra = f" or {IGNORE_INDEX} (ignored)" if ignore_index else ""
            raise ValueError(
                f"{name}: expected token ids in 0..{V - 1}{extra} (vocabulary size "
                f"V={V}), got {bad} at index {where}"
            )
        if ignore_index and hi == IGNORE_INDEX:
            raise ValueError(
                f"{name}: every target is {IGNORE_INDEX} (ignored), so the mean "
                f"loss would be 0/0; expected at least one target in 0..{V - 1}"
            )
    return t


def check_positive_number(
    value: Any,
    name: str,
    what: str = "a positive finite number",
    *,
    allow_zero: bool = False,
) -> float:
    """:func:`check_real` for a finite number > 0 (>= 0 with ``allow_zero``), every message
    saying ``what``."""
    return check_real(value, name, minimum=0, strict=not allow_zero, what=what)


def check_probabilities(p: Any, name: str) -> np.ndarray:
    """Return ``p`` as a float array of probability vectors (one, or a stack along the last axis,
    ``(V,)`` or ``(n, V)``): every entry ≥ 0 and each vector summing to 1 (to 1e-9)."""
    p = as_float_array(p, name, ndim=(1, 2))
    if np.any(p < 0):
        raise ValueError(
            f"{name}: expected probabilities ≥ 0, got a minimum of {p.min()}"
        )
    sums = p.sum(axis=-1)
    if not np.allclose(sums, 1.0, rtol=0, atol=1e-9):
        bad = float(np.atleast_1d(sums)[np.argmax(np.abs(np.atleast_1d(sums) - 1))])
        raise ValueError(
            f"{name}: expected probabilities summing to 1 along the last axis, "
            f"got a sum of {bad}"
        )
    return p


def check_text(text: Any) -> None:
    """``text`` is a string (the tokenizers' ``encode`` and ``tokenize``)."""
    if not isinstance(text, str):
        raise TypeError(f"text: expected a string, got {type(text).__name__}")


def tokens_of(ids: Sequence[int] | np.ndarray, itos: Sequence[str]) -> list[str]:
    """The tokens ``itos[i]`` of ``ids`` (the tokenizers' ``decode``); an id that is not an
    integer in ``0 .. V-1`` raises, naming the first one."""
    V = len(itos)
    arr = as_array(ids, "ids")  # a ragged nested list is named here
    if arr.size and (arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer)):
        raise TypeError(f"ids: expected integer token ids, got dtype {arr.dtype}")
    out = []
    for i in arr.reshape(-1).tolist():
        if not 0 <= i < V:
            raise ValueError(f"ids: expected token ids in 0..{V - 1} (V={V}), got {i}")
        out.append(itos[i])
    return out
