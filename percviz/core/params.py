"""Typed parameter specs: one source for validation, the CLI and the GUI's forms."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

from percviz.core.errors import ParameterError, SpecError
from percviz.core.spec import format_spec, parse_spec


#: No float parameter may exceed this in size, even where its range is open: beyond it, products overflow.
FLOAT_LIMIT = 1e100


def _short(value: Any) -> str:
    """repr(value), cut to 40 characters (a 4,000-digit number is not repeated in full)."""
    r = repr(value)
    return r if len(r) <= 40 else f"{r[:18]}…{r[-18:]} ({len(r)} characters)"


@dataclass(frozen=True)
class ParamSpec:
    """One parameter: name, type (int, float, bool or choice), default, range and help text."""

    name: str
    type: type | str
    default: Any
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] = ()
    help: str = ""
    label: str = ""

    @property
    def display(self) -> str:
        return self.label or self.name

    def range_text(self) -> str:
        """The allowed range as text, e.g. '(0, 2]' or one of {'a', 'b'}."""
        if self.type == "choice":
            return "one of {" + ", ".join(repr(c) for c in self.choices) + "}"
        if self.type is bool:
            return "true or false"
        lo = "-inf" if self.low is None else f"{self.low:g}"
        if self.type is float:
            lo = f"{-FLOAT_LIMIT:g}" if self.low is None else lo
        hi = "inf" if self.high is None else f"{self.high:g}"
        lb = "(" if (self.low_open or self.low is None) else "["
        rb = ")" if (self.high_open or self.high is None) else "]"
        if self.type is float:
            hi = f"{FLOAT_LIMIT:g}" if self.high is None else hi
            lb = "[" if self.low is None else lb
            rb = "]" if self.high is None else rb
        kind = "an integer" if self.type is int else "a number"
        return f"{kind} in {lb}{lo}, {hi}{rb}"

    def coerce(self, value: Any, owner: str = "") -> Any:
        """Convert value (possibly a string from the CLI or a form) and check its range."""
        where = f"The '{self.name}' parameter" + (f" of {owner}" if owner else "")
        try:
            if self.type == "choice":
                v = str(value)
                if v not in self.choices:
                    raise ValueError
                return v
            if self.type is bool:
                if isinstance(value, str):
                    low = value.strip().lower()
                    if low in ("1", "true", "yes", "on"):
                        return True
                    if low in ("0", "false", "no", "off"):
                        return False
                    raise ValueError
                if isinstance(value, (bool, int)) and value in (0, 1):
                    return bool(value)
                raise ValueError
            if self.type is int:
                if isinstance(value, bool):
                    raise ValueError
                if isinstance(value, str):
                    value = float(value.strip())
                fv = float(value)
                if not math.isfinite(fv) or fv != int(fv):
                    raise ValueError
                v = int(fv)
            else:
                if isinstance(value, bool):
                    raise ValueError
                v = float(value.strip() if isinstance(value, str) else value)
                if not math.isfinite(v):  # inf is never a usable value, even where the range is open to it
                    raise ValueError
        except (TypeError, ValueError, OverflowError):
            raise ParameterError(
                f"{where} must be {self.range_text()}. Got {_short(value)} instead."
            ) from None
        bad = (
            (self.type is float and abs(v) > FLOAT_LIMIT)
            or (self.low is not None and (v < self.low or (self.low_open and v == self.low)))
            or (self.high is not None and (v > self.high or (self.high_open and v == self.high)))
        )
        if bad:
            raise ParameterError(f"{where} must be {self.range_text()}. Got {_short(value)} instead.")
        return v


@dataclass(frozen=True)
class ParamSet:
    """An ordered collection of specs with validation of a whole mapping of values."""

    specs: tuple[ParamSpec, ...] = field(default_factory=tuple)

    def names(self) -> list[str]:
        return [s.name for s in self.specs]

    def defaults(self) -> dict[str, Any]:
        return {s.name: s.default for s in self.specs}

    def validate(self, values: dict[str, Any] | None, owner: str = "") -> dict[str, Any]:
        """Defaults overridden by values; unknown names and bad values raise ParameterError."""
        values = dict(values or {})
        known = {s.name: s for s in self.specs}
        unknown = sorted(set(values) - set(known))
        if unknown:
            allowed = ", ".join(known) or "none"
            raise ParameterError(
                f"Unknown parameter {', '.join(map(repr, unknown))}"
                + (f" for {owner}" if owner else "")
                + f". Allowed: {allowed}."
            )
        out = {}
        for s in self.specs:
            out[s.name] = s.coerce(values[s.name], owner) if s.name in values else s.default
        return out


@dataclass(frozen=True)
class Parametrized:
    """A named object with validated parameter values and a spec string (kernels, feature maps)."""

    name: ClassVar[str] = ""
    display_name: ClassVar[str] = ""
    kind: ClassVar[str] = ""  # "kernel", "feature map": used in messages
    params: ClassVar[ParamSet] = ParamSet()
    values: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "values", self.params.validate(self.values, f"the {self.name} {self.kind}"))

    def __getattr__(self, item):
        values = self.__dict__.get("values", {})
        if item in values:
            return values[item]
        raise AttributeError(item)

    @property
    def spec(self) -> str:
        return format_spec(self.name, self.values)

    def __str__(self) -> str:
        return self.spec


def registrar(registry: dict[str, type], kind: str):
    """A class decorator that adds a Parametrized class to `registry` under its short name (refuses duplicates)."""

    def register(cls):
        if cls.name in registry:
            raise ValueError(f"{kind} {cls.name!r} registered twice")
        registry[cls.name] = cls
        return cls

    return register


def registered(registry: dict[str, type], name: str, kind: str) -> type:
    """registry[name], or a SpecError listing the known names."""
    if name not in registry:
        raise SpecError(f"Unknown {kind} '{name}'. Known {kind}s: {', '.join(registry)}.")
    return registry[name]


def from_spec(registry: dict[str, type], kind: str, spec: str, aliases: dict[str, str] | None = None):
    """Build the registered class a spec such as 'rbf:gamma=0.5' names, with its parameters validated."""
    name, raw = parse_spec(spec, kind.replace(" ", "-"))
    name = (aliases or {}).get(name, name)
    cls = registered(registry, name, kind)
    return cls(values=cls.params.validate(raw, f"the {name} {kind}"))
