from argtrace.cli import main

raise SystemExit(main())
