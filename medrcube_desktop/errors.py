"""The one exception hierarchy of MedRCube Desktop (STYLE.md rule 5).

The core raises these; only the CLI and UI edges decide how to show them.
"""


class MedRCubeError(Exception):
    """Base of every error the app raises on purpose."""


class DatasetError(MedRCubeError):
    """A benchmark folder cannot be used at all (missing, not a folder, no ``test.json``)."""


class ImageLoadError(MedRCubeError):
    """An image or mask file cannot be read or rendered; the message names the file."""


class StoreError(MedRCubeError):
    """The review database cannot be opened, migrated or written."""


class CorrectionError(MedRCubeError):
    """A proposed correction or its decision is refused (a change that does not fit the
    item, a proposal under blinding before the reviewer's own commit); the message names
    the file, the item and the field."""


class StoreBusy(StoreError):
    """A write gave up waiting for another connection's write lock: nothing of it was
    written, and trying again later can succeed."""


class JudgeError(MedRCubeError):
    """An LLM judgment could not be obtained or validated."""


class EngineError(MedRCubeError):
    """An evaluation engine failed to start or to answer."""
