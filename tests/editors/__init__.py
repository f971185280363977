"""A real editor (headless Neovim) showing the hints (slow)."""
