"""The built-in checks, one module per family; importing this package registers them."""

from . import channels, context, outputs, state, types

__all__ = ["channels", "context", "outputs", "state", "types"]
