"""Is this exception asyncio's CancelledError? Answered without importing asyncio.

`import toolsys` and the sync fast path never need asyncio (about 20 ms to import), so the
modules under them do not import it. A CancelledError can only exist once asyncio has been
imported, so the question never has to import it either.
"""

from __future__ import annotations

import sys


def is_cancellation(exc: BaseException) -> bool:
    """True when `exc` is asyncio's CancelledError (which the stages must let propagate)."""
    asyncio = sys.modules.get("asyncio")
    return asyncio is not None and isinstance(exc, asyncio.CancelledError)
