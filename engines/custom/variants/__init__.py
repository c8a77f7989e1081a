"""The variant files that ship with Boardhall (package data: ``*.toml``)."""
