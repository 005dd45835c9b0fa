"""Step sessions: one scenario step at a time, with a cookie jar."""

import json
from typing import Any, Dict, Mapping, Optional

from ._handle import Handle
from ._library import check_handle, check_status, encode, library, take_string


class StepSession(Handle):
    """Sends scenario steps (docs/scenarios.md) one at a time, carrying
    cookies from one to the next and following redirects as each step
    asks. `defaults` is a scenario file's `defaults` (`base_url`, ...).
    Use it in a `with` block, or `close()` it."""

    _destroy = "loadgen_step_session_destroy"

    def __init__(self, defaults: Optional[Mapping[str, Any]] = None) -> None:
        config = encode(defaults) if defaults is not None else None
        self._handle = check_handle(library().loadgen_step_session_create(config), "loadgen_step_session_create")

    def execute(self, step: Mapping[str, Any]) -> Dict[str, Any]:
        """Sends `step` (`url`, `method`, `headers`, `body`, `form` or
        `json`, `follow_redirects`, `checks`, `extract`, ...) and returns
        its response: status, headers ([name, value] pairs), body, url,
        redirects, duration_us, checks, extracted; or error and message."""
        text = take_string(library().loadgen_step_execute(self._handle, encode(step)), "loadgen_step_execute")
        return json.loads(text)

    def reset(self) -> None:
        """Forgets the cookies."""
        check_status(library().loadgen_step_session_reset(self._handle), "loadgen_step_session_reset")
