"""A docstring naming docs/page.md."""
TEXT = "core/gone.h is in a string, not a comment"
# scripts/gone.py is named in a comment.
