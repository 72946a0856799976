"""The command line: parse arguments, call a service, print, exit."""
