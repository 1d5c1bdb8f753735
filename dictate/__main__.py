"""``python -m dictate``: the same as the ``dictate`` command."""

from dictate.cli import main

raise SystemExit(main())
