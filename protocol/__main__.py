"""``python -m protocol schema OUT_DIR``: write the JSON Schema of both message unions."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from protocol.schema_io import write_schemas


def main(argv: list[str] | None = None) -> int:
    """Run the protocol command line."""
    parser = argparse.ArgumentParser(prog="python -m protocol", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    schema = sub.add_parser("schema", help="write client.json and server.json to OUT_DIR")
    schema.add_argument("out_dir", type=Path, help="directory to write the schemas into")
    args = parser.parse_args(argv)
    for path in write_schemas(args.out_dir):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
