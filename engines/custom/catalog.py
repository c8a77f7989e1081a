"""Where variants come from: the shipped files, directories loaded by the server, single files.

Variant files are Boardhall's TOML format (``*.toml``, see FORMAT.md) or JBQ map workbooks
(``*.xlsx``). Every loader validates completely and raises :class:`VariantError` listing every
problem; nothing is registered from a directory unless every file in it is sound.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Iterable
from pathlib import Path

from engines.custom.definition import Variant, VariantError, parse_definition
from engines.custom.jbq import load_map, slug
from engines.custom.rules import playability_problems

MAX_TOML_BYTES = 256 * 1024
"""Largest variant file read."""
SHIPPED_DIR = Path(__file__).with_name("variants")
SHIPPED_ORDER = ("xiangqi", "stones", "guards")
"""Menu order of the shipped variants (the first is the default)."""
VARIANT_SUFFIXES = (".toml", ".xlsx")


def load_toml_text(text: str, default_id: str = "variant", source: str = "variant") -> Variant:
    """Parse and validate a variant file's text; raises :class:`VariantError`.

    A leading byte order mark (U+FEFF, written by Windows editors' "UTF-8 with BOM") is not
    content and is dropped; TOML itself would refuse it at line 1, column 1."""
    text = text.removeprefix("\ufeff")
    if len(text) > MAX_TOML_BYTES:
        raise VariantError([f"longer than {MAX_TOML_BYTES} characters"], source)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise VariantError([f"not valid TOML: {exc}"], source) from exc
    except (RecursionError, MemoryError) as exc:
        raise VariantError(["nested too deeply or too large to read"], source) from exc
    except ValueError as exc:  # e.g. an integer of thousands of digits
        raise VariantError([f"not readable as TOML: {str(exc)[:80]}"], source) from exc
    variant = parse_definition(data, default_id=default_id, source=source)
    problems = playability_problems(variant)
    if problems:
        raise VariantError(problems, source)
    return variant


def load_file(path: str | os.PathLike[str]) -> Variant:
    """Load one ``.toml`` variant file or ``.xlsx`` JBQ map; raises :class:`VariantError`."""
    p = Path(path)
    name = p.name
    if p.suffix.lower() == ".xlsx":
        return load_map(str(p))
    if p.suffix.lower() != ".toml":
        raise VariantError(["a variant file must end in .toml (or be a .xlsx JBQ map)"], name)
    try:
        with open(p, "rb") as handle:
            raw = handle.read(MAX_TOML_BYTES + 1)
    except OSError as exc:
        raise VariantError([f"cannot read the file: {exc.strerror}"], name) from exc
    if len(raw) > MAX_TOML_BYTES:
        raise VariantError([f"file larger than {MAX_TOML_BYTES} bytes"], name)
    return load_toml_text(decode_utf8(raw, name), default_id=slug(p.stem), source=name)


def decode_utf8(raw: bytes, source: str) -> str:
    """A variant file's bytes as text; raises :class:`VariantError` naming the line and column
    of the first byte that is not UTF-8, or UTF-16 when the file is in it."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in raw[:4096]:
        raise VariantError(
            ["not UTF-8 text: the file is UTF-16 (Notepad's 'Unicode'); save it as UTF-8"], source
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        line = raw.count(b"\n", 0, exc.start) + 1
        column = len(raw[line_start : exc.start].decode("utf-8", errors="replace")) + 1
        raise VariantError(
            [
                f"not UTF-8 text: line {line}, column {column} has byte 0x{raw[exc.start]:02X}"
                " (another encoding, such as Latin-1 or GBK); save the file as UTF-8"
            ],
            source,
        ) from exc


def load_directory(directory: str | os.PathLike[str]) -> list[Variant]:
    """Load every ``*.toml`` / ``*.xlsx`` file of ``directory`` (sorted by name).

    Raises :class:`VariantError` listing the problems of every bad file (prefixed by its name)
    and duplicate ids; then nothing is returned.
    """
    return [variant for _, variant in load_directory_files(directory)]


def is_variant_file(name: str) -> bool:
    """Whether a directory entry is a variant file: ``*.toml`` or ``*.xlsx``, not hidden, and not
    the ``~$NAME.xlsx`` owner file Excel keeps beside a workbook it has open."""
    return (
        name.lower().endswith(VARIANT_SUFFIXES)
        and not name.startswith(".")
        and not name.startswith("~$")
    )


def unused_settings(variant: Variant) -> list[str]:
    """Settings of a sound ``variant`` that can never take effect, each as a warning naming its
    place (the variant loads all the same: a converted JBQ map may have them so)."""
    if variant.rules.promotion:
        return []
    return [
        f"piece {p.id} ({p.name}).promote_when is never used: rules.promotion is false"
        for p in variant.pieces
        if p.promote_when
    ]


def unread_files(directory: str | os.PathLike[str]) -> dict[str, str]:
    """Files of ``directory`` that look meant as variant files but are not read as one (their
    names end otherwise), each with what to do: name -> advice. Other files are not listed."""
    unread: dict[str, str] = {}
    for path in sorted(Path(directory).iterdir()):
        name = path.name.lower()
        if is_variant_file(path.name) or name.startswith((".", "~$")):
            continue
        if name.endswith((".xls", ".ods")):
            unread[path.name] = "save an .xls or .ods workbook as .xlsx"
        elif any(suffix in name for suffix in VARIANT_SUFFIXES):
            unread[path.name] = "Windows may hide a .txt ending: rename the file"
    return {
        name: f"a variant file's name ends in .toml or .xlsx ({advice})"
        for name, advice in unread.items()
    }


def load_directory_files(
    directory: str | os.PathLike[str], clash: Callable[[Variant], str | None] | None = None
) -> list[tuple[str, Variant]]:
    """:func:`load_directory` with the file name of each variant; ``clash`` says why a variant's
    id is taken already (``None``: it is free), reported with the other problems."""
    d = Path(directory)
    if not d.is_dir():
        raise VariantError([f"{d} is not a directory"], "variants")
    problems: list[str] = []
    found: list[tuple[str, Variant]] = []
    seen: dict[str, str] = {}
    for path in sorted(d.iterdir()):
        if not is_variant_file(path.name):
            continue
        try:
            variant = load_file(path)
        except VariantError as exc:
            problems.extend(f"{path.name}: {p}" for p in exc.problems)
            continue
        if variant.id in seen:
            problems.append(f"{path.name}: id {variant.id!r} is also the id of {seen[variant.id]}")
            continue
        taken = clash(variant) if clash is not None else None
        if taken:
            problems.append(f"{path.name}: {taken}")
        seen[variant.id] = path.name
        found.append((path.name, variant))
    if problems:
        raise VariantError(problems, str(d))
    return found


def shipped() -> list[Variant]:
    """The variants that ship with Boardhall, default first."""
    variants = load_directory(SHIPPED_DIR)
    rank = {vid: i for i, vid in enumerate(SHIPPED_ORDER)}
    return sorted(variants, key=lambda v: (rank.get(v.id, len(rank)), v.id))


def ids(variants: Iterable[Variant]) -> list[str]:
    """The ids of ``variants``."""
    return [v.id for v in variants]
