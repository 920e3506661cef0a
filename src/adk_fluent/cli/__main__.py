"""`python -m adk_fluent.cli`: the `adk-fluent` command."""

import sys

from adk_fluent.cli.main import main

if __name__ == "__main__":  # tests walk every module: importing this one must not run the CLI
    sys.exit(main())
