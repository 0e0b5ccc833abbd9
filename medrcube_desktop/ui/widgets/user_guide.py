"""Help › User guide: the Markdown pages of ``docs/`` shown in the app (offline, also in
the frozen bundle), links between pages and images included."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QImage, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.ui.widgets.screen import fit_to_screen

FIRST_PAGE = "index.md"


def guide_dir() -> Path:
    """The folder holding the user guide's pages (``index.md`` and the others, ``img/``).

    Installed (wheel or frozen bundle) they are package data, ``medrcube_desktop/guide``
    (``pyproject.toml`` maps it to ``docs/``; ``packaging/medrcube-desktop.spec`` copies
    them); in a source checkout or an editable install, ``docs/`` beside the package.

    Raises
    ------
    FileNotFoundError
        Neither holds ``index.md`` (names both folders).
    """
    import medrcube_desktop

    package = Path(medrcube_desktop.__file__).resolve().parent
    places = (package / "guide", package.parent / "docs")
    for folder in places:
        if (folder / FIRST_PAGE).is_file():
            return folder
    raise FileNotFoundError(
        f"the user guide is not installed: no {FIRST_PAGE} in {places[0]} or {places[1]}"
    )


def heading_anchor(text: str) -> str:
    """The anchor GitHub gives a heading, which the pages' links use: lower case, spaces
    to ``-``, punctuation other than ``-`` and ``_`` dropped
    ("`medrcube-desktop agreement`" → ``medrcube-desktop-agreement``)."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


IMAGE_WIDTH = 760
"""The widest a picture of the guide is shown (px); wider ones are scaled down."""


class GuideBrowser(QTextBrowser):
    """A :class:`QTextBrowser` that shows the pages' pictures (screenshots up to 1280 px
    wide) at most :data:`IMAGE_WIDTH` wide, so a page reads without scrolling sideways."""

    def loadResource(self, kind: int, url: QUrl):  # noqa: N802 (Qt override)
        resource = super().loadResource(kind, url)
        if kind == QTextDocument.ResourceType.ImageResource.value and resource is not None:
            image = resource if isinstance(resource, QImage) else QImage.fromData(resource)
            if not image.isNull() and image.width() > IMAGE_WIDTH:
                return image.scaledToWidth(IMAGE_WIDTH, Qt.TransformationMode.SmoothTransformation)
        return resource


class UserGuideDialog(QDialog):
    """The guide in a :class:`QTextBrowser`: ``setSource`` reads a page as Markdown (by its
    ``.md`` suffix), resolves its images and relative links against the page's folder, and
    keeps the history (Back, Forward); web links open in the system's browser
    (:meth:`follow_link`). Headings
    get the anchors GitHub gives them, so ``page.md#section`` links land on the section.
    """

    def __init__(self, parent: QWidget | None = None, folder: Path | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("userGuide")
        self.setWindowTitle("User guide")
        self.folder = folder if folder is not None else guide_dir()
        self.browser = GuideBrowser(self)
        self.browser.setObjectName("userGuideText")
        self.browser.setOpenLinks(False)  # followed by follow_link
        self.browser.anchorClicked.connect(self.follow_link)
        self.browser.sourceChanged.connect(self._page_shown)
        self.note = QLabel("", self)
        self.note.setObjectName("userGuideNote")
        back, forward, home = (QPushButton(t, self) for t in ("Back", "Forward", "Contents"))
        back.clicked.connect(self.browser.backward)
        forward.clicked.connect(self.browser.forward)
        home.clicked.connect(lambda: self.show_page(FIRST_PAGE))
        self.browser.backwardAvailable.connect(back.setEnabled)
        self.browser.forwardAvailable.connect(forward.setEnabled)
        back.setEnabled(False)
        forward.setEnabled(False)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        close.rejected.connect(self.close)
        bar = QHBoxLayout()
        for button in (back, forward, home):
            bar.addWidget(button)
        bar.addWidget(self.note, 1)
        bar.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addLayout(bar)
        fit_to_screen(self, 900, 760)
        self.show_page(FIRST_PAGE)

    def show_page(self, page: str) -> None:
        """Show ``page`` (a file name of the guide, optionally with ``#anchor``)."""
        name, _, anchor = page.partition("#")
        url = QUrl.fromLocalFile(str(self.folder / name))
        if anchor:
            url.setFragment(anchor)
        self.browser.setSource(url, QTextDocument.ResourceType.MarkdownResource)

    def follow_link(self, url: QUrl) -> None:
        """A clicked link: a page or picture of the guide is shown here, a web or mail
        link opens in the system's browser or mail program; anything else (a file outside
        the guide, which the installed app does not ship) is named below the page."""
        self.note.setText("")
        if url.scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)
            return
        if url.isRelative():
            url = self.browser.source().resolved(url)
        path = Path(url.toLocalFile()).resolve()
        if url.isLocalFile() and path.is_file() and path.is_relative_to(self.folder.resolve()):
            self.browser.setSource(url, QTextDocument.ResourceType.MarkdownResource)
        elif url.isLocalFile() and not url.path() and url.fragment():
            self.browser.scrollToAnchor(url.fragment())
        else:
            self.note.setText(f"not part of the user guide: {url.toString()}")

    def page(self) -> str:
        """The file name of the page shown (``"index.md"``)."""
        return Path(self.browser.source().toLocalFile()).name

    def title(self) -> str:
        """The page's first heading, as shown."""
        document = self.browser.document()
        block = document.begin()
        while block.isValid():
            if block.blockFormat().headingLevel() > 0:
                return block.text()
            block = block.next()
        return ""

    def _page_shown(self, url: QUrl) -> None:
        document = self.browser.document()
        block = document.begin()
        while block.isValid():
            if block.blockFormat().headingLevel() > 0 and block.text():
                cursor = QTextCursor(block)
                cursor.select(QTextCursor.SelectionType.BlockUnderCursor)
                anchor = QTextCharFormat()
                anchor.setAnchor(True)
                anchor.setAnchorNames([heading_anchor(block.text())])
                cursor.mergeCharFormat(anchor)
            block = block.next()
        if url.fragment():
            self.browser.scrollToAnchor(url.fragment())


def open_user_guide(parent: QWidget) -> UserGuideDialog | None:
    """Help › User guide: show the guide beside the window (not modal: one may keep
    reviewing), reusing the one already open. None, with a message saying where it was
    looked for, when the guide is not installed."""
    dialog = parent.findChild(UserGuideDialog, "userGuide")
    if dialog is None:
        try:
            dialog = UserGuideDialog(parent)
        except FileNotFoundError as error:
            QMessageBox.warning(parent, "User guide", str(error))
            return None
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    return dialog
