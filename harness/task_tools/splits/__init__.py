"""Held-out splits: fresh cases of the public templates, drawn by a seeded sampler."""
