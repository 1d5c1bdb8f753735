"""A run: what builds the stages (:mod:`.assembly`) and drives them, from a microphone or a file
with one recogniser (:mod:`.pipeline`: threads and queues) or with several processes
(:mod:`.file_decode`), a segment's life owned by one sink (:mod:`.sink`)."""
