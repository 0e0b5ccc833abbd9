"""LLM quality review of benchmark items (paper E.5, Table 10) through the openai SDK."""
