import sys

from perfwalk.cli.main import main

sys.exit(main())
