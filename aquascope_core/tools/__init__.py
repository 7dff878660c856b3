"""The callables behind the catalogue's tools (see aquascope_core.catalogue).

A tool wraps one or more methods for a study step: it reads the data it needs through a
:class:`~aquascope_core.tools.context.DataContext`, calls the methods, and returns one JSON-safe
payload with ``meta``. Tools that read data take ``data=`` (bound by the runner), never named in a plan.
"""
