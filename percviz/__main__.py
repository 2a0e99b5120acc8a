"""`python -m percviz …` runs the `percviz` command."""

import sys

from percviz.cli import main

if __name__ == "__main__":
    sys.exit(main())
