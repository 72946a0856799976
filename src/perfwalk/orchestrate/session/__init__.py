"""The session of a use case (its store, hosts, leases and how it ended), the process
that walks a series, and team mode's queue of use cases."""
