"""Corrections in the review window (issue 23): the propose dialog, its box and mask
editors, and the proposals queue."""
