"""Games: matches, rounds and the append-only move log, served over the REST API."""
