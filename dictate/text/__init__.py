"""The text stage (:mod:`.stage`): a settled segment's words through voice commands, the
streaming punctuator and written forms, to finalized sentences and pending text."""
