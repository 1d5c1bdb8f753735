"""The editing core: the dictation buffer (:mod:`.buffer`, no Qt) and the text helpers it shares
with the journal and the Qt view (:mod:`.text`)."""
