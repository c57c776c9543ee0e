"""tongasm: an open toolchain for the AWS Neuron (Tonga) ISA."""
__version__ = "0.1.0"
