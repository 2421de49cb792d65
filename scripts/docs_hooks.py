"""MkDocs hooks (mkdocs.yml `hooks:`): the pages generated as the site builds, so none is kept in git
and none can fall behind the code.

- the reference (app/reference/pages.py): a page per op, the rule index, the rules of files and
  graphs, the op index, from the registry and the rule book;
- the tables in hand-written pages (pages.TABLES): the settings in docs/settings.md, from
  app/core/config.py's Settings; the report formats in docs/cli.md, from app/report/__init__.py's FORMATS.
"""

from __future__ import annotations

from mkdocs.structure.files import File, Files


def on_files(files: Files, config, **_) -> Files:
    from app.reference.pages import pages

    for path, text in pages().items():
        files.append(File.generated(config, path, content=text))
    return files


def on_page_markdown(markdown: str, page, **_) -> str:
    from app.reference.pages import TABLES

    for mark, table in TABLES.items():
        if mark in markdown:
            markdown = markdown.replace(mark, table())
    return markdown
