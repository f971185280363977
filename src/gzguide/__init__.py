"""gzguide: an authoring-guide protocol server that gives complexity hints to editors."""

__version__ = "0.1.0"

#: The highest protocol version this server speaks (major.minor); a client gets the
#: version its own reaches (see ``session.negotiate``).
PROTOCOL_VERSION = "1.1"
