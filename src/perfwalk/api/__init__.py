"""The HTTP API (``perfwalk api``): reads of the store without a token; pushes from
CI, triage and job submissions with a token of the right scope. FastAPI over
uvicorn, imported only by the commands that serve or call it (docs/api.md)."""
