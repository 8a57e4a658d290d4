"""`python -m pitwall`: the `pitwall` command, for an environment whose scripts are not on PATH."""

from .cli import main

main()
