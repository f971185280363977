"""The real server or CLI as a subprocess, over real pipes."""
