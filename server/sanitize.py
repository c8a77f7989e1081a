"""Names and chat lines as players see them.

Both lose control and formatting characters (bidi overrides such as U+202E, zero-width ones) and
characters that show as nothing (Hangul fillers, the Braille blank, ...), keep at most
:data:`MARKS_PER_BASE` combining marks on one character (a line of 500 U+0301 is no tower over
the chat), collapse whitespace and are trimmed. Names are also NFKC-normalised (full-width and
mathematical letters become plain ones); chat lines only NFC, so that what people write stays as
written.

:func:`name_refusal` says why a name may not be used: one that reads as the server's computer
players ("Computer L1", whatever the letters or case), one that reads as a bot program's ("Bot
L3") unless the hello comes from one, and one mixing Latin letters with Cyrillic, Greek,
Armenian or Cherokee ones (``аnn`` with a Cyrillic ``а`` passes for ``ann``).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

MARKS_PER_BASE = 3
"""Most combining marks kept on one character (Thai and Vietnamese need two)."""

INVISIBLE = frozenset(
    "\u115f\u1160\u3164\uffa0"  # Hangul fillers: letters that show as nothing
    "\u2800"  # Braille pattern blank
    "\u034f"  # combining grapheme joiner
    "\u17b4\u17b5"  # Khmer inherent vowels (default ignorable)
    "\u180b\u180c\u180d\u180f"  # Mongolian free variation selectors
)
"""Characters outside the control/format categories that show as nothing."""

_LOOKALIKES = str.maketrans(
    {
        # Cyrillic
        "А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H", "І": "I", "Ј": "J", "К": "K",
        "М": "M", "О": "O", "Р": "P", "Ѕ": "S", "Т": "T", "Х": "X", "У": "Y", "Ү": "Y",
        "Ԛ": "Q", "Ԝ": "W", "Ӏ": "I", "а": "a", "в": "b", "с": "c", "е": "e", "һ": "h",
        "і": "i", "ј": "j", "к": "k", "м": "m", "о": "o", "р": "p", "ѕ": "s", "т": "t",
        "у": "y", "х": "x", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l", "п": "n", "г": "r",
        "ь": "b",
        # Greek
        "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
        "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "α": "a", "β": "b",
        "γ": "y", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
        "τ": "t", "υ": "u", "χ": "x", "ω": "w",
        # Armenian
        "Օ": "O", "օ": "o", "Ս": "U", "ս": "u", "ո": "n", "հ": "h", "ց": "g",
        # Latin letters that pass for others, and a digit that passes for a letter
        "ı": "i", "ȷ": "j", "ɡ": "g", "ʀ": "r", "ᴄ": "c", "ᴏ": "o", "ᴜ": "u", "0": "o",
    }
)  # fmt: skip

_LOOKALIKE_SCRIPTS = frozenset({"CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE"})
"""Scripts with letters that look like Latin ones: not mixed with Latin in one name."""

_BOT = re.compile(r"bot(?![a-z])|botl\d")


def _clean(text: str, limit: int, form: Literal["NFC", "NFKC"]) -> str:
    kept = []
    for char in text:
        if char.isspace():
            kept.append(" ")
        elif unicodedata.category(char)[0] != "C" and char not in INVISIBLE:
            kept.append(char)
    # marks counted apart (an accented letter is its letter and its mark), put together at the end
    text = unicodedata.normalize("NFD" if form == "NFC" else "NFKD", "".join(kept))
    out: list[str] = []
    marks = 0
    for char in text:
        if char.isspace():
            if out and out[-1] != " ":
                out.append(" ")
            marks = 0
        elif unicodedata.category(char) in ("Mn", "Me"):
            if out and out[-1] != " " and marks < MARKS_PER_BASE:
                out.append(char)
            marks += 1
        else:
            out.append(char)
            marks = 0
    return unicodedata.normalize(form, "".join(out).strip())[:limit].rstrip()


def clean_text(text: str, limit: int) -> str:
    """Chat: ``text`` without control/format/invisible characters, at most
    :data:`MARKS_PER_BASE` marks per character, whitespace runs collapsed, trimmed, at most
    ``limit`` characters."""
    return _clean(text, limit, "NFC")


def clean_name(text: str, limit: int) -> str:
    """A name as shown: like :func:`clean_text`, NFKC-normalised."""
    return _clean(text, limit, "NFKC")


def skeleton(name: str) -> str:
    """What ``name`` reads as: no accents, lookalike letters made Latin, case folded, every run
    of other characters one space."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(c for c in text if not unicodedata.category(c).startswith("M"))
    text = text.translate(_LOOKALIKES).casefold()
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text).split())


def name_refusal(name: str, bot: bool) -> str | None:
    """Why the (cleaned) ``name`` may not be used, or ``None``; ``bot``: the hello says it comes
    from a bot program."""
    shown = skeleton(name)
    if shown.replace(" ", "").startswith("computer"):
        return (
            f"the name {name!r} reads as one of the server's computer players ('Computer L1'): "
            "choose another"
        )
    if not bot and _BOT.match(shown):
        return (
            f"the name {name!r} reads as a bot's ('Bot L3'): names starting with 'Bot' are for "
            "bot programs; choose another"
        )
    scripts = set()
    for char in name:
        if char.isalpha():
            script = unicodedata.name(char, "").partition(" ")[0]
            if script == "LATIN" or script in _LOOKALIKE_SCRIPTS:
                scripts.add(script)
    if "LATIN" in scripts and len(scripts) > 1:
        others = ", ".join(sorted(s.title() for s in scripts - {"LATIN"}))
        return (
            f"the name {name!r} mixes Latin letters with {others} ones that look alike: "
            "write it in one script"
        )
    return None


def chat_words(text: str) -> str:
    """What a chat line says, as the repeat guard compares lines: case folded, every run of
    whitespace one space, trimmed (``"  Good   LUCK "`` says ``"good luck"``)."""
    return " ".join(text.casefold().split())
