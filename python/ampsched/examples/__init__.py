"""Policies written in Python, to run as they are or to copy and change (see
help(ampsched.policy)). busyfcs.py is a port of the registered Rust policy and gives the results of
busyfcs:prefer_local=false (whole-partition targets);
busiest_fast.py is the README's tour policy (tests/python/test_readme_tour.py checks they are the same)."""
