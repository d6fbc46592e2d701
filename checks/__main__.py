import sys

from attnaudit.checks.cli import main

sys.exit(main())
