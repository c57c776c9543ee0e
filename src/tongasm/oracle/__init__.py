"""Independent references for the corpus's NEFFs: seeded random inputs, the NEFF on tongasm's
simulator, the graph's own statement of what it computes (an XLA HLO module, a kernel's numpy
reference), and a comparison under a stated tolerance. jax (``pip install 'tongasm[oracle]'``) is
imported only when an HLO module is run."""
