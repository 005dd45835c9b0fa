"""What every object over a library handle shares: destroyed once, by
`close()`, a `with` block or the garbage collector."""

from ._library import check_status, library


class Handle:
    # The library function that destroys this kind of handle.
    _destroy = None

    _handle = 0

    def close(self):
        if self._handle:
            destroy = getattr(library(), self._destroy)
            check_status(destroy(self._handle), self._destroy)
            self._handle = 0

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()

    def __del__(self):
        if self._handle:
            getattr(library(), self._destroy)(self._handle)
