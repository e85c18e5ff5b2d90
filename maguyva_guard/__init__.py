"""maguyva-guard: tells a developer, before a change lands, what that change can break."""

__version__ = "0.1.0"
