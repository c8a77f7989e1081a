"""Structured logs: one JSON object per line on stderr."""

from __future__ import annotations

import json
import logging
import sys
import time
from collections import Counter
from collections.abc import Callable


class JsonFormatter(logging.Formatter):
    """Formats a record as ``{"ts", "level", "logger", "msg", ...fields}``."""

    def format(self, record: logging.LogRecord) -> str:
        """One JSON line."""
        data = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            data.update(fields)
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False, default=str)


def setup_logging(level: str = "info") -> None:
    """Send every log record to stderr as JSON at ``level``."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.getLogger("websockets").setLevel(max(logging.WARNING, root.level))


class Summary:
    """Events that any client can cause at any rate (a refused socket, a TLS greeting on the
    plain port, a flood closed with 1008), told without letting the log grow with them: the
    first event of each kind in a window goes out at once with its reason and address; the rest
    are counted and told in one line per window (counts by kind, the addresses that caused most
    of them), when the next event or :meth:`tick` comes after the window, and at :meth:`flush`.
    At most ``len(kinds) + 1`` lines per ``every`` seconds, whatever the rate."""

    MAX_ADDRESSES = 1024
    """Addresses counted one by one in a window (more are counted together as ``other``)."""

    def __init__(
        self,
        logger: logging.Logger,
        every: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        level: int = logging.WARNING,
    ) -> None:
        self.logger = logger
        self.every = every
        self.clock = clock
        self.level = level
        self._since = clock()
        self._told: set[str] = set()
        self._kinds: Counter[str] = Counter()
        self._addresses: Counter[str] = Counter()

    def event(self, kind: str, address: str, message: str, **fields: object) -> None:
        """One event of ``kind`` from ``address``; ``message`` says what happened and why."""
        now = self.clock()
        if now - self._since >= self.every:
            self._summarise(now)
        if kind not in self._told:
            self._told.add(kind)
            extra = {"kind": kind, "address": address, **fields}
            if self.every:
                extra["more_of_this_kind"] = f"summarised every {self.every:g} s"
            self.logger.log(self.level, message, extra={"fields": extra})
            return
        self._kinds[kind] += 1
        if address in self._addresses or len(self._addresses) < self.MAX_ADDRESSES:
            self._addresses[address] += 1
        else:
            self._addresses["other"] += 1

    def tick(self) -> None:
        """Tell what was counted if the window is over (call now and then: a timer)."""
        now = self.clock()
        if now - self._since >= self.every:
            self._summarise(now)

    def flush(self) -> None:
        """Tell what was counted and not told yet (at a stop)."""
        self._summarise(self.clock())

    def _summarise(self, now: float) -> None:
        if self._kinds:
            self.logger.log(
                self.level,
                "more refused or misbehaving connections (summary)",
                extra={
                    "fields": {
                        "seconds": round(now - self._since, 1),
                        "counts": dict(sorted(self._kinds.items())),
                        "top_addresses": dict(self._addresses.most_common(5)),
                        # "other": those past MAX_ADDRESSES
                        "addresses": len(self._addresses) - ("other" in self._addresses),
                    }
                },
            )
        self._since = now
        self._told.clear()
        self._kinds.clear()
        self._addresses.clear()
