"""HTTP: routes (one blueprint per resource), pages, schemas, problem+json, static files (docs/ARCHITECTURE.md)."""
