"""Mistaken answers to the exercises, one module per notebook (see test_exercises.py)."""
