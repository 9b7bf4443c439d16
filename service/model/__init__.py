"""The match as the service sees it: the room, per-viewer numbering, standing orders, views (docs/ARCHITECTURE.md)."""
