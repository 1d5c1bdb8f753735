"""Where dictated text goes besides the window: typing into other applications."""
