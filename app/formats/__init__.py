"""Readers: each turns one native file into a FileReport (app/report/model.py) of units and findings.

app/formats/readers.py holds the table that picks a reader by a file's extension and content.
"""
