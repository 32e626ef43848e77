"""``python -m formulated.training --preset cpu --out runs/cpu`` (see :mod:`.cli`)."""

import sys

from .cli import main

sys.exit(main())
