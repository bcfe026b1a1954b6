"""Seeding Keystone's portal from the world: its own files, history and appeals on file."""
