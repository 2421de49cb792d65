"""Readers: each turns one native file into a FileReport (app/report/model.py) of units and findings.

app/formats/readers.py holds the table of formats, one row each: which reader reads a file (by its
extension and content), and for a graph format the module that parses it.
"""
