from ctxviz.live.entry import main

main()
