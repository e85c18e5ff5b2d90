from maguyva_guard.entry import main

main()
