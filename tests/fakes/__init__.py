"""Loopback servers that speak the real wire protocols of remote services."""
