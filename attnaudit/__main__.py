"""``python -m attnaudit``: the ``attnaudit`` command."""

from attnaudit.checks.cli import main

raise SystemExit(main())
