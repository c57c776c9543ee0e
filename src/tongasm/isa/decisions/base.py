"""The machinery of numbered decisions: :class:`Decision`, :class:`Reading`, the registry and
:class:`DecisionSet`.

A *decision* is a point where the public sources are silent or disagree and tongasm had to choose.
Each one is a class with an id (``D-6``, ``R-7``, ``N-4``, ``S-12``), a subject and its readings
(class attributes of type :class:`Reading`, the first one the default). The class also carries the
*behaviour* the choice implies, as typed methods: the descriptor packer asks D-6 for the slot order,
the sync band asks D-2 for the wire byte of an update mode. Code outside this package never compares
reading names; it calls these methods on the bound decision it gets from a :class:`DecisionSet`::

    ds = DecisionSet.parse(["D-6=outermost-first"])
    ds.get(FreeDimOrder).to_slots(pairs)

An unknown id or reading fails in :meth:`DecisionSet.parse` (a :class:`~tongasm.errors.UsageError`);
a misspelt reading inside a method is an ``AttributeError`` the first time it runs (and a mypy error),
never a silent ``False``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar
from collections.abc import Iterable, Iterator, Mapping

from ...errors import UsageError


class Reading:
    """One reading of a decision: its name (what ``--decision D-n=NAME`` selects) and what it means."""

    __slots__ = ("name", "meaning")

    def __init__(self, name: str, meaning: str) -> None:
        self.name = name
        self.meaning = meaning

    def __repr__(self) -> str:
        return f"Reading({self.name!r})"


#: Decision kinds by id prefix: D = SPEC.md, R = the real-NEFF chapter, N = the next-families chapter,
#: S = the simulator's semantics.
KINDS: Mapping[str, str] = {"D": "spec", "R": "real NEFF", "N": "next families", "S": "simulator"}


class Decision:
    """Base of every numbered decision. A subclass declares ``id``, ``subject``, its readings (class
    attributes of type :class:`Reading`, default first) and the methods that say what they imply.

    An instance is the decision *bound to one reading* (``self.reading``); :class:`DecisionSet`
    makes them.
    """

    id: ClassVar[str] = ""
    subject: ClassVar[str] = ""
    #: why (sources, evidence); optional
    reason: ClassVar[str] = ""
    readings: ClassVar[tuple[Reading, ...]] = ()

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        found = [v for v in cls.__dict__.values() if isinstance(v, Reading)]
        if not cls.id:
            return  # an abstract helper class
        if not found:
            raise TypeError(f"decision {cls.id} declares no reading")
        names = [r.name for r in found]
        if len(set(names)) != len(names):
            raise TypeError(f"decision {cls.id} declares a reading twice: {names}")
        cls.readings = tuple(found)
        if cls.id in _REGISTRY:
            raise TypeError(f"decision {cls.id} declared twice")
        _REGISTRY[cls.id] = DecisionInfo(cls)

    def __init__(self, reading: Reading) -> None:
        if reading not in self.readings:
            raise ValueError(f"{reading!r} is not a reading of {self.id}")
        self.reading = reading

    @property
    def is_default(self) -> bool:
        return self.reading is self.readings[0]

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.reading is self.reading

    def __hash__(self) -> int:
        return hash((type(self), self.reading.name))

    def __repr__(self) -> str:
        return f"<{self.id}={self.reading.name}>"


@dataclass(frozen=True)
class DecisionInfo:
    """What the registry shows of a decision class: id, subject, reading names (default first)."""

    cls: type[Decision]

    @property
    def id(self) -> str:
        return self.cls.id

    @property
    def subject(self) -> str:
        return self.cls.subject

    @property
    def reason(self) -> str:
        return self.cls.reason

    @property
    def kind(self) -> str:
        return KINDS.get(self.cls.id.split("-")[0], "")

    @property
    def choices(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.cls.readings)

    @property
    def readings(self) -> dict[str, str]:
        """Reading name → what it means."""
        return {r.name: r.meaning for r in self.cls.readings}

    @property
    def default(self) -> str:
        return self.cls.readings[0].name

    @property
    def selectable(self) -> bool:
        return len(self.cls.readings) > 1

    def reading(self, name: str) -> Reading:
        for r in self.cls.readings:
            if r.name == name:
                return r
        raise UsageError(f"decision {self.id} has no reading {_brief(name)!r}; choose one of: {', '.join(self.choices)}")


_REGISTRY: dict[str, DecisionInfo] = {}


def _brief(text: str) -> str:
    """A user-given id or reading, cut short so a huge argument does not flood the message."""
    return text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"


def _did_key(did: str) -> tuple[str, int, str]:
    prefix = did.split("-")[0]
    num = "".join(ch for ch in did if "0" <= ch <= "9")  # ASCII digits: str.isdigit takes "¹", which int() refuses
    number = int(num) if 0 < len(num) < 12 else (0 if not num else 10**12)  # a huge user-given id sorts last
    return ("DRNS".find(prefix[:1]) if prefix[:1] in "DRNS" else 9, number, did)  # type: ignore[return-value]


class _Registry(Mapping[str, DecisionInfo]):
    """Every decision by id (D-n, then R-n, N-n, S-n, each in numeric order)."""

    def __getitem__(self, did: str) -> DecisionInfo:
        return _REGISTRY[did]

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(_REGISTRY, key=_did_key))

    def __len__(self) -> int:
        return len(_REGISTRY)


DECISIONS: Mapping[str, DecisionInfo] = _Registry()

D = TypeVar("D", bound=Decision)


def _normalise_id(raw: str) -> str:
    did = raw.strip().upper()
    if did[:1] in KINDS and did[1:].isdigit():
        did = f"{did[0]}-{did[1:]}"
    elif did.isdigit():
        did = f"D-{did}"
    return did


@dataclass(frozen=True)
class DecisionSet:
    """A selection of readings: the defaults, with some decisions overridden.

    Hashable, so everything built from it (format tables, plans) can be cached per selection.
    ``ds.get(FreeDimOrder)`` gives the decision bound to its selected reading; ``ds["D-6"]`` gives
    the reading's name (for display; logic calls the decision's methods).
    """

    overrides: tuple[tuple[str, str], ...] = field(default=())
    #: decision id → the decision bound to its selected reading (made in __post_init__)
    _bound: dict[str, Decision] = field(init=False, repr=False, compare=False, hash=False, default_factory=dict)

    def __post_init__(self) -> None:
        chosen = {did: info.cls.readings[0] for did, info in _REGISTRY.items()}
        for did, name in self.overrides:
            info = _REGISTRY.get(did)
            if info is None:
                raise UsageError(f"unknown decision {_brief(did)!r}; known: {', '.join(DECISIONS)}")
            chosen[did] = info.reading(name)
        object.__setattr__(self, "_bound", {did: _REGISTRY[did].cls(r) for did, r in chosen.items()})

    def get(self, cls: type[D]) -> D:
        """The decision ``cls`` bound to the reading this set selects."""
        try:
            return self._bound[cls.id]  # type: ignore[return-value]
        except KeyError:  # declared after this set was made: its default
            return cls(cls.readings[0])

    def __getitem__(self, did: str) -> str:
        return self._bound[did].reading.name

    def is_default(self, did: str) -> bool:
        return self._bound[did].is_default

    @classmethod
    def parse(cls, specs: Iterable[str] | None) -> DecisionSet:
        """Build from ``["D-6=outermost-first", "R-7=a", ...]`` (the ``--decision`` option).

        Ids may be written ``D-6``, ``d6`` or ``6`` (a bare number is a D-n); the same decision given
        twice with different readings is refused.
        """
        found: dict[str, str] = {}
        for spec in specs or ():
            raw, sep, choice = spec.partition("=")
            if not sep or not raw.strip() or not choice.strip():
                raise UsageError(f"--decision expects ID=READING (like D-6=outermost-first), got {spec!r}")
            did = _normalise_id(raw)
            if did in found and found[did] != choice.strip():
                raise UsageError(f"decision {_brief(did)} given twice with different readings: "
                                 f"{_brief(found[did])!r} and {_brief(choice.strip())!r}")
            found[did] = choice.strip()
        return cls.of(found)

    @classmethod
    def of(cls, choices: Mapping[str, str]) -> DecisionSet:
        """Build from a mapping; entries equal to the default are dropped (canonical form)."""
        items = []
        for did, choice in sorted(choices.items(), key=lambda kv: _did_key(kv[0])):
            info = _REGISTRY.get(did)
            if info is None:
                raise UsageError(f"unknown decision {_brief(did)!r}; known: {', '.join(DECISIONS)}")
            if info.reading(choice) is not info.cls.readings[0]:
                items.append((did, choice))
        return cls(tuple(items))

    def describe(self) -> list[str]:
        """``ID=reading`` for each non-default reading."""
        return [f"{d}={c}" for d, c in self.overrides]


def each_reading(prefixes: str = "DRN") -> list[DecisionSet]:
    """The defaults, then every alternative reading on its own: the selections that tests and
    fuzzers sweep (by default the wire decisions D, R and N)."""
    out = [DecisionSet()]
    for info in DECISIONS.values():
        if info.id[0] in prefixes:
            out += [DecisionSet.of({info.id: c}) for c in info.choices[1:]]
    return out
