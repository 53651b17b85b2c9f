"""`python -m mqtool`."""

from mqtool.cli.main import main

main()
