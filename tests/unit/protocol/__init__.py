"""The authoring-guide protocol's layers: framing, the session and the stdio shell."""
