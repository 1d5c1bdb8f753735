"""Speech recognition: segmentation, engines and the Vosk model manager."""
