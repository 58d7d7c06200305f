from ctxviz.cli import main

main()
