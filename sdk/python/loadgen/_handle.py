"""What every object over a library handle shares: destroyed once, by
`close()`, a `with` block or the garbage collector."""

from typing import Any, Optional, TypeVar

from ._library import check_status, library

Self = TypeVar("Self", bound="Handle")


class Handle:
    # The library function that destroys this kind of handle.
    _destroy: Optional[str] = None

    _handle = 0

    def close(self) -> None:
        """Frees the handle; the object is unusable afterwards. Closing twice does nothing."""
        if self._handle:
            destroy = getattr(library(), self._destroy)
            check_status(destroy(self._handle), self._destroy)
            self._handle = 0

    def __enter__(self: Self) -> Self:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if self._handle:
            getattr(library(), self._destroy)(self._handle)
