"""Portal A's payers' rules: the determination engine, administrative rules, benefits,
appeal and pre-service appeal decisions, and claim reprocessing."""
