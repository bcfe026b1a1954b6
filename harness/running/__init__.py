"""Running many episodes: the single-worker runner, the worker pool and its workers (local
processes or Ray actors), the run folder, progress and run metrics."""
