"""Denials decided by who owes the claim: the payer on the date of service (coverage ended),
another payer (CO-109), the plan's benefit limit, the provider's own late filing (CO-29), or a
workers' compensation or liability carrier (a documented hand-off)."""
