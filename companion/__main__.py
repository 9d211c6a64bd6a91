"""``python -m companion`` is the ``spies-lies`` command."""

from .cli import main

raise SystemExit(main())
