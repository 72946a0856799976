"""The demo's sample project: a C tool's git history with known performance events.

``make demo`` walks this history; :func:`create_project` writes it.
"""

from perfwalk.demo.project import DemoError, DemoProject, KnownEvent, QuirkRange, create_project

__all__ = ["DemoError", "DemoProject", "KnownEvent", "QuirkRange", "create_project"]
