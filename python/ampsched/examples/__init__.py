"""Policies written in Python, to run as they are or to copy and change (see
help(ampsched.policy)). Each is a port of a registered Rust policy and gives its results."""
