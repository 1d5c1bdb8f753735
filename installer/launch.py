"""Entry point of the frozen app (PyInstaller runs this file as __main__)."""

import multiprocessing
import sys

from dictate.cli import main

if __name__ == "__main__":
    # The window runs PocketSphinx in a spawned child process; a frozen app must let
    # multiprocessing take over when it is started as that child.
    multiprocessing.freeze_support()
    sys.exit(main())
