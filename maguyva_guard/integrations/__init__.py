"""Integrations: where the guard meets git hooks and GitHub.

Owns the hook installer (hookinstall.py), pre-push revisions (prepush.py), the GitHub REST
client (github_api.py), the sticky pull-request comment (github.py) and the Action's step
outputs (action.py).

May import: the top-level basics and every stage up to report.
"""

# What `--hook` accepts (hookinstall.py), here so that the command line can list them
# without importing the installer on every command (the pre-commit hook's start-up).
HOOK_TYPES = ("pre-commit", "pre-push")
