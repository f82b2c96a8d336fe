from station.cli import main

raise SystemExit(main())
