"""Reference solutions of the prior-authorization templates (module name = template name)."""
