"""Punctuation and casing of recognised words: the ONNX model runner, decoders and rendering.

Plain Python: nothing under this package imports Qt.
"""
