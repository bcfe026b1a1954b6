"""Seeding the EHR from the world: the chart, its authorization history, the in-basket
and the work queues."""
