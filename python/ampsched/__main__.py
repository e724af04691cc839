"""`python -m ampsched`, the same as the `ampsched` command."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
