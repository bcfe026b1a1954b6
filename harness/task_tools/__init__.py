"""Task tooling: generating task files from templates, checking them with real episodes,
drafting new ones, the suite summary, held-out splits and the screen survey."""
