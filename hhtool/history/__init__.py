"""The hand-history text: files and archives to hands, hands to typed events, events back to text.

The first stage of the pipeline (``docs/architecture.md``): :mod:`.files` and
:mod:`.inputs` say which files are read, :mod:`.reader` splits them into hands
as a stream, :mod:`.parse` reads one hand (through the grammar of
:mod:`.grammar` and the table of line kinds of :mod:`.lines`: the C reader of
:mod:`hhtool._native` for the common hands, the Python builder of :mod:`.build`
for the rest) into the events of :mod:`.events`, which :mod:`.visit`'s visitor
takes one kind at a time; :mod:`.write` prints them back, :mod:`.jsonify` gives
them as JSON.
Amounts (:mod:`.money`, :mod:`.currency`), time zones (:mod:`.zones`), the size
bounds (:mod:`.bounds`) and the errors of a hand that cannot be read
(:mod:`.errors`) belong to the text too.
"""
