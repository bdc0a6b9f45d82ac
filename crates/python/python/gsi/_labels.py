"""Labels: the integer codes gsi matches on, and the values users give them.

gsi compares labels as 32-bit integers. A graph from networkx (or from arrays of strings)
numbers its label values in order of first appearance; a graph from a file keeps the file's
numbers (N-Triples files name their classes and predicates). A query is matched only after
its labels are renumbered into the data graph's codes by *value*, so ``"C"`` in the query is
``"C"`` in the data whatever either numbered it, ``5`` is ``5``, and a value the data graph
lacks gets a code no data label has: the query then has no match.
"""

from __future__ import annotations

import numbers
import operator
from typing import Any, Dict, Hashable, Iterable, Iterator, List, Mapping, Optional

import numpy as np

#: Labels are unsigned 32-bit integers.
LABEL_LIMIT = 1 << 32


class Labels:
    """One kind of label (vertex or edge) of one graph: the value each code stands for,
    where that value is not the code itself."""

    __slots__ = ("_values", "_codes")

    def __init__(self, values: Optional[Mapping[int, Hashable]] = None) -> None:
        # A code that stands for the integer equal to it needs no entry.
        self._values = {c: v for c, v in (values or {}).items() if not (type(v) is int and v == c)}
        self._codes = {v: c for c, v in self._values.items()}

    @property
    def named(self) -> bool:
        """Whether some code stands for something other than itself."""
        return bool(self._values)

    def value(self, code: int) -> Hashable:
        """The value `code` stands for."""
        return self._values.get(code, code)

    def code(self, value: Any) -> Optional[int]:
        """The code of `value`, or ``None`` when this graph has no code for it."""
        code = self._codes.get(value)
        if code is not None:
            return code
        try:
            number = operator.index(value)
        except TypeError:
            # A value equal to an integer (1.0, which a dictionary finds as 1) stands for it.
            try:
                number = int(value)
            except (TypeError, ValueError, OverflowError):
                return None
            if number != value:
                return None
        if 0 <= number < LABEL_LIMIT and number not in self._values:
            return number
        return None


class Numbering:
    """Numbers values in order of first appearance: the codes of a new graph's labels."""

    __slots__ = ("codes", "what")

    def __init__(self, what: str) -> None:
        self.codes: Dict[Hashable, int] = {}
        self.what = what

    def __call__(self, value: Hashable, where: object = None) -> int:
        try:
            code = self.codes.get(value)
        except TypeError:
            raise TypeError(
                f"{self.what} label {value!r}{'' if where is None else f' of {where!r}'} "
                "is not hashable: labels are compared as dictionary keys"
            ) from None
        if code is None:
            if isinstance(value, numbers.Real) and value != value:
                raise ValueError(
                    f"{self.what} label {value!r}{'' if where is None else f' of {where!r}'} "
                    "is not equal to itself, so nothing would match it: use another value"
                )
            code = self.codes[value] = len(self.codes)
        return code

    def labels(self) -> Labels:
        """What the codes stand for."""
        return Labels({c: v for v, c in self.codes.items()})


def as_codes(values: object, what: str) -> "tuple[np.ndarray, Labels]":
    """`values` (one label per vertex or edge) as an array of codes: integers as they are
    (without a copy when they are ``uint32`` already), any other values numbered by value
    and type, as dictionary keys (networkx's nodes) tell them apart: ``1`` is not ``"1"``."""
    if isinstance(values, np.ndarray):
        items = values
    elif isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(f"{what}: expected one label each, got {type(values).__name__}")
    else:
        # Not through numpy, which would turn a mix of numbers and strings into strings.
        items = list(values)
        if all(isinstance(v, (int, np.integer)) for v in items):
            items = np.array(items)
    if isinstance(items, np.ndarray):
        if items.ndim != 1:
            raise ValueError(
                f"{what}: expected one label each, got an array of shape {items.shape}"
            )
        if items.dtype.kind in "uib":
            return as_uint32(items, what), Labels()
        items = items.tolist()
    numbering = Numbering(what)
    codes = np.fromiter((numbering(v) for v in items), dtype=np.uint32, count=len(items))
    return codes, numbering.labels()


def as_uint32(array: np.ndarray, what: str) -> np.ndarray:
    """An integer array as ``uint32``, checked to fit; no copy when it is ``uint32``."""
    if array.dtype == np.uint32:
        return array
    if array.dtype.kind not in "uib":
        raise TypeError(f"{what}: expected integers, got an array of {array.dtype}")
    if array.size and (int(array.min()) < 0 or int(array.max()) >= LABEL_LIMIT):
        raise ValueError(
            f"{what}: values must be in 0..2^32-1, found {int(array.min())}..{int(array.max())}"
        )
    return array.astype(np.uint32)


def fresh(used: np.ndarray) -> Iterator[int]:
    """Codes that are not in `used` (sorted, distinct), in increasing order."""
    start = int(used[-1]) + 1 if len(used) else 0
    taken = set(used.tolist()) if start >= LABEL_LIMIT else ()
    code = start if start < LABEL_LIMIT else 0
    while code < LABEL_LIMIT:
        if code not in taken:
            yield code
        code += 1


def renumbering(
    query: Labels, data: Labels, codes: np.ndarray, data_codes: np.ndarray
) -> Optional[List[int]]:
    """For each of the query's `codes` (sorted, distinct), the data graph's code of its value
    (a code none of `data_codes` is where the data graph has none); ``None`` when every code
    stays as it is."""
    if not query.named and not data.named:
        return None
    unused: Optional[Iterator[int]] = None
    mapped = []
    for code in codes.tolist():
        to = data.code(query.value(code))
        if to is None:
            unused = unused or fresh(data_codes)
            to = next(unused)
        mapped.append(to)
    if mapped == codes.tolist():
        return None
    return mapped
