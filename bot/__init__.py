"""personad: talk to your own long-lived AI persona from the chat apps you already use."""

__all__ = ["__version__"]

__version__ = "0.1.0"
