"""User actions as data (STYLE.md rule 11): menus, shortcuts and the cheat-sheet come
from one table, so a key is defined in exactly one place."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.imaging.render import CT_PRESETS
from medrcube_desktop.ui.widgets.text_keys import guard_text_fields
from medrcube_desktop.ui.widgets.themes import THEMES
from medrcube_desktop.ui.widgets.user_guide import open_user_guide

MENUS: tuple[str, ...] = ("File", "Review", "View", "Help")


@dataclass(frozen=True)
class ActionSpec:
    """One user action.

    Attributes
    ----------
    id : str
        Stable identifier, e.g. ``"review.commit"`` (for remapping later).
    title : str
        Menu and cheat-sheet text.
    shortcuts : tuple of str
        Default keys in ``QKeySequence`` notation.
    handler : callable
        Called with no argument. It may return what it did, as a short sentence
        ("Rule 1.1 passed"); the status bar then shows it with the action's key (see
        :func:`install_actions`). ``""`` means that nothing happened and the status bar
        is left as it is.
    menu : str
        One of :data:`MENUS`.
    enabled_when : callable or None
        Returns whether the action can run now; ``None`` means always. Checked by
        :func:`refresh_enabled` after every change of the review state.
    """

    id: str
    title: str
    shortcuts: tuple[str, ...]
    handler: Callable[[], str | None]
    menu: str = "Review"
    enabled_when: Callable[[], bool] | None = None


def effective_keys(spec: ActionSpec, overrides: dict[str, list[str]]) -> tuple[str, ...]:
    """The keys of an action: the user's remapping (settings ``shortcuts``) or the default."""
    return tuple(overrides[spec.id]) if spec.id in overrides else spec.shortcuts


def install_actions(
    window: QMainWindow,
    specs: list[ActionSpec],
    overrides: dict[str, list[str]] | None = None,
    on_trigger: Callable[[str], None] | None = None,
) -> dict[str, QAction]:
    """Create one QAction per spec in the window's menus; return them by id.

    ``overrides`` remaps keys by action id; ``on_trigger(action_id)`` is called before
    each handler (activity tracking; tests use it to see which action a key ran).

    Nothing changes silently: after an action whose key is a single key (no Ctrl, Alt
    or Meta), the status bar says what happened, with the key: the sentence its handler
    returns ("Rule 1.1 passed (key 1)"), else, when the handler returned None and showed
    no message of its own, the action's title ("Zoom in (key +)"); ``""`` says nothing. Single keys never act while a text
    field has the focus (:func:`~medrcube_desktop.ui.widgets.text_keys.guard_text_fields`,
    installed here once for the application).
    """
    guard_text_fields()
    menus = {name: window.menuBar().addMenu(f"&{name}") for name in MENUS}
    actions: dict[str, QAction] = {}
    for spec in specs:
        action = QAction(spec.title, window)
        action.setShortcuts([QKeySequence(k) for k in effective_keys(spec, overrides or {})])
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(_no_argument(spec, on_trigger, window, action))
        menus[spec.menu].addAction(action)
        actions[spec.id] = action
    return actions


def refresh_enabled(specs: list[ActionSpec], actions: dict[str, QAction]) -> None:
    """Enable or disable each action from its ``enabled_when``."""
    for spec in specs:
        if spec.enabled_when is not None:
            actions[spec.id].setEnabled(bool(spec.enabled_when()))


def keymap_conflicts(specs: list[ActionSpec], overrides: dict[str, list[str]]) -> list[str]:
    """Keys bound to more than one action, as messages ("Ctrl+Z: Undo and Quit").

    Keys are compared in ``QKeySequence`` portable form, so "ctrl+z" equals "Ctrl+Z".
    """
    owners: dict[str, list[str]] = {}
    for spec in specs:
        for key in effective_keys(spec, overrides):
            text = QKeySequence(key).toString(QKeySequence.SequenceFormat.PortableText)
            if text:
                owners.setdefault(text, []).append(spec.title)
    return [f"{key}: {' and '.join(titles)}" for key, titles in owners.items() if len(titles) > 1]


def usable_overrides(
    specs: list[ActionSpec], overrides: dict[str, list[str]]
) -> tuple[dict[str, list[str]], list[str]]:
    """The remapped keys that can be used, and why the others are ignored.

    Dropped: unknown action ids, key texts Qt cannot read, and every remapping that
    makes two actions share a key (both keep their defaults then), so a hand-edited
    ``settings.json`` never leaves a key that silently does nothing.
    """
    known = {spec.id for spec in specs}
    usable: dict[str, list[str]] = {}
    problems: list[str] = []
    for action, keys in overrides.items():
        if action not in known:
            problems.append(f"unknown action {action!r} ignored")
            continue
        bad = [k for k in keys if k and QKeySequence(k).toString() == ""]
        if bad:
            problems.append(f"{action}: key {bad[0]!r} is not a key Qt knows; default kept")
            continue
        usable[action] = [k for k in keys if k]
    conflicts = keymap_conflicts(specs, usable)
    if conflicts:
        problems += [f"{c}: defaults kept" for c in conflicts]
        clashing = {
            QKeySequence(k).toString(QKeySequence.SequenceFormat.PortableText)
            for c in conflicts
            for k in [c.split(":", 1)[0]]
        }
        usable = {
            action: keys
            for action, keys in usable.items()
            if not any(
                QKeySequence(k).toString(QKeySequence.SequenceFormat.PortableText) in clashing
                for k in keys
            )
        }
    return usable, problems


def _no_argument(
    spec: ActionSpec,
    on_trigger: Callable[[str], None] | None,
    window: QMainWindow,
    action: QAction,
) -> Callable[[], None]:
    """A slot that takes no argument, so PySide6 never passes ``triggered(bool)`` to it.

    A lambda with default arguments would receive the bool in its first default (and such
    slots were seen to upset the refcount of ``True``/``False`` at interpreter exit).
    After the handler, the status bar says what a single-key action did (see
    :func:`install_actions`).
    """

    def slot() -> None:
        if on_trigger is not None:
            on_trigger(spec.id)
        key = single_key_of(action)
        if key is None:
            spec.handler()
            return
        bar = window.statusBar()
        shown: list[str] = []

        def message_changed(text: str) -> None:
            shown.append(text)

        bar.messageChanged.connect(message_changed)
        try:
            said = spec.handler()
        finally:
            bar.messageChanged.disconnect(message_changed)
        if said:
            bar.showMessage(f"{said} (key {key})", STATUS_MS)
        elif said is None and not any(shown):  # it said nothing itself: its title says it
            bar.showMessage(f"{spec.title} (key {key})", STATUS_MS)

    return slot


STATUS_MS = 4000
"""How long the status bar says what a single key did (ms)."""


def single_key_of(action: QAction) -> str | None:
    """The first of ``action``'s keys that is a single key (no Ctrl, Alt or Meta), as
    the keyboard names it ("1", "P", "PgDown"); None when it has none."""
    plain = Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.KeypadModifier
    for sequence in action.shortcuts():
        if sequence.count() == 1 and not sequence[0].keyboardModifiers() & ~plain:
            text = sequence.toString(QKeySequence.SequenceFormat.NativeText)
            return "Enter" if text == "Return" else text
    return None


def cheat_sheet_html(specs: list[ActionSpec], actions: dict[str, QAction] | None = None) -> str:
    """Every action and its keys (as remapped), grouped by menu, in two columns (the
    Review menu first: the keys used most), plus the mouse gestures."""
    rows = []
    for menu in ("Review", "View", "File", "Help"):
        for spec in (s for s in specs if s.menu == menu):
            sequences = (
                actions[spec.id].shortcuts()
                if actions is not None
                else [QKeySequence(k) for k in spec.shortcuts]
            )
            keys = ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in sequences)
            rows.append(
                f"<tr><td style='padding-right:18px'><b>{escape(keys) or '—'}</b></td>"
                f"<td>{escape(spec.title)}</td><td style='color:#57606a'>{menu}</td></tr>"
            )
    rows += [
        f"<tr><td style='padding-right:18px'><b>{gesture}</b></td><td>{what}</td>"
        "<td style='color:#57606a'>Mouse</td></tr>"
        for gesture, what in MOUSE_GESTURES
    ]
    half = (len(rows) + 1) // 2
    columns = [
        "<table cellspacing='3'>" + "".join(part) + "</table>"
        for part in (rows[:half], rows[half:])
    ]
    return (
        "<table><tr><td valign='top'>"
        + columns[0]
        + "</td><td width='24'></td><td valign='top'>"
        + columns[1]
        + "</td></tr></table>"
    )


MOUSE_GESTURES: tuple[tuple[str, str], ...] = (
    ("Wheel", "Zoom about the cursor"),
    ("Left drag", "Pan"),
    ("Right drag", "Window: horizontal width, vertical center"),
    ("Move the mouse", "Value under the cursor (HU for CT), top-left corner"),
    ("D, then left drag", "Caliper: distance in mm (Esc clears)"),
    ("Click a rule", "Fail / pass it"),
)


def review_actions(window) -> list[ActionSpec]:
    """Every action of the review window (a :class:`MainWindow`), in menu order: each row
    calls the window or one of its parts (``window.image``, ``window.scoring``,
    ``window.tools``, ``window.shortcuts``, ``window.panes``)."""
    view = window.image_view
    specs = [
        ActionSpec(
            f"rule.{rule}",
            f"Fail / pass rule {rule}",
            (str(n),),
            lambda r=rule: window.scoring.toggle_rule(r),
        )
        for n, rule in enumerate(RULE_IDS, start=1)
    ]
    specs += [
        ActionSpec(
            f"rule.{rule}.cannot_judge",
            f"Cannot judge rule {rule} (again: unscored)",
            (f"Alt+{n}",),
            lambda r=rule: window.scoring.abstain_rule(r),
        )
        for n, rule in enumerate(RULE_IDS, start=1)
    ]
    return specs + [
        ActionSpec(
            "review.pass_rest", "Pass every unscored rule", ("P",), window.scoring.pass_unscored
        ),
        ActionSpec(
            "review.commit",
            "Commit and next",
            ("Return", "Enter", "Ctrl+Return"),
            window.scoring.commit,
        ),
        ActionSpec(
            "review.leave_comment",
            "Leave the comment box / clear the caliper",
            ("Escape",),
            window.image.escape,
        ),
        ActionSpec(
            "review.next", "Next item (no commit)", ("Ctrl+Down",), lambda: window.step_item(1)
        ),
        ActionSpec(
            "review.previous",
            "Previous item",
            ("Backspace", "Ctrl+Up"),
            lambda: window.step_item(-1),
        ),
        ActionSpec("review.flag", "Flag / unflag the item", ("F",), window.scoring.toggle_flag),
        ActionSpec(
            "review.undo",
            "Undo score or comment edit",
            ("Ctrl+Z",),
            window.scoring.undo,
            enabled_when=lambda: window.scoring.can_undo(),
        ),
        ActionSpec(
            "review.redo",
            "Redo",
            ("Ctrl+Shift+Z", "Ctrl+Y"),
            window.scoring.redo,
            enabled_when=lambda: window.scoring.can_redo(),
        ),
        ActionSpec(
            "review.search", "Search question and options", ("Ctrl+F",), window.focus_search
        ),
        ActionSpec(
            "review.llm",
            "Run LLM review…",
            ("Ctrl+Shift+L",),
            lambda: window.panes.open("judge"),
        ),
        ActionSpec(
            "review.agreement",
            "Agreement study…",
            ("Ctrl+Shift+A",),
            lambda: window.panes.open("agreement"),
        ),
        ActionSpec(
            "review.adjudicate",
            "Adjudicate disagreements…",
            ("Ctrl+Shift+J",),
            lambda: window.panes.open("adjudication"),
        ),
        ActionSpec(
            "review.evaluate",
            "Evaluate a model…",
            ("Ctrl+Shift+E",),
            lambda: window.panes.open("evaluate"),
        ),
        ActionSpec(
            "review.compare",
            "Compare models…",
            ("Ctrl+Shift+M",),
            lambda: window.panes.open("compare"),
        ),
        ActionSpec(
            "review.propose",
            "Propose correction…",
            ("Ctrl+Shift+C",),
            lambda: window.corrections.propose(),
            enabled_when=lambda: window.corrections.can_propose(),
        ),
        ActionSpec(
            "review.proposals",
            "Proposals (accept, reject)…",
            ("Ctrl+Shift+G",),
            lambda: window.open_proposals_pane() and None,
        ),
        ActionSpec("view.zoom_in", "Zoom in", ("+", "="), lambda: view.zoom(1.25), "View"),
        ActionSpec("view.zoom_out", "Zoom out", ("-",), lambda: view.zoom(0.8), "View"),
        ActionSpec("view.fit", "Fit image to the window", ("0",), view.fit, "View"),
        ActionSpec(
            "view.overlay", "Hide / show the overlay", ("M",), window.image.toggle_overlay, "View"
        ),
        ActionSpec("view.invert", "Invert (negative)", ("I",), window.image.toggle_invert, "View"),
        ActionSpec(
            "view.file_window",
            "Next window stored in the file",
            ("V",),
            window.image.next_file_window,
            "View",
        ),
        ActionSpec(
            "view.outline", "Mask: filled / outline", ("O",), window.image.toggle_outline, "View"
        ),
        ActionSpec(
            "view.caliper",
            "Measure a distance (caliper)",
            ("D",),
            window.image.toggle_caliper,
            "View",
        ),
        ActionSpec(
            "view.neurological",
            "Neurological convention (patient right on screen right)",
            ("Ctrl+Shift+N",),
            window.image.toggle_neurological,
            "View",
        ),
        ActionSpec(
            "view.opacity_down",
            "Mask opacity −",
            ("[",),
            lambda: window.image.change_opacity(-0.1),
            "View",
        ),
        ActionSpec(
            "view.opacity_up",
            "Mask opacity +",
            ("]",),
            lambda: window.image.change_opacity(0.1),
            "View",
        ),
        ActionSpec(
            "view.window_reset",
            "Window: the file's own",
            ("W",),
            lambda: window.image.set_window(None),
            "View",
        ),
        *(
            ActionSpec(
                f"view.preset.{name}",
                f"CT window: {name} (C {c:g} / W {w:g})",
                (f"Ctrl+{n}",),
                (lambda preset=(c, w): window.image.set_window(preset)),
                "View",
            )
            for n, (name, (c, w)) in enumerate(CT_PRESETS.items(), start=1)
        ),
        ActionSpec(
            "view.next_slice", "Next slice", ("PgDown",), lambda: window.image.step_slice(1), "View"
        ),
        ActionSpec(
            "view.previous_slice",
            "Previous slice",
            ("PgUp",),
            lambda: window.image.step_slice(-1),
            "View",
        ),
        ActionSpec(
            "view.problems",
            "Benchmark problems…",
            ("Ctrl+Shift+P",),
            lambda: window.tools.show_problems(),
            "View",
        ),
        *(
            ActionSpec(
                f"view.theme.{theme}",
                f"Theme: {title}",
                (),
                (lambda name=theme: window.tools.set_theme(name)),
                "View",
            )
            for theme, title in THEMES.items()
        ),
        ActionSpec(
            "view.text_larger",
            "Larger text",
            ("Ctrl+Alt+=",),
            lambda: window.tools.scale_font(1),
            "View",
        ),
        ActionSpec(
            "view.text_smaller",
            "Smaller text",
            ("Ctrl+Alt+-",),
            lambda: window.tools.scale_font(-1),
            "View",
        ),
        ActionSpec(
            "help.shortcuts",
            "Keyboard shortcuts",
            ("?", "F1"),
            lambda: window.shortcuts.show_shortcuts(),
            "Help",
        ),
        ActionSpec(
            "help.guide",
            "User guide",
            (),
            lambda: open_user_guide(window) and None,
            "Help",
        ),
        ActionSpec(
            "help.remap",
            "Customise shortcuts…",
            ("Ctrl+Shift+K",),
            lambda: window.shortcuts.edit_shortcuts(),
            "Help",
        ),
        ActionSpec(
            "app.study",
            "Study settings (blinding, comments, repeats)…",
            ("Ctrl+Shift+S",),
            lambda: window.tools.edit_study_settings(),
            "File",
        ),
        ActionSpec(
            "app.reviewer",
            "Change reviewer…",
            ("Ctrl+Shift+R",),
            lambda: window.ask_reviewer(),
            "File",
        ),
        ActionSpec("app.quit", "Quit", ("Ctrl+Q",), lambda: window.close(), "File"),
    ]
