"""The values: radon's and lizard's metrics and LCOM4, each computed from the one parse.

Threshold-free: these modules say what a number is, never whether it is too high.
"""
