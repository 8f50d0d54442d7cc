"""The lobby on the web: challenges and open seeks."""
