"""One module per game: ``make_adapter(engine, state)`` with the game's evaluation."""
