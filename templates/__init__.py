"""Jinja templates of the reports (text, Markdown, SARIF); shipped as package data."""
