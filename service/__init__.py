"""Tilefold HTTP match service: rooms, seats, private views, actions, bots, calculator."""
