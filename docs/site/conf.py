"""Sphinx configuration of the book (make site): the executed lessons as web pages.

Why Sphinx + MyST-NB + the Sphinx Book Theme (the stack of Jupyter Book 1) rather than mystmd
(Jupyter Book 2): mystmd downloads its HTML theme from api.mystmd.org at build time, which a
machine with no network cannot reach; this stack is all on PyPI and builds offline, with a
search box (Sphinx's own index, no server) and warnings-as-errors for broken internal links.
"""

project = "toolsys"
author = "the toolsys authors"
extensions = ["myst_nb"]
nb_execution_mode = "off"  # the lessons are committed executed: show exactly those outputs
nb_output_stderr = "show"
myst_enable_extensions = ["colon_fence"]
html_theme = "sphinx_book_theme"
html_title = "toolsys: engineer an LLM agent's tool system"
html_theme_options = {"show_toc_level": 2, "navigation_with_keys": False}
exclude_patterns = ["_build"]
suppress_warnings = ["mystnb.unknown_mime_type"]
