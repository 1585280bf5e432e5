from rocm_wizard.cli import main

raise SystemExit(main())
