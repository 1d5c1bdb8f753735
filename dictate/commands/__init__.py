"""Voice commands: the table of commands and spoken punctuation (:mod:`.table`), the list "what
can I say" shows (:mod:`.help`), and a command heard in a short segment said apart
(:mod:`.heard`)."""
