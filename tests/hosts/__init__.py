"""Tests of perfwalk.hosts."""
