"""Command line of the custom variants.

``python -m engines.custom convert MAP.xlsx > V.toml`` writes a JBQ map as a Boardhall variant
file; ``python -m engines.custom check FILE...`` validates variant files (or a directory, as
``boardhall-server --variants DIR`` loads it) and lists every problem.
"""

from __future__ import annotations

import argparse
import os
import sys

from engines.custom.catalog import load_file, unread_files, unused_settings
from engines.custom.definition import VariantError, to_toml


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 fine, 2 refused input)."""
    parser = argparse.ArgumentParser(prog="python -m engines.custom", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    convert = sub.add_parser("convert", help="write a .xlsx JBQ map (or a .toml file) as TOML")
    convert.add_argument("path")
    check = sub.add_parser(
        "check", help="validate variant files (.toml or .xlsx), or directories of them"
    )
    check.add_argument("paths", nargs="+")
    args = parser.parse_args(argv)

    if args.command == "convert":
        try:
            variant = load_file(args.path)
        except VariantError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        header = (
            f"Converted from {os.path.basename(args.path)} by `python -m engines.custom convert`."
        )
        text = to_toml(variant, header=header)
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is not None:  # TOML is UTF-8 whatever the console's encoding
            sys.stdout.flush()
            buffer.write(text.encode("utf-8"))
            buffer.flush()
        else:
            sys.stdout.write(text)
        return 0
    status = 0
    for path in args.paths:
        if os.path.isdir(path):
            status = max(status, check_directory(path))
            continue
        try:
            variant = load_file(path)
        except VariantError as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = 2
            continue
        print(f"{path}: ok ({variant.id}: {variant.name}, {variant.rows}x{variant.cols})")
        for warning in unused_settings(variant):
            print(f"warning: {os.path.basename(path)}: {warning}", file=sys.stderr)
    return status


def check_directory(path: str) -> int:
    """Load ``path`` as ``boardhall-server --variants`` does (every file, ids against each other
    and the built-in variants), say the result and name the files it would not read; returns
    the exit status (0 fine, 2 refused)."""
    from engines.custom.engine import CustomEngine

    engine = CustomEngine()
    status = 0
    try:
        loaded = [engine.definition(vid) for vid in engine.load_directory(path)]
    except VariantError as exc:
        print(f"error: {exc}", file=sys.stderr)
        status = 2
    else:
        listed = "; ".join(f"{v.id}: {v.name}, {v.rows}x{v.cols}" for v in loaded)
        print(f"{path}: ok ({listed or 'no variant files'})")
        for v in loaded:
            for warning in unused_settings(v):
                print(f"warning: variant {v.id}: {warning}", file=sys.stderr)
    for name, why in unread_files(path).items():
        print(f"warning: {name} is not read: {why}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
