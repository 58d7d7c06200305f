from ctxviz.main import main

main()
