"""Accounts-receivable follow-up: claims the payer has not answered, worked from what the
payer's claim status shows."""
