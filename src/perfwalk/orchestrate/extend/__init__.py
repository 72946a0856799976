"""A stored walk's series measured further at its checkouts (``perfwalk run --extend``):
the plan of an extension, and what it refuses."""
