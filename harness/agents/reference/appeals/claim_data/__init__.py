"""Denials fixed by correcting the claim's own data (drug NDC, member identity, the diagnosis the
note of the date of service documents)."""
