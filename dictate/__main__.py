"""``python -m dictate``: the same as the ``dictate`` command."""

from dictate.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
