"""Following sessions while they are written: the tailer, incremental state, watch and statusline."""
