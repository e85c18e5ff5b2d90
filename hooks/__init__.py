"""The plain git hook scripts that `maguyva-guard install-hook` installs; package data."""
