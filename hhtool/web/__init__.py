"""The web application of ``hhtool serve``: pages and a JSON API over one database (``docs/serve.md``)."""
