"""Parsing of spec strings such as 'rbf:gamma=0.5' or 'poly:degree=3,c=1'."""

from __future__ import annotations

from percviz.core.errors import SpecError


def parse_spec(spec: str, what: str) -> tuple[str, dict[str, str]]:
    """Split 'name:key=value,key=value' into (name, {key: value}); values stay strings."""
    if not isinstance(spec, str) or not spec.strip():
        raise SpecError(f"Empty {what} spec; write e.g. 'rbf:gamma=0.5'.")
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    params: dict[str, str] = {}
    if rest.strip():
        for part in rest.split(","):
            key, eq, value = part.partition("=")
            if not eq or not key.strip() or not value.strip():
                raise SpecError(
                    f"Cannot read '{part.strip()}' in the {what} spec '{spec}': "
                    "parameters are written key=value, separated by commas."
                )
            if key.strip() in params:
                raise SpecError(f"Parameter '{key.strip()}' is given twice in the {what} spec '{spec}'.")
            params[key.strip()] = value.strip()
    return name, params


def format_spec(name: str, params: dict) -> str:
    """Inverse of parse_spec: 'name:key=value,…' (just 'name' without parameters)."""
    if not params:
        return name
    return name + ":" + ",".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items())
