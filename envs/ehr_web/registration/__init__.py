"""Registration's side of a coverage change: a new card's coverage added, the coverage it replaces
ended, and an order pointed at the coverage that pays for it (Coverage tab, order page)."""
