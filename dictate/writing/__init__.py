"""Spoken words to written text: written forms of numbers, dates, money (inverse text
normalisation) and user replacements."""
