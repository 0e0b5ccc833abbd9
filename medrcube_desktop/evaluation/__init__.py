"""Evaluating a model on the benchmark (paper Appendix D, Table 9) and the credibility
analysis of its paired low/high-level outcomes (Section 6, Appendix H)."""
