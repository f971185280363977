"""gzguide.loginspect: the summary of a server's logs."""
