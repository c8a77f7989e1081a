"""Muted players in a room's chat: which lines show, and what stands for the hidden ones.

A player is muted by their public id (the ``player`` of a chat line, or of the seat a line
without one came from), never by name: names change and can be taken by another. A run of
lines from one muted player shows as one line saying how many are hidden, so the user knows
something was said; picking that line (the room's B key, or a click) and pressing Enter
unmutes them. Pure functions of
the room's lines and the muted ids, so the rules are tested without drawing.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from client.room_model import ChatLine


@dataclass(frozen=True)
class ChatEntry:
    """One line of the chat as shown: a line said, or a run of hidden lines of one muted
    player."""

    first: int
    """Index in the room's lines of the first line it stands for."""
    last: int
    """Index of the last one (``first`` for a line said)."""
    sender: str
    player: str
    """The speaker's id ("" when unknown: an older server's spectator)."""
    role: str
    text: str
    hidden: int = 0
    """How many lines it hides (0: a line shown as said)."""

    def words(self) -> str:
        """The entry as the chat shows it: ``Bob: hi``, ``Bob (muted): 1 line hidden``."""
        if not self.hidden:
            return f"{self.sender}: {self.text}"
        lines = "1 line" if self.hidden == 1 else f"{self.hidden} lines"
        return f"{self.sender} (muted): {lines} hidden"


def chat_entries(lines: Sequence[ChatLine], muted: Collection[str]) -> list[ChatEntry]:
    """The room's ``lines`` as shown when the players whose ids are in ``muted`` are muted:
    their lines hidden, each run of one muted player's lines one entry.

    >>> said = [ChatLine("Bob", "second", "hi", "p-b"), ChatLine("Bob", "second", "x", "p-b"),
    ...         ChatLine("Ann", "first", "hello", "p-a")]
    >>> [e.words() for e in chat_entries(said, {"p-b"})]
    ['Bob (muted): 2 lines hidden', 'Ann: hello']
    """
    entries: list[ChatEntry] = []
    for i, line in enumerate(lines):
        if line.player and line.player in muted:
            last = entries[-1] if entries else None
            if last is not None and last.hidden and last.player == line.player:
                entries[-1] = ChatEntry(last.first, i, line.sender, line.player, line.role, "",
                                        last.hidden + 1)
                continue
            entries.append(ChatEntry(i, i, line.sender, line.player, line.role, "", 1))
        else:
            entries.append(ChatEntry(i, i, line.sender, line.player, line.role, line.text))
    return entries


def can_mute(entry: ChatEntry, me: str | None) -> bool:
    """Whether ``entry``'s author can be muted (or unmuted) from it: someone else, known by id."""
    return bool(entry.player) and entry.player != me


def entry_of(entries: Sequence[ChatEntry], lines: Sequence[ChatLine],
             picked: ChatLine | None) -> int | None:
    """The index in ``entries`` of the entry standing for the line ``picked`` (the very
    object), or ``None`` when it is not among ``lines`` any more."""
    if picked is None:
        return None
    for n, entry in enumerate(entries):
        if any(lines[i] is picked for i in range(entry.first, entry.last + 1)):
            return n
    return None
