"""Reference solutions of the appeals & denials templates, and the denial gestures they share."""
