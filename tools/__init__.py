"""The project's own tools that are not part of the shipped package."""
