"""Tests of the demo's sample project (perfwalk.demo)."""
