"""Draughts (RULES.md section 2): international (default), brazilian and russian.

The module-level ``ENGINE`` is what :mod:`engines.registry` registers.
"""

from engines.draughts.engine import ENGINE, VARIANTS, DraughtsEngine, DraughtsState

__all__ = ["ENGINE", "VARIANTS", "DraughtsEngine", "DraughtsState"]
