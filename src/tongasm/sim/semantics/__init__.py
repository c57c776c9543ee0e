"""Bundle semantics of the simulator, one module per ISA family: what each decoded bundle does to the
machine state (the dispatcher is :mod:`tongasm.sim.execute`)."""
