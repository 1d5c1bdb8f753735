"""Evaluation of punctuation, segmentation and capitalization against reference transcripts."""
