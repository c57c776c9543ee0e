"""IR instructions of the batch-norm backward family (BNGradients, BNBackprop and its two bundles)."""

from __future__ import annotations

from .instructions import Attr, Instruction


class BNGradients(Instruction):
    """BN (IT36, no keys): ins = [x, dy, mean, varfactor] (mean and varfactor [P,1] SBUF/PSUM pointers of
    one dtype), outs = [out] (the three sums per partition). One bundle, 0x63."""

    __slots__ = ()

    OPCODE = "BNGradients"
    ROLES = {"x": (False, 0), "dy": (False, 1), "mean": (False, 2), "varfactor": (False, 3), "out": (True, 0)}


class BNBackprop(Instruction):
    """BN (IT37): ``total_elements`` (float N, required); ins = [x, dy, coeff, mean] (coeff = [scale, A,
    Bc] per partition, mean a [P,1] pointer), outs = [dx]. Lowered to BatchNormParamLoad 0x64 (coeff,
    N, mean), then BatchNormBackProp 0x65 (x, dy, dx): BN pins the param load first."""

    __slots__ = ()

    OPCODE = "BNBackprop"
    ROLES = {"x": (False, 0), "dy": (False, 1), "coeff": (False, 2), "mean": (False, 3), "dx": (True, 0)}
    ATTRS = (Attr("total_elements", float, required=True),)


class BNParamLoadPart(BNBackprop):
    """The 0x64 bundle of a lowered BNBackprop."""

    __slots__ = ()


class BNBackpropPart(BNBackprop):
    """The 0x65 bundle of a lowered BNBackprop."""

    __slots__ = ()
