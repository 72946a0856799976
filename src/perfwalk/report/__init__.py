"""What people read: export formats and the static site."""
