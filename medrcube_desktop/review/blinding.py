"""The blinding rule of a study, in one place (the session and every pane ask it).

In a blind study a reviewer sees nothing of others' judgment of an item (the LLM's, other
reviewers') before committing their own review of it, and nothing while an intra-rater
repeat of it is open. Everything that could show a judgment per item — the review window's
reveal, the agreement study's counts and the items behind a cell — goes through these
functions, so no pane can leak what the review window still hides.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

__all__ = ["counted_items", "may_reveal", "visible_items"]


def may_reveal(blind: bool, committed: bool, repeat_open: bool = False) -> bool:
    """Whether others' judgments of one item may be shown to the viewer.

    Parameters
    ----------
    blind : bool
        The study is blind (``StudySettings.blind``).
    committed : bool
        The viewer has committed a review of the item.
    repeat_open : bool
        An intra-rater repeat of the item is being scored (hidden again until committed).
    """
    if repeat_open:
        return False
    return not blind or committed


def counted_items(blind: bool, committed: Collection[str]) -> set[str] | None:
    """The items an agreement computation may count for this viewer.

    ``None`` means every item (not blind); in a blind study only the items in
    ``committed`` (the viewer's committed reviews), so not even a count is computed over
    an item whose judgment the viewer has not earned the right to see.
    """
    return set(committed) if blind else None


def visible_items(blind: bool, committed: Collection[str], item_ids: Iterable[str]) -> list[str]:
    """``item_ids`` the viewer may be shown by id (blind: committed ones only), in order."""
    if not blind:
        return list(item_ids)
    return [item_id for item_id in item_ids if item_id in committed]
