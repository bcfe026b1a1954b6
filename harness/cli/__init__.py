"""The `admindesk` command line: one module per command group (`main` holds the entry point)."""
