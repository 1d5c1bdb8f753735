"""The segment seam: a closed segment (:mod:`.segment`), the cutter that closes segments from the
segmenter's events (:mod:`.cutter`), and the refiners that settle its words: the second pass
(:mod:`.second_pass`), the user's vocabulary (:mod:`.vocabulary`) and the command check
(:mod:`.command_refiner`). No threads here."""
