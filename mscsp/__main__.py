from .cli import main

# Guarded: the analyser's worker processes start by spawn, which imports this module again.
if __name__ == "__main__":
    main()
