"""`python -m service.cli`: the `tilefold` command line without the installed script."""

import sys

from service.cli import main

sys.exit(main())
