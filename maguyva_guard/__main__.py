from maguyva_guard.cli import main

main(prog_name="maguyva-guard")
