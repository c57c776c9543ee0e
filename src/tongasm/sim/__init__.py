"""The simulator: a NeuronCore model that executes decoded bundles (from bytes, not from the IR),
the numeric kernels, the S-n decisions, and the IR reference interpreter it is checked against."""

from .machine import Machine, SimError
from ..ir.memory import MemoryDescription, Variable, describe_kernel
from .reference import InterpretError, ReferenceResult, interpret
from .run import RunResult, run_kernel, run_streams
from .scheduler import Deadlock
from .trace import Timeline, write_trace

__all__ = ["Deadlock", "InterpretError", "Machine", "MemoryDescription", "ReferenceResult", "RunResult", "SimError",
           "Timeline", "Variable", "describe_kernel", "interpret", "run_kernel", "run_streams", "write_trace"]
