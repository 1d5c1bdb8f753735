"""Speech and punctuation models on disk: catalogue, store, downloads and resolution."""
