"""AdminDesk: a benchmark of computer-use agents on healthcare administrative work."""
