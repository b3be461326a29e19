"""Monte Carlo estimate of pi from 2 billion random points (``--points``, ``--chunk``): the
showcase, kept in the package as ``tegula demo`` (tegula/_demo.py)."""

from tegula._demo import main

if __name__ == "__main__":
    main()
