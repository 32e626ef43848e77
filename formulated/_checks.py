"""Input validation shared by every module of :mod:`formulated`.

Each helper raises an exception whose message names the argument, what was expected and what
came, so that a reader who passes a wrong shape learns *which* shape was wrong.  They return the
validated value (as an array where that makes sense) so callers can write ``X = as_matrix(X, "X")``.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Sequence

import numpy as np

__all__: list[str] = []  # private helpers: not part of the public API


def as_float_array(x: Any, name: str, *, ndim: int | Sequence[int] | None = None,
                   allow_inf: bool = False) -> np.ndarray:
    """Return ``x`` as a floating-point array, checking its rank and that it is finite.

    Integer and boolean inputs are converted to float64; float inputs keep their dtype so that a
    float32 computation stays float32.  ``allow_inf`` lets masks (which hold ``-inf``) through,
    but NaN is never accepted: it would propagate silently through every later formula.
    """
    arr = np.asarray(x)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"{name}: expected a numeric array, got dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise TypeError(f"{name}: expected a real array, got dtype {arr.dtype}")
    if not np.issubdtype(arr.dtype, np.floating):
        arr = arr.astype(np.float64)
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            want = " or ".join(str(a) for a in allowed)
            raise ValueError(f"{name}: expected an array with {want} dimension(s), "
                             f"got shape {arr.shape} ({arr.ndim} dimension(s))")
    check_finite(arr, name, allow_inf=allow_inf)
    return arr


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
        raise ValueError(f"{name}: expected finite values, got {np.count_nonzero(bad)} "
                         f"{what} value(s), the first at index {idx} ({arr[idx]})")


def check_shape(arr: np.ndarray, name: str, expected: Sequence[int | None]) -> None:
    """Raise ``ValueError`` unless ``arr.shape`` matches ``expected`` (``None`` = any size)."""
    shape = tuple(arr.shape)
    ok = len(shape) == len(expected) and all(e is None or e == s for e, s in zip(expected, shape))
    if not ok:
        want = "(" + ", ".join("any" if e is None else str(e) for e in expected) + ")"
        raise ValueError(f"{name}: expected shape {want}, got {shape}")


def as_token_ids(ids: Any, name: str, V: int | None = None, *,
                 ndim: int | Sequence[int] | None = None) -> np.ndarray:
    """Return ``ids`` as an int64 array of token ids in ``0 .. V-1`` (0-based, as in the code).

    Float ids are rejected even when integral (``2.0``): a float id almost always means that an
    embedding or probability was passed where ids were expected.
    """
    arr = np.asarray(ids)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name}: expected integer token ids, got dtype {arr.dtype}")
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            want = " or ".join(str(a) for a in allowed)
            raise ValueError(f"{name}: expected {want} dimension(s) of token ids, "
                             f"got shape {arr.shape}")
    arr = arr.astype(np.int64)
    if V is not None and arr.size:
        lo, hi = int(arr.min()), int(arr.max())
        if lo < 0 or hi >= V:
            bad = lo if lo < 0 else hi
            raise ValueError(f"{name}: expected token ids in 0..{V - 1} (vocabulary size V={V}), "
                             f"got {bad}")
    return arr


def check_int(value: Any, name: str, minimum: int = 1, what: str = "a positive integer") -> int:
    """Return ``value`` as an int, raising unless it is an integer ``>= minimum``; ``what`` is
    how the message describes the expected value.  NumPy integers are accepted; bools and floats
    (even integral ones) are a ``TypeError``, a value below ``minimum`` a ``ValueError``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}: expected {what}, got {value!r} ({type(value).__name__})")
    v = int(value)
    if v < minimum:
        raise ValueError(f"{name}: expected {what}, got {v}")
    return v


def check_positive_int(value: Any, name: str) -> int:
    """Return ``value`` as an int, raising unless it is an integer ≥ 1."""
    return check_int(value, name, 1, "a positive integer")


def check_real_type(value: Any, name: str, what: str = "a number") -> float:
    """Return ``value`` as a float, raising ``TypeError`` unless it is a real number (NumPy
    floats accepted; bools and strings not).  The caller checks the range, with its own words."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected {what}, got {value!r} ({type(value).__name__})")
    return float(value)


def check_real(value: Any, name: str, *, minimum: float | None = None,
               strict: bool = False) -> float:
    """Return ``value`` as a float, raising unless it is a finite real number (``≥ minimum``, or
    ``> minimum`` when ``strict``).

    Booleans are rejected (``eps=True`` is almost always a slip, not ``1.0``); NumPy scalars such
    as ``np.float32(1e-5)`` are accepted.  A wrong type raises ``TypeError``, a wrong value
    ``ValueError``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                     np.floating)):
        raise TypeError(f"{name}: expected a real number, got {value!r} ({type(value).__name__})")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name}: expected a finite number, got {v}")
    if minimum is not None and (v <= minimum if strict else v < minimum):
        raise ValueError(f"{name}: expected a number {'>' if strict else '>='} {minimum}, got {v}")
    return v


def check_nonnegative_int(value: Any, name: str) -> int:
    """Return ``value`` as an int, raising unless it is an integer ≥ 0 (a seed, an index)."""
    return check_int(value, name, 0, "an integer >= 0")


def check_nonempty(arr: np.ndarray, name: str, what: str) -> None:
    """Raise ``ValueError`` if ``arr`` has no elements; ``what`` says what a reduction over it
    would lack (e.g. ``"a softmax needs at least one score per slice"``)."""
    if arr.size == 0:
        raise ValueError(f"{name}: expected a non-empty array, got shape {tuple(arr.shape)}; {what}")
