"""Per-variant rule hooks for the shared table flow."""
