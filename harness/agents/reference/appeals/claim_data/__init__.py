"""Denials fixed by correcting the claim's own data (drug NDC, member identity)."""
