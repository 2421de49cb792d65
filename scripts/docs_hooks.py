"""MkDocs hooks (mkdocs.yml `hooks:`): the pages generated as the site builds, so none is kept in git
and none can fall behind the code.

- the reference (app/reference/pages.py): a page per op, the rule index, the rules of files and
  graphs, the op index, from the registry and the rule book;
- the settings table in docs/settings.md, from app/core/config.py's Settings.
"""

from __future__ import annotations

from mkdocs.structure.files import File, Files


def on_files(files: Files, config, **_) -> Files:
    from app.reference.pages import pages

    for path, text in pages().items():
        files.append(File.generated(config, path, content=text))
    return files


def on_page_markdown(markdown: str, page, **_) -> str:
    from app.reference.pages import SETTINGS_MARK, settings_table

    return markdown.replace(SETTINGS_MARK, settings_table()) if SETTINGS_MARK in markdown else markdown
