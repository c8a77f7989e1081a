"""The chat guard's bookkeeping: the lines a speaker said lately, how long until it may say
another, and whether it said the same words lately. A speaker is one player (its lines in
``Identity.said``) or one client address, every identity and connection of it together
(:class:`AddressLines`). Times are the hall's monotonic seconds; nothing here reads a clock."""

from __future__ import annotations

import math
from collections import OrderedDict, deque

ADDRESS_REPEAT_MIN_CHARS = 12
"""The shortest line (in :func:`server.sanitize.chat_words`'s form) that one player of an
address may not repeat after another within the repeat time. Shorter lines are courtesies two
people at one address both say ("gg", "good game", "thanks", "good luck"); spam that is worth
a new identity per line is longer."""


def repeat_counts_across(words: str) -> bool:
    """Whether ``words`` said by one player of an address bars the others from saying them."""
    return len(words) >= ADDRESS_REPEAT_MIN_CHARS


Said = deque[tuple[float, str]]
"""Lines said, oldest first: when, and the words as :func:`server.sanitize.chat_words` gives
them."""


def forget_before(said: Said, now: float, horizon: float) -> None:
    """Drop the lines of ``said`` that are ``horizon`` seconds old or older at ``now``."""
    while said and said[0][0] <= now - horizon:
        said.popleft()


def wait_for(said: Said, now: float, lines: int, window: float) -> int | None:
    """Whole seconds (at least 1) until one more line keeps ``said`` within ``lines`` lines in
    any ``window`` seconds; ``None`` when it may be said now."""
    recent = [at for at, _ in said if at > now - window]
    if len(recent) < lines:
        return None
    return max(1, math.ceil(recent[-lines] + window - now))


def said_lately(said: Said, words: str, now: float, repeat: float) -> bool:
    """Whether ``words`` were said within the last ``repeat`` seconds."""
    return any(w == words and at > now - repeat for at, w in said)


class AddressLines:
    """The lines said lately from each client address, whichever identity said them.

    Addresses are kept in the order they last spoke: each new line drops the addresses whose
    latest line is older than the horizon, so the table holds only the addresses that spoke
    within one horizon of the latest line, however many have spoken before."""

    def __init__(self) -> None:
        self._said: OrderedDict[str, Said] = OrderedDict()

    def __len__(self) -> int:
        return len(self._said)

    def lines(self, address: str, now: float, horizon: float) -> Said:
        """The lines ``address`` said within ``horizon`` seconds of ``now`` (to read only), after
        dropping every address that has been quiet that long."""
        while self._said:
            said = next(iter(self._said.values()))
            if said[-1][0] > now - horizon:
                break
            self._said.popitem(last=False)
        kept = self._said.get(address)
        if kept is None:
            return deque()
        forget_before(kept, now, horizon)
        return kept

    def add(self, address: str, now: float, words: str) -> None:
        """``address`` said ``words`` at ``now``."""
        said = self._said.setdefault(address, deque())
        said.append((now, words))
        self._said.move_to_end(address)
