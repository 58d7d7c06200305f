from ctxviz.cli import main
from ctxviz.process import run_program

run_program(main)
