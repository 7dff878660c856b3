"""The crew: one function per role over the shared workspace, each with a keyless behaviour.

Consultant -> Scout -> Methodologist -> (the user approves) -> Analysts -> Interpreter -> Critic -> Author.
Roles import aquascope_core only; they never import langgraph. ``roles.model`` is the only place
litellm is imported, lazily, when a model is asked for.
"""

from __future__ import annotations

from roles.analysts import analysts
from roles.author import author
from roles.consultant import consultant
from roles.critic import critic
from roles.interpreter import interpreter
from roles.methodologist import methodologist
from roles.scout import scout

__all__ = ["consultant", "scout", "methodologist", "analysts", "interpreter", "critic", "author", "ROLES"]

ROLES = ("consultant", "scout", "methodologist", "analysts", "interpreter", "critic", "author")
