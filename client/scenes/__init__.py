"""The client's scenes: connect, lobby, room, result, replay."""
