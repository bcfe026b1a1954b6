"""An app's state: its database, the kit's tables and counters, template databases
(world and per task) and the snapshot."""
