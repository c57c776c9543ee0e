"""Decode: bytes → fields (one bundle, a whole stream)."""

from .bundle import DecodedBundle, DecodeFailure, decode_all, decode_bundle, iter_stream

__all__ = ["DecodeFailure", "DecodedBundle", "decode_all", "decode_bundle", "iter_stream"]
