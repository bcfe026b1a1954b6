"""Reference solutions of the DME templates, and the DME gestures they share."""
