"""``python -m tegula``: the command line (tegula/_cli.py)."""

from ._cli import main

raise SystemExit(main())
