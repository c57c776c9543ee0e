"""``python -m tongasm``."""

from .cli import main

raise SystemExit(main())
