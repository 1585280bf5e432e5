from rocm_wizard.cli import entry

entry()
