"""Seeding portal A from the world: requests, answers and appeals on file."""
