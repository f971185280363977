"""gzguide: an authoring-guide protocol server that gives complexity hints to editors."""

__version__ = "0.1.0"

#: The protocol version this server speaks (major.minor).
PROTOCOL_VERSION = "1.0"
