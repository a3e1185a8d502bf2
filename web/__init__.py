"""The web pages: the public pages (``web.public``) and the organisers' workspace
(``web.workspace``). They format what ``ratings.selectors`` return and call the write
services of ``league``; nothing below imports them, and they never import ``api``."""
