"""The desktop window (PySide6). Qt is imported only in this package."""
