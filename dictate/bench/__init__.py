"""Benchmarks behind ``dictate bench``: :mod:`.punctuator` (model latency and streaming
throughput), :mod:`.pipeline` (real-time factor and display latency of each recogniser),
:mod:`.gui` (the window's event-loop stalls during dictation, and the editor's cost per key
press and per event). Each returns a plain dict that the command prints or dumps as JSON."""
