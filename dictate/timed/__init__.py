"""Timed output: a run's text with word times (:mod:`.transcript`) and its subtitles
(:mod:`.subtitles`): ``dictate transcribe --format`` and File > Export transcript."""
