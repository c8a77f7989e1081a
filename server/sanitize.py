"""Names and chat lines as players see them: no control or formatting characters."""

from __future__ import annotations

import unicodedata


def clean_text(text: str, limit: int) -> str:
    """``text`` without control/format characters, whitespace runs collapsed, at most ``limit``."""
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if char.isspace():
            kept.append(" ")
        elif category[0] == "C":
            continue
        else:
            kept.append(char)
    return " ".join("".join(kept).split())[:limit]
