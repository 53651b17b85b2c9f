"""Record classes written out instead of made by @dataclass, for the records every
command makes. Making a dataclass compiles its methods from source when its module is
imported: about a quarter of a `mqtool cmd`'s start-up went to that (issue 19,
benchmarks/README.md). A written-out record lists its fields once in `_FIELDS` and
sets them in its own `__init__`; this base compares and shows them as a dataclass
does (equal when of the same class with equal fields; `Name(field=value, ...)`).

The house rule stays "dataclasses for records" for every record a command does not make
on its way (engine, channels, REST, apply); a record on the command path is written out
on this base, and declares itself to type checkers as a dataclass would."""

from __future__ import annotations

from typing import Any, dataclass_transform


# dataclass_transform: type checkers read a record's annotated fields as a dataclass's
# (its own `__init__` is kept), so mypy still refuses an assignment to a field of a
# record declared `frozen=True` or a value of the wrong type, as it did for dataclasses.
@dataclass_transform(eq_default=True)
class Record:
    """A changeable record: equality and repr field by field, unhashable (as a
    dataclass with eq and without frozen)."""

    __slots__ = ()
    _FIELDS: tuple[str, ...] = ()

    def __init_subclass__(cls, *, frozen: bool = False, **kwargs: Any) -> None:
        # `frozen` is for type checkers (class Name(Frozen, frozen=True)); at run time
        # Frozen's __setattr__ is what refuses a change.
        super().__init_subclass__(**kwargs)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._FIELDS)
        return f"{type(self).__qualname__}({shown})"

    __hash__ = None  # type: ignore[assignment]


class Frozen(Record, frozen=True):
    """A read-only record (as a frozen dataclass; a subclass is declared
    `class Name(Frozen, frozen=True)` so that type checkers know): its `__init__`
    sets each field with `set_field`; setting or deleting one afterwards raises
    AttributeError. Hashed by
    its fields; copied and pickled by calling the class with them (so `_FIELDS` lists
    the arguments of `__init__` in their order)."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only: cannot set {name}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only: cannot delete {name}")

    def __hash__(self) -> int:  # type: ignore[override]  # Record's is None: unhashable
        return hash(self._values())

    def __reduce__(self) -> tuple[Any, ...]:
        return (self.__class__, self._values())


set_field = object.__setattr__  # how a Frozen record's __init__ sets its fields
