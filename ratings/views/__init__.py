"""The server-rendered pages: public standings (``pages``) and the organisers' view (``config``)."""
