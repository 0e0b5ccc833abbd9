"""The Evaluate pane's choice of run: the Run box, the Image mode and its seed, and the
Image run box an ablation run is linked to, and how each follows the others.

The rule is the command's (issue 24): ``evaluate`` names a run ``MODEL-ENGINE`` plus the
image mode's suffix (:func:`~medrcube_desktop.evaluation.engine_options.default_run_name`)
and links an ablation run to ``MODEL-ENGINE`` when that image run is stored. The pane
follows it while the user has typed nothing of their own: a name typed stays, a default
or a run picked from the list follows a change of mode.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QComboBox, QWidget

from medrcube_desktop.evaluation.engine_options import default_run_name
from medrcube_desktop.evaluation.image_modes import (
    IMAGE,
    IMAGE_OPTIONS,
    MODE_HELP,
    TEXT_ONLY,
    run_image_mode,
)
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui.widgets.option_fields import option_box, option_choice


class RunChoice(QObject):
    """The run fields of the Evaluate pane and their following rules.

    ``model`` and ``engine`` give the Model box's text and the engine chosen (read when
    a default name is made). Widgets: :attr:`run_name` (editable; the stored runs),
    :attr:`image_mode` and :attr:`image_seed` (``--image``, ``--image-seed``),
    :attr:`image_run` (editable; the stored image runs; ``--image-run``, enabled for an
    ablation only). The pane lays them out and connects ``run_name``'s text to its
    results.
    """

    def __init__(
        self,
        store: StudyStore,
        model: Callable[[], str],
        engine: Callable[[], str],
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.store, self._model, self._engine = store, model, engine
        self.auto_name = ""
        """The Run box's text as the pane set it (a default, or a run picked)."""
        self._auto_image_run = ""  # the Image run box's text as the pane set it
        self._filling = False  # a stored run's own mode is being shown
        self.run_name = QComboBox()
        self.run_name.setEditable(True)
        self.run_name.setObjectName("runName")
        self.run_name.lineEdit().setPlaceholderText("default: MODEL-ENGINE (as the CLI names it)")
        self.run_name.activated.connect(self._run_picked)
        self.image_run = QComboBox()
        self.image_run.setEditable(True)
        self.image_run.setObjectName("option_image_run")
        self.image_run.setToolTip(
            IMAGE_OPTIONS["image_run"].help_text()
            + f" (the command's {IMAGE_OPTIONS['image_run'].flag})"
        )
        self.image_run.lineEdit().setPlaceholderText("default: MODEL-ENGINE when stored")
        self.image_run.setMinimumWidth(260)
        self.image_mode = option_choice(IMAGE_OPTIONS["image_mode"], MODE_HELP)
        self.image_seed = option_box(IMAGE_OPTIONS["image_seed"])
        self.image_mode.currentIndexChanged.connect(self._image_mode_changed)

    def mode(self) -> str:
        """The image mode chosen (:data:`~medrcube_desktop.evaluation.image_modes.IMAGE_MODES`)."""
        return str(self.image_mode.currentData())

    def fill(self) -> None:
        """The stored runs in the Run box (the first one shown when the box is empty)
        and the stored image runs in the Image run box; what is typed in each stays."""
        current = self.run_name.currentText()
        self.run_name.blockSignals(True)
        self.run_name.clear()
        names = self.store.eval_run_names()
        self.run_name.addItems(names)
        if not current:  # the first stored run, as picked
            current = self.auto_name = self.run_name.itemText(0) if names else ""
        self.run_name.setEditText(current)
        self.run_name.blockSignals(False)
        typed = self.image_run.currentText()
        self.image_run.clear()
        self.image_run.addItems(
            [n for n in names if (r := self.store.eval_run(n)) and run_image_mode(r) == IMAGE]
        )
        self.image_run.setEditText(typed)
        self._image_mode_shown()

    def name_or_default(self) -> str:
        """The Run box's name, or (empty) the command's default name for the model,
        engine and mode, then put in the box. "" without a model."""
        run = self.run_name.currentText().strip()
        model = self._model()
        if not run and model:
            run = self.auto_name = default_run_name(model, self._engine(), self.mode())
            self.run_name.setEditText(run)
        return run

    def show_stored(self, params: dict) -> None:
        """A stored run's image mode and seed (its ``params["image"]``), shown without
        the Run box following the mode: it stays on that run."""
        image = params.get("image") or {}
        mode = TEXT_ONLY if image.get("text_only") else image.get("mode") or IMAGE
        self._filling = True
        try:
            self.image_mode.setCurrentIndex(max(0, self.image_mode.findData(mode)))
        finally:
            self._filling = False
        self.image_seed.setValue(int(image.get("seed") or 0))

    def _run_picked(self, _index: int) -> None:
        """A run picked from the list: a name the pane may follow with the mode."""
        self.auto_name = self.run_name.currentText()

    def name_follows(self, mode: str) -> bool:
        """Whether the Run box follows a change to image mode ``mode``: it holds no name
        the user typed (empty, the default name the pane gave it, a run picked from the
        list), or it names a stored run of another mode (which Start would resume
        under ``mode``)."""
        text = self.run_name.currentText().strip()
        if not text or text == self.auto_name:
            return True
        stored = self.store.eval_run(text)
        return stored is not None and run_image_mode(stored) != mode

    def current_image_run(self) -> str:
        """The image run an ablation of what the pane shows is linked to: the Run box's
        run when it is a stored image run, the image run a stored ablation run is linked
        to (either of the Model box's model), else the CLI's default
        (:func:`default_run_name` in image mode: what ``evaluate`` links to when
        ``--image-run`` is left out) when it is stored; "" when none is (the run is
        then stored unlinked, as ``evaluate`` stores it)."""
        model = self._model()
        stored = self.store.eval_run(self.run_name.currentText().strip())
        if stored is not None and stored.model == model:
            if run_image_mode(stored) == IMAGE:
                return stored.name
            if stored.image_run:
                return stored.image_run
        if not model:
            return ""
        default = default_run_name(model, self._engine(), IMAGE)
        found = self.store.eval_run(default)
        return default if found is not None and run_image_mode(found) == IMAGE else ""

    def _image_mode_changed(self, _index: int) -> None:
        """The user chose another image mode: a Run box not typed in follows it (the
        default name of that mode, as ``evaluate`` names the run) and, for an ablation,
        the Image run box not typed in is the current image run."""
        self._image_mode_shown()
        if self._filling:  # a stored run's own mode, shown
            return
        mode = self.mode()
        if mode != IMAGE:
            image_run = self.current_image_run()
            if self.image_run.currentText().strip() in ("", self._auto_image_run):
                self._auto_image_run = image_run
                self.image_run.setEditText(image_run)
        if self.name_follows(mode):
            model = self._model()
            name = default_run_name(model, self._engine(), mode) if model else ""
            self.auto_name = name
            self.run_name.setEditText(name)  # not modified: the results follow at once

    def _image_mode_shown(self) -> None:
        """The Image run box is for ablation runs only (``--image-run`` with ``--image
        image`` is refused by the command)."""
        self.image_run.setEnabled(self.mode() != IMAGE)

    def image_run_given(self) -> str | None:
        """The Image run box as Start passes it (``--image-run``): None when blank or
        for an image run."""
        text = self.image_run.currentText().strip()
        return text if text and self.mode() != IMAGE else None
