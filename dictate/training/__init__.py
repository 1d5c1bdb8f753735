"""Training of the punctuation and casing model (extra ``train``; never imported by the app)."""
