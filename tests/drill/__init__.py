"""Tests of perfwalk.drill."""
