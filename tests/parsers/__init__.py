"""Tests of perfwalk.parsers."""
