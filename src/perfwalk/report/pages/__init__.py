"""One module per kind of page; each renders text, none writes files."""
