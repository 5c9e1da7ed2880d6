"""The grammar of FORMAT.md (``telesina.lark``), shipped as the package ``hhtool.grammars``.

This folder is the grammar's home at the top of the project; setup.py maps the
package ``hhtool.grammars`` to it, so the installed package (a wheel or an
editable install) reads the grammar from here without a link.
"""
