"""Use cases: what the service does for a caller, over the model and the infrastructure (docs/ARCHITECTURE.md)."""
